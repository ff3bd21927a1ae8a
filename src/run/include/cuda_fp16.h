// <cuda_fp16.h> for programs built by gpulab run: __half and __half2 on the emulator.
#pragma once
#include "cuda_runtime.h"
#include "simt/half.hpp"
