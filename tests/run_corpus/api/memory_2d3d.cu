// Pitched, 2-D and 3-D memory as the samples use it: cudaMallocPitch with cudaMemcpy2D and
// cudaMemset2D, cudaMalloc3D with cudaMemcpy3D and cudaMemset3D, a kernel over each, stream-ordered
// cudaMallocAsync, and managed memory with CUDA 13's cudaMemAdvise / cudaMemPrefetchAsync
// (cudaMemLocation); each result checked against the host's.
#include <cstdio>

__global__ void bump2d(float* p, size_t pitch, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(p) + y * pitch);
    row[x] += 1.0f;
  }
}

__global__ void bump3d(cudaPitchedPtr p, int w, int h, int d) {
  const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) {
    char* slice = static_cast<char*>(p.ptr) + z * p.pitch * h;
    reinterpret_cast<int*>(slice + y * p.pitch)[x] += x + 10 * y + 100 * z;
  }
}

int main() {
  // 2-D: 37 x 11 floats.
  const int w = 37, h = 11;
  float host[h][w];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) host[y][x] = static_cast<float>(x * y);
  float* d;
  size_t pitch = 0;
  cudaMallocPitch(&d, &pitch, w * sizeof(float), h);
  printf("cudaMallocPitch: pitch holds a row and is a multiple of 256: %s\n",
         pitch >= w * sizeof(float) && pitch % 256 == 0 ? "yes" : "no");
  cudaMemcpy2D(d, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
  bump2d<<<dim3(1, h), 64>>>(d, pitch, w, h);
  float back[h][w];
  cudaMemcpy2D(back, w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) wrong += back[y][x] != x * y + 1.0f;
  printf("cudaMemcpy2D there and back around a kernel: %d wrong of %d\n", wrong, w * h);
  cudaMemset2D(d, pitch, 0, w * sizeof(float), h);
  cudaMemcpy2DAsync(back, w * sizeof(float), d, pitch, w * sizeof(float), h,
                    cudaMemcpyDeviceToHost, 0);
  cudaDeviceSynchronize();
  wrong = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) wrong += back[y][x] != 0.0f;
  printf("cudaMemset2D then cudaMemcpy2DAsync: %d not zero\n", wrong);
  printf("cudaMemcpy2D with a width past the pitch: %s\n",
         cudaGetErrorName(cudaMemcpy2D(back, 4, d, pitch, 8, h, cudaMemcpyDeviceToHost)));
  cudaGetLastError();
  cudaFree(d);

  // 3-D: 5 x 4 x 3 ints.
  const int X = 5, Y = 4, Z = 3;
  cudaExtent extent = make_cudaExtent(X * sizeof(int), Y, Z);
  cudaPitchedPtr p;
  cudaMalloc3D(&p, extent);
  cudaMemset3D(p, 0, extent);
  bump3d<<<dim3(Y, Z), X>>>(p, X, Y, Z);
  int cube[Z][Y][X];
  cudaMemcpy3DParms copy = {};
  copy.srcPtr = p;
  copy.dstPtr = make_cudaPitchedPtr(cube, X * sizeof(int), X, Y);
  copy.extent = extent;
  copy.kind = cudaMemcpyDeviceToHost;
  cudaError_t e = cudaMemcpy3D(&copy);
  wrong = 0;
  for (int z = 0; z < Z; ++z)
    for (int y = 0; y < Y; ++y)
      for (int x = 0; x < X; ++x) wrong += cube[z][y][x] != x + 10 * y + 100 * z;
  printf("cudaMalloc3D, cudaMemset3D, a kernel, cudaMemcpy3D (%s): %d wrong of %d\n",
         cudaGetErrorName(e), wrong, X * Y * Z);
  // Part of the cube: the middle slice's last two rows.
  int part[2][X] = {};
  cudaMemcpy3DParms some = {};
  some.srcPtr = p;
  some.srcPos = make_cudaPos(0, 2, 1);
  some.dstPtr = make_cudaPitchedPtr(part, X * sizeof(int), X, 2);
  some.extent = make_cudaExtent(X * sizeof(int), 2, 1);
  some.kind = cudaMemcpyDeviceToHost;
  cudaMemcpy3DAsync(&some, 0);
  cudaDeviceSynchronize();
  printf("a 3-D copy from position (0, 2, 1): %d ... %d\n", part[0][0], part[1][X - 1]);
  cudaFree(p.ptr);

  // Stream-ordered allocation and managed memory's hints.
  int* a;
  cudaMallocAsync(&a, 256 * sizeof(int), 0);
  cudaMemsetAsync(a, 0, 256 * sizeof(int), 0);
  printf("cudaFreeAsync: %s\n", cudaGetErrorName(cudaFreeAsync(a, 0)));
  float* m;
  cudaMallocManaged(&m, 1024 * sizeof(float));
  cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0}, cpu = {cudaMemLocationTypeHost, 0};
  printf("cudaMemAdvise read-mostly: %s, preferred location the GPU: %s\n",
         cudaGetErrorName(cudaMemAdvise(m, 1024 * sizeof(float), cudaMemAdviseSetReadMostly, gpu)),
         cudaGetErrorName(
             cudaMemAdvise(m, 1024 * sizeof(float), cudaMemAdviseSetPreferredLocation, gpu)));
  printf("cudaMemPrefetchAsync to the GPU: %s, back to the host: %s\n",
         cudaGetErrorName(cudaMemPrefetchAsync(m, 1024 * sizeof(float), gpu, 0, 0)),
         cudaGetErrorName(cudaMemPrefetchAsync(m, 1024 * sizeof(float), cpu, 0, 0)));
  cudaDeviceSynchronize();
  cudaFree(m);
  return 0;
}
