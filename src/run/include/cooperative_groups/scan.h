// cooperative_groups/scan.h for programs built by gpulab run: cg::inclusive_scan and
// cg::exclusive_scan, and the operators.
#pragma once
#include "../cooperative_groups.h"
#include "simt/cg_scan.hpp"
