// cooperative_groups/scan.h for programs built by gpulab run (the scans are in the main header).
#pragma once
#include "../cooperative_groups.h"
