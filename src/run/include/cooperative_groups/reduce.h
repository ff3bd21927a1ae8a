// cooperative_groups/reduce.h for programs built by gpulab run: cg::reduce and its operators.
#pragma once
#include "../cooperative_groups.h"
#include "simt/cg_reduce.hpp"
