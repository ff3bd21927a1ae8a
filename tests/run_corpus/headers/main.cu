// A program whose kernel and launch live in a header, found through -I (include/reduce.cuh), and
// a second file (squares.cu) that includes the same header by a relative path. Built as
// `nvcc -Iinclude main.cu squares.cu`. Each sum is checked against the host's.
#include <cmath>
#include <cstdio>

#include <reduce.cuh>

double sum_of_squares(int n);  // squares.cu

int main() {
  const int n = 1000;
  float* h = new float[n];
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 7);
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  const double device = sum_on_device(d, n);
  double host = 0;
  for (int i = 0; i < n; ++i) host += h[i];
  const double squares = sum_of_squares(n);
  double host_squares = 0;
  for (int i = 0; i < n; ++i) host_squares += static_cast<double>(i % 5) * (i % 5);
  std::printf("sum %.0f (host %.0f), squares %.0f (host %.0f)\n", device, host, squares,
              host_squares);
  cudaFree(d);
  delete[] h;
  const bool ok = device == host && squares == host_squares;
  std::printf("%s\n", ok ? "both match the host" : "MISMATCH");
  return ok ? 0 : 1;
}
