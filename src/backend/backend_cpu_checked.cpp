// The emulator backend for --check: the same kernels, compiled with every memory access
// instrumented so that the emulator can report races on shared memory.
#define GPULAB_BACKEND_NS emulator_checked_backend
#include "backend/backend_cpu.inl"
