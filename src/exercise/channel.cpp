// The exercise runner's data channel (see channel.hpp). Both files are a sequence of native
// 32- and 64-bit integers and floats (gpulab and its runner run on one machine), in frames that
// start with a four-letter tag.
#include "exercise/channel.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/error.hpp"
#include "core/i18n_format.hpp"

namespace gpulab::exercise {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxErrorName = 64;

class Writer {
 public:
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void tag(const char (&t)[5]) { raw(t, 4); }
  void raw(const void* p, std::size_t n) {
    const auto* c = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), c, c + n);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string bytes) : bytes_(std::move(bytes)) {}
  bool left(std::size_t n) const { return bytes_.size() - at_ >= n; }
  bool u32(std::uint32_t& v) { return raw(&v, sizeof v); }
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool i32(std::int32_t& v) { return raw(&v, sizeof v); }
  bool tag(std::string& t) {
    if (!left(4)) return false;
    t = bytes_.substr(at_, 4);
    at_ += 4;
    return true;
  }
  bool raw(void* p, std::size_t n) {
    if (!left(n)) return false;
    std::memcpy(p, bytes_.data() + at_, n);
    at_ += n;
    return true;
  }
  bool at_end() const { return at_ == bytes_.size(); }

 private:
  std::string bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::array<std::uint32_t, 6> writer_thread(std::uint64_t writer, const PlanStep& s) {
  const std::uint64_t per_block = std::uint64_t{s.block.x} * s.block.y * s.block.z;
  const std::uint64_t id = writer - 1, b = id / per_block, t = id % per_block;
  return {static_cast<std::uint32_t>(b % s.grid.x),
          static_cast<std::uint32_t>(b / s.grid.x % s.grid.y),
          static_cast<std::uint32_t>(b / (std::uint64_t{s.grid.x} * s.grid.y)),
          static_cast<std::uint32_t>(t % s.block.x),
          static_cast<std::uint32_t>(t / s.block.x % s.block.y),
          static_cast<std::uint32_t>(t / (std::uint64_t{s.block.x} * s.block.y))};
}

void write_inputs(const Plan& plan, bool writers, const fs::path& path) {
  Writer w;
  w.tag("GXI1");
  w.u32(writers ? 1 : 0);
  w.u32(static_cast<std::uint32_t>(plan.tests.size()));
  for (const PlanTest& t : plan.tests) {
    w.u32(static_cast<std::uint32_t>(t.buffers.size()));
    for (const PlanBuffer& b : t.buffers) {
      w.u32(b.output ? 1 : 0);
      w.u64(b.elements);
      if (!b.output) w.raw(b.data.data(), b.data.size() * sizeof(float));
    }
    w.u32(static_cast<std::uint32_t>(t.steps.size()));
    for (const PlanStep& s : t.steps) {
      w.u32(s.kernel_index);
      for (std::uint32_t v : {s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y, s.block.z})
        w.u32(v);
      w.u32(static_cast<std::uint32_t>(s.args.size()));
      for (const PlanArg& a : s.args) {
        w.u32(static_cast<std::uint32_t>(a.kind));
        std::uint32_t bits = a.buffer;
        if (a.kind == PlanArg::Kind::i32) std::memcpy(&bits, &a.i, sizeof bits);
        if (a.kind == PlanArg::Kind::f32) std::memcpy(&bits, &a.f, sizeof bits);
        w.u32(bits);
      }
      w.u32(static_cast<std::uint32_t>(s.outputs.size()));
      for (const auto& [buffer, before] : s.outputs) {
        w.u32(buffer);
        w.u32(static_cast<std::uint32_t>(before));
      }
    }
  }
  w.tag("GXIE");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    const int e = errno;
    throw RuntimeFailure(
        both("cannot write {}: {}", "无法写入 {}：{}", path.string(), std::strerror(e)));
  }
  const std::string& bytes = w.bytes();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      throw RuntimeFailure(
          both("cannot write {}: {}", "无法写入 {}：{}", path.string(), std::strerror(e)));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::uint64_t max_outputs_bytes(const Plan& plan, bool writers) {
  std::uint64_t n = 8 + 8;  // GXO1 and its count, DONE and its count
  for (const PlanTest& t : plan.tests) {
    n += 12 + 8 * t.buffers.size();
    for (const PlanStep& s : t.steps) {
      n += 4 + 4 + 4 + 4 + 4 + kMaxErrorName + 4 + 4;
      for (const auto& o : s.outputs) {
        const std::uint64_t e = t.buffers[o.first].elements;
        n += 4 + 8 + 4 * e + 4 + (writers ? 8 * e : 0);
      }
    }
  }
  return n;
}

RunnerOutputs read_outputs(const fs::path& path, const Plan& plan, bool writers) {
  RunnerOutputs r;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) {
    r.problem = "the outputs file is missing";
    return r;
  }
  if (size > max_outputs_bytes(plan, writers)) {
    r.problem = "the outputs file is larger than the tests allow";
    return r;
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (bytes.empty()) return r;  // the runner ended (or was ended) before it started
  Reader in(std::move(bytes));
  std::string tag;
  std::uint32_t count = 0;
  if (!in.tag(tag) || tag != "GXO1" || !in.u32(count) || count != plan.tests.size()) {
    r.problem = "the outputs file does not start as the runner's does";
    return r;
  }
  auto bad = [&](std::string what) {
    r.problem = std::move(what);
    return r;
  };
  std::uint32_t next_test = 0;
  while (true) {
    if (!in.tag(tag)) return r;  // cut short (a crash, the time limit): what came is kept
    if (tag == "DONE") {
      std::uint32_t ran = 0;
      if (!in.u32(ran)) return r;
      if (ran != r.tests.size()) return bad("the runner's count of tests does not match");
      if (!in.at_end()) return bad("data after the runner's end");
      r.done = true;
      return r;
    }
    if (tag != "TEST") return bad("an unknown frame '" + tag + "'");
    TestResult t;
    std::uint32_t buffers = 0;
    if (!in.u32(t.test) || !in.u32(buffers)) return r;
    if (t.test != next_test || t.test >= plan.tests.size())
      return bad("a test out of order: " + std::to_string(t.test));
    const PlanTest& pt = plan.tests[t.test];
    if (buffers != pt.buffers.size()) return bad("a test with the wrong number of buffers");
    t.addresses.resize(buffers);
    for (auto& a : t.addresses) {
      if (!in.u64(a)) return r;
    }
    ++next_test;
    r.tests.push_back(t);
    TestResult& kept = r.tests.back();
    // Its steps, in order, until one failed or the test's last.
    for (std::uint32_t k = 0; k < pt.steps.size(); ++k) {
      if (!in.left(4)) return r;
      std::string step_tag;
      in.tag(step_tag);
      if (step_tag != "STEP") return bad("a launch of test " + std::to_string(t.test) + " missing");
      StepResult s;
      std::uint32_t test = 0, name_len = 0, outputs = 0;
      if (!in.u32(test) || !in.u32(s.step) || !in.i32(s.error) || !in.u32(name_len)) return r;
      if (test != t.test || s.step != k) return bad("a launch out of order");
      if (name_len > kMaxErrorName) return bad("an error name too long");
      std::string name(name_len, '\0');
      if (!in.raw(name.data(), name_len)) return r;
      for (char c : name) {
        if (c < 0x21 || c > 0x7e) return bad("an error name that is not a name");
      }
      s.error_name = name;
      if (!in.u32(s.static_shared_bytes) || !in.u32(outputs)) return r;
      const PlanStep& ps = pt.steps[k];
      if (s.error != 0) {
        if (outputs != 0) return bad("outputs of a launch that failed");
        kept.steps.push_back(std::move(s));
        break;  // the test stops at a failed launch
      }
      if (outputs != ps.outputs.size()) return bad("a launch with the wrong number of outputs");
      for (std::uint32_t o = 0; o < outputs; ++o) {
        StepOutput out;
        std::uint64_t elements = 0;
        std::uint32_t has_writers = 0;
        if (!in.u32(out.buffer) || !in.u64(elements)) return r;
        if (out.buffer != ps.outputs[o].first) return bad("an output out of order");
        if (elements != pt.buffers[out.buffer].elements)
          return bad("an output of the wrong size: " + std::to_string(elements) + " elements");
        out.values.resize(elements);
        if (!in.raw(out.values.data(), elements * sizeof(float)) || !in.u32(has_writers)) return r;
        if (has_writers > 1 || (has_writers == 1 && !writers))
          return bad("writers the runner was not asked for");
        if (has_writers == 1) {
          out.writers.resize(elements);
          if (!in.raw(out.writers.data(), elements * sizeof(std::uint64_t))) return r;
        }
        s.outputs.push_back(std::move(out));
      }
      kept.steps.push_back(std::move(s));
    }
  }
}

}  // namespace gpulab::exercise
