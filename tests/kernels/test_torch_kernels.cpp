// The PyTorch bridge's kernels (add2, relu_scale, linear_gelu) on the SIMT emulator against
// float64 host references: the same headers python/gpulab_torch compiles with nvcc.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/prelude.cuh"
#include "simt/simt.hpp"

// Kernel code is written as CUDA programmers write it (unsigned builtins into int indices).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
namespace torch_kernels {
#include "kernels/add2.cuh"
#include "kernels/linear_gelu.cuh"
#include "kernels/relu_scale.cuh"
}  // namespace torch_kernels
#pragma GCC diagnostic pop

namespace {

namespace k = torch_kernels;
using gpulab::simt::launch;

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// Emulated global memory holding a copy of a host vector.
class Buffer {
 public:
  explicit Buffer(const std::vector<float>& host)
      : n_(host.size()),
        p_(static_cast<float*>(gpulab::simt::device_malloc((n_ == 0 ? 1 : n_) * sizeof(float)))) {
    for (std::size_t i = 0; i < n_; ++i) p_[i] = host[i];
  }
  explicit Buffer(std::size_t n) : Buffer(std::vector<float>(n, std::nanf(""))) {}
  ~Buffer() { gpulab::simt::device_free(p_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* get() const { return p_; }
  std::vector<float> to_host() const { return std::vector<float>(p_, p_ + n_); }

 private:
  std::size_t n_;
  float* p_;
};

std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

unsigned blocks_for(long long n, unsigned block) {
  return static_cast<unsigned>(n == 0 ? 1 : (n + block - 1) / block);
}

}  // namespace

TEST_CASE("add2 adds every element, with a covering grid and with a capped grid", "[torch]") {
  const auto seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // Edge sizes around a block of 256 and a random one.
  for (long long n :
       {0LL, 1LL, 255LL, 256LL, 257LL, 1000LL + static_cast<long long>(rng() % 5000)}) {
    for (unsigned grid : {blocks_for(n, 256), 2u}) {  // 2 blocks: each thread loops
      CAPTURE(n, grid);
      const auto a = random_floats(rng, static_cast<std::size_t>(n), -1e3f, 1e3f);
      const auto b = random_floats(rng, static_cast<std::size_t>(n), -1e3f, 1e3f);
      Buffer da(a), db(b), dc(static_cast<std::size_t>(n));
      launch(k::add2_kernel, grid, 256, 0, {}, dc.get(), static_cast<const float*>(da.get()),
             static_cast<const float*>(db.get()), n);
      const auto c = dc.to_host();
      for (std::size_t i = 0; i < c.size(); ++i) {
        const double want = static_cast<double>(a[i]) + static_cast<double>(b[i]);
        // One float rounding of the exact sum: at most half an ulp of the result.
        REQUIRE(std::abs(c[i] - want) <= std::abs(want) * 0x1p-24 + 1e-30);
      }
    }
  }
}

TEST_CASE("relu_scale forward and backward match float64 references", "[torch]") {
  const auto seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (long long n :
       {0LL, 1LL, 5LL, 31LL, 256LL, 1027LL, 3000LL + static_cast<long long>(rng() % 3000)}) {
    // offset 1: every pointer 4 bytes past a 16-byte boundary, so the float4 path is skipped.
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
      for (float alpha : {1.5f, -0.75f, 0.0f}) {
        CAPTURE(n, offset, alpha);
        const auto size = static_cast<std::size_t>(n);
        auto x = random_floats(rng, size + offset, -4.0f, 4.0f);
        if (n >= 3) {  // the edges: zero (gradient 0 there), NaN (stays NaN), negative zero
          x[offset] = 0.0f;
          x[offset + 1] = std::numeric_limits<float>::quiet_NaN();
          x[offset + 2] = -0.0f;
        }
        const auto gy = random_floats(rng, size + offset, -2.0f, 2.0f);
        Buffer dx(x), dgy(gy), dy(size + offset), dgx(size + offset);
        // A grid smaller than the data for the larger sizes, so that threads loop.
        const unsigned grid = n > 1024 ? 2u : blocks_for(n, 256);
        launch(k::relu_scale_forward, grid, 256, 0, {},
               static_cast<const float*>(dx.get() + offset), dy.get() + offset, n, alpha);
        launch(k::relu_scale_backward, grid, 256, 0, {},
               static_cast<const float*>(dgy.get() + offset),
               static_cast<const float*>(dx.get() + offset), dgx.get() + offset, n, alpha);
        const auto y = dy.to_host();
        const auto gx = dgx.to_host();
        for (std::size_t i = offset; i < y.size(); ++i) {
          CAPTURE(i, x[i]);
          if (std::isnan(x[i])) {
            REQUIRE(std::isnan(y[i]));
            REQUIRE(gx[i] == gy[i] * alpha);  // as torch.relu: x <= 0 is false for NaN
            continue;
          }
          const double relu = x[i] > 0.0f ? static_cast<double>(x[i]) : 0.0;
          const double want_y = relu * alpha;
          const double want_gx = x[i] > 0.0f ? static_cast<double>(gy[i]) * alpha : 0.0;
          // One float rounding of the exact product: at most half an ulp.
          REQUIRE(std::abs(y[i] - want_y) <= std::abs(want_y) * 0x1p-24);
          REQUIRE(std::abs(gx[i] - want_gx) <= std::abs(want_gx) * 0x1p-24);
        }
        if (offset == 1) {  // the element before the view is never written
          REQUIRE(std::isnan(y[0]));
          REQUIRE(std::isnan(gx[0]));
        }
      }
    }
  }
}

TEST_CASE("the notes' fused linear + bias + GELU matches a float64 reference", "[torch]") {
  const auto seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const int rows = 3, in = 37, out = 70;  // 210 outputs: one full block of 128 and a partial one
  const auto x = random_floats(rng, rows * in, -1.0f, 1.0f);
  const auto w = random_floats(rng, out * in, -0.3f, 0.3f);
  const auto bias = random_floats(rng, out, -1.0f, 1.0f);
  Buffer dx(x), dw(w), db(bias), dy(rows * out);
  launch(k::fused_linear_gelu, blocks_for(rows * out, 128), 128, 0, {},
         static_cast<const float*>(dx.get()), static_cast<const float*>(dw.get()),
         static_cast<const float*>(db.get()), dy.get(), rows, in, out);
  const auto y = dy.to_host();
  for (int b = 0; b < rows; ++b) {
    for (int o = 0; o < out; ++o) {
      double s = bias[static_cast<std::size_t>(o)];
      for (int i = 0; i < in; ++i) {
        s += static_cast<double>(x[static_cast<std::size_t>(b * in + i)]) *
             w[static_cast<std::size_t>(o * in + i)];
      }
      const double want =
          0.5 * s *
          (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (s + 0.044715 * s * s * s)));
      CAPTURE(b, o, s);
      // 37 float products and sums: a few ulps of the terms' size, far below a wrong index's error.
      REQUIRE(std::abs(y[static_cast<std::size_t>(b * out + o)] - want) <= 1e-5);
    }
  }
}
