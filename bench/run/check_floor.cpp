// The least a check of every access can cost (docs/performance.md, "The floor of a per-access
// check"): check_overhead.cu's two kernels as plain loops over the block's threads, region after
// region, built as gpulab's checked builds are (-O1, no vectoriser), once with no hooks and once
// with -fsanitize=thread and check_floor_hooks.cpp, whose hooks only append each access to a
// buffer and check nothing. bench/run_check_floor.sh builds and times them.
#include <algorithm>  // std::sort
#include <chrono>     // std::chrono::steady_clock
#include <cstdio>     // std::printf
#include <cstdlib>    // std::malloc

namespace {

constexpr int kTile = 16;
// gpulab's __shared__ arrays are thread_local: one copy for each worker.
thread_local float as[kTile][kTile];
thread_local float bs[kTile][kTile];

void vector_add(const float* a, const float* b, float* c, int n) {
  for (int block = 0; block < n / 256; ++block)
    for (int t = 0; t < 256; ++t) {
      const int i = block * 256 + t;
      if (i < n) c[i] = a[i] + b[i];
    }
}

// The tiled product of check_overhead.cu, each region (between two barriers) a loop over the
// block's 256 threads, each thread's accumulator kept across them as region loops keep it.
void matmul(const float* a, const float* b, float* c, int n) {
  float acc[kTile][kTile];
  for (int by = 0; by < n / kTile; ++by)
    for (int bx = 0; bx < n / kTile; ++bx) {
      for (int ty = 0; ty < kTile; ++ty)
        for (int tx = 0; tx < kTile; ++tx) acc[ty][tx] = 0.0f;
      for (int k0 = 0; k0 < n; k0 += kTile) {
        for (int ty = 0; ty < kTile; ++ty)
          for (int tx = 0; tx < kTile; ++tx) {
            as[ty][tx] = a[(by * kTile + ty) * n + k0 + tx];
            bs[ty][tx] = b[(k0 + ty) * n + bx * kTile + tx];
          }
        for (int ty = 0; ty < kTile; ++ty)
          for (int tx = 0; tx < kTile; ++tx) {
            float sum = acc[ty][tx];  // in a register across the loop, as a thread's local is
            for (int k = 0; k < kTile; ++k) sum += as[ty][k] * bs[k][tx];
            acc[ty][tx] = sum;
          }
      }
      for (int ty = 0; ty < kTile; ++ty)
        for (int tx = 0; tx < kTile; ++tx) c[(by * kTile + ty) * n + bx * kTile + tx] = acc[ty][tx];
    }
}

template <class Run>
double median_ms(Run run) {
  run();  // warm-up
  double ms[3];
  for (double& m : ms) {
    const auto start = std::chrono::steady_clock::now();
    run();
    m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::sort(ms, ms + 3);
  return ms[1];
}

}  // namespace

int main() {
  const int n = 1 << 24;
  auto* a = static_cast<float*>(std::malloc(n * sizeof(float)));
  auto* b = static_cast<float*>(std::malloc(n * sizeof(float)));
  auto* c = static_cast<float*>(std::malloc(n * sizeof(float)));
  if (a == nullptr || b == nullptr || c == nullptr) return 1;
  for (int i = 0; i < n; ++i) a[i] = b[i] = 1.0f;
  std::printf("vector add 2^24: median %.2f ms\n", median_ms([&] { vector_add(a, b, c, n); }));
  const int m = 512;
  const double mul = median_ms([&] { matmul(a, b, c, m); });
  std::printf("matmul 512: median %.2f ms, c[0] = %.0f\n", mul, c[0]);
  std::free(a);
  std::free(b);
  std::free(c);
  return 0;
}
