// Streams, events and launches beyond <<<>>>, with CUDA's semantics and error codes: stream
// priorities and flags, callbacks and host functions in stream order, event flags and queries,
// cudaLaunchKernel with an array of argument pointers, device limits and cudaGetErrorName.
#include <cstdio>

__global__ void add(int* v, int n, int amount) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += amount;
}

static int calls = 0;
static void CUDART_CB host_step(void* data) {
  calls += *static_cast<int*>(data);
}
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void* data) {
  calls += *static_cast<int*>(data) * 10;
  if (status != cudaSuccess) printf("callback saw %s\n", cudaGetErrorName(status));
}

int main() {
  int least = 0, greatest = 0;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  printf("stream priorities: least %d, greatest %d\n", least, greatest);
  cudaStream_t high, low;
  cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest - 10);
  cudaStreamCreateWithPriority(&low, cudaStreamDefault, least);
  int priority = 0;
  unsigned int flags = 0;
  cudaStreamGetPriority(high, &priority);
  cudaStreamGetFlags(high, &flags);
  printf("a priority past the greatest is clamped to %d; flags %u\n", priority, flags);
  cudaStream_t refused;
  printf("cudaStreamCreateWithFlags(0x4): %s\n",
         cudaGetErrorName(cudaStreamCreateWithFlags(&refused, 0x4)));
  cudaGetLastError();

  const int n = 500;
  int* v;
  cudaMalloc(&v, n * sizeof(int));
  cudaMemsetAsync(v, 0, n * sizeof(int), high);
  int amount = 7;
  void* args[] = {&v, const_cast<int*>(&n), &amount};
  cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void*>(add), dim3((n + 127) / 128),
                                   dim3(128), args, 0, high);
  printf("cudaLaunchKernel: %s\n", cudaGetErrorName(e));
  int one = 1;
  cudaLaunchHostFunc(high, host_step, &one);
  cudaStreamAddCallback(high, callback, &one, 0);
  add<<<(n + 127) / 128, 128, 0, high>>>(v, n, 1);
  cudaStreamSynchronize(high);
  int h[n];
  cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += h[i] != 8;
  printf("two launches on the high-priority stream: %d wrong of %d; host function and callback "
         "ran: %d\n",
         wrong, n, calls);
  e = cudaLaunchKernel(reinterpret_cast<const void*>(add), dim3(1), dim3(2048), args, 0, 0);
  printf("cudaLaunchKernel with 2048 threads: %s, then cudaGetLastError: %s\n",
         cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));

  cudaEvent_t timed, untimed;
  cudaEventCreate(&timed);
  cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming | cudaEventBlockingSync);
  printf("an event never recorded: cudaEventQuery %s\n", cudaGetErrorName(cudaEventQuery(timed)));
  cudaEventRecord(timed, low);
  cudaEventRecordWithFlags(untimed, low, cudaEventRecordDefault);
  cudaEventSynchronize(untimed);
  float ms = 0;
  printf("elapsed time to an event without timing: %s\n",
         cudaGetErrorName(cudaEventElapsedTime(&ms, timed, untimed)));
  cudaEvent_t bad;
  printf("cudaEventInterprocess without cudaEventDisableTiming: %s\n",
         cudaGetErrorName(cudaEventCreateWithFlags(&bad, cudaEventInterprocess)));
  cudaGetLastError();

  size_t value = 0;
  cudaDeviceGetLimit(&value, cudaLimitDevRuntimePendingLaunchCount);
  printf("cudaLimitDevRuntimePendingLaunchCount: %zu\n", value);
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20);
  cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize);
  printf("cudaLimitMallocHeapSize after setting 16 MiB: %zu\n", value);
  printf("cudaLimitDevRuntimeSyncDepth on this device: %s\n",
         cudaGetErrorName(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4)));
  cudaGetLastError();
  printf("names: %s %s %s\n", cudaGetErrorName(cudaErrorInvalidConfiguration),
         cudaGetErrorName(cudaErrorHostMemoryNotRegistered), cudaGetErrorName(cudaErrorNotReady));
  cudaEventDestroy(timed);
  cudaEventDestroy(untimed);
  cudaStreamDestroy(high);
  cudaStreamDestroy(low);
  cudaFree(v);
  return 0;
}
