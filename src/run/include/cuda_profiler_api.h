// <cuda_profiler_api.h> for programs built by gpulab run: cudaProfilerStart/Stop do nothing.
#pragma once
#include "cuda_runtime.h"
