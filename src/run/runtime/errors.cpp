// Errors: the last error (per host thread) and the sticky error of a kernel fault,
// cudaGetLastError/cudaPeekAtLastError, and CUDA's own error names and messages.
#include <map>
#include <string>

#include "run/runtime/code_text.hpp"
#include "run/runtime/state.hpp"

namespace gpulab::rt {

cudaError_t set_error(cudaError_t e) {
  if (e != cudaSuccess) t_last_error = e;
  return e;
}

// Calls after a kernel fault fail as on a GPU, whose context is then unusable.
bool broken(cudaError_t* out) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.sticky == cudaSuccess) return false;
  *out = set_error(s.sticky);
  return true;
}

cudaError_t error_from_name(const std::string& name) {
  static const std::map<std::string, cudaError_t> names = {
      {"cudaErrorInvalidValue", cudaErrorInvalidValue},
      {"cudaErrorInvalidConfiguration", cudaErrorInvalidConfiguration},
      {"cudaErrorMemoryAllocation", cudaErrorMemoryAllocation},
      {"cudaErrorLaunchOutOfResources", cudaErrorLaunchOutOfResources},
      {"cudaErrorCooperativeLaunchTooLarge", cudaErrorCooperativeLaunchTooLarge},
  };
  const auto it = names.find(name);
  return it == names.end() ? cudaErrorUnknown : it->second;
}

}  // namespace gpulab::rt

using gpulab::rt::state;

// The host thread's last error, as CUDA keeps it: every call that fails sets it (after a kernel
// fault every call fails with the sticky error, and so sets it again); cudaGetLastError returns it
// and resets it to cudaSuccess, cudaPeekAtLastError leaves it. Neither asks the device: a second
// cudaGetLastError with no failing call in between returns cudaSuccess, also after a fault (as
// measured on an H100).
cudaError_t cudaGetLastError(void) {
  {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    s.unchecked = false;
  }
  const cudaError_t e = gpulab::rt::t_last_error;
  gpulab::rt::t_last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  s.unchecked = false;
  return gpulab::rt::t_last_error;
}

namespace {
// CUDA's own names and messages.
constexpr gpulab::rt::CodeText<cudaError_t> kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorCallRequiresNewerDriver, "cudaErrorCallRequiresNewerDriver",
     "API call is not supported in the installed CUDA driver"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorNotMapped, "cudaErrorNotMapped", "resource not mapped"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit",
     "limit is not supported on this architecture"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
     "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction",
     "an illegal instruction was encountered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated "
     "constraints specific to instantiated graph update"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};
}  // namespace

const char* cudaGetErrorString(cudaError_t error) {
  return gpulab::rt::code_words(kErrors, error, "unrecognized error code");
}
const char* cudaGetErrorName(cudaError_t error) {
  return gpulab::rt::code_name(kErrors, error, "cudaErrorUnknown");
}
