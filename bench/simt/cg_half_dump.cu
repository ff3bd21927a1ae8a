// Prints what the cooperative-groups and __half test kernels compute, on a GPU (nvcc) or on the
// emulator (g++), so that cg_half_compare.sh can diff the two. The inputs are fixed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/prelude.cuh"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#else
#include "simt/cooperative_groups.hpp"
#include "simt/half.hpp"
#include "simt/simt.hpp"
#endif

namespace dump {
#include "cg.cuh"
#include "half.cuh"
}  // namespace dump

namespace {

std::vector<void*> allocations;  // freed at the end of main

// GPULAB_DUMP_TRACE=1: each launch and each printed result named on stderr (unbuffered), so that a
// launch that never returns is found even when stdout is a buffered file.
const bool trace = std::getenv("GPULAB_DUMP_TRACE") != nullptr;
int launches = 0;

// Managed memory on a GPU, emulated global memory on the CPU: both readable from the host.
template <class T>
T* alloc(std::size_t n) {
  void* p = nullptr;
#if defined(__CUDACC__)
  if (cudaMallocManaged(&p, n * sizeof(T)) != cudaSuccess) std::abort();
#else
  p = gpulab::simt::device_malloc(n * sizeof(T));
#endif
  std::memset(p, 0, n * sizeof(T));
  allocations.push_back(p);
  return static_cast<T*>(p);
}

void free_all() {
  for (void* p : allocations) {
#if defined(__CUDACC__)
    cudaFree(p);
#else
    gpulab::simt::device_free(p);
#endif
  }
  allocations.clear();
}

template <class... Params, class... Args>
void run(void (*kernel)(Params...), dim3 grid, dim3 block, Args... args) {
  ++launches;
  if (trace) {
    std::fprintf(stderr, "launch %d: grid %u,%u,%u block %u,%u,%u\n", launches, grid.x, grid.y,
                 grid.z, block.x, block.y, block.z);
  }
#if defined(__CUDACC__)
  kernel<<<grid, block>>>(args...);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) std::printf("error %s\n", cudaGetErrorName(e));
#else
  gpulab::simt::launch(kernel, grid, block, 0, {}, args...);
#endif
}

template <class T>
void print(const char* name, const T* p, std::size_t n) {
  if (trace) std::fprintf(stderr, "result of launch %d: %s\n", launches, name);
  std::printf("%s:", name);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (sizeof(T) == 2) {
      std::printf(" %04x", static_cast<unsigned>(*reinterpret_cast<const unsigned short*>(p + i)));
    } else if constexpr (std::is_floating_point_v<T>) {
      std::printf(" %a", static_cast<double>(p[i]));
    } else {
      std::printf(" %lld", static_cast<long long>(p[i]));
    }
  }
  std::printf("\n");
}

template <unsigned N>
void tiles(std::mt19937_64& rng) {
  for (const unsigned threads : {1u, 31u, 32u, 33u, 40u, 64u, 1024u}) {
    int* in = alloc<int>(threads);
    int* out = alloc<int>(threads);
    for (unsigned i = 0; i < threads; ++i) in[i] = static_cast<int>(rng() % 2001) - 1000;
    for (int op = 0; op < dump::kCgOps; ++op) {
      for (const int arg : {0, 1, static_cast<int>(N / 2), static_cast<int>(N - 1), 5}) {
        run(dump::cg_tile_kernel<N>, 1, threads, in, out, op, arg);
        char name[64];
        std::snprintf(name, sizeof name, "tile%u threads %u op %d arg %d", N, threads, op, arg);
        print(name, out, threads);
      }
    }
  }
}

}  // namespace

int main() {
  std::mt19937_64 rng(2026);
  unsigned* facts = alloc<unsigned>(144 * 12);
  run(dump::cg_block_kernel, dim3(3, 2, 1), dim3(4, 3, 2), facts);
  print("block facts", facts, 144 * 12);
  tiles<1>(rng);
  tiles<2>(rng);
  tiles<4>(rng);
  tiles<8>(rng);
  tiles<16>(rng);
  tiles<32>(rng);

  float* fin = alloc<float>(384);
  float* s32 = alloc<float>(384);
  float* s4 = alloc<float>(384);
  int* sub = alloc<int>(384);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int i = 0; i < 384; ++i) fin[i] = dist(rng);
  run(dump::cg_float_reduce_kernel, 3, 128, fin, s32, s4, sub);
  print("float reduce 32", s32, 384);
  print("float reduce 4", s4, 384);
  print("tile of tile", sub, 384);

  for (const unsigned threads : {31u, 40u, 64u, 1024u}) {
    for (const unsigned n : {1u, 4u, 32u}) {
      int* in = alloc<int>(threads);
      int* bsum = alloc<int>(1);
      int* tsum = alloc<int>(threads);
      unsigned* tf = alloc<unsigned>(threads);
      for (unsigned i = 0; i < threads; ++i) in[i] = static_cast<int>(rng() % 2001) - 1000;
      run(dump::cg_thread_group_kernel, 1, threads, in, bsum, tsum, tf, n);
      std::printf("thread_group %u %u: block sum %d\n", threads, n, bsum[0]);
      print("tile sums", tsum, threads);
      print("tile facts", tf, threads);
    }
  }
  for (const unsigned threads : {32u, 40u, 64u}) {
    int* in = alloc<int>(threads);
    int* out = alloc<int>(threads * 8);
    for (unsigned i = 0; i < threads; ++i) in[i] = static_cast<int>(rng() % 2001) - 1000;
    for (unsigned i = 0; i < threads * 8; ++i) out[i] = -1;
    run(dump::cg_coalesced_kernel, 1, threads, in, out);
    print("coalesced", out, threads * 8);
  }
  for (int round = 0; round < 4; ++round) {
    int* in = alloc<int>(64);
    int* out = alloc<int>(3 * 64);
    for (unsigned i = 0; i < 64; ++i) in[i] = static_cast<int>(rng() % 2001) - 1000;
    run(dump::cg_partition_kernel, 1, 64, in, out);
    print("partitions", out, 3 * 64);
  }
  // Blocks that tiles of 64 and 256 fill: a partial tile of several warps deadlocks on a GPU
  // (it waits for all of its warps), and the emulator faults there instead.
  for (const unsigned threads : {256u, 512u, 1024u}) {
    int* in = alloc<int>(threads);
    int* out = alloc<int>(2 * threads);
    for (unsigned i = 0; i < threads; ++i) in[i] = static_cast<int>(rng() % 2001) - 1000;
    run(dump::cg_multi_warp_kernel<64>, 1, threads, in, out);
    print("multi-warp 64", out, 2 * threads);
    run(dump::cg_multi_warp_kernel<256>, 1, threads, in, out);
    print("multi-warp 256", out, 2 * threads);
  }
  int* st = alloc<int>(96);
  double* dt = alloc<double>(32);
  run(dump::cg_struct_shuffle_kernel, 1, 32, st, dt);
  print("struct shuffle", st, 96);
  print("double shuffle", dt, 32);

  constexpr int kN = 1 << 14;
  __half* a = alloc<__half>(kN);
  __half* b = alloc<__half>(kN);
  __half* c = alloc<__half>(kN);
  __half* out = alloc<__half>(kN);
  __half* ops = alloc<__half>(kN);
  for (int i = 0; i < kN; ++i) {
    a[i] = __ushort_as_half(static_cast<unsigned short>(rng()));
    b[i] = __ushort_as_half(static_cast<unsigned short>(rng()));
    c[i] = __ushort_as_half(static_cast<unsigned short>(rng()));
  }
  for (int op = 0; op < dump::kHalfOps; ++op) {
    run(dump::half_ops_kernel, kN / 256, 256, a, b, c, out, ops, op, kN);
    char name[32];
    std::snprintf(name, sizeof name, "half op %d", op);
    print(name, out, kN);
  }
  float* fl = alloc<float>(4096);
  unsigned short* hb = alloc<unsigned short>(4096);
  float* back = alloc<float>(4096);
  int* cmp = alloc<int>(4096);
  for (int i = 0; i < 4096; ++i) {
    const std::uint32_t r = static_cast<std::uint32_t>(rng());
    const std::uint32_t fb =
        (r & 0x807fffffu) | ((static_cast<std::uint32_t>(rng() % 46) + 97u) << 23);
    std::memcpy(fl + i, &fb, 4);
  }
  run(dump::half_convert_kernel, 16, 256, fl, hb, back, cmp, 4096);
  print("float2half", hb, 4096);
  print("half compares", cmp, 4096);
  float* h2 = alloc<float>(128);
  float* h2out = alloc<float>(512);
  __half* total = alloc<__half>(1);
  for (int i = 0; i < 128; ++i) h2[i] = 0.25f * static_cast<float>(i) - 7.0f;
  run(dump::half2_kernel, 1, 64, h2, h2out, total);
  print("half2", h2out, 512);
  print("atomicAdd half", total, 1);
  free_all();
  return 0;
}
