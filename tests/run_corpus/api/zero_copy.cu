// Zero-copy memory as the samples use it (simpleZeroCopy, CUDA by Example's chapter 11): pinned
// host memory mapped into the device (cudaHostAlloc with cudaHostAllocMapped), memory the program
// allocated itself and registered (cudaHostRegister), each reached by a kernel through
// cudaHostGetDevicePointer and checked against the host's sum; then the error codes CUDA gives
// for misuse.
#include <cstdio>
#include <cstdlib>

__global__ void scale_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = 2.0f * a[i] + b[i];
}

static int check(const float* a, const float* b, const float* c, int n) {
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != 2.0f * a[i] + b[i];
  return wrong;
}

int main() {
  const int n = 3000;
  const size_t bytes = n * sizeof(float);
  unsigned int device_flags = 0;
  cudaSetDeviceFlags(cudaDeviceMapHost);
  cudaGetDeviceFlags(&device_flags);
  printf("device flags include cudaDeviceMapHost: %s\n",
         (device_flags & cudaDeviceMapHost) ? "yes" : "no");

  // Mapped pinned memory: the kernel reads and writes host memory directly.
  float *a, *b, *c;
  cudaHostAlloc(&a, bytes, cudaHostAllocMapped);
  cudaHostAlloc(&b, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  cudaHostAlloc(&c, bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * i;
    b[i] = static_cast<float>(i % 17);
  }
  float *da, *db, *dc;
  cudaHostGetDevicePointer(&da, a, 0);
  cudaHostGetDevicePointer(&db, b, 0);
  cudaHostGetDevicePointer(&dc, c, 0);
  scale_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaDeviceSynchronize();
  printf("mapped cudaHostAlloc: %d wrong of %d\n", check(a, b, c, n), n);
  unsigned int flags = 0;
  cudaHostGetFlags(&flags, b);
  printf("cudaHostGetFlags of the portable buffer: portable %s, mapped %s\n",
         (flags & cudaHostAllocPortable) ? "yes" : "no", (flags & cudaHostAllocMapped) ? "yes" : "no");

  // The program's own memory, registered and mapped.
  float* own = static_cast<float*>(malloc(bytes));
  for (int i = 0; i < n; ++i) own[i] = 0.0f;
  cudaError_t e = cudaHostRegister(own, bytes, cudaHostRegisterMapped);
  printf("cudaHostRegister: %s\n", cudaGetErrorName(e));
  float* down;
  cudaHostGetDevicePointer(&down, own, 0);
  scale_add<<<(n + 255) / 256, 256>>>(da, db, down, n);
  cudaDeviceSynchronize();
  printf("registered malloc memory: %d wrong of %d\n", check(a, b, own, n), n);
  cudaPointerAttributes attributes;
  cudaPointerGetAttributes(&attributes, own);
  printf("its pointer attributes: type %s, device pointer is the host pointer: %s\n",
         attributes.type == cudaMemoryTypeHost ? "host" : "other",
         attributes.devicePointer == own ? "yes" : "no");

  // Misuse, with CUDA's error codes.
  printf("registering it again: %s\n",
         cudaGetErrorName(cudaHostRegister(own, bytes, cudaHostRegisterDefault)));
  printf("cudaHostGetDevicePointer with flags 1: %s\n",
         cudaGetErrorName(cudaHostGetDevicePointer(reinterpret_cast<void**>(&down), own, 1)));
  printf("cudaHostAlloc with flags 0x40: %s\n",
         cudaGetErrorName(cudaHostAlloc(reinterpret_cast<void**>(&down), 64, 0x40)));
  cudaGetLastError();
  printf("cudaHostUnregister: %s\n", cudaGetErrorName(cudaHostUnregister(own)));
  printf("cudaHostUnregister again: %s\n", cudaGetErrorName(cudaHostUnregister(own)));
  float* device_memory;
  cudaMalloc(&device_memory, 64);
  printf("cudaHostGetDevicePointer of cudaMalloc memory: %s\n",
         cudaGetErrorName(
             cudaHostGetDevicePointer(reinterpret_cast<void**>(&down), device_memory, 0)));
  cudaGetLastError();
  cudaFree(device_memory);
  free(own);
  cudaFreeHost(a);
  cudaFreeHost(b);
  cudaFreeHost(c);
  return 0;
}
