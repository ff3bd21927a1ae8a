// cooperative_groups/reduce.h for programs built by gpulab run (cg::reduce is in the main header).
#pragma once
#include "../cooperative_groups.h"
