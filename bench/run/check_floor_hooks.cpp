// The cheapest hooks a -fsanitize=thread build can call (bench/run/check_floor.cpp): each access
// is appended to a thread-local buffer of 24-byte events (code address, address, size and kind),
// which wraps around and is never looked at. No check could cost less per access.
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uintptr_t
#include <cstring>  // std::memcpy

namespace {

struct Event {
  std::uintptr_t pc, address, meta;
};
constexpr std::size_t kEvents = 1 << 16;
thread_local Event t_events[kEvents];
thread_local std::size_t t_next = 0;

[[gnu::always_inline]] inline void keep(const void* p, std::uintptr_t meta, void* pc) {
  t_events[t_next] =
      Event{reinterpret_cast<std::uintptr_t>(pc), reinterpret_cast<std::uintptr_t>(p), meta};
  t_next = (t_next + 1) & (kEvents - 1);
}

}  // namespace

// The hooks' names and signatures are fixed by the compiler's ThreadSanitizer instrumentation.
// NOLINTBEGIN
extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
#define CHECK_FLOOR_ACCESS(n)                         \
  void __tsan_read##n(void* p) {                      \
    keep(p, n << 1, __builtin_return_address(0));     \
  }                                                   \
  void __tsan_write##n(void* p) {                     \
    keep(p, n << 1 | 1, __builtin_return_address(0)); \
  }                                                   \
  void __tsan_unaligned_read##n(void* p) {            \
    keep(p, n << 1, __builtin_return_address(0));     \
  }                                                   \
  void __tsan_unaligned_write##n(void* p) {           \
    keep(p, n << 1 | 1, __builtin_return_address(0)); \
  }
CHECK_FLOOR_ACCESS(1)
CHECK_FLOOR_ACCESS(2)
CHECK_FLOOR_ACCESS(4)
CHECK_FLOOR_ACCESS(8)
CHECK_FLOOR_ACCESS(16)
#undef CHECK_FLOOR_ACCESS
void __tsan_read_range(void* p, unsigned long n) {
  keep(p, n << 1, __builtin_return_address(0));
}
void __tsan_write_range(void* p, unsigned long n) {
  keep(p, n << 1 | 1, __builtin_return_address(0));
}
void* __tsan_memcpy(void* d, const void* s, std::size_t n) {
  return std::memcpy(d, s, n);
}
}
// NOLINTEND
