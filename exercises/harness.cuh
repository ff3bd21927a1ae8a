// gpulab exercise's runner: the host side of the child that runs a student's kernels. It judges
// nothing. It reads the tests gpulab drew (--in FILE: every buffer, every launch, what each output
// holds before a launch), and for each launch sets the launch's outputs (poisoned, zeroed or
// kept), launches, waits, and hands back what the kernel stored (--out FILE) right after it,
// with, on the emulator, the thread that last wrote each element. gpulab compares; the format is
// gpulab's src/exercise/channel.cpp. Compiles with nvcc and on the emulator.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef GPULAB_EXERCISE_EMULATOR
// The emulator's recorder (gpulab run's runtime): per-thread access counts, and who wrote what.
extern "C" void gpulab_rt_record(int level);
extern "C" int gpulab_rt_last_writer(const void* p, unsigned* block_thread);
#endif

namespace gx {

// One launch's arguments, as gpulab sent them.
struct Step {
  std::uint32_t kernel = 0;
  dim3 grid, block;
  std::vector<std::uint32_t> kinds, bits;  // 0 buffer (bits: its index), 1 int, 2 float
  std::vector<std::uint32_t> outputs, before;
  std::vector<void*>* buffers = nullptr;

  void* ptr(std::size_t k) const { return (*buffers)[bits[k]]; }
  int i32(std::size_t k) const {
    int v;
    std::memcpy(&v, &bits[k], sizeof v);
    return v;
  }
  float f32(std::size_t k) const {
    float v;
    std::memcpy(&v, &bits[k], sizeof v);
    return v;
  }
};

using LaunchFn = void (*)(const Step&);
using SharedFn = unsigned (*)(std::uint32_t kernel);

class Input {
 public:
  bool open(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
      data_.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return true;
  }
  bool raw(void* p, std::size_t n) {
    if (data_.size() - at_ < n) return false;
    std::memcpy(p, data_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    ok_ = raw(&v, sizeof v) && ok_;
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    ok_ = raw(&v, sizeof v) && ok_;
    return v;
  }
  bool tag(const char* t) {
    char b[4];
    return raw(b, 4) && std::memcmp(b, t, 4) == 0;
  }
  bool ok() const { return ok_; }

 private:
  std::string data_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

class Output {
 public:
  bool open(const char* path) {
    fd_ = ::open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0) return false;
    // A run of the same program under a checking tool (compute-sanitizer) finds the file
    // written already: only the first run hands its outputs back.
    struct stat st;
    if (::fstat(fd_, &st) != 0 || st.st_size != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    return true;
  }
  void raw(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (fd_ >= 0 && n > 0) {
      const ssize_t w = ::write(fd_, c, n);
      if (w <= 0) return;
      c += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void tag(const char* t) { raw(t, 4); }

 private:
  int fd_ = -1;
};

// A mark in gpulab's report before each test and launch, so that gpulab can place the emulator's
// records and findings (positions only: gpulab reads no verdict from the child).
class Marks {
 public:
  Marks() {
    if (const char* p = std::getenv("GPULAB_RUN_REPORT"); p != nullptr && *p != '\0')
      fd_ = ::open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
  }
  void line(const char* event, std::uint32_t test, long step) {
    if (fd_ < 0) return;
    char b[128];
    const int n = step < 0
                      ? std::snprintf(b, sizeof b, "{\"event\":\"%s\",\"test\":%u}\n", event, test)
                      : std::snprintf(b, sizeof b, "{\"event\":\"%s\",\"test\":%u,\"step\":%ld}\n",
                                      event, test, step);
    if (n > 0 && ::write(fd_, b, static_cast<std::size_t>(n)) < 0) fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline void send_error(Output& out, std::uint32_t test, std::uint32_t step, cudaError_t e,
                       unsigned shared) {
  out.tag("STEP");
  out.u32(test);
  out.u32(step);
  out.u32(static_cast<std::uint32_t>(e));
  const char* name = cudaGetErrorName(e);
  std::uint32_t len = static_cast<std::uint32_t>(std::strlen(name));
  if (len > 64) len = 64;
  out.u32(len);
  out.raw(name, len);
  out.u32(shared);
  out.u32(0);
}

inline int run(int argc, char** argv, LaunchFn launch, SharedFn shared_of) {
  const char* in_path = nullptr;
  const char* out_path = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--in") == 0) in_path = argv[i + 1];
    if (std::strcmp(argv[i], "--out") == 0) out_path = argv[i + 1];
  }
  Input in;
  Output out;
  if (in_path == nullptr || out_path == nullptr || !in.open(in_path) || !out.open(out_path)) {
    std::fprintf(stderr, "gpulab exercise runner: run it through gpulab exercise check\n");
    return 2;
  }
  if (!in.tag("GXI1")) return 2;
  const bool writers = in.u32() != 0;
#ifdef GPULAB_EXERCISE_EMULATOR
  gpulab_rt_record(2);  // every access of small launches: who wrote each element, and how often
#endif
  Marks marks;
  const std::uint32_t tests = in.u32();
  out.tag("GXO1");
  out.u32(tests);
  std::uint32_t ran = 0;
  bool broken = false;
  for (std::uint32_t t = 0; t < tests && !broken && in.ok(); ++t) {
    // The test's buffers: inputs uploaded, outputs allocated.
    const std::uint32_t nbuf = in.u32();
    std::vector<void*> buffers(nbuf, nullptr);
    std::vector<std::uint64_t> elements(nbuf, 0);
    for (std::uint32_t b = 0; b < nbuf && in.ok(); ++b) {
      const bool output = in.u32() != 0;
      elements[b] = in.u64();
      const std::size_t bytes = static_cast<std::size_t>(elements[b]) * sizeof(float);
      std::vector<float> host(output ? 0 : static_cast<std::size_t>(elements[b]));
      if (!output && !in.raw(host.data(), bytes)) return 2;
      if (cudaMalloc(&buffers[b], bytes == 0 ? 1 : bytes) != cudaSuccess) return 3;
      if (!output) cudaMemcpy(buffers[b], host.data(), bytes, cudaMemcpyHostToDevice);
    }
    const std::uint32_t nsteps = in.u32();
    std::vector<Step> steps(nsteps);
    for (Step& s : steps) {
      s.kernel = in.u32();
      s.grid.x = in.u32();
      s.grid.y = in.u32();
      s.grid.z = in.u32();
      s.block.x = in.u32();
      s.block.y = in.u32();
      s.block.z = in.u32();
      const std::uint32_t nargs = in.u32();
      for (std::uint32_t a = 0; a < nargs && in.ok(); ++a) {
        s.kinds.push_back(in.u32());
        s.bits.push_back(in.u32());
        if (s.kinds.back() == 0 && s.bits.back() >= nbuf) return 2;
      }
      const std::uint32_t nout = in.u32();
      for (std::uint32_t o = 0; o < nout && in.ok(); ++o) {
        s.outputs.push_back(in.u32());
        s.before.push_back(in.u32());
        if (s.outputs.back() >= nbuf) return 2;
      }
      s.buffers = &buffers;
    }
    if (!in.ok()) return 2;
    marks.line("exercise_test", t, -1);
    out.tag("TEST");
    out.u32(t);
    out.u32(nbuf);
    for (void* p : buffers) out.u64(reinterpret_cast<std::uintptr_t>(p));
    ++ran;
    for (std::uint32_t k = 0; k < nsteps; ++k) {
      const Step& s = steps[k];
      // The launch's outputs, set right before it.
      for (std::size_t o = 0; o < s.outputs.size(); ++o) {
        const std::size_t bytes = static_cast<std::size_t>(elements[s.outputs[o]]) * sizeof(float);
        if (s.before[o] == 1) cudaMemset(buffers[s.outputs[o]], 0xFF, bytes);
        if (s.before[o] == 2) cudaMemset(buffers[s.outputs[o]], 0, bytes);
      }
      cudaGetLastError();
      marks.line("exercise_step", t, k);
      launch(s);
      cudaError_t e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      const unsigned shared = shared_of(s.kernel);
      if (e != cudaSuccess) {
        send_error(out, t, k, e, shared);
        // A fault leaves the device unusable (as on a GPU): no test runs after it.
        broken = e != cudaErrorInvalidConfiguration && e != cudaErrorInvalidValue;
        break;
      }
      // What the kernel stored, read right after the launch.
      out.tag("STEP");
      out.u32(t);
      out.u32(k);
      out.u32(0);
      out.u32(0);
      out.u32(shared);
      out.u32(static_cast<std::uint32_t>(s.outputs.size()));
      for (std::uint32_t b : s.outputs) {
        const std::size_t n = static_cast<std::size_t>(elements[b]);
        std::vector<float> host(n);
        cudaMemcpy(host.data(), buffers[b], n * sizeof(float), cudaMemcpyDeviceToHost);
        out.u32(b);
        out.u64(n);
        out.raw(host.data(), n * sizeof(float));
        out.u32(writers ? 1 : 0);
        if (!writers) continue;
        std::vector<std::uint64_t> who(n, 0);
#ifdef GPULAB_EXERCISE_EMULATOR
        const std::uint64_t per_block =
            static_cast<std::uint64_t>(s.block.x) * s.block.y * s.block.z;
        for (std::size_t i = 0; i < n; ++i) {
          unsigned w[6];
          if (gpulab_rt_last_writer(static_cast<float*>(buffers[b]) + i, w) == 0) continue;
          const std::uint64_t block =
              w[0] + static_cast<std::uint64_t>(s.grid.x) *
                         (w[1] + static_cast<std::uint64_t>(s.grid.y) * w[2]);
          const std::uint64_t thread =
              w[3] + static_cast<std::uint64_t>(s.block.x) *
                         (w[4] + static_cast<std::uint64_t>(s.block.y) * w[5]);
          who[i] = 1 + block * per_block + thread;
        }
#endif
        out.raw(who.data(), n * sizeof(std::uint64_t));
      }
    }
    for (void* p : buffers) cudaFree(p);
  }
  out.tag("DONE");
  out.u32(ran);
  return 0;
}

}  // namespace gx
