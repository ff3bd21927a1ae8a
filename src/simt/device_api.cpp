// The out-of-line device API: forwards barriers and warp collectives to the block's scheduler.
#include "simt/device_api.hpp"

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
                    std::string(what) + "() called outside a kernel launch");
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

void trap(const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel("__trap");
  tl_recording = nullptr;
  tl_kernel_code = false;
  r->trap(where);
}

void invalid_device_call(const char* what, const std::source_location& where) {
  BlockRunner* r = tl_runner;
  if (r == nullptr) outside_kernel(what);
  tl_recording = nullptr;
  tl_kernel_code = false;
  r->invalid_call(what, where);
}

}  // namespace gpulab::simt::detail
