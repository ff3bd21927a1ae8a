// <sm_61_intrinsics.h> for programs built by gpulab run: __dp4a, __dp2a_lo and __dp2a_hi are in
// cuda_runtime.h (simt/device_api.hpp), as nvcc makes them available without this header.
#pragma once
#include "cuda_runtime.h"
