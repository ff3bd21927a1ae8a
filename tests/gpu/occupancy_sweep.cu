// The occupancy sweep on the GPU (see occupancy_sweep.hpp): real kernels whose registers are forced
// with __launch_bounds__, __maxnreg__ and -maxrregcount, with static shared memory of several
// sizes, and gpulab's own course kernels; CUDA's occupancy API answers for every configuration.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "occupancy_sweep.hpp"
#include "occupancy_sweep_body.cuh"

#include "kernels/prelude.cuh"  // at global scope first, as every backend does (docs/simt.md)

namespace course {
#include "kernels/latency_probe.cuh"
#include "kernels/twonorm_course.cuh"
#include "kernels/twonorm_ladder.cuh"
#include "kernels/vecadd.cuh"
}  // namespace course

const void* occupancy_maxrregcount_kernel();  // occupancy_sweep_maxrreg.cu

namespace {

// Registers left to the compiler: the pressure of N accumulators.
template <int N>
__global__ void occ_free(const float* in, float* out, int n) {
  occ_body<N>(in, out, n);
}

// Registers forced by __maxnreg__ (CUDA 12.4 and later): the count is at most R.
#define OCC_MAXNREG(R)                                                                 \
  __global__ void __maxnreg__(R) occ_maxnreg_##R(const float* in, float* out, int n) { \
    occ_body<128>(in, out, n);                                                         \
  }
OCC_MAXNREG(24)
OCC_MAXNREG(37)
OCC_MAXNREG(56)
OCC_MAXNREG(72)
OCC_MAXNREG(96)
OCC_MAXNREG(168)
OCC_MAXNREG(255)

// Registers forced by __launch_bounds__(threads, min blocks per SM), each valid on sm_75 too
// (1024 threads and 16 blocks per SM).
#define OCC_BOUNDS(T, B)                                         \
  __global__ void __launch_bounds__(T, B)                        \
      occ_bounds_##T##_##B(const float* in, float* out, int n) { \
    occ_body<128>(in, out, n);                                   \
  }
OCC_BOUNDS(1024, 1)
OCC_BOUNDS(512, 2)
OCC_BOUNDS(256, 4)
OCC_BOUNDS(256, 3)
OCC_BOUNDS(128, 8)
OCC_BOUNDS(64, 16)

// Static shared memory of BYTES, used so that the compiler keeps it.
template <int BYTES, int N>
__global__ void occ_shared(const float* in, float* out, int n) {
  __shared__ float buf[BYTES / 4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x % (BYTES / 4)] = in[i % n];
  __syncthreads();
  occ_body<N>(in, out, n);
  if (i < n) out[i] += buf[(threadIdx.x + 1) % (BYTES / 4)];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e));
  }
}

struct Kernel {
  std::string name;
  const void* fn;
};

}  // namespace

namespace gpulab::test {

CudaOccupancySweep cuda_occupancy_sweep() {
  const Kernel kernels[] = {
      {"free<4>", reinterpret_cast<const void*>(&occ_free<4>)},
      {"free<16>", reinterpret_cast<const void*>(&occ_free<16>)},
      {"free<32>", reinterpret_cast<const void*>(&occ_free<32>)},
      {"free<64>", reinterpret_cast<const void*>(&occ_free<64>)},
      {"free<128>", reinterpret_cast<const void*>(&occ_free<128>)},
      {"__maxnreg__(24)", reinterpret_cast<const void*>(&occ_maxnreg_24)},
      {"__maxnreg__(37)", reinterpret_cast<const void*>(&occ_maxnreg_37)},
      {"__maxnreg__(56)", reinterpret_cast<const void*>(&occ_maxnreg_56)},
      {"__maxnreg__(72)", reinterpret_cast<const void*>(&occ_maxnreg_72)},
      {"__maxnreg__(96)", reinterpret_cast<const void*>(&occ_maxnreg_96)},
      {"__maxnreg__(168)", reinterpret_cast<const void*>(&occ_maxnreg_168)},
      {"__maxnreg__(255)", reinterpret_cast<const void*>(&occ_maxnreg_255)},
      {"__launch_bounds__(1024, 1)", reinterpret_cast<const void*>(&occ_bounds_1024_1)},
      {"__launch_bounds__(512, 2)", reinterpret_cast<const void*>(&occ_bounds_512_2)},
      {"__launch_bounds__(256, 4)", reinterpret_cast<const void*>(&occ_bounds_256_4)},
      {"__launch_bounds__(256, 3)", reinterpret_cast<const void*>(&occ_bounds_256_3)},
      {"__launch_bounds__(128, 8)", reinterpret_cast<const void*>(&occ_bounds_128_8)},
      {"__launch_bounds__(64, 16)", reinterpret_cast<const void*>(&occ_bounds_64_16)},
      {"-maxrregcount=40", occupancy_maxrregcount_kernel()},
      {"shared 100 B", reinterpret_cast<const void*>(&occ_shared<100, 8>)},
      {"shared 4 KiB", reinterpret_cast<const void*>(&occ_shared<4096, 32>)},
      {"shared 12 KiB", reinterpret_cast<const void*>(&occ_shared<12288, 16>)},
      {"shared 20 KiB", reinterpret_cast<const void*>(&occ_shared<20480, 64>)},
      {"shared 48 KiB", reinterpret_cast<const void*>(&occ_shared<49152, 8>)},
      {"vector_add", reinterpret_cast<const void*>(&course::vector_add)},
      {"two_norm_kernel", reinterpret_cast<const void*>(&course::two_norm_kernel)},
      {"two_norm_partials", reinterpret_cast<const void*>(&course::two_norm_partials)},
      {"two_norm_finish", reinterpret_cast<const void*>(&course::two_norm_finish)},
      {"ladder_interleaved", reinterpret_cast<const void*>(&course::ladder_interleaved)},
      {"ladder_warp_shuffle", reinterpret_cast<const void*>(&course::ladder_warp_shuffle)},
      {"latency_probe", reinterpret_cast<const void*>(&course::latency_probe)},
  };

  CudaOccupancySweep sweep;
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  sweep.cc_major = p.major;
  sweep.cc_minor = p.minor;
  sweep.device = p.name;
  const std::size_t optin = p.sharedMemPerBlockOptin;

  for (const Kernel& k : kernels) {
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, k.fn), "cudaFuncGetAttributes");
    const std::size_t max_dynamic = optin - attr.sharedSizeBytes;
    // Opt in to the most dynamic shared memory the block can have beside its static part.
    check(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(max_dynamic)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    const std::size_t dynamics[] = {0, 129, 3000, 20 * 1024, 60 * 1024, 100 * 1024, max_dynamic};
    // The carve-out preference: unset first, then a few values, each for the whole block sweep.
    const int carveouts[] = {-1, 0, 25, 50, 100};
    for (int carveout : carveouts) {
      if (carveout >= 0) {
        check(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout),
              "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
      }
      // Past the kernel's maxThreadsPerBlock too: CUDA must say 0 (or refuse) there.
      for (int threads = 32; threads <= p.maxThreadsPerBlock; threads += 32) {
        for (std::size_t dyn : dynamics) {
          if (dyn > max_dynamic) continue;
          // The carve-out runs cover fewer points: they test the preference, not the rest again.
          if (carveout >= 0 && threads % 128 != 0) continue;
          CudaOccupancySample s;
          s.kernel = k.name;
          s.registers = attr.numRegs;
          s.static_shared = attr.sharedSizeBytes;
          s.max_threads = attr.maxThreadsPerBlock;
          s.threads = threads;
          s.dynamic_shared = dyn;
          s.carveout = carveout;
          int blocks = -1;
          const cudaError_t e =
              cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, threads, dyn);
          s.cuda_blocks = blocks;
          s.cuda_error = static_cast<int>(e);
          if (e != cudaSuccess) cudaGetLastError();  // clear it; the test reports it
          sweep.samples.push_back(s);
        }
      }
    }
  }
  return sweep;
}

}  // namespace gpulab::test
