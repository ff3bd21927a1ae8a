// Asynchronous copies from global to shared memory (CUDA 11's <cuda/pipeline> and
// cuda::memcpy_async), each form with stages that a block reuses: a thread's own pipeline of
// four stages, a block's pipeline with one producer warp and seven consumer warps, a block's
// pipeline whose threads all produce and consume with the group form of memcpy_async, a copy
// completed by a cuda::barrier, cooperative groups' memcpy_async and wait, and the pipeline
// primitives. Every thread adds up its neighbour's element of each tile (a
// value another thread copied), so a tile read before it has landed, or after the next copy has
// overwritten its stage, gives a wrong sum. Each line compares the sums with the host's.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                               \
    }                                                                         \
  } while (0)

constexpr int kThreads = 256;
constexpr int kTiles = 12;  // tiles of kThreads floats per block
constexpr int kBlocks = 6;
constexpr int kStages = 4;
constexpr int kN = kBlocks * kTiles * kThreads;

// A thread's own pipeline: the first kStages - 1 tiles ahead, then one more per tile consumed.
__global__ void thread_pipeline(const float* in, float* out) {
  __shared__ float tile[kStages][kThreads];
  const int t = threadIdx.x;
  const float* base = in + blockIdx.x * kTiles * kThreads;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int k = 0; k < kStages - 1; ++k) {
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[k][t], base + k * kThreads + t, sizeof(float), pipe);
    pipe.producer_commit();
  }
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    const int next = k + kStages - 1;
    pipe.producer_acquire();
    if (next < kTiles) {
      cuda::memcpy_async(&tile[next % kStages][t], base + next * kThreads + t, sizeof(float), pipe);
    }
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();  // every thread's element of tile k has landed
    sum += tile[k % kStages][(t + 1) % kThreads];
    __syncthreads();  // read before its stage is filled again
    pipe.consumer_release();
  }
  out[blockIdx.x * kThreads + t] = sum;
}

// A block's pipeline: warp 7 produces (each lane copies 8 elements of a tile), warps 0-6 consume.
__global__ void block_pipeline_roles(const float* in, float* out) {
  __shared__ float tile[kStages][kThreads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  const int consumers = kThreads - 32;
  const auto role = t < consumers ? cuda::pipeline_role::consumer : cuda::pipeline_role::producer;
  auto pipe = cuda::make_pipeline(block, &state, role);
  const float* base = in + blockIdx.x * kTiles * kThreads;
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    if (t >= consumers) {
      pipe.producer_acquire();
      for (int i = t - consumers; i < kThreads; i += 32)
        cuda::memcpy_async(&tile[k % kStages][i], base + k * kThreads + i, sizeof(float), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      sum += tile[k % kStages][(t + 1) % kThreads] + tile[k % kStages][consumers + t % 32];
      pipe.consumer_release();
    }
  }
  if (t < consumers) out[blockIdx.x * kThreads + t] = sum;
}

// A block's pipeline whose threads all produce and consume, with memcpy_async's group form.
__global__ void block_pipeline_group(const float* in, float* out) {
  __shared__ float tile[kStages][kThreads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  auto pipe = cuda::make_pipeline(block, &state);
  const float* base = in + blockIdx.x * kTiles * kThreads;
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, tile[k % kStages], base + k * kThreads, sizeof(float) * kThreads,
                       pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    sum += tile[k % kStages][(t + 1) % kThreads];
    pipe.consumer_release();
  }
  out[blockIdx.x * kThreads + t] = sum;
}

// A copy completed by a barrier of the block.
__global__ void barrier_copy(const float* in, float* out) {
  __shared__ float tile[kThreads];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  const float* base = in + blockIdx.x * kTiles * kThreads;
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    cuda::memcpy_async(&tile[t], base + k * kThreads + t, sizeof(float), bar);
    bar.arrive_and_wait();
    sum += tile[(t + 1) % kThreads];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * kThreads + t] = sum;
}

// Cooperative groups: the block copies a tile together and waits for it.
__global__ void group_copy(const float* in, float* out) {
  __shared__ float tile[kThreads];
  cg::thread_block block = cg::this_thread_block();
  const int t = threadIdx.x;
  const float* base = in + blockIdx.x * kTiles * kThreads;
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    cg::memcpy_async(block, tile, base + k * kThreads, sizeof(float) * kThreads);
    cg::wait(block);
    sum += tile[(t + 1) % kThreads];
    block.sync();
  }
  out[blockIdx.x * kThreads + t] = sum;
}

// The primitives: each thread's copy, committed and waited for, then the block's barrier.
__global__ void primitives_copy(const float* in, float* out) {
  __shared__ float tile[kThreads];
  const int t = threadIdx.x;
  const float* base = in + blockIdx.x * kTiles * kThreads;
  float sum = 0.0f;
  for (int k = 0; k < kTiles; ++k) {
    __pipeline_memcpy_async(&tile[t], base + k * kThreads + t, sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    sum += tile[(t + 1) % kThreads];
    __syncthreads();
  }
  out[blockIdx.x * kThreads + t] = sum;
}

int main() {
  float* h = static_cast<float*>(std::malloc(kN * sizeof(float)));
  for (int i = 0; i < kN; ++i) h[i] = static_cast<float>((i * 7 + 3) % 13 - 6);
  float *in, *out;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kBlocks * kThreads * sizeof(float)));
  CHECK(cudaMemcpy(in, h, kN * sizeof(float), cudaMemcpyHostToDevice));
  float got[kBlocks * kThreads];
  const char* names[6] = {"thread pipeline, 4 stages",    "block pipeline, producer warp",
                          "block pipeline, group copies", "barrier copies",
                          "cooperative groups copies",    "pipeline primitives"};
  for (int form = 0; form < 6; ++form) {
    CHECK(cudaMemset(out, 0, kBlocks * kThreads * sizeof(float)));
    if (form == 0) thread_pipeline<<<kBlocks, kThreads>>>(in, out);
    if (form == 1) block_pipeline_roles<<<kBlocks, kThreads>>>(in, out);
    if (form == 2) block_pipeline_group<<<kBlocks, kThreads>>>(in, out);
    if (form == 3) barrier_copy<<<kBlocks, kThreads>>>(in, out);
    if (form == 4) group_copy<<<kBlocks, kThreads>>>(in, out);
    if (form == 5) primitives_copy<<<kBlocks, kThreads>>>(in, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    int wrong = 0, threads = 0;
    double total = 0.0;
    for (int b = 0; b < kBlocks; ++b) {
      for (int t = 0; t < kThreads; ++t) {
        if (form == 1 && t >= kThreads - 32) continue;  // the producer warp writes nothing
        double want = 0.0;
        for (int k = 0; k < kTiles; ++k) {
          const float* tile = h + (b * kTiles + k) * kThreads;
          want += tile[(t + 1) % kThreads];
          if (form == 1) want += tile[kThreads - 32 + t % 32];
        }
        wrong += got[b * kThreads + t] != static_cast<float>(want);
        total += got[b * kThreads + t];
        ++threads;
      }
    }
    std::printf("%s: %d of %d sums wrong, total %.0f\n", names[form], wrong, threads, total);
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  std::free(h);
  return 0;
}
