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

// How many times `what` stands in `text`.
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
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
      // A while loop whose local every thread halves alike (CUDA by Example's dot product).
      "  __shared__ float cache[SIZE];\n  int tid = threadIdx.x + blockIdx.x * blockDim.x;\n"
      "  int cacheIndex = threadIdx.x;\n  float temp = 0;\n"
      "  while (tid < n) {\n    temp += out[tid];\n    tid += blockDim.x * gridDim.x;\n  }\n"
      "  cache[cacheIndex] = temp;\n  __syncthreads();\n  int i = blockDim.x / 2;\n"
      "  while (i != 0) {\n    if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];\n"
      "    __syncthreads();\n    i /= 2;\n  }\n  if (cacheIndex == 0) out[blockIdx.x] = cache[0];",
      // A const local as a shared array's size: it moves ahead of the loops before the array.
      "  const int half = SIZE / 2;\n  __shared__ float s[half];\n"
      "  s[threadIdx.x % half] = 1;\n  __syncthreads();\n  out[threadIdx.x] = s[0];",
      // A constexpr local.
      "  constexpr int kHalf = 32;\n  __shared__ float s[2 * kHalf];\n  float v = "
      "out[threadIdx.x];\n"
      "  s[threadIdx.x] = v;\n  __syncthreads();\n  out[threadIdx.x] = s[kHalf] + v;",
      // Barriers under an if whose condition every thread of a block computes alike (blockIdx,
      // a by-value parameter, a uniform local): braced or not, with an else or not, in a loop.
      "  if (n > 2) __syncthreads();\n  out[threadIdx.x] = 1;",
      "  float v = out[threadIdx.x];\n  if (blockIdx.x > 0) {\n    __syncthreads();\n"
      "    out[threadIdx.x] = v;\n  }",
      "  __shared__ float s[SIZE];\n  const int half = n / 2;\n  if (half > 2) {\n"
      "    float v = s[threadIdx.x];\n    __syncthreads();\n    out[threadIdx.x] = v;\n"
      "  } else {\n    int w = n;\n    out[threadIdx.x] = w;\n  }\n  __syncthreads();",
      "  if (gridDim.x == 1) {\n    out[0] = 1;\n  } else {\n    __syncthreads();\n  }",
      "  for (int i = 0; i < n; ++i) {\n    if (i % 2 == 0) {\n      __syncthreads();\n    }\n"
      "    out[threadIdx.x] += i;\n  }",
      // A local that indexed a grid-stride loop, set again to a value alike in every thread
      // before the tree it then counts down (a course's dot product).
      "  __shared__ float s[SIZE];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  s[threadIdx.x] = 0;\n  while (i < n) {\n    s[threadIdx.x] += out[i];\n"
      "    i += gridDim.x * blockDim.x;\n  }\n  __syncthreads();\n  i = SIZE / 2;\n"
      "  while (i > 0) {\n    if (threadIdx.x < i) s[threadIdx.x] += s[threadIdx.x + i];\n"
      "    __syncthreads();\n    i /= 2;\n  }\n  if (threadIdx.x == 0) out[blockIdx.x] = s[0];",
  };
  for (const char* body : eligible) {
    CAPTURE(body);
    const std::string source = kernel(body);
    const auto split = split_kernels(source);
    CHECK(split.regions == 1);
    CHECK(split.kernels == 1);
    CHECK(lines(split.text) == lines(source));
    CHECK(split.text.find("::gpulab::simt::region::Block gpulab_rb_") != std::string::npos);
    CHECK(split.text.find("co_await") == std::string::npos);
  }
}

TEST_CASE("split: a bounds check around or ahead of the barriers: region loops if the block agrees",
          "[split]") {
  const char* guarded[] = {
      // The bounds check around the barriers (OLCF's tiled matmul), a local's condition, a
      // local of an ALL_CAPS name (no constant), and the check ahead of them (PMPP's sums).
      "  if (threadIdx.x < 16) {\n    __syncthreads();\n  }\n  out[threadIdx.x] = 1;",
      "  int t = threadIdx.x;\n  if (t > 0) {\n    __syncthreads();\n  }",
      "  const int T = threadIdx.x;\n  if (T < 16) {\n    __syncthreads();\n  }\n  out[T] = 1;",
      "  __shared__ float s[SIZE];\n  int col = threadIdx.x + blockDim.x * blockIdx.x;\n"
      "  int row = threadIdx.y + blockDim.y * blockIdx.y;\n  if (row < n && col < n) {\n"
      "    float acc = 0;\n    for (int m = 0; m < n / 8; ++m) {\n"
      "      s[threadIdx.x] = out[row * n + m];\n      __syncthreads();\n"
      "      acc += s[0];\n      __syncthreads();\n    }\n    out[row * n + col] = acc;\n  }",
      "  if (threadIdx.x >= n) return;\n  __syncthreads();\n  out[threadIdx.x] = 1;",
      "  __shared__ float s[SIZE];\n  unsigned int i = 2 * blockDim.x * blockIdx.x + threadIdx.x;\n"
      "  if (i >= n || i + blockDim.x >= n) {\n    return;\n  }\n  s[threadIdx.x] = out[i];\n"
      "  for (unsigned int stride = blockDim.x / 2; stride >= 1; stride /= 2) {\n"
      "    __syncthreads();\n    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + "
      "stride];\n"
      "  }",
  };
  for (const char* body : guarded) {
    CAPTURE(body);
    const std::string source = kernel(body);
    const auto split = split_kernels(source);
    CHECK(split.regions == 1);
    CHECK(split.kernels == 1);
    CHECK(split.text.find("co_await") == std::string::npos);
    // Each thread's check, then the region loops or the kernel's code as written.
    CHECK(count(split.text, "::gpulab::simt::region::begin(true)") == 1);
    CHECK(count(split.text, "gpulab_rb_.fall_back();") == 1);
    CHECK(count(split.text, "if (gpulab_ru_)") == 1);
    // The code as written, on the kernel's own lines (it starts on line 3, its body's first line
    // is 4), and the lines after the kernel theirs again.
    const std::size_t copy = split.text.find("\n#line 3\n{");
    REQUIRE(copy != std::string::npos);
    CHECK(split.text.find("__syncthreads();", copy) != std::string::npos);
    const long after = lines(source);
    CHECK(split.text.find("\n#line " + std::to_string(after) + "\n}\n", copy) != std::string::npos);
  }
  // A check alike in every thread of a block needs no guard: the region loops alone.
  const auto uniform = split_kernels(kernel("  if (blockIdx.x < n) {\n    __syncthreads();\n  }"));
  CHECK(uniform.regions == 1);
  CHECK(count(uniform.text, "::gpulab::simt::region::begin()") == 1);
  CHECK(uniform.text.find("fall_back") == std::string::npos);
}

TEST_CASE("split: each region is a loop over the threads, a barrier loop the block's", "[split]") {
  const std::string loop = "gpulab_rb_.thread(gpulab_rt_";
  // The tree: the load, the loop body's one region (the code after its barrier is empty), the
  // store; the loop's header stays the block's own, run once.
  const auto tree = split_kernels(
      kernel("  __shared__ float s[256];\n  unsigned t = threadIdx.x;\n  s[t] = out[t];\n"
             "  __syncthreads();\n"
             "  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {\n"
             "    if (t < stride) s[t] += s[t + stride];\n    __syncthreads();\n  }\n"
             "  if (t == 0) out[blockIdx.x] = s[0];"));
  CHECK(tree.regions == 1);
  CHECK(count(tree.text, loop) == 3);
  CHECK(count(tree.text, "gpulab_rb_.barrier()") == 2);
  CHECK(tree.text.find("for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1)") !=
        std::string::npos);
  // The shared array moved ahead of the loops, its line kept.
  CHECK(tree.text.find("gpulab_rb_(*gpulab_rl_); __shared__ float s[256];") != std::string::npos);
  // A kept local in a barrier loop's header: thread 0's (alike in every thread).
  const auto nested = split_kernels(kernel(
      "  __shared__ float s[SIZE];\n  const int b = blockIdx.x * 2, e = b + n;\n  float acc = 0;\n"
      "  for (int i = b; i < e; ++i) {\n    for (int j = 0; j < SIZE; j += 8) {\n"
      "      s[threadIdx.x] = acc;\n      __syncthreads();\n      acc += s[j];\n"
      "      __syncthreads();\n    }\n  }\n  out[threadIdx.x] = acc;"));
  CHECK(nested.regions == 1);
  // Locals alike in every thread and never assigned are the block's, computed once; acc, which
  // each thread assigns, keeps a slot per thread.
  CHECK(nested.text.find("for (int i = b; i < e; ++i)") != std::string::npos);
  CHECK(nested.text.find(" const int  b = blockIdx.x * 2; const int  e = b + n;") !=
        std::string::npos);
  CHECK(count(nested.text, "::gpulab::simt::region::store<") == 1);
  CHECK(count(nested.text, loop) == 4);
  // A local of a loop's body that a nested barrier loop's header names: thread 0's slot.
  const auto inner = split_kernels(kernel(
      "  __shared__ float s[SIZE];\n  float acc = 0;\n"
      "  for (int i = 0; i < n; ++i) {\n    const int lim = SIZE / 2;\n"
      "    for (int j = 0; j < lim; ++j) {\n      s[threadIdx.x] = acc;\n      __syncthreads();\n"
      "      acc += s[j];\n      __syncthreads();\n    }\n  }\n  out[threadIdx.x] = acc;"));
  CHECK(inner.regions == 1);
  CHECK(inner.text.find("for (int j = 0; j < gpulab_rs2_[0]; ++j)") != std::string::npos);
  // threadIdx.x named through a local is computed again in every region, not kept.
  CHECK(tree.text.find("[[maybe_unused]] unsigned  t = threadIdx.x;") != std::string::npos);
  CHECK(count(tree.text, "::gpulab::simt::region::store<") == 0);
  // A return after the last barrier ends the thread's last region only.
  const auto ret = split_kernels(
      kernel("  __shared__ float s[SIZE];\n  const int t = threadIdx.x;\n  s[t] = t;\n"
             "  __syncthreads();\n  if (t >= n) return;\n  out[t] = s[SIZE - 1 - t];"));
  CHECK(ret.text.find("if (t >= n) goto gpulab_rend_;") != std::string::npos);
  CHECK(count(ret.text, "gpulab_rend_:;") == 1);
}

TEST_CASE("split: what region loops cannot prove stays a coroutine", "[split]") {
  const char* refused[] = {
      // A barrier under a condition that depends on the thread (the divergent-barrier report),
      // where no guard can be checked ahead (below): an if without braces, a condition that
      // reads memory, something done or read before it, an if after a barrier.
      "  if (threadIdx.x < 16) __syncthreads();\n  out[threadIdx.x] = 1;",
      "  if (out[0] > 0) {\n    __syncthreads();\n  }",
      "  out[0] = 1;\n  if (threadIdx.x < 16) {\n    __syncthreads();\n  }",
      "  float v = out[threadIdx.x];\n  if (threadIdx.x < 16) {\n    __syncthreads();\n  }\n"
      "  out[0] = v;",
      "  int t = threadIdx.x;\n  t += 1;\n  if (t > 0) {\n    __syncthreads();\n  }",
      "  __syncthreads();\n  if (threadIdx.x < 16) {\n    __syncthreads();\n  }",
      "  if (threadIdx.x < 16) {\n    __syncthreads();\n    __shared__ int late[2];\n"
      "    late[0] = 1;\n  }",
      "  if (threadIdx.x >= n) return;\n  else out[0] = 1;\n  __syncthreads();",
      "  if (blockIdx.x > 0) {\n    __syncthreads();\n  } else if (threadIdx.x > 1) {\n"
      "    __syncthreads();\n  }",
      "  if (n > 2) __syncthreads(); else out[0] = 1;",
      // A local of an ALL_CAPS name is no constant.
      "  const int LIM = threadIdx.x;\n  for (int i = 0; i < LIM; ++i) {\n    __syncthreads();\n  "
      "}",
      "  if (n > 2) {\n    __syncthreads();\n  } else out[0] = 1;",
      "  if (blockIdx.x > 0) {\n    __syncthreads();\n    return;\n  }\n  __syncthreads();",
      "  int m = n;\n  if (threadIdx.x == 0) {\n    m = 2;\n  }\n  if (m > 1) {\n"
      "    __syncthreads();\n  }",
      // A loop header that depends on the thread, or on memory.
      "  for (int i = threadIdx.x; i < n; i += 32) {\n    out[i] = 0;\n    __syncthreads();\n  }",
      "  for (int i = 0; i < out[0]; ++i) {\n    __syncthreads();\n  }",
      "  int t = threadIdx.x;\n  for (int i = t; i < n; ++i) {\n    __syncthreads();\n  }",
      // A loop variable or a header's local assigned in the body.
      "  for (int i = 0; i < n; ++i) {\n    if (threadIdx.x == 0) ++i;\n    __syncthreads();\n  }",
      "  int m = n;\n  for (int i = 0; i < m; ++i) {\n    if (threadIdx.x == 0) m = 2;\n"
      "    __syncthreads();\n  }",
      "  int m = n;\n  for (int i = 0; i < m; ++i) {\n    __syncthreads();\n    m = threadIdx.x;\n "
      " }",
      "  int m = n;\n  while (m > 0) {\n    __syncthreads();\n    m = m - out[0];\n  }",
      // Set again, but not alike in every thread, not before the loop, or changed by a thread
      // after it was set.
      "  int i = threadIdx.x;\n  __syncthreads();\n  if (threadIdx.x == 0) i = 4;\n"
      "  while (i > 0) {\n    __syncthreads();\n    i /= 2;\n  }",
      "  int i = threadIdx.x;\n  __syncthreads();\n  i = i / 2;\n"
      "  while (i > 0) {\n    __syncthreads();\n    i /= 2;\n  }",
      "  int i = threadIdx.x;\n  __syncthreads();\n  i = 8;\n  i += threadIdx.x;\n"
      "  while (i > 0) {\n    __syncthreads();\n    i /= 2;\n  }",
      "  int i = threadIdx.x;\n  __syncthreads();\n  while (i > 0) {\n    __syncthreads();\n"
      "    i /= 2;\n  }\n  i = 8;",
      // Leaving a barrier loop or the kernel before its last barrier.
      "  for (int i = 0; i < n; ++i) {\n    if (threadIdx.x == 3) break;\n    __syncthreads();\n  "
      "}",
      "  __syncthreads();\n  if (threadIdx.x >= n) return;\n  __syncthreads();",
      // Other collectives, a device function that waits, a lambda, a spin.
      "  float v = __shfl_down_sync(0xffffffffu, 1.0f, 1);\n  __syncthreads();\n  out[0] = v;",
      "  __syncthreads_count(1);\n  __syncthreads();",
      "  atomicCAS((int*)out, 0, 1);\n  __syncthreads();",
      // A static local initialized from a local each thread keeps.
      "  float m = out[0];\n  static float z = m;\n  __syncthreads();\n  out[0] = z;",
      // A local whose type cannot be written again.
      "  auto v = out[threadIdx.x];\n  __syncthreads();\n  out[0] = v;",
      "  float v[2] = {1, 2};\n  __syncthreads();\n  out[0] = v[0];",
      // A local type, or a type named after an expression, which the per-thread copies declared
      // ahead of the first region cannot name; a structured binding, a forwarding reference.
      "  typedef int I;\n  I v = threadIdx.x;\n  __syncthreads();\n  out[0] = v;",
      "  using T = int;\n  T v = threadIdx.x;\n  __syncthreads();\n  out[0] = v;",
      "  enum { K = 2 };\n  int v = K * threadIdx.x;\n  __syncthreads();\n  out[0] = v;",
      "  decltype(threadIdx.x) t = threadIdx.x;\n  __syncthreads();\n  out[0] = t;",
      "  __typeof__(threadIdx.x) t = threadIdx.x;\n  __syncthreads();\n  out[0] = t;",
      "  auto&& r = threadIdx.x;\n  __syncthreads();\n  out[0] = r;",
      "  float2 v = make_float2(1.f, 2.f);\n  auto [x, y] = v;\n  __syncthreads();\n"
      "  out[0] = x + y;",
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

TEST_CASE("split: a device function that waits is inlined where its call is a statement",
          "[split]") {
  // helper (defined before k) waits: its body joins the kernel, between #line directives that
  // keep its lines, and the kernel's barriers are then its own.
  const auto inlined = split_kernels(kernel("  helper(out);\n  __syncthreads();"));
  CHECK(inlined.inlined == 1);
  CHECK(inlined.regions == 1);
  CHECK(inlined.text.find("\n#line 1\n") != std::string::npos);
  CHECK(inlined.text.find("\n#line 4\n") != std::string::npos);
  CHECK(count(inlined.text, "gpulab_rb_.barrier()") == 2);
  // A block group passed on, a value returned into a declaration and an assignment, a call in a
  // return (the next pass's): all inlined, the kernel a region loop.
  const std::string groups =
      "namespace cg = cooperative_groups;\n"
      "__device__ int inner(cg::thread_block b, int* t, int v) {\n"
      "  t[b.thread_rank()] = v;\n  b.sync();\n  return t[0];\n}\n"
      "__device__ int outer(int* t, int v, cg::thread_block g) {\n"
      "  return inner(g, t, v + 1) * 2;\n}\n"
      "__global__ void k(int* out) {\n  __shared__ int t[64];\n"
      "  cg::thread_block block = cg::this_thread_block();\n"
      "  int r = outer(t, threadIdx.x, block);\n  out[threadIdx.x] = outer(t, r, block);\n}\n";
  const auto both = split_kernels(groups);
  CHECK(both.inlined == 4);
  CHECK(both.regions == 1);
  CHECK(both.text.find("outer(") == both.text.rfind("outer("));  // the definition alone
  // Left called (the kernel keeps its coroutine or fibers): a callee defined after the kernel, a
  // name of the kernel the callee says, an early return, a call inside a condition.
  const std::string after =
      "__global__ void k(float* out, int n) {\n  __syncthreads();\n  late(out);\n}\n"
      "__device__ void late(float* s) { s[0] = 1; __syncthreads(); }\n";
  CHECK(split_kernels(after).inlined == 0);
  CHECK(split_kernels(after).regions == 0);
  const std::string captured =
      "__device__ int scale = 3;\n"
      "__device__ void scaled(float* s) { s[threadIdx.x] *= scale; __syncthreads(); }\n"
      "__global__ void k(float* out) {\n  const int scale = 2;\n  scaled(out);\n"
      "  out[0] += scale;\n}\n";
  CHECK(split_kernels(captured).inlined == 0);
  const std::string early =
      "__device__ void early(float* s) {\n  if (threadIdx.x > 3) return;\n  __syncthreads();\n}\n"
      "__global__ void k(float* out) {\n  early(out);\n}\n";
  CHECK(split_kernels(early).inlined == 0);
  const std::string condition =
      "__device__ int once(float* s) { __syncthreads(); return 1; }\n"
      "__global__ void k(float* out) {\n  if (once(out) > 0) out[0] = 1;\n}\n";
  CHECK(split_kernels(condition).inlined == 0);
  // Not in check builds.
  CHECK(split_kernels(kernel("  helper(out);\n  __syncthreads();"), false).inlined == 0);
}

TEST_CASE("split: an atomicAdd that is its thread's last action is deferred", "[split]") {
  const std::string deferred = "::gpulab::simt::detail::deferred_add(";
  const char* eligible[] = {
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) {\n"
      "    if (out[i] > 0) {\n      atomicAdd((int*)&out[0], 1);\n    }\n  }",
      "  if (threadIdx.x > 2) atomicAdd((int*)out, 1);\n  else {\n"
      "    atomicAdd((int*)out + 1, 2);\n  }",
      "  if (n > 3) return;\n  atomicAdd((unsigned*)out, 1u);",
  };
  for (const char* body : eligible) {
    CAPTURE(body);
    const auto split = split_kernels(kernel(body));
    CHECK(split.deferred_adds >= 1);
    CHECK(count(split.text, "atomicAdd") == 0);
    CHECK(count(split.text, deferred) == static_cast<std::size_t>(split.deferred_adds));
  }
  const char* refused[] = {
      // Something after it, its result read, a loop around it, another atomic, a fence, a spin.
      "  atomicAdd((int*)out, 1);\n  out[1] = 2;",
      "  int old = atomicAdd((int*)out, 1);\n  out[1] = old;",
      "  for (int i = 0; i < n; ++i) {\n    atomicAdd((int*)out, i);\n  }",
      "  if (n > 2) {\n    atomicAdd((int*)out, 1);\n  }\n  out[2] = 1;",
      "  atomicMax((int*)out + 1, 3);\n  atomicAdd((int*)out, 1);",
      "  out[0] = 1;\n  __threadfence();\n  atomicAdd((int*)out, 1);",
      "  volatile float* v = out;\n  atomicAdd((int*)out, (int)v[1]);",
      "  __syncthreads();\n  atomicAdd((int*)out, 1);",
  };
  for (const char* body : refused) {
    CAPTURE(body);
    const auto split = split_kernels(kernel(body));
    CHECK(split.deferred_adds == 0);
    CHECK(count(split.text, deferred) == 0);
  }
  // A program with an atomicAdd of its own, and check builds: none.
  const std::string own = "__device__ double atomicAdd(double* a, double v) { return *a += v; }\n" +
                          kernel("  atomicAdd((int*)out, 1);");
  CHECK(split_kernels(own).deferred_adds == 0);
  CHECK(split_kernels(kernel("  atomicAdd((int*)out, 1);"), false).deferred_adds == 0);
}

TEST_CASE("split: a thread block's sync is __syncthreads", "[split]") {
  const std::string alias = "namespace cg = cooperative_groups;\n";
  const std::string forms =
      "  cg::thread_block cta = cg::this_thread_block();\n  __shared__ float s[SIZE];\n"
      "  s[threadIdx.x] = 1;\n  cg::sync(cta);\n  out[cta.thread_rank()] = s[0];\n  cta.sync();\n"
      "  if (blockIdx.x > 0) cg::this_thread_block().sync();\n  out[0] = 2;";
  const std::string source = alias + kernel(forms);
  const auto regions = split_kernels(source);
  CHECK(regions.regions == 1);
  CHECK(lines(regions.text) == lines(source));
  CHECK(count(regions.text, "gpulab_rb_.barrier()") == 3);
  // The group's declaration moves ahead of the loops (it holds no state).
  CHECK(regions.text.find("gpulab_rb_(*gpulab_rl_); cg::thread_block cta = "
                          "cg::this_thread_block();") != std::string::npos);
  const auto coroutine = split_kernels(source, true, false);
  CHECK(coroutine.kernels == 1);
  CHECK(count(coroutine.text, "co_await ::gpulab::simt::co::syncthreads()") == 3);
  CHECK(lines(coroutine.text) == lines(source));
  // The namespace used whole, the group declared auto, a sync across lines.
  const std::string whole = "using namespace cooperative_groups;\n" +
                            kernel(
                                "  const auto b = this_thread_block();\n  out[threadIdx.x] = 1;\n"
                                "  sync(\n    b);\n  b.sync();\n  out[0] = 2;");
  const auto w = split_kernels(whole);
  CHECK(w.regions == 1);
  CHECK(lines(w.text) == lines(whole));
  // Without the namespace's name in the program, `cg` is not known to be it.
  CHECK(split_kernels(kernel(forms)).kernels == 0);
  // Any other use of cooperative groups keeps the kernel on fibers: tiles, a thread_group, a
  // group passed on.
  const char* fibers[] = {
      "  cg::thread_block cta = cg::this_thread_block();\n"
      "  auto tile = cg::tiled_partition<32>(cta);\n  tile.sync();\n  __syncthreads();",
      "  cg::thread_group g = cg::this_thread_block();\n  g.sync();\n  out[0] = 1;",
      "  cg::thread_block cta = cg::this_thread_block();\n  cg::sync(cta);\n"
      "  out[0] = cg::reduce(cg::tiled_partition<32>(cta), 1.0f, cg::plus<float>());",
  };
  for (const char* body : fibers) {
    CAPTURE(body);
    const auto split = split_kernels(alias + kernel(body));
    CHECK(split.kernels == 0);
    CHECK(split.regions == 0);
  }
  // A block's sync under a thread's condition: a guard, whose block falls back to the code as
  // written (which reports the divergence) where its threads disagree.
  const auto divergent = split_kernels(
      alias + kernel("  cg::thread_block cta = cg::this_thread_block();\n"
                     "  if (threadIdx.x < 16) {\n    cta.sync();\n  }\n  out[0] = 1;"));
  CHECK(divergent.regions == 1);
  CHECK(count(divergent.text, "::gpulab::simt::region::begin(true)") == 1);
}

TEST_CASE("split: a macro is a constant only if its replacement is alike in every thread",
          "[split]") {
  const std::string divergent =
      kernel("  if (TID < 16) {\n    __syncthreads();\n  }\n  out[0] = 1;");
  // Defined in the file or elsewhere in the program (a header).
  for (const auto& [file, elsewhere] :
       {std::pair<std::string, std::string>{"#define TID threadIdx.x\n" + divergent, ""},
        {divergent, "#define TID (threadIdx.x + 0)\n"},
        {"#define LANE (TID % 32)\n#define TID \\\n  threadIdx.x\n" +
             kernel("  if (LANE < 16) {\n    __syncthreads();\n  }"),
         ""}}) {
    CAPTURE(file, elsewhere);
    // Not the block's: a guard that the block's threads check before the region loops.
    const auto split = split_kernels(file, true, true, elsewhere);
    CHECK(split.regions == 1);
    CHECK(count(split.text, "::gpulab::simt::region::begin(true)") == 1);
  }
  // A macro of constants and the block's own values is one.
  CHECK(split_kernels("#define HALF (SIZE / 2)\n#define FIRST (blockIdx.x == 0)\n" +
                      kernel("  if (HALF > n && !FIRST) {\n    __syncthreads();\n  }"))
            .regions == 1);
  // A local made of threadIdx through a macro is still computed again in each region.
  const auto thread =
      split_kernels("#define TID threadIdx.x\n" +
                    kernel("  const int t = TID;\n  __shared__ float s[SIZE];\n  s[t] = 1;\n"
                           "  __syncthreads();\n  out[t] = s[0];"));
  CHECK(thread.regions == 1);
  CHECK(thread.text.find("[[maybe_unused]] const int  t = TID;") != std::string::npos);
}

TEST_CASE("split: warp-synchronous volatile accesses take rounds where nothing orders them",
          "[split]") {
  const std::string L = "::gpulab::simt::lockstep(";
  // A device function without barriers: each access of its volatile pointer.
  const std::string reduce =
      "__device__ void warp_reduce(volatile int* s, int t) {\n"
      "  s[t] += s[t + 32];\n  *s = *(s + 1);\n  int* plain = (int*)s;\n  plain[t] = 0;\n}\n";
  const auto r = split_kernels(reduce);
  CHECK(r.lockstep_accesses == 4);
  // A read is made a value (` +`), a write stays a reference.
  CHECK(r.text.find(L + "s)[t] +=  +" + L + "s)[t + 32];") != std::string::npos);
  CHECK(r.text.find("*" + L + "s) =  +*(" + L + "s) + 1);") != std::string::npos);
  CHECK(r.text.find("(int*)s;") != std::string::npos);  // a cast is no access
  CHECK(r.text.find("plain[t]") != std::string::npos);  // not volatile
  CHECK(lines(r.text) == lines(reduce));

  // A kernel that calls it runs as a coroutine, not as region loops (a round yields).
  const std::string caller = reduce +
                             "__global__ void k(int* out) {\n  __shared__ int s[64];\n"
                             "  s[threadIdx.x] = 1;\n  __syncthreads();\n"
                             "  if (threadIdx.x < 32) warp_reduce(s, threadIdx.x);\n"
                             "  out[0] = s[0];\n}\n";
  const auto c = split_kernels(caller);
  CHECK(c.kernels == 1);
  CHECK(c.regions == 0);
  // The same from another file of the program.
  const std::string alone =
      "__global__ void k(int* out) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n"
      "  __syncthreads();\n  if (threadIdx.x < 32) warp_reduce(s, threadIdx.x);\n}\n";
  CHECK(split_kernels(alone).regions == 1);
  CHECK(split_kernels(alone, true, true, reduce).regions == 0);

  // Locals and shared arrays: `volatile T* a = x, *b;`, `__shared__ volatile T s[N]`, in a block
  // without a barrier; a two-dimensional array, a reference and a scalar are left alone.
  const std::string locals =
      "__global__ void k(float* out) {\n  __shared__ float x[64];\n  __syncthreads();\n"
      "  if (threadIdx.x < 32) {\n    volatile float* a = x, *b = x + 1;\n"
      "    __shared__ volatile float w[64];\n    __shared__ volatile float m[8][8];\n"
      "    volatile float& r = x[0];\n    volatile int n = 3;\n"
      "    a[0] = b[1] + w[2] + m[1][1] + r + n;\n    w[0] = a[1];\n  }\n}\n";
  const auto l = split_kernels(locals);
  CHECK(l.lockstep_accesses == 5);
  CHECK(l.text.find(L + "a)[0] =  +" + L + "b)[1] +  +" + L + "w)[2] + m[1][1] + r + n;") !=
        std::string::npos);
  CHECK(l.regions == 0);

  // One step between barriers needs no rounds: a read, then a write, with nothing after it
  // (threadFenceReduction's tree level, with the tile's sync after it in the loop), or a single
  // statement that reads and then writes. The same step repeated by a loop without a barrier, or
  // followed by a read, takes rounds.
  const std::string step_before =
      "__device__ void f(volatile float* s, int t, float x) {\n"
      "  for (int i = 16; i > 0; i >>= 1) {\n";
  const std::string step_after = "\n    __syncwarp();\n  }\n}\n";
  CHECK(split_kernels(step_before + "    if (t < i) { float v = s[t + i]; s[t] = v + x; }" +
                      step_after)
            .lockstep_accesses == 0);
  CHECK(split_kernels(step_before + "    if (t < i) { s[t] = s[t] + s[t + i]; }" + step_after)
            .lockstep_accesses == 0);
  CHECK(split_kernels(step_before + "    if (t < i) { s[t] = x; x = s[t ^ 1]; }" + step_after)
            .lockstep_accesses == 2);
  CHECK(split_kernels("__device__ void f(volatile float* s, int t) {\n"
                      "  for (int i = 16; i > 0; i >>= 1) s[t] += s[t + i];\n}\n")
            .lockstep_accesses == 2);
  CHECK(
      split_kernels("__device__ void f(volatile float* s, int t) {\n"
                    "  for (int i = 16; i > 0; i >>= 1) { if (t < i) { s[t] += s[t + i]; } }\n}\n")
          .lockstep_accesses == 2);

  // A barrier or a warp collective in the same block orders the accesses: no rounds (NVIDIA's
  // scan reads and writes its volatile array between barriers).
  for (const std::string sync : {"__syncthreads()", "__syncwarp()", "cg::sync(cta)"}) {
    CAPTURE(sync);
    const std::string ordered =
        "__device__ int scan(volatile int* s, int t) {\n"
        "  for (int o = 1; o < 32; o <<= 1) {\n    int v = s[t - o];\n    " +
        sync + ";\n    s[t] += v;\n    " + sync + ";\n  }\n  return 0;\n}\n";
    CHECK(split_kernels(ordered).lockstep_accesses == 0);
  }
  // A write as a loop's last step, then a read after the loop with no barrier between: its own
  // element (the same subscript, nothing assigned in between, the loop's later turns included)
  // needs no rounds (NVIDIA's scan1Inclusive: `return s_Data[pos];`); another element, or the
  // same subscript once the loop or the code after it changed its names, takes rounds.
  const auto read_after = [](const std::string& loop_end, const std::string& read) {
    return split_kernels(
               "__device__ int scan(volatile int* s, int t) {\n"
               "  s[t] = 0;\n  t += 32;\n"
               "  for (int o = 1; o < 32; o <<= 1) {\n    __syncthreads();\n"
               "    int v = s[t] + s[t - o];\n    __syncthreads();\n    s[t] = v;\n" +
               loop_end + "  }\n" + read + "}\n")
        .lockstep_accesses;
  };
  CHECK(read_after("", "  return s[t];\n") == 0);
  CHECK(read_after("", "  return s[ t ];\n") == 0);
  CHECK(read_after("", "  return s[t - 1];\n") == 2);
  CHECK(read_after("    t ^= 1;\n", "  return s[t];\n") == 2);
  CHECK(read_after("", "  ++t;\n  return s[t];\n") == 2);
  CHECK(read_after("", "  s = s + 1;\n  return s[t];\n") == 2);
  // A subscript read through memory another lane may write is not taken as the same element.
  const std::string through =
      "__device__ int f(volatile int* s, int* at, int t) {\n"
      "  for (int o = 1; o < 32; o <<= 1) {\n    __syncthreads();\n    s[at[t]] = o;\n  }\n"
      "  return s[at[t]];\n}\n";
  CHECK(split_kernels(through).lockstep_accesses == 2);
  // A read passed to printf's `...` or to `auto` is the value; `&s[t]` stays a reference;
  // `sizeof(s[0])` makes no access; `*(s + 1) = v` and `++s[t]` write.
  const std::string forms =
      "__device__ void f(volatile int* s, int t) {\n"
      "  s[t] = 1;\n  printf(\"%d\", s[0]);\n  auto v = s[1];\n  volatile int* q = &s[t];\n"
      "  int n = sizeof(s[0]);\n  *(s + 1) = v + n;\n  ++s[t];\n}\n";
  const auto fs = split_kernels(forms);
  CHECK(fs.lockstep_accesses == 6);
  CHECK(fs.text.find("printf(\"%d\",  +" + L + "s)[0]);") != std::string::npos);
  CHECK(fs.text.find("auto v =  +" + L + "s)[1];") != std::string::npos);
  CHECK(fs.text.find("= &" + L + "s)[t];") != std::string::npos);
  CHECK(fs.text.find("sizeof(s[0])") != std::string::npos);
  CHECK(fs.text.find("*(" + L + "s) + 1) = v + n;") != std::string::npos);
  CHECK(fs.text.find("++" + L + "s)[t];") != std::string::npos);

  // Check builds (no coroutines) take the rounds too.
  CHECK(split_kernels(reduce, false).lockstep_accesses == 4);
}

TEST_CASE("split: a function-like macro that only computes a value leaves a loop uniform",
          "[split]") {
  // scalarProd's outer loop: `vec` is an argument of IMUL, which a function might take by
  // reference; a macro whose replacement assigns nothing cannot change it.
  const auto loop = [](const std::string& define) {
    return define +
           "\n__global__ void k(float* out, int n, int m) {\n"
           "  __shared__ float s[64];\n"
           "  for (int vec = blockIdx.x; vec < n; vec += gridDim.x) {\n"
           "    int base = IMUL(m, vec);\n"
           "    s[threadIdx.x] = base;\n    __syncthreads();\n"
           "    if (threadIdx.x == 0) out[vec] = s[1];\n    __syncthreads();\n  }\n}\n";
  };
  CHECK(split_kernels(loop("#define IMUL(a, b) __mul24(a, b)")).regions == 1);
  CHECK(split_kernels(loop("#define IMUL(a, b) ((a) * (b) & 0xff)")).regions == 1);
  CHECK(
      split_kernels(loop("#define IMUL(a, b) MIN2(a, b)\n#define MIN2(a, b) min(a, b)")).regions ==
      1);
  // One that may change its argument keeps the kernel a coroutine.
  for (const std::string define :
       {"#define IMUL(a, b) ((b)++ * (a))", "#define IMUL(a, b) ((b) = (a))",
        "#define IMUL(a, b) ((b) += 1)", "#define IMUL(a, b) grab(&(b), a)",
        "#define IMUL(a, b) helper(a, b)"}) {
    CAPTURE(define);
    const auto split = split_kernels(loop(define));
    CHECK(split.regions == 0);
    CHECK(split.kernels == 1);
  }
  // With no definition in sight, IMUL is a call like any other.
  CHECK(split_kernels(loop("")).regions == 0);
}
