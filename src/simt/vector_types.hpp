// CUDA's vector types (dim3, uint3, float4, ...) with CUDA's layout, for code that g++ compiles.
//
// This header defines no macros, so host code may include it (through simt.hpp) without pulling in
// the kernel-side shim. Under nvcc, CUDA's own definitions are used instead.
#pragma once

#if defined(__CUDACC__)
#include <vector_types.h>
#else

// Alignments follow CUDA's vector_types.h: a vector of 2 or 4 elements is aligned to its size (at
// most 16 bytes), so that a kernel that loads a float4 through a cast pointer sees the same layout
// as on a GPU.
#define GPULAB_SIMT_VECTOR_TYPES(T, name, a2, a4)        \
  struct name##1 {                                       \
    T x;                                                 \
  };                                                     \
  struct alignas(a2) name##2 {                           \
    T x, y;                                              \
  };                                                     \
  struct name##3 {                                       \
    T x, y, z;                                           \
  };                                                     \
  struct alignas(a4) name##4 {                           \
    T x, y, z, w;                                        \
  };                                                     \
  constexpr name##1 make_##name##1(T x) {                \
    return name##1 {x};                                  \
  }                                                      \
  constexpr name##2 make_##name##2(T x, T y) {           \
    return name##2 {x, y};                               \
  }                                                      \
  constexpr name##3 make_##name##3(T x, T y, T z) {      \
    return name##3 {x, y, z};                            \
  }                                                      \
  constexpr name##4 make_##name##4(T x, T y, T z, T w) { \
    return name##4 {x, y, z, w};                         \
  }

GPULAB_SIMT_VECTOR_TYPES(signed char, char, 2, 4)
GPULAB_SIMT_VECTOR_TYPES(unsigned char, uchar, 2, 4)
GPULAB_SIMT_VECTOR_TYPES(short, short, 4, 8)
GPULAB_SIMT_VECTOR_TYPES(unsigned short, ushort, 4, 8)
GPULAB_SIMT_VECTOR_TYPES(int, int, 8, 16)
GPULAB_SIMT_VECTOR_TYPES(unsigned int, uint, 8, 16)
GPULAB_SIMT_VECTOR_TYPES(long, long, 16, 16)
GPULAB_SIMT_VECTOR_TYPES(unsigned long, ulong, 16, 16)
GPULAB_SIMT_VECTOR_TYPES(long long, longlong, 16, 16)
GPULAB_SIMT_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
GPULAB_SIMT_VECTOR_TYPES(float, float, 8, 16)
GPULAB_SIMT_VECTOR_TYPES(double, double, 16, 16)

#undef GPULAB_SIMT_VECTOR_TYPES

// CUDA's dim3: every component defaults to 1, and an unsigned converts to dim3(n, 1, 1), so that
// kernel<<<blocks, 256>>> reads as in CUDA.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

#endif
