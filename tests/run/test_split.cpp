// src/run/split: which kernels become region loops, which stay coroutines, and that every line
// keeps its number.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "run/split.hpp"

using gpulab::run::split_kernels;

namespace {

long lines(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n');
}

// The kernel `k` with `body`, and a device function that waits.
std::string kernel(const std::string& body, const std::string& params = "float* out, int n") {
  return "__device__ void helper(float* s) { s[0] = 1; __syncthreads(); }\n"
         "#define SIZE 64\n"
         "__global__ void k(" +
         params + ") {\n" + body + "\n}\n";
}

}  // namespace

TEST_CASE("split: kernels whose barriers every thread reaches become region loops", "[split]") {
  const char* eligible[] = {
      // Barriers at the body's top level; a return after the last one.
      "  __shared__ float s[SIZE];\n  const int t = threadIdx.x;\n  s[t] = t;\n"
      "  __syncthreads();\n  if (t >= n) return;\n  out[t] = s[SIZE - 1 - t];",
      // A tree in a loop whose header every thread computes alike.
      "  __shared__ float s[256];\n  unsigned t = threadIdx.x;\n  s[t] = out[t];\n"
      "  __syncthreads();\n"
      "  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {\n"
      "    if (t < stride) s[t] += s[t + stride];\n    __syncthreads();\n  }\n"
      "  if (t == 0) out[blockIdx.x] = s[0];",
      // Nested barrier loops, uniform locals in the headers, several declarators.
      "  __shared__ float s[SIZE];\n  const int b = blockIdx.x * 2, e = b + n;\n  float acc = 0;\n"
      "  for (int i = b; i < e; ++i) {\n    for (int j = 0; j < SIZE; j += 8) {\n"
      "      s[threadIdx.x] = acc;\n      __syncthreads();\n      acc += s[j];\n"
      "      __syncthreads();\n    }\n  }\n  out[threadIdx.x] = acc;",
      // A constexpr local.
      "  constexpr int kHalf = 32;\n  __shared__ float s[2 * kHalf];\n  float v = "
      "out[threadIdx.x];\n"
      "  s[threadIdx.x] = v;\n  __syncthreads();\n  out[threadIdx.x] = s[kHalf] + v;",
  };
  for (const char* body : eligible) {
    CAPTURE(body);
    const std::string source = kernel(body);
    const auto split = split_kernels(source);
    CHECK(split.regions == 1);
    CHECK(split.kernels == 1);
    CHECK(lines(split.text) == lines(source));
    CHECK(split.text.find("::gpulab::simt::region::run(") != std::string::npos);
    CHECK(split.text.find("co_await") == std::string::npos);
  }
}

TEST_CASE("split: what region loops cannot prove stays a coroutine", "[split]") {
  const char* refused[] = {
      // A barrier under a condition that depends on the thread (the divergent-barrier report).
      "  if (threadIdx.x < 16) {\n    __syncthreads();\n  }\n  out[threadIdx.x] = 1;",
      "  if (n > 2) __syncthreads();\n  out[threadIdx.x] = 1;",
      // A loop header that depends on the thread, or on memory.
      "  for (int i = threadIdx.x; i < n; i += 32) {\n    out[i] = 0;\n    __syncthreads();\n  }",
      "  for (int i = 0; i < out[0]; ++i) {\n    __syncthreads();\n  }",
      "  int t = threadIdx.x;\n  for (int i = t; i < n; ++i) {\n    __syncthreads();\n  }",
      // A loop variable or a header's local assigned in the body.
      "  for (int i = 0; i < n; ++i) {\n    if (threadIdx.x == 0) ++i;\n    __syncthreads();\n  }",
      "  int m = n;\n  for (int i = 0; i < m; ++i) {\n    __syncthreads();\n  }\n  m = 2;",
      // Leaving a barrier loop or the kernel before its last barrier.
      "  for (int i = 0; i < n; ++i) {\n    if (threadIdx.x == 3) break;\n    __syncthreads();\n  "
      "}",
      "  if (threadIdx.x >= n) return;\n  __syncthreads();\n  out[threadIdx.x] = 1;",
      // Other collectives, a device function that waits, a lambda, a spin.
      "  float v = __shfl_down_sync(0xffffffffu, 1.0f, 1);\n  __syncthreads();\n  out[0] = v;",
      "  helper(out);\n  __syncthreads();",
      "  __syncthreads_count(1);\n  __syncthreads();",
      "  atomicCAS((int*)out, 0, 1);\n  __syncthreads();",
      // A local whose type cannot be written again.
      "  auto v = out[threadIdx.x];\n  __syncthreads();\n  out[0] = v;",
      "  float v[2] = {1, 2};\n  __syncthreads();\n  out[0] = v[0];",
      // A name that stands for two variables, or for another before its declaration.
      "  out[0] = n;\n  __syncthreads();\n  for (int i = 0; i < 2; ++i) {\n    int n = 3;\n"
      "    __syncthreads();\n    out[n] = 1;\n  }",
  };
  for (const char* body : refused) {
    CAPTURE(body);
    const std::string source = kernel(body);
    const auto split = split_kernels(source);
    CHECK(split.regions == 0);
    CHECK(split.kernels == 1);  // still a coroutine
    CHECK(lines(split.text) == lines(source));
  }
  // A lambda keeps the kernel on fibers (neither form).
  const auto lambda = split_kernels(kernel("  auto f = [] { return 1; };\n  __syncthreads();"));
  CHECK(lambda.regions == 0);
  CHECK(lambda.kernels == 0);
  // Check builds: no coroutines, no region loops; and region loops can be asked off.
  const std::string tree = kernel("  __syncthreads();\n  out[threadIdx.x] = 1;");
  CHECK(split_kernels(tree, false).kernels == 0);
  CHECK(split_kernels(tree, true, false).regions == 0);
  CHECK(split_kernels(tree, true, false).kernels == 1);
  CHECK(split_kernels(tree).regions == 1);
}

TEST_CASE("split: a device function that waits in another file keeps its callers coroutines",
          "[split]") {
  // The kernel calls tile_sum, defined in a header or another file of the program; only there
  // is it seen to wait at a barrier.
  const std::string source = kernel("  __syncthreads();\n  tile_sum(out);");
  const std::string header =
      "__device__ void tile_sum(float* t) {\n  t[threadIdx.x] += 1;\n  __syncthreads();\n}\n";
  CHECK(split_kernels(source).regions == 1);  // alone, nothing says tile_sum waits
  const auto split = split_kernels(source, true, true, header);
  CHECK(split.regions == 0);
  CHECK(split.kernels == 1);
  // A function there that does not wait changes nothing; one that calls a waiting one waits.
  CHECK(split_kernels(source, true, true,
                      "__device__ void tile_sum(float* t) { t[threadIdx.x] += 1; }\n")
            .regions == 1);
  const std::string calls_outer = kernel("  __syncthreads();\n  outer(out);");
  CHECK(split_kernels(calls_outer, true, true,
                      header + "__device__ void outer(float* t) { tile_sum(t); }\n")
            .regions == 0);
}
