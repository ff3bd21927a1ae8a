// A matrix as 40,000 rows, each its own cudaMallocManaged (as a course's matrix-vector product
// makes a million), then a 64 MiB cudaMalloc. Each guarded allocation costs the process two memory
// mappings, and Linux allows 65,530 by default: the emulator must keep some for the program and for
// malloc's large blocks, or the last allocation fails with "out of memory".
#include <cstdio>
#include <vector>

__global__ void row_sums(int rows, int cols, int** matrix, const int* v, long long* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  long long s = 0;
  for (int j = 0; j < cols; ++j) s += matrix[i][j] * v[j];
  out[i] = s;
}

int main() {
  const int rows = 40000, cols = 16;
  int** matrix = nullptr;
  if (cudaMallocManaged(&matrix, rows * sizeof(int*)) != cudaSuccess) return 1;
  for (int i = 0; i < rows; ++i) {
    const cudaError_t e = cudaMallocManaged(&matrix[i], cols * sizeof(int));
    if (e != cudaSuccess) {
      printf("row %d: %s\n", i, cudaGetErrorString(e));
      return 1;
    }
    for (int j = 0; j < cols; ++j) matrix[i][j] = (i * 7 + j * 3) % 11 - 5;
  }
  int* v = nullptr;
  long long* out = nullptr;
  const size_t big = 64u << 20;
  cudaError_t e = cudaMallocManaged(&v, cols * sizeof(int));
  if (e == cudaSuccess) e = cudaMalloc(&out, big);
  if (e != cudaSuccess) {
    printf("last allocations: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int j = 0; j < cols; ++j) v[j] = j - 4;
  row_sums<<<(rows + 255) / 256, 256>>>(rows, cols, matrix, v, out);
  std::vector<long long> got(rows);
  e = cudaMemcpy(got.data(), out, rows * sizeof(long long), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    printf("copy: %s\n", cudaGetErrorString(e));
    return 1;
  }
  int wrong = 0;
  long long total = 0;
  for (int i = 0; i < rows; ++i) {
    long long s = 0;
    for (int j = 0; j < cols; ++j) s += (long long)matrix[i][j] * v[j];
    if (s != got[i]) ++wrong;
    total += got[i];
  }
  printf("%d rows, %d wrong, sum of the row sums %lld\n", rows, wrong, total);
  for (int i = 0; i < rows; ++i) cudaFree(matrix[i]);
  cudaFree(matrix);
  cudaFree(v);
  cudaFree(out);
  return wrong == 0 ? 0 : 1;
}
