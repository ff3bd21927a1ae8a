// Peer access on a machine with one GPU: what each call answers (peer_access.out is an H200
// host's output with one GPU, 2026-11-28). The emulated device is one device, and answers alike.
#include <cstdio>
#define P(call)                                       \
  do {                                                \
    cudaError_t e = (call);                           \
    printf("%-60s %s\n", #call, cudaGetErrorName(e)); \
    cudaGetLastError();                               \
  } while (0)
int main() {
  int n = 0, can = -1, v = -7;
  P(cudaGetDeviceCount(&n));
  printf("devices %d\n", n);
  P(cudaDeviceCanAccessPeer(&can, 0, 0));
  printf("can %d\n", can);
  P(cudaDeviceCanAccessPeer(&can, 0, 1));
  P(cudaDeviceEnablePeerAccess(0, 0));
  P(cudaDeviceEnablePeerAccess(1, 0));
  P(cudaDeviceEnablePeerAccess(0, 1));
  P(cudaDeviceEnablePeerAccess(-1, 0));
  P(cudaDeviceDisablePeerAccess(0));
  P(cudaDeviceDisablePeerAccess(1));
  P(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0));
  printf("v %d\n", v);
  P(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 1));
  float *a, *b;
  float h[4] = {1, 2, 3, 4}, g[4] = {0, 0, 0, 0};
  cudaMalloc(&a, 16);
  cudaMalloc(&b, 16);
  cudaMemcpy(a, h, 16, cudaMemcpyHostToDevice);
  P(cudaMemcpyPeer(b, 0, a, 0, 16));
  cudaMemcpy(g, b, 16, cudaMemcpyDeviceToHost);
  printf("copied %g %g %g %g\n", g[0], g[1], g[2], g[3]);
  P(cudaMemcpyPeer(b, 1, a, 0, 16));
  P(cudaMemcpyPeer(b, 0, a, 1, 16));
  P(cudaMemcpyPeerAsync(b, 0, a, 0, 16, 0));
  P(cudaMemcpyPeerAsync(b, 0, a, 2, 16, 0));
  P(cudaMemcpyPeer(b, 0, a, 0, 0));
  P(cudaSetDevice(1));
  P(cudaDeviceSynchronize());
  P(cudaGetLastError());
  cudaFree(a);
  cudaFree(b);
  return 0;
}
