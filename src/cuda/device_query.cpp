// Reads a device's properties the way NVIDIA's deviceQuery does, fixed for CUDA 13 (see
// device_query.hpp). CUDA 13 removed cudaDeviceProp::clockRate, memoryClockRate,
// kernelExecTimeoutEnabled, computeMode and deviceOverlap: those come from cudaDeviceGetAttribute.
#include "cuda/device_query.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cuda/runtime.hpp"

namespace gpulab::cuda {
namespace {

int attribute(cudaDeviceAttr a, int device, const char* what) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, a, device), what);
  return value;
}

// The clocks: some platforms do not report them and answer cudaErrorInvalidValue (cuda-samples'
// helper_cuda.h treats cudaDevAttrClockRate the same way). That answer means "unknown" (0);
// any other failure is an error.
int clock_attribute(cudaDeviceAttr a, int device, const char* what) {
  int value = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&value, a, device);
  if (e == cudaErrorInvalidValue) {
    (void)cudaGetLastError();  // clear it, so that the next call does not see it
    return 0;
  }
  check(e, what);
  return value;
}

std::string format_uuid(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  return fmt::format(
      "GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}"
      "{:02x}{:02x}",
      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
      b[15]);
}

ComputeMode to_compute_mode(int mode) {
  switch (mode) {
    case cudaComputeModeDefault:
      return ComputeMode::default_mode;
    case cudaComputeModeExclusive:
      return ComputeMode::exclusive_thread;
    case cudaComputeModeProhibited:
      return ComputeMode::prohibited;
    case cudaComputeModeExclusiveProcess:
      return ComputeMode::exclusive_process;
    default:
      return ComputeMode::unknown;
  }
}

}  // namespace

DeviceProperties query_device(int device) {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");

  DeviceProperties d;
  d.index = device;
  d.name = p.name;
  d.uuid = format_uuid(p.uuid);
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.total_global_mem = p.totalGlobalMem;
  d.multiprocessors = p.multiProcessorCount;
  d.clock_khz =
      clock_attribute(cudaDevAttrClockRate, device, "cudaDeviceGetAttribute(cudaDevAttrClockRate)");
  d.memory_clock_khz = clock_attribute(cudaDevAttrMemoryClockRate, device,
                                       "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
  d.memory_bus_bits = p.memoryBusWidth;
  d.l2_bytes = p.l2CacheSize;
  d.persisting_l2_max_bytes = p.persistingL2CacheMaxSize;
  d.access_policy_max_window_bytes = p.accessPolicyMaxWindowSize;

  d.max_texture_1d = p.maxTexture1D;
  d.max_texture_2d = {p.maxTexture2D[0], p.maxTexture2D[1]};
  d.max_texture_3d = {p.maxTexture3D[0], p.maxTexture3D[1], p.maxTexture3D[2]};

  d.total_const_mem = p.totalConstMem;
  d.shared_per_block = p.sharedMemPerBlock;
  d.shared_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_per_sm = p.sharedMemPerMultiprocessor;
  d.reserved_shared_per_block = p.reservedSharedMemPerBlock;
  d.regs_per_block = p.regsPerBlock;
  d.regs_per_sm = p.regsPerMultiprocessor;
  d.warp_size = p.warpSize;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_block_dims = {p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]};
  d.max_grid_dims = {p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]};
  d.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
  d.mem_pitch = p.memPitch;
  d.texture_alignment = p.textureAlignment;

  d.async_engines = p.asyncEngineCount;
  d.gpu_overlap = attribute(cudaDevAttrGpuOverlap, device,
                            "cudaDeviceGetAttribute(cudaDevAttrGpuOverlap)") != 0;
  d.kernel_timeout = attribute(cudaDevAttrKernelExecTimeout, device,
                               "cudaDeviceGetAttribute(cudaDevAttrKernelExecTimeout)") != 0;
  d.integrated = p.integrated != 0;
  d.can_map_host_memory = p.canMapHostMemory != 0;
  d.unified_addressing = p.unifiedAddressing != 0;
  d.managed_memory = p.managedMemory != 0;
  d.concurrent_managed_access = p.concurrentManagedAccess != 0;
  d.pageable_memory_access = p.pageableMemoryAccess != 0;
  d.concurrent_kernels = p.concurrentKernels != 0;
  d.ecc_enabled = p.ECCEnabled != 0;
  d.tcc_driver = p.tccDriver != 0;
  d.pci_domain = p.pciDomainID;
  d.pci_bus = p.pciBusID;
  d.pci_device = p.pciDeviceID;
  d.compute_mode = to_compute_mode(
      attribute(cudaDevAttrComputeMode, device, "cudaDeviceGetAttribute(cudaDevAttrComputeMode)"));
  d.cooperative_launch = p.cooperativeLaunch != 0;
  d.cluster_launch = p.clusterLaunch != 0;
  d.global_l1_cache = p.globalL1CacheSupported != 0;
  d.local_l1_cache = p.localL1CacheSupported != 0;
  d.compute_preemption = p.computePreemptionSupported != 0;
  d.stream_priorities = p.streamPrioritiesSupported != 0;
  d.host_native_atomics = p.hostNativeAtomicSupported != 0;
  d.multi_gpu_board = p.isMultiGpuBoard != 0;
  d.memory_pools = p.memoryPoolsSupported != 0;
  return d;
}

Versions query_versions() {
  Versions v;
  check(cudaDriverGetVersion(&v.driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&v.runtime), "cudaRuntimeGetVersion");
  return v;
}

std::vector<PeerAccess> query_peer_access(int device_count) {
  std::vector<PeerAccess> out;
  for (int a = 0; a < device_count; ++a) {
    for (int b = 0; b < device_count; ++b) {
      if (a == b) continue;
      int can = 0;
      check(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer");
      out.push_back({a, b, can != 0});
    }
  }
  return out;
}

}  // namespace gpulab::cuda
