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
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#if defined(EMU_BENCH_HIP_CPU)
// The same kernels and harness built against ROCm's HIP-CPU for comparison
// (bench/simt/hipcpu_compare.sh).
#include <hip/hip_runtime.h>
// HIP has no mask argument: HIP-CPU runs a warp's lanes together.
#define __shfl_down_sync(mask, v, offset) __shfl_down(v, offset)
#else
#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#endif

#if defined(EMU_BENCH_KERNELS)
#include EMU_BENCH_KERNELS
#else
#include "emu_bench_kernels.cuh"
#endif

namespace {

namespace k = emu_bench_kernels;
using Clock = std::chrono::steady_clock;

#if defined(EMU_BENCH_HIP_CPU)
struct RunOptions {
  unsigned workers = 0;  // HIP-CPU takes its threads from TBB: all cores
};
// A launch and the synchronize that waits for it.
template <auto Kernel, class... Args>
void launch(dim3 grid, dim3 block, std::size_t shared, const RunOptions&, Args... args) {
  hipLaunchKernelGGL(Kernel, grid, block, shared, nullptr, args...);
  if (hipDeviceSynchronize() != hipSuccess) std::abort();
}
const char* const kRunner = "HIP-CPU";
#else
using gpulab::simt::launch;
using gpulab::simt::RunOptions;
#if defined(EMU_BENCH_FIBERS)
const char* const kRunner = "gpulab emulator, kernels as written: fibers";
#else
const char* const kRunner = "gpulab emulator, kernels as gpulab run builds them";
#endif
#endif

struct Options {
  RunOptions run;
  int runs = 5;
  std::string only;
  bool scaling = false;
  int mm_launches = 31;
};

// Wall time and the process's CPU time (all its threads), each the best of the runs. On a shared
// machine the CPU time is the steadier measure: it does not count the time others took the cores.
struct Timing {
  double wall = 1e300, cpu = 1e300;
};

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

template <class F>
Timing best_ms(int runs, F&& f) {
  Timing best;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    const double c0 = cpu_ms();
    f();
    best.cpu = std::min(best.cpu, cpu_ms() - c0);
    best.wall =
        std::min(best.wall, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return best;
}

// Keeps the compiler from dropping a serial loop whose result is unused.
template <class T>
void keep(const T& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

void row(const char* name, const char* shape, Timing emu, Timing serial, bool ok) {
  std::printf(
      "%-16s %-38s kernel %10.2f ms (cpu %10.2f)   serial loop %9.2f ms (cpu %9.2f)   ratio "
      "%7.1fx (cpu %7.1fx)   %s\n",
      name, shape, emu.wall, emu.cpu, serial.wall, serial.cpu, emu.wall / serial.wall,
      emu.cpu / serial.cpu, ok ? "ok" : "WRONG RESULT");
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
  const Timing emu = best_ms(
      o.runs, [&] { launch<k::vecadd>(blocks, 256, 0, o.run, a.data(), b.data(), c.data(), n); });
  const Timing serial = best_ms(o.runs, [&] {
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
  const Timing emu = best_ms(o.runs, [&] {
    launch<k::matmul_tiled>(grid, block, 0, o.run, a.data(), b.data(), c.data(), n);
  });
  // The serial floor: the same sums in the same order (k ascending), i-k-j loop order so that
  // the inner loop streams rows.
  const Timing serial = best_ms(o.runs, [&] {
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
  const Timing emu = best_ms(o.runs, [&] {
    if (shfl) {
      launch<k::reduce_shfl>(blocks, 256, 0, o.run, in.data(), partial.data(), n);
    } else {
      launch<k::reduce_tree>(blocks, 256, 0, o.run, in.data(), partial.data(), n);
    }
  });
  const std::size_t group = shfl ? 32 : 256;
  std::vector<float> want(partial.size());
  const Timing serial = best_ms(o.runs, [&] {
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
  const double c0 = cpu_ms();
  for (int l = 0; l < o.mm_launches; ++l) {
    launch<k::matrix_mul<kBlock>>(grid, block, 0, o.run, c.data(), a.data(), b.data(), wa, wb);
  }
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const Timing each{total / o.mm_launches, (cpu_ms() - c0) / o.mm_launches};
  // The serial floor: one product, the same sums in the same order.
  std::vector<float> d(c.size());
  const Timing serial = best_ms(o.runs, [&] {
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
              total / 1000.0, o.mm_launches, each.wall * 301 / 1000.0);
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
