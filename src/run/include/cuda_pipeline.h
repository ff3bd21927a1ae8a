// cuda_pipeline.h for programs built by gpulab run: the pipeline primitives
// (cuda_pipeline_primitives.h).
#pragma once
#include "cuda_pipeline_primitives.h"
