// The one header a gpulab kernel includes: real CUDA under nvcc, gpulab's SIMT emulator under g++.
//
// Kernel headers (src/kernels/*.cuh) hold plain CUDA C++ and include nothing but this file. They
// declare no namespace of their own: each backend includes them inside its own namespace, so that
// the nvcc copy and the g++ copy of a kernel never collide at link time.
#pragma once

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#else
#include "simt/cuda_shim.hpp"
#endif

#include <math.h>  // sqrtf, fmaxf, ... in the global namespace, as in CUDA
#include <cstdio>  // printf in kernels
