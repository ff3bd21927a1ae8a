// my_op.cu of the course notes (file 001): fused ReLU + scale, with a host main() that checks it.
#include <cuda_runtime.h>
#include <cstdio>
#include <cmath>
__global__ void fused_relu_scale_kernel(float* input, float* output, int N, float alpha) {
int idx = blockIdx.x * blockDim.x + threadIdx.x;
if (idx < N) {
output[idx] = fmaxf(input[idx], 0.0f) * alpha;
}
}
extern "C" void launch_fused_relu_scale(float* d_input, float* d_output, int N, float alpha) {
int block_size = 256;
int grid_size = (N + block_size - 1) / block_size;
fused_relu_scale_kernel<<<grid_size, block_size>>>(d_input, d_output, N, alpha);
cudaDeviceSynchronize();
}
int main() {
    const int N = 1000;
    const float alpha = 2.5f;
    float in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = (i % 7) - 3.0f + 0.125f * (i % 3);
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof in);
    cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
    launch_fused_relu_scale(d_in, d_out, N, alpha);
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += out[i] != (in[i] > 0 ? in[i] : 0.0f) * alpha;
    printf("relu+scale: %d of %d elements wrong; out[3] = %.3f, out[4] = %.3f\n", wrong, N, out[3], out[4]);
    cudaFree(d_in); cudaFree(d_out);
    return wrong == 0 ? 0 : 1;
}
