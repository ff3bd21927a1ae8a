// The nvcc build of cg_half_dump.cu (one source cannot be both a CXX and a CUDA file in CMake).
#include "cg_half_dump.cu"
