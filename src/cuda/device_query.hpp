// Everything NVIDIA's deviceQuery sample reports about a CUDA device, read in a way that is right
// for CUDA 13 (where several cudaDeviceProp fields are gone). Plain C++ types: the header can be
// included anywhere; the functions exist only in builds with CUDA (GPULAB_HAVE_CUDA).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::cuda {

enum class ComputeMode { default_mode, exclusive_thread, prohibited, exclusive_process, unknown };

struct DeviceProperties {
  int index = 0;
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-..." as nvidia-smi prints it
  int cc_major = 0, cc_minor = 0;

  std::uint64_t total_global_mem = 0;  // bytes
  int multiprocessors = 0;
  int clock_khz = 0;         // peak SM clock; 0 when the driver does not report it
  int memory_clock_khz = 0;  // peak memory clock; 0 when the driver does not report it
  int memory_bus_bits = 0;
  int l2_bytes = 0;
  int persisting_l2_max_bytes = 0;
  int access_policy_max_window_bytes = 0;

  int max_texture_1d = 0;
  std::array<int, 2> max_texture_2d{};
  std::array<int, 3> max_texture_3d{};

  std::uint64_t total_const_mem = 0;
  std::uint64_t shared_per_block = 0;
  std::uint64_t shared_per_block_optin = 0;
  std::uint64_t shared_per_sm = 0;
  std::uint64_t reserved_shared_per_block = 0;
  int regs_per_block = 0;
  int regs_per_sm = 0;
  int warp_size = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  std::array<int, 3> max_block_dims{};
  std::array<int, 3> max_grid_dims{};
  int max_blocks_per_sm = 0;
  std::uint64_t mem_pitch = 0;
  std::uint64_t texture_alignment = 0;

  int async_engines = 0;  // copy engines
  bool gpu_overlap = false;
  bool kernel_timeout = false;
  bool integrated = false;
  bool can_map_host_memory = false;
  bool unified_addressing = false;
  bool managed_memory = false;
  bool concurrent_managed_access = false;
  bool pageable_memory_access = false;
  bool concurrent_kernels = false;
  bool ecc_enabled = false;
  bool tcc_driver = false;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;
  ComputeMode compute_mode = ComputeMode::unknown;
  bool cooperative_launch = false;
  bool cluster_launch = false;
  bool global_l1_cache = false;
  bool local_l1_cache = false;
  bool compute_preemption = false;
  bool stream_priorities = false;
  bool host_native_atomics = false;
  bool multi_gpu_board = false;
  bool memory_pools = false;
};

struct PeerAccess {
  int from = 0, to = 0;
  bool can_access = false;
};

// CUDA encodes versions as 1000 * major + 10 * minor: 13000 -> 13.0.
struct Versions {
  int driver = 0;   // the newest CUDA version the installed driver supports
  int runtime = 0;  // the CUDA runtime gpulab was linked with
};

// Every CUDA call is checked: a failure throws CudaError naming the call.
DeviceProperties query_device(int device);
Versions query_versions();
// For each ordered pair of the devices, whether the first can read the second's memory directly.
std::vector<PeerAccess> query_peer_access(int device_count);

}  // namespace gpulab::cuda
