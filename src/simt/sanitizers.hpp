// AddressSanitizer annotations for fiber switches, compiled away when ASan is off.
#pragma once

#include <cstddef>

#include "simt/stack_pool.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GPULAB_SIMT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPULAB_SIMT_ASAN 1
#endif
#endif

#if defined(GPULAB_SIMT_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpulab::simt::detail {

#if defined(GPULAB_SIMT_ASAN)
inline constexpr bool kAsanEnabled = true;
#else
inline constexpr bool kAsanEnabled = false;
#endif

// ASan keeps its own idea of which stack is current; without these calls it would take a fiber's
// frames for a stack overflow or report false stack-buffer errors after a switch.
// fake_stack_save == nullptr on start means "the fiber we leave is finished".
inline void asan_start_switch([[maybe_unused]] void** fake_stack_save,
                              [[maybe_unused]] StackBounds to) {
#if defined(GPULAB_SIMT_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, to.bottom, to.size);
#endif
}

inline void asan_finish_switch([[maybe_unused]] void* fake_stack_save,
                               [[maybe_unused]] StackBounds* from) {
#if defined(GPULAB_SIMT_ASAN)
  if (from != nullptr) {
    __sanitizer_finish_switch_fiber(fake_stack_save, &from->bottom, &from->size);
  } else {
    __sanitizer_finish_switch_fiber(fake_stack_save, nullptr, nullptr);
  }
#endif
}

inline void asan_unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#if defined(GPULAB_SIMT_ASAN)
  __asan_unpoison_memory_region(p, n);
#endif
}

}  // namespace gpulab::simt::detail
