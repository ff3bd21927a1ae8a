// The course notes' two-norm kernel with a host main(), its `if (threadIdx.x == 0)` taken out
// (lesson 14). Run it with: gpulab run --check two_norm.cu
#include <cstdio>  //  用于print结果
#include <cmath>

__global__ void two_norm_kernel(const float *a,const float *b,float *c, int n, int m) {
    __shared__ float a_minus_b[64*64];  // 不支持可变数量的参数,矩阵维度最多为(4096,4096)

    for(int row=threadIdx.x;row<n;row+=blockDim.x){
        for(int col=0;col<m;col++){  // 循环展开
            float a_ij = a[row * m + col];
            float b_ij = b[row * m + col];
            a_minus_b[row * m + col] = (a_ij - b_ij) * (a_ij - b_ij);
        }
    }

    __syncthreads();  // 等待整个a_minus_b被计算完毕

    // 将每行结果加到每行的第一个元素上
    for(int row=threadIdx.x;row<n;row+=blockDim.x){
        for(int col=1;col<m;col++){  // 循环展开
            a_minus_b[row * m + 0] += a_minus_b[row * m + col];
        }
    }

    __syncthreads();  // 等待结果都加到了第一行

    // 将所有结果加到第一行第一列元素上
    // The notes have if(threadIdx.x == 0){ ... } around these lines; without it, every thread runs them.
        for(int i=1;i<n;i++)
            a_minus_b[0] += a_minus_b[i * m + 0];
        c[0] = sqrtf(a_minus_b[0]);
}

void launch_two_norm(const float *a,const float *b,float *c, int n, int m) {
    two_norm_kernel<<<1, 512>>>(a, b, c, n, m);
}

int main() {
    const int n = 48, m = 40;
    float a[n * m], b[n * m];
    double expect = 0;
    for (int i = 0; i < n * m; ++i) {
        a[i] = (i % 17) * 0.25f;
        b[i] = (i % 5) * 0.5f;
        expect += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    }
    expect = sqrt(expect);
    float *da, *db, *dc, c = 0;
    cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dc, sizeof(float));
    cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    launch_two_norm(da, db, dc, n, m);
    cudaMemcpy(&c, dc, sizeof(float), cudaMemcpyDeviceToHost);
    printf("two_norm of a %dx%d difference: %.4f (float64 reference %.4f)\n", n, m, c, expect);
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return fabs(c - expect) < 1e-3 * expect ? 0 : 1;
}
