// The tests gpulab draws for each exercise (src/exercise/plan.hpp) and the data channel to its
// runner (src/exercise/channel.hpp): every launch matches its kernel's declaration, the inputs
// follow the seed, and the runner's outputs are read only in the shape the plan allows.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "exercise/channel.hpp"
#include "exercise/check.hpp"
#include "exercise/plan.hpp"

namespace fs = std::filesystem;
using namespace gpulab::exercise;

namespace {

// The runner's side of the format (exercises/harness.cuh), for hand-made outputs files.
class Bytes {
 public:
  Bytes& tag(const char* t) {
    s_.append(t, 4);
    return *this;
  }
  Bytes& u32(std::uint32_t v) { return raw(&v, 4); }
  Bytes& u64(std::uint64_t v) { return raw(&v, 8); }
  Bytes& f32(float v) { return raw(&v, 4); }
  Bytes& raw(const void* p, std::size_t n) {
    s_.append(static_cast<const char*>(p), n);
    return *this;
  }
  void write(const fs::path& p) const { std::ofstream(p, std::ios::binary) << s_; }

 private:
  std::string s_;
};

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("gpulab-plan-test-" + std::to_string(::getpid()) + name);
}

// A runner's whole output for `plan` (every step ok, every output `value`).
Bytes good_outputs(const Plan& plan, bool writers, float value) {
  Bytes b;
  b.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
  for (std::uint32_t t = 0; t < plan.tests.size(); ++t) {
    const PlanTest& pt = plan.tests[t];
    b.tag("TEST").u32(t).u32(static_cast<std::uint32_t>(pt.buffers.size()));
    for (std::size_t k = 0; k < pt.buffers.size(); ++k) b.u64(0x1000 * (k + 1));
    for (std::uint32_t s = 0; s < pt.steps.size(); ++s) {
      b.tag("STEP").u32(t).u32(s).u32(0).u32(0).u32(0).u32(
          static_cast<std::uint32_t>(pt.steps[s].outputs.size()));
      for (const auto& o : pt.steps[s].outputs) {
        const std::size_t n = pt.buffers[o.first].elements;
        b.u32(o.first).u64(n);
        for (std::size_t i = 0; i < n; ++i) b.f32(value);
        b.u32(writers ? 1 : 0);
        for (std::size_t i = 0; writers && i < n; ++i) b.u64(i + 1);
      }
    }
  }
  b.tag("DONE").u32(static_cast<std::uint32_t>(plan.tests.size()));
  return b;
}

}  // namespace

TEST_CASE("exercise plan: every exercise's launches match its kernels, inputs follow the seed",
          "[exercise]") {
  for (const Exercise& e : all()) {
    CAPTURE(e.id);
    const Plan p = make_plan(e, 7, false);
    REQUIRE(p.tests.size() >= 4);
    const std::vector<KernelSignature> kernels = kernel_signatures(e.starter);
    for (const PlanTest& t : p.tests) {
      CAPTURE(t.name.en);
      CHECK_FALSE(t.name.zh.empty());
      REQUIRE_FALSE(t.steps.empty());
      REQUIRE_FALSE(t.expects.empty());
      for (const PlanStep& s : t.steps) {
        REQUIRE(s.kernel_index < kernels.size());
        const KernelSignature& k = kernels[s.kernel_index];
        CHECK(k.name == s.kernel);
        REQUIRE(k.params.size() == s.args.size());
        for (std::size_t i = 0; i < s.args.size(); ++i) {
          CAPTURE(k.params[i].type);
          if (k.params[i].pointer()) {
            REQUIRE(s.args[i].kind == PlanArg::Kind::buffer);
            REQUIRE(s.args[i].buffer < t.buffers.size());
            // A kernel writes only through non-const pointers, and only into outputs.
            CHECK((k.params[i].type.find("const") == std::string::npos) ==
                  t.buffers[s.args[i].buffer].output);
          } else if (k.params[i].type == "float") {
            CHECK(s.args[i].kind == PlanArg::Kind::f32);
          } else {
            CHECK(s.args[i].kind == PlanArg::Kind::i32);
          }
        }
        for (const auto& o : s.outputs) CHECK(t.buffers[o.first].output);
      }
      for (const PlanExpect& x : t.expects) {
        REQUIRE(x.buffer < t.buffers.size());
        CHECK(t.buffers[x.buffer].output);
        CHECK(x.want.size() == t.buffers[x.buffer].elements);
        CHECK(x.step < t.steps.size());
      }
    }
    // The same seed draws the same inputs; another seed other ones.
    const Plan again = make_plan(e, 7, false), other = make_plan(e, 8, false);
    CHECK(again.tests.back().buffers.front().data == p.tests.back().buffers.front().data);
    CHECK(other.tests.back().buffers.front().data != p.tests.back().buffers.front().data);
    CHECK(make_plan(e, 7, true).tests.size() == 1);
  }
}

TEST_CASE("exercise runner: each kernel launched with its parameters' types", "[exercise]") {
  const std::string src = runner_source(*find("relu_scale"));
  CHECK(src.find("relu_scale<<<s.grid, s.block>>>(static_cast<const float*>(s.ptr(0)), "
                 "static_cast<float*>(s.ptr(1)), s.f32(2), static_cast<int>(s.i32(3)))") !=
        std::string::npos);
  CHECK(src.find("int main(int argc, char** argv)") != std::string::npos);
  const std::string two = runner_source(*find("twonorm"));
  CHECK(two.find("case 0: sum_squares<<<") != std::string::npos);
  CHECK(two.find("case 1: finish<<<") != std::string::npos);
}

TEST_CASE("exercise channel: the runner's outputs are read only in the plan's shape",
          "[exercise]") {
  const Plan plan = make_plan(*find("twonorm"), 3, false);
  const fs::path out = temp_file("outputs");

  SECTION("a whole, well-formed file") {
    good_outputs(plan, true, 1.5f).write(out);
    const RunnerOutputs r = read_outputs(out, plan, true);
    CHECK(r.problem.empty());
    CHECK(r.done);
    REQUIRE(r.tests.size() == plan.tests.size());
    REQUIRE(r.tests[0].steps.size() == 2);
    CHECK(r.tests[0].steps[1].outputs[0].values[0] == 1.5f);
    CHECK(r.tests[0].steps[1].outputs[0].writers[0] == 1);
    CHECK(r.tests[0].addresses[1] == 0x2000);
  }
  SECTION("cut short (a crash): what came whole is kept, not done") {
    Bytes b;
    b.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
    b.tag("TEST").u32(0).u32(2).u64(1).u64(2);
    b.write(out);
    const RunnerOutputs r = read_outputs(out, plan, true);
    CHECK(r.problem.empty());
    CHECK_FALSE(r.done);
    CHECK(r.tests.size() == 1);
    CHECK(r.tests[0].steps.empty());
  }
  SECTION("an output of another size") {
    Bytes b;
    b.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
    b.tag("TEST").u32(0).u32(2).u64(1).u64(2);
    b.tag("STEP").u32(0).u32(0).u32(0).u32(0).u32(0).u32(1).u32(1).u64(2).f32(1).f32(1).u32(0);
    b.write(out);
    const RunnerOutputs r = read_outputs(out, plan, false);
    CHECK(r.problem.find("wrong size") != std::string::npos);
  }
  SECTION("a test out of order, an unknown frame, data after the end, writers not asked for") {
    Bytes b;
    b.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
    b.tag("TEST").u32(1).u32(2).u64(1).u64(2);
    b.write(out);
    CHECK(read_outputs(out, plan, true).problem.find("out of order") != std::string::npos);

    Bytes c;
    c.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size())).tag("PASS").u32(0);
    c.write(out);
    CHECK(read_outputs(out, plan, true).problem.find("unknown frame") != std::string::npos);

    Bytes d = good_outputs(plan, true, 1.0f);
    d.tag("TEST");
    d.write(out);
    CHECK(read_outputs(out, plan, true).problem.find("after the runner's end") !=
          std::string::npos);

    good_outputs(plan, true, 1.0f).write(out);
    CHECK(read_outputs(out, plan, false).problem.find("not asked for") != std::string::npos);
  }
  SECTION("larger than the plan allows: never read") {
    std::ofstream(out, std::ios::binary)
        << std::string(static_cast<std::size_t>(max_outputs_bytes(plan, true)) + 1, 'x');
    CHECK(read_outputs(out, plan, true).problem.find("larger") != std::string::npos);
  }
  SECTION("a failed launch carries its error's name, and no outputs") {
    Bytes b;
    b.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
    b.tag("TEST").u32(0).u32(2).u64(1).u64(2);
    const std::string name = "cudaErrorInvalidConfiguration";
    b.tag("STEP").u32(0).u32(0).u32(9).u32(static_cast<std::uint32_t>(name.size()));
    b.raw(name.data(), name.size()).u32(0).u32(0);
    b.tag("DONE").u32(1);
    b.write(out);
    const RunnerOutputs r = read_outputs(out, plan, true);
    CHECK(r.problem.empty());
    REQUIRE(r.tests.size() == 1);
    REQUIRE(r.tests[0].steps.size() == 1);
    CHECK(r.tests[0].steps[0].error_name == name);
    // A name with a control character is no name.
    Bytes c;
    c.tag("GXO1").u32(static_cast<std::uint32_t>(plan.tests.size()));
    c.tag("TEST").u32(0).u32(2).u64(1).u64(2);
    c.tag("STEP").u32(0).u32(0).u32(9).u32(3).raw("a\x1b[", 3).u32(0).u32(0);
    c.write(out);
    CHECK(read_outputs(out, plan, true).problem.find("not a name") != std::string::npos);
  }
  fs::remove(out);
}
