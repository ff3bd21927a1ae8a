// cooperative_groups for programs built by gpulab run: the emulator's implementation. As with
// nvcc, cg::reduce needs <cooperative_groups/reduce.h> and the scans <cooperative_groups/scan.h>.
#pragma once
#include "cuda_runtime.h"
#define GPULAB_CG_AS_NVCC 1
#include "simt/cooperative_groups.hpp"
