// Stream priorities, stream callbacks and host functions, event and device flags, mapped memory's
// device pointer and unified memory's hints, as a program copied from a course calls them. Every
// line prints what CUDA answers; on the emulator the hints change nothing (there is one memory).
#include <cstdio>

__global__ void scale(float* v, int n, float by) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= by;
}

static int order[4];
static int steps = 0;
void CUDART_CB after_scale(cudaStream_t stream, cudaError_t status, void* tag) {
  order[steps++] = *static_cast<int*>(tag);
  if (status != cudaSuccess || stream == nullptr) printf("callback: %d\n", int(status));
}
void CUDART_CB host_step(void* tag) { order[steps++] = *static_cast<int*>(tag); }

int main() {
  printf("cudaSetDeviceFlags(ScheduleBlockingSync | MapHost): %s\n",
         cudaGetErrorName(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost)));
  unsigned flags = 0;
  cudaGetDeviceFlags(&flags);
  printf("cudaGetDeviceFlags: %#x (blocking sync %s)\n", flags,
         (flags & cudaDeviceScheduleBlockingSync) ? "on" : "off");
  printf("cudaSetDeviceFlags(0x10000): %s\n", cudaGetErrorName(cudaSetDeviceFlags(0x10000)));
  cudaGetLastError();

  int least = 1, greatest = 1;
  cudaDeviceGetStreamPriorityRange(&least, &greatest);
  printf("priorities: least %d, greatest %d\n", least, greatest);
  cudaStream_t urgent, calm;
  cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, greatest);
  cudaStreamCreateWithPriority(&calm, cudaStreamDefault, least + 3);
  int p_urgent = 99, p_calm = 99;
  cudaStreamGetPriority(urgent, &p_urgent);
  cudaStreamGetPriority(calm, &p_calm);
  printf("stream priorities: %d and %d (a value past least is clamped)\n", p_urgent, p_calm);
  int p_null = 99;
  cudaStreamGetPriority(0, &p_null);
  printf("the default stream's priority: %d\n", p_null);

  cudaEvent_t start, stop, blocking;
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventDefault);
  printf("cudaEventCreate(&e, BlockingSync | DisableTiming): %s\n",
         cudaGetErrorName(cudaEventCreate(&blocking, cudaEventBlockingSync | cudaEventDisableTiming)));

  const int n = 1000;
  float* host = nullptr;
  cudaHostAlloc(&host, n * sizeof(float), cudaHostAllocMapped);
  for (int i = 0; i < n; ++i) host[i] = float(i);
  float* mapped = nullptr;
  const cudaError_t got = cudaHostGetDevicePointer(&mapped, host, 0);
  printf("cudaHostGetDevicePointer (template form): %s, a device pointer %s\n",
         cudaGetErrorName(got), mapped != nullptr ? "yes" : "no");
  void* untyped = nullptr;
  printf("cudaHostGetDevicePointer (void**): %s\n",
         cudaGetErrorName(cudaHostGetDevicePointer(&untyped, host, 0)));

  int tags[4] = {1, 2, 3, 4};
  cudaEventRecord(start, urgent);
  scale<<<(n + 255) / 256, 256, 0, urgent>>>(mapped, n, 2.0f);
  cudaStreamAddCallback(urgent, after_scale, &tags[0], 0);
  cudaLaunchHostFunc(urgent, host_step, &tags[1]);
  scale<<<(n + 255) / 256, 256, 0, urgent>>>(mapped, n, 0.5f);
  cudaStreamAddCallback(urgent, after_scale, &tags[2], 0);
  cudaEventRecord(stop, urgent);
  cudaEventRecord(blocking, urgent);
  cudaEventSynchronize(blocking);
  cudaStreamSynchronize(urgent);
  printf("callbacks and host functions ran in stream order: %d %d %d (%d calls)\n", order[0],
         order[1], order[2], steps);
  printf("cudaStreamAddCallback with flags 1: %s\n",
         cudaGetErrorName(cudaStreamAddCallback(calm, after_scale, &tags[3], 1)));
  cudaGetLastError();
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += host[i] != float(i);
  printf("mapped memory after x2 and x0.5: %d wrong of %d\n", wrong, n);
  float ms = -1;
  const cudaError_t timed = cudaEventElapsedTime(&ms, start, stop);
  printf("cudaEventElapsedTime(start, stop): %s, not negative %s\n", cudaGetErrorName(timed),
         ms >= 0 ? "yes" : "no");

  float* managed = nullptr;
  cudaMallocManaged(&managed, n * sizeof(float));
  const cudaMemoryAdvise advice[] = {cudaMemAdviseSetReadMostly, cudaMemAdviseUnsetReadMostly,
                                     cudaMemAdviseSetPreferredLocation,
                                     cudaMemAdviseUnsetPreferredLocation,
                                     cudaMemAdviseSetAccessedBy, cudaMemAdviseUnsetAccessedBy};
  cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0};
  cudaMemLocation cpu = {cudaMemLocationTypeHost, 0};
  for (cudaMemoryAdvise a : advice) {
    printf("cudaMemAdvise(managed, %d, device 0): %s; host: %s\n", int(a),
           cudaGetErrorName(cudaMemAdvise(managed, n * sizeof(float), a, gpu)),
           cudaGetErrorName(cudaMemAdvise(managed, n * sizeof(float), a, cpu)));
  }
  printf("cudaMemAdvise with advice 0: %s\n",
         cudaGetErrorName(cudaMemAdvise(managed, n * sizeof(float), cudaMemoryAdvise(0), gpu)));
  cudaGetLastError();
  printf("cudaMemPrefetchAsync to device 0: %s; to the host: %s\n",
         cudaGetErrorName(cudaMemPrefetchAsync(managed, n * sizeof(float), gpu, 0, calm)),
         cudaGetErrorName(cudaMemPrefetchAsync(managed, n * sizeof(float), cpu, 0, calm)));
  cudaMemLocation other = {cudaMemLocationTypeDevice, 7};
  printf("cudaMemPrefetchAsync to device 7: %s\n",
         cudaGetErrorName(cudaMemPrefetchAsync(managed, n * sizeof(float), other, 0, calm)));
  cudaGetLastError();
  cudaStreamSynchronize(calm);

  cudaFree(managed);
  cudaFreeHost(host);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaEventDestroy(blocking);
  cudaStreamDestroy(urgent);
  cudaStreamDestroy(calm);
  printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
