// Errors: the last error (per host thread) and the sticky error of a kernel fault,
// cudaGetLastError/cudaPeekAtLastError, and CUDA's own error names and messages.
#include <string>

#include "run/runtime/code_text.hpp"
#include "run/runtime/state.hpp"

namespace gpulab::rt {

namespace {

// CUDA's own names and messages.
constexpr CodeText<cudaError_t> kErrors[] = {
    GPULAB_CODE_TEXT(cudaSuccess, "no error"),
    GPULAB_CODE_TEXT(cudaErrorInvalidValue, "invalid argument"),
    GPULAB_CODE_TEXT(cudaErrorMemoryAllocation, "out of memory"),
    GPULAB_CODE_TEXT(cudaErrorInitializationError, "initialization error"),
    GPULAB_CODE_TEXT(cudaErrorCudartUnloading, "driver shutting down"),
    GPULAB_CODE_TEXT(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    GPULAB_CODE_TEXT(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    GPULAB_CODE_TEXT(cudaErrorInvalidSymbol, "invalid device symbol"),
    GPULAB_CODE_TEXT(cudaErrorInvalidHostPointer, "invalid host pointer"),
    GPULAB_CODE_TEXT(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    GPULAB_CODE_TEXT(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    GPULAB_CODE_TEXT(cudaErrorInsufficientDriver,
                     "CUDA driver version is insufficient for CUDA runtime version"),
    GPULAB_CODE_TEXT(cudaErrorCallRequiresNewerDriver,
                     "API call is not supported in the installed CUDA driver"),
    GPULAB_CODE_TEXT(cudaErrorInvalidDeviceFunction, "invalid device function"),
    GPULAB_CODE_TEXT(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    GPULAB_CODE_TEXT(cudaErrorInvalidDevice, "invalid device ordinal"),
    GPULAB_CODE_TEXT(cudaErrorPeerAccessUnsupported,
                     "peer access is not supported between these two devices"),
    GPULAB_CODE_TEXT(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    GPULAB_CODE_TEXT(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    GPULAB_CODE_TEXT(cudaErrorNotMapped, "resource not mapped"),
    GPULAB_CODE_TEXT(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    GPULAB_CODE_TEXT(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    GPULAB_CODE_TEXT(cudaErrorIllegalState,
                     "the operation cannot be performed in the present state"),
    GPULAB_CODE_TEXT(cudaErrorSymbolNotFound, "named symbol not found"),
    GPULAB_CODE_TEXT(cudaErrorNotReady, "device not ready"),
    GPULAB_CODE_TEXT(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    GPULAB_CODE_TEXT(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    GPULAB_CODE_TEXT(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    GPULAB_CODE_TEXT(cudaErrorAssert, "device-side assert triggered"),
    GPULAB_CODE_TEXT(cudaErrorHostMemoryAlreadyRegistered,
                     "part or all of the requested memory range is already mapped"),
    GPULAB_CODE_TEXT(cudaErrorHostMemoryNotRegistered,
                     "pointer does not correspond to a registered memory region"),
    GPULAB_CODE_TEXT(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    GPULAB_CODE_TEXT(cudaErrorMisalignedAddress, "misaligned address"),
    GPULAB_CODE_TEXT(cudaErrorLaunchFailure, "unspecified launch failure"),
    GPULAB_CODE_TEXT(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    GPULAB_CODE_TEXT(cudaErrorNotPermitted, "operation not permitted"),
    GPULAB_CODE_TEXT(cudaErrorNotSupported, "operation not supported"),
    GPULAB_CODE_TEXT(cudaErrorStreamCaptureUnsupported,
                     "operation not permitted when stream is capturing"),
    GPULAB_CODE_TEXT(
        cudaErrorStreamCaptureImplicit,
        "operation would make the legacy stream depend on a capturing blocking stream"),
    GPULAB_CODE_TEXT(cudaErrorGraphExecUpdateFailure,
                     "the graph update was not performed because it included changes which "
                     "violated constraints specific to instantiated graph update"),
    GPULAB_CODE_TEXT(cudaErrorUnknown, "unknown error"),
};

}  // namespace

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
  return code_named(kErrors, name, cudaErrorUnknown);
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

const char* cudaGetErrorString(cudaError_t error) {
  return gpulab::rt::code_words(gpulab::rt::kErrors, error, "unrecognized error code");
}
const char* cudaGetErrorName(cudaError_t error) {
  return gpulab::rt::code_name(gpulab::rt::kErrors, error, "cudaErrorUnknown");
}
