// cuBLAS calls captured into a CUDA graph (as OLCF's training series does with cublasSaxpy): the
// capture runs nothing, and each launch of the graph runs the kernel and every cuBLAS call again.
// A scalar given by host pointer is read at the call; one given by device pointer when the graph
// runs. Small integer values keep every float sum exact; the host checks every element.
#include <cublas_v2.h>
#include <cstdio>

__global__ void add_one(float* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1.0f;
}

int main() {
  const int n = 64;  // y = n floats; A = n x n, column-major
  float hx[n], hy[n], hA[n * n];
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 5);
    hy[i] = static_cast<float>(i % 3);
  }
  for (int i = 0; i < n * n; ++i) hA[i] = static_cast<float>((i % 7 == 0) - (i % 11 == 0));
  float *x, *y, *z, *A, *dev_alpha;
  cudaMalloc(&x, sizeof hx);
  cudaMalloc(&y, sizeof hy);
  cudaMalloc(&z, sizeof hy);
  cudaMalloc(&A, sizeof hA);
  cudaMalloc(&dev_alpha, sizeof(float));
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice);
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice);
  cudaMemset(z, 0, sizeof hy);

  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, stream);

  // The graph: y += 1; y += 3 x (host alpha); z = A y + 0 z (gemv); z *= alpha read from the
  // device when the graph runs.
  float alpha = 3.0f, zero = 0.0f, one = 1.0f;
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  add_one<<<1, n, 0, stream>>>(y, n);
  cublasSaxpy(h, n, &alpha, x, 1, y, 1);
  cublasSgemv(h, CUBLAS_OP_N, n, n, &one, A, n, y, 1, &zero, z, 1);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
  cublasSscal(h, n, dev_alpha, z, 1);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
  cudaStreamEndCapture(stream, &graph);
  alpha = 100.0f;  // read at the call: the graph keeps 3

  float after_capture[n];
  cudaMemcpy(after_capture, y, sizeof hy, cudaMemcpyDeviceToHost);
  int changed = 0;
  for (int i = 0; i < n; ++i) changed += after_capture[i] != hy[i];
  printf("after the capture, %d of %d elements of y changed\n", changed, n);

  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  const int launches = 3;
  float ry[n], rz[n];
  for (int i = 0; i < n; ++i) ry[i] = hy[i];
  for (int l = 0; l < launches; ++l) {
    const float scale = static_cast<float>(l + 2);  // the device scalar, set before each launch
    cudaMemcpy(dev_alpha, &scale, sizeof scale, cudaMemcpyHostToDevice);
    cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
    for (int i = 0; i < n; ++i) ry[i] += 1.0f + 3.0f * hx[i];
    for (int r = 0; r < n; ++r) {
      float s = 0.0f;
      for (int c = 0; c < n; ++c) s += hA[c * n + r] * ry[c];
      rz[r] = scale * s;
    }
  }
  cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost);
  float hz[n];
  cudaMemcpy(hz, z, sizeof hz, cudaMemcpyDeviceToHost);
  int wrong_y = 0, wrong_z = 0;
  for (int i = 0; i < n; ++i) {
    wrong_y += hy[i] != ry[i];
    wrong_z += hz[i] != rz[i];
  }
  printf("after %d launches: y[5] = %.0f, z[5] = %.0f\n", launches, hy[5], hz[5]);
  printf("%d of %d elements of y wrong, %d of %d of z\n", wrong_y, n, wrong_z, n);

  cublasDestroy(h);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(A);
  cudaFree(dev_alpha);
  return wrong_y + wrong_z == 0 ? 0 : 1;
}
