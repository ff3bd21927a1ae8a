// The out-of-line device API: forwards barriers and warp collectives to the block's scheduler.
#include "simt/device_api.hpp"

#include <coroutine>
#include <new>
#include <string>

#include "simt/kernel_code.hpp"
#include "simt/race_check.hpp"
#include "simt/scheduler.hpp"

namespace gpulab::simt::detail {

namespace {

// The emulator's own bookkeeping must not be taken for kernel accesses, even where it happens to
// call an instrumented copy of an inline library function.
class RecordingPause {
 public:
  RecordingPause() : saved_(tl_recording) { tl_recording = nullptr; }
  ~RecordingPause() { tl_recording = saved_; }
  RecordingPause(const RecordingPause&) = delete;
  RecordingPause& operator=(const RecordingPause&) = delete;

 private:
  RaceChecker* saved_;
  EmulatorCode emulator_;  // nor its allocations for the kernel's (kernel_code.hpp)
};

[[noreturn]] void outside_kernel(const char* what) {
  throw KernelFault(KernelFault::Kind::outside_kernel,
                    {std::string(what) + "() called outside a kernel launch",
                     std::string("在核函数启动之外调用了 ") + what + "()"},
                    0);
}

}  // namespace

int block_barrier(BlockOp op, int predicate, const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(block_op_name(op));
  RecordingPause pause;
  return r->block_barrier(op, predicate, where);
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                              const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(warp_op_name(op));
  RecordingPause pause;
  return r->warp_collective(op, mask, value, arg, width, where);
}

// No recording to pause here: coroutine threads are not instrumented (gpulab run keeps check
// builds on fibers); the scheduler turns recording on and off around each resumption.
CoArrival co_block_barrier(BlockOp op, int predicate, const std::source_location& where,
                           void* handle) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(block_op_name(op));
  if (tl_recording != nullptr) tl_recording = nullptr;
  return r->co_block_barrier(op, predicate, where, handle);
}

CoArrival co_warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width,
                             const std::source_location& where, void* handle) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(warp_op_name(op));
  RecordingPause pause;
  return r->co_warp_collective(op, mask, value, arg, width, where, handle);
}

void co_started(void* handle) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) {
    // Outside a launch a coroutine thread ends before it could wait: it would have called
    // outside_kernel() at its first barrier.
    std::coroutine_handle<>::from_address(handle).destroy();
    return;
  }
  r->co_started(handle);
}

void* co_frame_allocate(std::size_t bytes) {
  if (BlockRunner* r = tl_runner; r != nullptr) {
    if (void* p = r->co_frame_allocate(bytes); p != nullptr) return p;
  }
  return ::operator new(bytes);
}

void co_frame_free(void* frame) noexcept {
  if (BlockRunner* r = tl_runner; r != nullptr) {
    const auto [begin, end] = r->frame_range();
    const auto a = reinterpret_cast<std::uintptr_t>(frame);
    if (a >= begin && a < end) return;  // freed with the block
  }
  ::operator delete(frame);
}

ThreadLoop* region_begin(bool speculative) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel("__syncthreads");
  return r->region_begin(speculative);
}

void region_fall_back() {
  tl_runner->region_fall_back();
}

void* region_storage(std::size_t bytes) {
  return tl_runner->region_storage(bytes);
}

void region_barrier(bool first) {
  tl_runner->region_barrier(first);
}

void spin(const void* address) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) return;
  RecordingPause pause;
  r->spin(address);
}

void handoff() {
  if (BlockRunner* r = tl_runner; r != nullptr) r->handoff();
}

void spin_wait() {
  spin(&BlockRunner::kLoopRound);
}

void trap(const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel("__trap");
  tl_recording = nullptr;
  tl_kernel_code = false;
  r->trap(where);
}

void invalid_device_call(const char* what, const char* what_zh, const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(what);
  tl_recording = nullptr;
  tl_kernel_code = false;
  r->invalid_call({what, what_zh}, where);
}

}  // namespace gpulab::simt::detail
