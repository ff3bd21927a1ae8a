// gpulab exercise's host side, shared by every exercise: fresh random inputs from a printed seed,
// poisoned outputs, a float64 reference compared element by element, and the facts written as
// JSON lines to the report gpulab reads (GPULAB_RUN_REPORT). Compiles with nvcc and on the
// emulator.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#ifdef GPULAB_EXERCISE_EMULATOR
// The emulator's recorder (gpulab run's runtime): per-thread access counts, and who wrote what.
extern "C" void gpulab_rt_record(int level);
extern "C" int gpulab_rt_last_writer(const void* p, unsigned* block_thread);
#endif

namespace gx {

struct Context {
  std::uint64_t seed = 0;
  int fd = -1;
  bool draw = false;
  int failed = 0;
  bool broken = false;  // a kernel fault: the device is unusable for the tests after it
  std::vector<void*> buffers;
};
inline Context& ctx() {
  static Context c;
  return c;
}

// Human-readable lines only when run by hand (nvcc FILE.cu && ./a.out): under gpulab the report
// carries the facts and stdout stays the kernel's own printf.
#define GX_SAY(...)                                 \
  do {                                              \
    if (gx::ctx().fd < 0) std::printf(__VA_ARGS__); \
  } while (0)

inline void emit(const std::string& line) {
  if (ctx().fd < 0) return;
  const std::string l = line + "\n";
  if (::write(ctx().fd, l.data(), l.size()) < 0) ctx().fd = -1;
}
inline std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
inline std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// splitmix64 of the seed and the index: any element of any input, the same for the same seed.
inline double uniform(std::uint64_t stream, std::uint64_t i) {
  std::uint64_t z = ctx().seed + 0x9E3779B97F4A7C15ull * (stream * 0x100000001ull + i + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0;  // [-1, 1)
}
inline std::vector<float> random(std::size_t n, int stream) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(uniform(stream, i));
  return v;
}

inline void start(int argc, char** argv) {
  Context& c = ctx();
  c.seed = 0;
  bool seeded = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      c.seed = std::strtoull(argv[++i], nullptr, 10);
      seeded = true;
    } else if (std::strcmp(argv[i], "--draw") == 0) {
      c.draw = true;
    }
  }
  if (!seeded) c.seed = static_cast<std::uint64_t>(::getpid()) * 2654435761u ^ ::time(nullptr);
  if (const char* p = std::getenv("GPULAB_RUN_REPORT"); p != nullptr && *p != '\0') {
    c.fd = ::open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
  }
#ifdef GPULAB_EXERCISE_EMULATOR
  gpulab_rt_record(c.draw ? 2 : 1);
#endif
  GX_SAY("seed %llu (gpulab exercise check FILE --seed %llu repeats these inputs)\n",
         static_cast<unsigned long long>(c.seed), static_cast<unsigned long long>(c.seed));
  emit("{\"event\":\"exercise_start\",\"seed\":" + std::to_string(c.seed) + "}");
}

// The sizes to test; with --draw only the small one (a picture of every access).
inline std::vector<int> sizes(std::initializer_list<int> all, int small) {
  if (ctx().draw) return {small};
  return std::vector<int>(all);
}

inline void release_all() {
  for (void* p : ctx().buffers) cudaFree(p);
  ctx().buffers.clear();
}

// One test: its name, its inputs on the device, the launch's verdict and the comparison.
class Test {
 public:
  explicit Test(const std::string& name) {
    emit("{\"event\":\"exercise_test\",\"name\":" + quote(name) + "}");
    GX_SAY("test %s\n", name.c_str());
  }
  ~Test() { release_all(); }
  Test(const Test&) = delete;
  Test& operator=(const Test&) = delete;

  // A rule of the exercise, with this test's limit (the emulator counts each thread's accesses).
  void limit(const char* rule, double value) {
    emit(std::string("{\"event\":\"exercise_limit\",\"rule\":") + quote(rule) +
         ",\"limit\":" + num(value) + "}");
  }

  template <class T>
  T* upload(const std::vector<T>& h, const char* name, int rows = 1) {
    T* d = nullptr;
    if (!ok(cudaMalloc(&d, (h.empty() ? 1 : h.size()) * sizeof(T)))) return nullptr;
    ctx().buffers.push_back(d);
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    buffer(name, d, h.size(), sizeof(T), rows, false);
    return d;
  }
  // An output, poisoned (NaN) so that an element no thread wrote cannot pass as a stale value.
  float* output(std::size_t n, const char* name, int rows = 1) {
    float* d = nullptr;
    if (!ok(cudaMalloc(&d, n * sizeof(float)))) return nullptr;
    ctx().buffers.push_back(d);
    cudaMemset(d, 0xFF, n * sizeof(float));
    buffer(name, d, n, sizeof(float), rows, true);
    return d;
  }
  // An output that the kernel accumulates into (atomicAdd): starts at zero.
  float* zeroed(std::size_t n, const char* name) {
    float* d = output(n, name);
    if (d != nullptr) cudaMemset(d, 0, n * sizeof(float));
    return d;
  }

  // After the launch: false (and the test failed) when it could not launch or faulted.
  bool launched() {
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      fail_line(std::string("{\"event\":\"exercise_error\",\"error\":") +
                quote(cudaGetErrorName(e)) + ",\"message\":" + quote(cudaGetErrorString(e)) + "}");
      ctx().broken = e != cudaErrorInvalidConfiguration && e != cudaErrorInvalidValue;
      return false;
    }
    return true;
  }

  // Compares n elements (rows x n/rows) with the float64 reference; |got - want| must be within
  // atol + rtol * |want|.
  bool compare(const char* name, const float* d, const std::vector<double>& want, int rows = 1,
               double rtol = 1e-5, double atol = 1e-6) {
    const std::size_t n = want.size();
    std::vector<float> got(n);
    cudaMemcpy(got.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    std::size_t wrong = 0, first = n;
    for (std::size_t i = 0; i < n; ++i) {
      const double g = got[i];
      if (!(std::fabs(g - want[i]) <= atol + rtol * std::fabs(want[i]))) {
        if (first == n) first = i;
        ++wrong;
      }
    }
    const std::size_t cols = rows > 0 ? n / static_cast<std::size_t>(rows) : n;
    std::string line = std::string("{\"event\":\"exercise_result\",\"buffer\":") + quote(name) +
                       ",\"elements\":" + std::to_string(n) + ",\"rows\":" + std::to_string(rows) +
                       ",\"wrong\":" + std::to_string(wrong);
    if (wrong == 0) {
      emit(line + ",\"pass\":true}");
      GX_SAY("  %s: all %zu elements right\n", name, n);
      return true;
    }
    const double g = got[first];
    std::uint32_t bits;
    std::memcpy(&bits, &got[first], sizeof bits);
    line += ",\"pass\":false,\"index\":" + std::to_string(first) +
            ",\"row\":" + std::to_string(first / cols) +
            ",\"col\":" + std::to_string(first % cols) + ",\"got\":" + num(g) +
            ",\"expected\":" + num(want[first]) +
            ",\"never_written\":" + (bits == 0xFFFFFFFFu ? "true" : "false");
    // The value another element should have: the index formula points at the wrong element.
    for (std::size_t j = 0; j < n && bits != 0xFFFFFFFFu; ++j) {
      if (j != first && std::fabs(g - want[j]) <= 1e-7 + 1e-6 * std::fabs(want[j])) {
        line += ",\"value_of\":" + std::to_string(j);
        break;
      }
    }
#ifdef GPULAB_EXERCISE_EMULATOR
    unsigned w[6];
    if (gpulab_rt_last_writer(d + first, w) != 0) {
      line += ",\"writer_block\":[" + std::to_string(w[0]) + "," + std::to_string(w[1]) + "," +
              std::to_string(w[2]) + "],\"writer_thread\":[" + std::to_string(w[3]) + "," +
              std::to_string(w[4]) + "," + std::to_string(w[5]) + "]";
    }
#endif
    fail_line(line + "}");
    GX_SAY("  %s[%zu] = %g, expected %.9g (%zu wrong)\n", name, first, g, want[first], wrong);
    return false;
  }

 private:
  bool ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    fail_line(std::string("{\"event\":\"exercise_error\",\"error\":") + quote(cudaGetErrorName(e)) +
              "}");
    return false;
  }
  void buffer(const char* name, const void* d, std::size_t n, std::size_t bytes, int rows,
              bool out) {
    emit(std::string("{\"event\":\"exercise_buffer\",\"name\":") + quote(name) +
         ",\"address\":" + std::to_string(reinterpret_cast<std::uintptr_t>(d)) +
         ",\"elements\":" + std::to_string(n) + ",\"element_bytes\":" + std::to_string(bytes) +
         ",\"rows\":" + std::to_string(rows) + ",\"output\":" + (out ? "true" : "false") + "}");
  }
  void fail_line(const std::string& line) {
    if (!failed_) ++ctx().failed;
    failed_ = true;
    emit(line);
  }
  bool failed_ = false;
};

inline bool stop() {
  return ctx().broken;
}

inline int finish() {
  emit("{\"event\":\"exercise_end\",\"failed\":" + std::to_string(ctx().failed) + "}");
  GX_SAY("%s\n", ctx().failed == 0 ? "all tests passed" : "some tests failed");
  return ctx().failed == 0 ? 0 : 1;
}

}  // namespace gx
