// The tests of each exercise as gpulab draws them, outside the student's process: the sizes, the
// inputs (from the seed), each launch (kernel, grid, block, arguments), which outputs are poisoned
// or zeroed before it, and the float64 reference every output is compared with after it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "exercise/catalog.hpp"

namespace gpulab::exercise {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

// What an output holds right before a launch.
enum class Before : std::uint32_t {
  poison = 1,  // every bit set (a NaN): an element no thread writes can never pass
  zero = 2,    // 0.0f: an accumulator (atomicAdd into it)
  keep = 3,    // what the previous launch of the test left (a second kernel's input)
};

struct PlanBuffer {
  std::string name;  // the starter's parameter name ("out"); messages use the student's own
  std::size_t elements = 0;
  std::size_t rows = 1;     // a matrix: rows x elements/rows, row after row
  std::vector<float> data;  // an input's values, uploaded once per test
  bool output = false;
};

struct PlanArg {
  enum class Kind : std::uint32_t { buffer = 0, i32 = 1, f32 = 2 };
  Kind kind = Kind::i32;
  std::uint32_t buffer = 0;
  std::int32_t i = 0;
  float f = 0;
};

struct PlanStep {
  std::string kernel;
  std::uint32_t kernel_index = 0;  // in the starter's __global__ declarations
  Dim3 grid, block;
  std::vector<PlanArg> args;  // one per kernel parameter, in order
  // The outputs of this launch: set before it, read back right after it.
  std::vector<std::pair<std::uint32_t, Before>> outputs;
};

// An output compared with its reference after a step: |got - want| <= atol + rtol |want|.
struct PlanExpect {
  std::uint32_t buffer = 0, step = 0;
  std::vector<double> want;
  double rtol = 1e-5, atol = 1e-6;
};

struct PlanRule {
  // max_global_reads, max_global_writes, uses_shared, max_barriers_per_block (the recorder's,
  // per thread), or a counter rule (profile/rules.hpp: max_sectors_per_request, ...)
  std::string rule;
  double limit = 0;
};

struct PlanTest {
  Text name;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanStep> steps;
  std::vector<PlanExpect> expects;
  std::vector<PlanRule> rules;
};

struct Plan {
  std::vector<PlanTest> tests;
  // How a thread finds its element in this exercise, for feedback on an index mix-up
  // ("i = blockIdx.x * blockDim.x + threadIdx.x"); empty where the exercise has no such rule.
  std::string index_formula;
  bool two_d = false;  // the output is a matrix indexed by a 2-D thread (row from y, col from x)
  bool one_writer_per_element = false;  // each output element has exactly one thread
};

// The plan of exercise `e` for `seed`; with `draw`, only its small test (with smaller blocks where
// the exercise allows). Throws std::logic_error for an exercise gpulab has no plan for.
Plan make_plan(const Exercise& e, std::uint64_t seed, bool draw);

// The plan of a teacher's exercise, from its `@@ test` sections (plan_teacher.cpp), into `plan`;
// make_plan calls it for an exercise with tests. Throws UsageError naming the file and line of a
// mistake in a section.
void teacher_plan(const Exercise& e, std::uint64_t seed, bool draw, Plan& plan);
// Every teacher's exercise (all() loads them) planned once, so that a mistake in one of their
// files is said, with its file and line, before any command uses them. Throws UsageError.
void check_teacher_exercises();

// Element i of input stream `stream` for `seed`: uniform in [-1, 1), splitmix64 of the seed and
// the index (calc::random_bits).
float input_value(std::uint64_t seed, std::uint64_t stream, std::uint64_t i);

// A parameter of a kernel's declaration: "const float* a" -> {"const float*", "a"}.
struct KernelParam {
  std::string type, name;
  bool pointer() const { return type.find('*') != std::string::npos; }
};
struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
};
// The __global__ functions of a source text, in order (the starter's, or the student's file).
std::vector<KernelSignature> kernel_signatures(const std::string& source);

}  // namespace gpulab::exercise
