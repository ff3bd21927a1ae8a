// Declarations shared by the files of one program (separate compilation: -rdc=true on a GPU).
#pragma once

#ifdef __CUDACC__                // not seen by reference.cpp, which nvcc gives to the host compiler
extern __device__ int g_offset;  // defined in kernels.cu
__device__ int scale(int x);     // defined in kernels.cu
#endif
void launch_fill(int* d, int n);      // defined in main.cu
int host_check(const int* h, int n);  // defined in reference.cpp, the host's answer
