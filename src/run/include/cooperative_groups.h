// cooperative_groups for programs built by gpulab run: the emulator's implementation.
#pragma once
#include "cuda_runtime.h"
#include "simt/cooperative_groups.hpp"
