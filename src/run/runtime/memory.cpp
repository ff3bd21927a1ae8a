// Memory: cudaMalloc, cudaMallocManaged, cudaMallocHost and their frees, pitched and 3-D
// allocations, stream-ordered allocation, pointer attributes, memset (1-D, 2-D, 3-D), host memory
// the device reaches (cudaHostAlloc's flags, cudaHostRegister, cudaHostGetDevicePointer) and
// unified memory's hints (cudaMemAdvise, cudaMemPrefetchAsync in both forms). Every allocation is
// simt's (simt/memory_check), which knows its call site for --check.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "run/runtime/graph.hpp"
#include "run/runtime/state.hpp"
#include "simt/program_symbols.hpp"

#undef malloc
#undef free

namespace gpulab::rt {

namespace {

struct DeviceVariables {
  std::mutex mutex;
  std::set<std::string, std::less<>> names;
};
DeviceVariables& device_variables() {
  static DeviceVariables v;
  return v;
}

// `name` as the symbol table gives it ("ns::values"): a variable the program declared
// __device__, __constant__ or __managed__ (by its last part).
bool is_device_variable(std::string_view name) {
  if (const std::size_t colon = name.rfind("::"); colon != std::string_view::npos) {
    name.remove_prefix(colon + 2);
  }
  DeviceVariables& v = device_variables();
  const std::lock_guard lock(v.mutex);
  return v.names.contains(name);
}

}  // namespace

bool register_device_variables(const char* names) {
  DeviceVariables& v = device_variables();
  const std::lock_guard lock(v.mutex);
  for (std::string_view rest = names; !rest.empty();) {
    const std::size_t nl = std::min(rest.find('\n'), rest.size());
    if (nl > 0) v.names.emplace(rest.substr(0, nl));
    rest.remove_prefix(std::min(nl + 1, rest.size()));
  }
  return true;
}

cudaError_t check_device_range(const void* p, size_t count, bool* is_device) {
  *is_device = false;
  const auto a = simt::find_allocation(p);
  if (!a) {
    // A __device__ variable is a variable of the program on the emulator: its address (from
    // cudaGetSymbolAddress) is device memory, as far as the variable goes.
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (const auto v = simt::detail::ProgramSymbols::get().object_at_or_below(at);
        v && at < v->address + v->size && is_device_variable(v->name)) {
      *is_device = true;
      if (count > v->address + v->size - at) return cudaErrorInvalidValue;
    }
    return cudaSuccess;
  }
  *is_device = true;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (begin + count > a->begin + a->bytes) return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaError_t allocate(void** ptr, size_t size, simt::AllocationKind kind,
                     const std::source_location& where) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return set_error(cudaErrorInvalidValue);
  try {
    *ptr = simt::allocate(size, kind, site_text(where.file_name(), static_cast<int>(where.line())));
  } catch (const CudaError&) {
    *ptr = nullptr;
    return set_error(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

cudaError_t free_kind(void* ptr, simt::AllocationKind kind) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (ptr == nullptr) return cudaSuccess;
  if (!simt::release(ptr, kind)) return set_error(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // namespace gpulab::rt

using gpulab::rt::broken;
using gpulab::rt::set_error;

cudaError_t cudaMalloc(void** ptr, size_t size, std::source_location where) {
  return gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags,
                              std::source_location where) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return set_error(cudaErrorInvalidValue);
  }
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::managed, where);
  // The host may write managed memory directly: it counts as written.
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaMallocHost(void** ptr, size_t size, std::source_location where) {
  const cudaError_t e =
      gpulab::rt::allocate(ptr, size, gpulab::simt::AllocationKind::host_pinned, where);
  if (e == cudaSuccess && *ptr != nullptr) gpulab::simt::mark_initialized(*ptr, size);
  return e;
}
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height,
                            std::source_location where) {
  if (pitch == nullptr) return set_error(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return gpulab::rt::allocate(ptr, *pitch * height, gpulab::simt::AllocationKind::device, where);
}
cudaError_t cudaFree(void* ptr) {
  gpulab::rt::synchronized(false);  // cudaFree waits for the device
  const auto a = gpulab::simt::find_allocation(ptr);
  const bool managed = a && a->begin == reinterpret_cast<std::uintptr_t>(ptr) &&
                       a->kind == gpulab::simt::AllocationKind::managed;
  return gpulab::rt::free_kind(
      ptr, managed ? gpulab::simt::AllocationKind::managed : gpulab::simt::AllocationKind::device);
}
cudaError_t cudaFreeHost(void* ptr) {
  return gpulab::rt::free_kind(ptr, gpulab::simt::AllocationKind::host_pinned);
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return set_error(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  attributes->device = 0;
  if (const auto a = gpulab::simt::find_allocation(ptr)) {
    attributes->type = a->kind == gpulab::simt::AllocationKind::device    ? cudaMemoryTypeDevice
                       : a->kind == gpulab::simt::AllocationKind::managed ? cudaMemoryTypeManaged
                                                                          : cudaMemoryTypeHost;
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer =
        a->kind == gpulab::simt::AllocationKind::device ? nullptr : const_cast<void*>(ptr);
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

static cudaError_t memset_impl(void* ptr, int value, size_t count) {
  cudaError_t e;
  if (broken(&e)) return e;
  if (count == 0) return cudaSuccess;
  bool device = false;
  if (gpulab::rt::check_device_range(ptr, count, &device) != cudaSuccess || !device) {
    return set_error(cudaErrorInvalidValue);
  }
  std::memset(ptr, value, count);
  gpulab::simt::mark_initialized(ptr, count);
  return cudaSuccess;
}
cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  return memset_impl(ptr, value, count);
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  if (gpulab::rt::graph_record_memset(ptr, value, count, stream)) return cudaSuccess;
  return memset_impl(ptr, value, count);
}

// ---- Host memory the device reaches (zero-copy): the emulated device's memory is host memory,
// so a mapped pointer is the host pointer itself, as under CUDA's unified addressing, where every
// pinned or registered allocation is reachable from the device whatever its flags say.

namespace gpulab::rt {
namespace {

constexpr unsigned kHostAllocFlags =
    cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
constexpr unsigned kHostRegisterFlags = cudaHostRegisterPortable | cudaHostRegisterMapped |
                                        cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;

// The flags each pinned or registered allocation was made with, by its start.
struct Flags {
  std::mutex mutex;
  std::map<const void*, unsigned> by_start;
};
Flags& flags() {
  static Flags* f = new Flags;  // never destroyed: late calls at exit still use it
  return *f;
}

bool pinned_or_registered(const simt::Allocation& a) {
  return a.kind == simt::AllocationKind::host_pinned ||
         a.kind == simt::AllocationKind::host_registered;
}

std::string site_of(const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

}  // namespace

}  // namespace gpulab::rt

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags, std::source_location where) {
  if ((flags & ~gpulab::rt::kHostAllocFlags) != 0) return set_error(cudaErrorInvalidValue);
  const cudaError_t e = cudaMallocHost(ptr, size, where);
  if (e == cudaSuccess && *ptr != nullptr) {
    auto& f = gpulab::rt::flags();
    std::lock_guard lock(f.mutex);
    f.by_start[*ptr] = flags;
  }
  return e;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags,
                             std::source_location where) {
  cudaError_t e;
  if (gpulab::rt::broken(&e)) return e;
  if (ptr == nullptr || size == 0 || (flags & ~gpulab::rt::kHostRegisterFlags) != 0) {
    return set_error(cudaErrorInvalidValue);
  }
  // Memory-mapped I/O is a device's registers, which the emulator has none of.
  if ((flags & cudaHostRegisterIoMemory) != 0) return set_error(cudaErrorNotSupported);
  // No byte of the range may belong to an allocation already (pinned, registered or device).
  const auto begin = reinterpret_cast<std::uintptr_t>(ptr);
  for (const gpulab::simt::Allocation& a : gpulab::simt::live_allocations()) {
    if (a.begin < begin + size && begin < a.begin + a.bytes) {
      return set_error(gpulab::rt::pinned_or_registered(a) ? cudaErrorHostMemoryAlreadyRegistered
                                                           : cudaErrorInvalidValue);
    }
  }
  gpulab::simt::adopt(ptr, size, gpulab::simt::AllocationKind::host_registered,
                      gpulab::rt::site_of(where));
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  f.by_start[ptr] = flags;
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
  cudaError_t e;
  if (gpulab::rt::broken(&e)) return e;
  if (ptr == nullptr) return set_error(cudaErrorInvalidValue);
  if (!gpulab::simt::release(ptr, gpulab::simt::AllocationKind::host_registered)) {
    return set_error(cudaErrorHostMemoryNotRegistered);
  }
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  f.by_start.erase(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  if (flags == nullptr) return set_error(cudaErrorInvalidValue);
  const auto a = gpulab::simt::find_allocation(host_ptr);
  if (!a || !gpulab::rt::pinned_or_registered(*a)) return set_error(cudaErrorInvalidValue);
  auto& f = gpulab::rt::flags();
  std::lock_guard lock(f.mutex);
  const auto it = f.by_start.find(reinterpret_cast<const void*>(a->begin));
  // Unified addressing maps every pinned allocation: cudaMallocHost's too.
  *flags = (it == f.by_start.end() ? 0u : it->second) | cudaHostAllocMapped;
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device_ptr, void* host_ptr, unsigned int flags) {
  if (device_ptr == nullptr || flags != 0) return set_error(cudaErrorInvalidValue);
  const auto a = gpulab::simt::find_allocation(host_ptr);
  // Only pinned or registered host memory has a device address (cudaMalloc's is device memory).
  if (!a || !gpulab::rt::pinned_or_registered(*a)) return set_error(cudaErrorInvalidValue);
  *device_ptr = host_ptr;
  return cudaSuccess;
}

// ---- 2-D and 3-D memory, stream-ordered allocation, unified memory's hints

namespace gpulab::rt {
namespace {

// cudaMallocPitch's row alignment (an H100's texturePitchAlignment).
constexpr size_t kPitchAlignment = 512;

cudaError_t set_rows(char* ptr, size_t pitch, int value, size_t width, size_t rows) {
  if (rows == 0 || width == 0) return cudaSuccess;
  if (width > pitch) return set_error(cudaErrorInvalidValue);
  for (size_t row = 0; row < rows; ++row) {
    if (const cudaError_t e = cudaMemset(ptr + row * pitch, value, width); e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

// A unified-memory hint's range: it must lie in one managed allocation (pinned host memory is
// accepted too: a hint about it is legal and does nothing).
cudaError_t hint_range(const void* ptr, size_t count) {
  if (ptr == nullptr || count == 0) return set_error(cudaErrorInvalidValue);
  const auto a = simt::find_allocation(ptr);
  if (!a || reinterpret_cast<std::uintptr_t>(ptr) + count > a->begin + a->bytes ||
      a->kind == simt::AllocationKind::device) {
    return set_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t check_location(const cudaMemLocation& location) {
  switch (location.type) {
    case cudaMemLocationTypeDevice:
      return location.id == 0 ? cudaSuccess : set_error(cudaErrorInvalidDevice);
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
      return cudaSuccess;
    default:
      return set_error(cudaErrorInvalidValue);
  }
}

cudaMemLocation location_of_device(int device) {
  if (device == cudaCpuDeviceId) return {cudaMemLocationTypeHost, 0};
  return {cudaMemLocationTypeDevice, device};
}

}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaMemset2D(void* ptr, size_t pitch, int value, size_t width, size_t height) {
  return gpulab::rt::set_rows(static_cast<char*>(ptr), pitch, value, width, height);
}
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t) {
  return gpulab::rt::set_rows(static_cast<char*>(ptr), pitch, value, width, height);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* pitched, cudaExtent extent, std::source_location where) {
  if (pitched == nullptr) return set_error(cudaErrorInvalidValue);
  const size_t pitch = (extent.width + gpulab::rt::kPitchAlignment - 1) /
                       gpulab::rt::kPitchAlignment * gpulab::rt::kPitchAlignment;
  *pitched = cudaPitchedPtr{nullptr, pitch, extent.width, extent.height};
  return gpulab::rt::allocate(&pitched->ptr, pitch * extent.height * extent.depth,
                              gpulab::simt::AllocationKind::device, where);
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitched, int value, cudaExtent extent) {
  if (pitched.ptr == nullptr) return set_error(cudaErrorInvalidValue);
  for (size_t z = 0; z < extent.depth; ++z) {
    char* slice = static_cast<char*>(pitched.ptr) + z * pitched.pitch * pitched.ysize;
    if (const cudaError_t e =
            gpulab::rt::set_rows(slice, pitched.pitch, value, extent.width, extent.height);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}
cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitched, int value, cudaExtent extent, cudaStream_t) {
  return cudaMemset3D(pitched, value, extent);
}

// A memory pool: what its allocations use now and at most, and the threshold the program set.
struct gpulab_mem_pool {
  std::uint64_t release_threshold = 0;
  std::uint64_t used = 0, used_high = 0;
  bool reuse[3] = {true, true, true};  // the three reuse policies, on by default
};

namespace gpulab::rt {
namespace {

struct Pools {
  std::mutex m;
  gpulab_mem_pool default_pool;
  cudaMemPool_t current = &default_pool;                                // cudaDeviceSetMemPool's
  std::map<const void*, std::pair<cudaMemPool_t, std::uint64_t>> from;  // allocation -> pool, bytes
  std::vector<std::unique_ptr<gpulab_mem_pool>> created;
};

Pools& pools() {
  static Pools p;
  return p;
}

bool known_pool(Pools& p, cudaMemPool_t pool) {
  if (pool == &p.default_pool) return true;
  return std::any_of(p.created.begin(), p.created.end(),
                     [&](const auto& c) { return c.get() == pool; });
}

cudaError_t allocate_from(void** ptr, size_t size, cudaMemPool_t pool,
                          const std::source_location& where) {
  Pools& p = pools();
  {
    std::lock_guard lock(p.m);
    if (!known_pool(p, pool)) return set_error(cudaErrorInvalidValue);
  }
  const cudaError_t e = allocate(ptr, size, simt::AllocationKind::device, where);
  if (e != cudaSuccess || *ptr == nullptr) return e;
  std::lock_guard lock(p.m);
  p.from[*ptr] = {pool, size};
  pool->used += size;
  pool->used_high = std::max(pool->used_high, pool->used);
  return cudaSuccess;
}

}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream,
                            std::source_location where) {
  // On a capturing stream: an allocation node of the graph, its address chosen now.
  if (cudaError_t e = cudaSuccess; gpulab::rt::graph_record_alloc(ptr, size, stream, where, &e))
    return e;
  cudaMemPool_t pool;
  {
    std::lock_guard lock(gpulab::rt::pools().m);
    pool = gpulab::rt::pools().current;
  }
  return gpulab::rt::allocate_from(ptr, size, pool, where);
}
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream, std::source_location where) {
  if (cudaError_t e = cudaSuccess; gpulab::rt::graph_record_alloc(ptr, size, stream, where, &e))
    return e;
  return gpulab::rt::allocate_from(ptr, size, pool, where);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  // On a capturing stream: a free node of the graph.
  if (cudaError_t e = cudaSuccess; gpulab::rt::graph_record_free(ptr, stream, &e)) return e;
  const cudaError_t e = gpulab::rt::free_kind(ptr, gpulab::simt::AllocationKind::device);
  if (e != cudaSuccess || ptr == nullptr) return e;
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  if (const auto it = p.from.find(ptr); it != p.from.end()) {
    it->second.first->used -= it->second.second;
    p.from.erase(it);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  if (pool == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  *pool = &gpulab::rt::pools().default_pool;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  if (pool == nullptr) return set_error(cudaErrorInvalidValue);
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  *pool = p.current;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  if (device != 0) return set_error(cudaErrorInvalidDevice);
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  if (!gpulab::rt::known_pool(p, pool)) return set_error(cudaErrorInvalidValue);
  p.current = pool;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  if (pool == nullptr || props == nullptr || props->allocType != cudaMemAllocationTypePinned ||
      props->location.type != cudaMemLocationTypeDevice || props->location.id != 0) {
    return set_error(cudaErrorInvalidValue);
  }
  if (props->handleTypes != cudaMemHandleTypeNone) return set_error(cudaErrorNotSupported);
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  p.created.push_back(std::make_unique<gpulab_mem_pool>());
  *pool = p.created.back().get();
  return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  // The default pool cannot be destroyed; a destroyed pool's live allocations stay valid.
  const auto it = std::find_if(p.created.begin(), p.created.end(),
                               [&](const auto& c) { return c.get() == pool; });
  if (it == p.created.end()) return set_error(cudaErrorInvalidValue);
  if (p.current == pool) p.current = &p.default_pool;
  for (auto a = p.from.begin(); a != p.from.end();) {
    a = a->second.first == pool ? p.from.erase(a) : std::next(a);
  }
  p.created.erase(it);
  return cudaSuccess;
}
namespace gpulab::rt {
namespace {

// f(pool) under the pools' lock, for a pool the program has and a value to read or write.
template <class F>
cudaError_t with_pool(cudaMemPool_t pool, const void* value, const F& f) {
  auto& p = pools();
  std::lock_guard lock(p.m);
  if (value == nullptr || !known_pool(p, pool)) return set_error(cudaErrorInvalidValue);
  return f(*pool);
}

// The three reuse policies, kept as reuse[attr - 1].
bool is_reuse_policy(cudaMemPoolAttr attr) {
  return attr >= cudaMemPoolReuseFollowEventDependencies &&
         attr <= cudaMemPoolReuseAllowInternalDependencies;
}

}  // namespace
}  // namespace gpulab::rt

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  return gpulab::rt::with_pool(pool, value, [&](gpulab_mem_pool& mp) {
    // An int for the reuse policies, a 64-bit size for the others.
    const auto u64 = [&] { return *static_cast<const std::uint64_t*>(value); };
    if (gpulab::rt::is_reuse_policy(attr)) {
      mp.reuse[attr - 1] = *static_cast<const int*>(value) != 0;
    } else if (attr == cudaMemPoolAttrReleaseThreshold) {
      mp.release_threshold = u64();
    } else if ((attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh) &&
               u64() == 0) {
      mp.used_high = mp.used;  // only a reset is allowed: the high-water mark is what is used now
    } else {
      return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
  });
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  return gpulab::rt::with_pool(pool, value, [&](const gpulab_mem_pool& mp) {
    auto* u64 = static_cast<std::uint64_t*>(value);
    if (gpulab::rt::is_reuse_policy(attr)) {
      *static_cast<int*>(value) = mp.reuse[attr - 1] ? 1 : 0;
    } else if (attr == cudaMemPoolAttrReleaseThreshold) {
      *u64 = mp.release_threshold;
    } else if (attr == cudaMemPoolAttrReservedMemCurrent || attr == cudaMemPoolAttrUsedMemCurrent) {
      *u64 = mp.used;  // memory goes back to the host when freed: reserved is what is used
    } else if (attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh) {
      *u64 = mp.used_high;
    } else {
      return set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
  });
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t) {
  auto& p = gpulab::rt::pools();
  std::lock_guard lock(p.m);
  // Nothing is held beyond what is in use: there is nothing to trim.
  return gpulab::rt::known_pool(p, pool) ? cudaSuccess : set_error(cudaErrorInvalidValue);
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t) {
  if (flags != 0) return set_error(cudaErrorInvalidValue);
  if (const cudaError_t e = gpulab::rt::hint_range(ptr, count); e != cudaSuccess) return e;
  return gpulab::rt::check_location(location);
}
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream) {
  return cudaMemPrefetchAsync(ptr, count, gpulab::rt::location_of_device(device), 0, stream);
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) {
    return set_error(cudaErrorInvalidValue);
  }
  if (const cudaError_t e = gpulab::rt::hint_range(ptr, count); e != cudaSuccess) return e;
  // Read-mostly takes no location; the others name one.
  if (advice == cudaMemAdviseSetReadMostly || advice == cudaMemAdviseUnsetReadMostly) {
    return cudaSuccess;
  }
  return gpulab::rt::check_location(location);
}
cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, int device) {
  return cudaMemAdvise(ptr, count, advice, gpulab::rt::location_of_device(device));
}
