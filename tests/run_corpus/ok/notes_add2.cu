// The course notes' add2 kernel and launcher (file 003), with a host main() that checks it.
#include <cstdio>
#include <cmath>
#include <vector>

void launch_add2(float *c,
                 const float *a,
                 const float *b,
                 int n);

__global__ void add2_kernel(float* c,
                            const float* a,
                            const float* b,
                            int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; \
            i < n; i += gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}

void launch_add2(float* c,
                 const float* a,
                 const float* b,
                 int n) {
    dim3 grid((n + 1023) / 1024);
    dim3 block(1024);
    add2_kernel<<<grid, block>>>(c, a, b, n);
}

int main() {
    const int n = 5000;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) { a[i] = 0.5f * i; b[i] = 1.0f / (i + 1); }
    float *da, *db, *dc;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dc, n * sizeof(float));
    cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    launch_add2(dc, da, db, n);
    cudaError_t err = cudaGetLastError();
    cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = fmax(worst, fabs((double)c[i] - ((double)a[i] + b[i])));
    printf("add2: %s, n = %d, grid = %d blocks of 1024, max error %.3g\n", cudaGetErrorString(err), n,
           (n + 1023) / 1024, worst);
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return worst < 1e-3 ? 0 : 1;
}
