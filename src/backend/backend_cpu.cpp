// The emulator backend: gpulab's kernels compiled by g++ against the SIMT emulator's CUDA shim.
#define GPULAB_BACKEND_NS emulator_backend
#include "backend/backend_cpu.inl"
