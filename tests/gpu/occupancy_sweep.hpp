// What CUDA's own occupancy API says for a sweep of real kernels and launch configurations on this
// machine's GPU (occupancy_sweep.cu, compiled by nvcc); the [gpu] test compares it with gpulab's
// calculator. Plain C++: included by the g++-compiled test.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpulab::test {

struct CudaOccupancySample {
  std::string kernel;             // how its registers or shared memory were set
  int registers = 0;              // cudaFuncGetAttributes: numRegs
  std::size_t static_shared = 0;  // sharedSizeBytes
  int max_threads = 0;            // maxThreadsPerBlock (launch bounds)
  int threads = 0;
  std::size_t dynamic_shared = 0;
  int carveout = -1;    // cudaFuncAttributePreferredSharedMemoryCarveout; -1: not set
  int cuda_blocks = 0;  // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  int cuda_error = 0;   // cudaError_t of that call (0: success)
};

struct CudaOccupancySweep {
  int cc_major = 0, cc_minor = 0;
  std::string device;
  std::vector<CudaOccupancySample> samples;
};

// Every kernel of the sweep on device 0: block sizes 32..1024 (past each kernel's own limit too),
// dynamic shared memory from 0 to the opt-in limit, and some carve-out preferences.
CudaOccupancySweep cuda_occupancy_sweep();

}  // namespace gpulab::test
