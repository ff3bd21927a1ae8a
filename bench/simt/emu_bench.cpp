// The emulator benchmark (issue 23): the four kernels of the issue, a matrixMul-style tiled product
// and, for each, a serial C++ loop over the same data in the same run as the floor. Prints each
// kernel's best launch time and its ratio to the serial loop.
//
// Usage: emu_bench [--workers N] [--runs R] [--only NAME] [--scaling] [--mm-launches L]
//   --workers N     emulator worker threads (default: all cores)
//   --runs R        launches per kernel; the best is kept (default 5)
//   --only NAME     vecadd, matmul, reduce, shfl or matrixmul
//   --scaling       4096-block sizes (vector add of 2^20, 1024x1024 matmul) for --emu-threads
//   scaling
//   --mm-launches L the matrixMul-style program's launches (default 31; NVIDIA's sample makes 301)
//
// Kernel time is the host's wall time around the launch (gpulab::simt::launch returns when every
// block is done: launch + synchronize). Times say nothing about a GPU.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#if defined(EMU_BENCH_HIP_CPU)
// The same kernels and harness built against ROCm's HIP-CPU for comparison
// (bench/simt/hipcpu_compare.sh).
#include <hip/hip_runtime.h>
#define EMU_SHFL_DOWN(v, offset) __shfl_down(v, offset)
#else
#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#define EMU_SHFL_DOWN(v, offset) __shfl_down_sync(0xffffffffu, v, offset)
#endif

namespace emu_bench_kernels {

__global__ void vecadd(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) c[i] = a[i] + b[i];
}

// C = A * B, n x n, 16 x 16 tiles through shared memory (n a multiple of 16).
constexpr int kTile = 16;
__global__ void matmul_tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty;
  const int col = static_cast<int>(blockIdx.x) * kTile + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[ty][tx] = a[row * n + k0 + tx];
    bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// One partial sum per block: the classic __syncthreads tree in shared memory (block 256).
__global__ void reduce_tree(const float* in, float* partial, int n) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < static_cast<unsigned>(n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// One partial sum per warp, through __shfl_down_sync (no shared memory, no barrier).
__global__ void reduce_shfl(const float* in, float* partial, int n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < static_cast<unsigned>(n) ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1) v += EMU_SHFL_DOWN(v, offset);
  if ((threadIdx.x & 31) == 0) partial[i / 32] = v;
}

// NVIDIA's matrixMul sample's kernel shape: C = A * B with A hA x wA and B wA x wB, BLOCK x BLOCK
// tiles, one thread per element of C.
template <int BLOCK>
__global__ void matrix_mul(float* c, const float* a, const float* b, int wa, int wb) {
  __shared__ float as[BLOCK][BLOCK];
  __shared__ float bs[BLOCK][BLOCK];
  const int bx = static_cast<int>(blockIdx.x), by = static_cast<int>(blockIdx.y);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int a_begin = wa * BLOCK * by, a_end = a_begin + wa - 1, a_step = BLOCK;
  const int b_begin = BLOCK * bx, b_step = BLOCK * wb;
  float sum = 0.0f;
  for (int ia = a_begin, ib = b_begin; ia <= a_end; ia += a_step, ib += b_step) {
    as[ty][tx] = a[ia + wa * ty + tx];
    bs[ty][tx] = b[ib + wb * ty + tx];
    __syncthreads();
    for (int k = 0; k < BLOCK; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[wb * BLOCK * by + BLOCK * bx + wb * ty + tx] = sum;
}

}  // namespace emu_bench_kernels

namespace {

namespace k = emu_bench_kernels;
using Clock = std::chrono::steady_clock;

#if defined(EMU_BENCH_HIP_CPU)
struct RunOptions {
  unsigned workers = 0;  // HIP-CPU takes its threads from TBB: all cores
};
// A launch and the synchronize that waits for it.
template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 block, std::size_t shared, const RunOptions&,
            Args... args) {
  hipLaunchKernelGGL(kernel, grid, block, shared, nullptr, args...);
  if (hipDeviceSynchronize() != hipSuccess) std::abort();
}
const char* const kRunner = "HIP-CPU";
#else
using gpulab::simt::launch;
using gpulab::simt::RunOptions;
const char* const kRunner = "gpulab emulator";
#endif

struct Options {
  RunOptions run;
  int runs = 5;
  std::string only;
  bool scaling = false;
  int mm_launches = 31;
};

template <class F>
double best_ms(int runs, F&& f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return best;
}

// Keeps the compiler from dropping a serial loop whose result is unused.
template <class T>
void keep(const T& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

void row(const char* name, const char* shape, double emu_ms, double serial_ms, bool ok) {
  std::printf("%-16s %-38s kernel %10.2f ms   serial loop %9.2f ms   ratio %7.1fx   %s\n", name,
              shape, emu_ms, serial_ms, emu_ms / serial_ms, ok ? "ok" : "WRONG RESULT");
}

bool close(float got, float want, float tol) {
  return std::fabs(got - want) <= tol * std::max(1.0f, std::fabs(want));
}

bool run_vecadd(const Options& o) {
  const int n = o.scaling ? 1 << 20 : 1 << 24;
  std::vector<float> a(n), b(n), c(n), d(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000);
    b[i] = static_cast<float>(i % 7) * 0.5f;
  }
  const unsigned blocks = (n + 255) / 256;
  const double emu = best_ms(
      o.runs, [&] { launch(k::vecadd, blocks, 256, 0, o.run, a.data(), b.data(), c.data(), n); });
  const double serial = best_ms(o.runs, [&] {
    for (int i = 0; i < n; ++i) d[i] = a[i] + b[i];
    keep(d);
  });
  const bool ok = c == d;
  char shape[64];
  std::snprintf(shape, sizeof shape, "n=2^%d, %u blocks x 256", n == 1 << 20 ? 20 : 24, blocks);
  row("vector add", shape, emu, serial, ok);
  return ok;
}

bool run_matmul(const Options& o) {
  const int n = o.scaling ? 1024 : 512;
  std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size()), c(a.size()), d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 17) * 0.125f;
    b[i] = static_cast<float>(i % 13) * 0.25f - 1.0f;
  }
  const dim3 grid(static_cast<unsigned>(n / k::kTile), static_cast<unsigned>(n / k::kTile));
  const dim3 block(k::kTile, k::kTile);
  const double emu = best_ms(o.runs, [&] {
    launch(k::matmul_tiled, grid, block, 0, o.run, a.data(), b.data(), c.data(), n);
  });
  // The serial floor: the same sums in the same order (k ascending), i-k-j loop order so that
  // the inner loop streams rows.
  const double serial = best_ms(o.runs, [&] {
    std::fill(d.begin(), d.end(), 0.0f);
    for (int i = 0; i < n; ++i) {
      for (int kk = 0; kk < n; ++kk) {
        const float x = a[static_cast<std::size_t>(i) * n + kk];
        const float* brow = &b[static_cast<std::size_t>(kk) * n];
        float* drow = &d[static_cast<std::size_t>(i) * n];
        for (int j = 0; j < n; ++j) drow[j] += x * brow[j];
      }
    }
    keep(d);
  });
  bool ok = true;
  for (std::size_t i = 0; i < c.size(); ++i) ok = ok && close(c[i], d[i], 1e-4f);
  char shape[64];
  std::snprintf(shape, sizeof shape, "%dx%d, tile 16, %u blocks", n, n, grid.x * grid.y);
  row("tiled matmul", shape, emu, serial, ok);
  return ok;
}

bool run_reduce(const Options& o, bool shfl) {
  const int n = 1 << 24;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 64) * 0.015625f;
  const unsigned blocks = n / 256;
  std::vector<float> partial(shfl ? n / 32 : blocks);
  const double emu = best_ms(o.runs, [&] {
    launch(shfl ? k::reduce_shfl : k::reduce_tree, blocks, 256, 0, o.run, in.data(), partial.data(),
           n);
  });
  const std::size_t group = shfl ? 32 : 256;
  std::vector<float> want(partial.size());
  const double serial = best_ms(o.runs, [&] {
    for (std::size_t p = 0; p < want.size(); ++p) {
      float s = 0.0f;
      for (std::size_t i = p * group; i < (p + 1) * group; ++i) s += in[i];
      want[p] = s;
    }
    keep(want);
  });
  bool ok = true;
  for (std::size_t p = 0; p < want.size(); ++p) ok = ok && close(partial[p], want[p], 1e-5f);
  row(shfl ? "shfl reduction" : "block reduction",
      shfl ? "2^24 floats, __shfl_down_sync per warp" : "2^24 floats, __syncthreads tree, 256", emu,
      serial, ok);
  return ok;
}

bool run_matrixmul(const Options& o) {
  // NVIDIA's sample: A 320x320, B 320x640 (wA = 10 * 32, wB = 20 * 32), BLOCK 32, a warm-up
  // launch and 300 timed ones.
  constexpr int kBlock = 32;
  const int ha = 320, wa = 320, wb = 640;
  std::vector<float> a(static_cast<std::size_t>(ha) * wa, 1.0f),
      b(static_cast<std::size_t>(wa) * wb, 0.01f), c(static_cast<std::size_t>(ha) * wb);
  const dim3 grid(wb / kBlock, ha / kBlock), block(kBlock, kBlock);
  const auto t0 = Clock::now();
  for (int l = 0; l < o.mm_launches; ++l) {
    launch(k::matrix_mul<kBlock>, grid, block, 0, o.run, c.data(), a.data(), b.data(), wa, wb);
  }
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const double each = total / o.mm_launches;
  // The serial floor: one product, the same sums in the same order.
  std::vector<float> d(c.size());
  const double serial = best_ms(o.runs, [&] {
    std::fill(d.begin(), d.end(), 0.0f);
    for (int i = 0; i < ha; ++i) {
      for (int kk = 0; kk < wa; ++kk) {
        const float x = a[static_cast<std::size_t>(i) * wa + kk];
        for (int j = 0; j < wb; ++j) {
          d[static_cast<std::size_t>(i) * wb + j] += x * b[static_cast<std::size_t>(kk) * wb + j];
        }
      }
    }
    keep(d);
  });
  bool ok = true;
  for (std::size_t i = 0; i < c.size(); ++i) ok = ok && close(c[i], d[i], 1e-4f);
  char shape[64];
  std::snprintf(shape, sizeof shape, "320x320 * 320x640, BLOCK 32, %d launches", o.mm_launches);
  row("matrixMul-style", shape, each, serial, ok);
  std::printf("%-16s %.2f s for %d launches; 301 launches (as NVIDIA's sample): %.2f s\n", "",
              total / 1000.0, o.mm_launches, each * 301 / 1000.0);
  return ok;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "emu_bench: %s\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((arg + " needs a value").c_str());
      return argv[++i];
    };
    if (arg == "--workers") {
      o.run.workers = static_cast<unsigned>(std::strtoul(value(), nullptr, 10));
    } else if (arg == "--runs") {
      o.runs = std::max(1, std::atoi(value()));
    } else if (arg == "--only") {
      o.only = value();
    } else if (arg == "--scaling") {
      o.scaling = true;
    } else if (arg == "--mm-launches") {
      o.mm_launches = std::max(1, std::atoi(value()));
    } else {
      usage(("unknown argument " + arg).c_str());
    }
  }
  const unsigned workers =
      o.run.workers != 0 ? o.run.workers : std::max(1u, std::thread::hardware_concurrency());
  std::printf("emu_bench (%s): %u workers, best of %d launches; serial loop: 1 core\n", kRunner,
              workers, o.runs);
  const auto want = [&](const char* name) { return o.only.empty() || o.only == name; };
  bool ok = true;
  if (want("vecadd")) ok = run_vecadd(o) && ok;
  if (want("matmul")) ok = run_matmul(o) && ok;
  if (!o.scaling && want("reduce")) ok = run_reduce(o, false) && ok;
  if (!o.scaling && want("shfl")) ok = run_reduce(o, true) && ok;
  if (!o.scaling && want("matrixmul")) ok = run_matrixmul(o) && ok;
  return ok ? 0 : 1;
}
