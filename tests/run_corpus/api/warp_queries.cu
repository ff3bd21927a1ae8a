// The warp intrinsics and machine queries of the samples: __match_any_sync, __match_all_sync,
// the __reduce_*_sync family, __activemask, the special registers inline PTX reads (%laneid,
// %warpid, %lanemask_lt, %smid, %nsmid) and clock64(), each checked against the host's answer.
#include <cstdio>

__device__ unsigned lane_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}
__device__ __forceinline__ unsigned warp_id() {
  unsigned id;
  asm("mov.u32 %0, %%warpid;" : "=r"(id));
  return id;
}
__device__ unsigned lanes_below() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

struct Out {
  unsigned lane, lanes_below, match_any, match_all, all_pred, active;
  int sum, minimum, maximum;
  unsigned bits_and, bits_or, bits_xor;
  unsigned sm, sms, warp;
  long long ticks;
};

__global__ void queries(Out* out) {
  const int t = threadIdx.x;
  Out o;
  o.lane = lane_id();
  o.lanes_below = lanes_below();
  const int key = t % 3;  // lanes with the same key match
  o.match_any = __match_any_sync(0xffffffffu, key);
  int pred = 0;
  o.match_all = __match_all_sync(0xffffffffu, t / 32, &pred);
  o.all_pred = pred;
  o.active = __activemask();
  o.sum = __reduce_add_sync(0xffffffffu, t);
  o.minimum = __reduce_min_sync(0xffffffffu, 100 - t);
  o.maximum = __reduce_max_sync(0xffffffffu, t * 2);
  o.bits_and = __reduce_and_sync(0xffffffffu, 0xf0u | t);
  o.bits_or = __reduce_or_sync(0xffffffffu, 1u << (t % 32));
  o.bits_xor = __reduce_xor_sync(0xffffffffu, static_cast<unsigned>(t));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(o.sm));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(o.sms));
  const long long start = clock64();
  __nanosleep(100);
  o.ticks = clock64() - start;
  o.warp = warp_id();  // the warp's slot on its SM: below 64, an SM's most
  out[blockIdx.x * blockDim.x + t] = o;
}

int main() {
  const int threads = 64, blocks = 2, n = threads * blocks;
  Out* d;
  cudaMalloc(&d, n * sizeof(Out));
  queries<<<blocks, threads>>>(d);
  Out h[n];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int wrong[8] = {0};
  for (int i = 0; i < n; ++i) {
    const int t = i % threads, lane = t % 32, warp_base = t / 32 * 32;
    unsigned any = 0, bits_or = 0, bits_xor = 0, bits_and = 0xffffffffu;
    int sum = 0, minimum = 1 << 30, maximum = -1;
    for (int l = 0; l < 32; ++l) {
      const int u = warp_base + l;
      if (u % 3 == t % 3) any |= 1u << l;
      sum += u;
      minimum = minimum < 100 - u ? minimum : 100 - u;
      maximum = maximum > 2 * u ? maximum : 2 * u;
      bits_and &= 0xf0u | u;
      bits_or |= 1u << (u % 32);
      bits_xor ^= u;
    }
    wrong[0] += h[i].lane != static_cast<unsigned>(lane) ||
                h[i].lanes_below != (1u << lane) - 1u || h[i].warp >= 64;
    wrong[1] += h[i].match_any != any;
    wrong[2] += h[i].match_all != 0xffffffffu || h[i].all_pred != 1;
    wrong[3] += h[i].active != 0xffffffffu;
    wrong[4] += h[i].sum != sum || h[i].minimum != minimum || h[i].maximum != maximum;
    wrong[5] += h[i].bits_and != bits_and || h[i].bits_or != bits_or || h[i].bits_xor != bits_xor;
    wrong[6] += h[i].sm >= h[i].sms || h[i].sms < static_cast<unsigned>(sms);
    wrong[7] += h[i].ticks < 0;
  }
  const char* what[8] = {"%laneid, %warpid and %lanemask_lt", "__match_any_sync", "__match_all_sync",
                         "__activemask", "__reduce_add/min/max_sync",
                         "__reduce_and/or/xor_sync", "%smid below %nsmid", "clock64 never goes back"};
  for (int k = 0; k < 8; ++k) printf("%s: %d wrong of %d\n", what[k], wrong[k], n);
  cudaFree(d);
  return 0;
}
