// <builtin_types.h> for programs built by gpulab run: everything is in cuda_runtime.h.
#pragma once
#include "cuda_runtime.h"
