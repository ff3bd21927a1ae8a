// What went wrong in an exercise check, and the fix it calls for, in both languages: from the
// outputs the runner handed back, the emulator's record of every access and run --check's
// findings, each placed in its test. Messages name the student's arrays and parameters.
#pragma once

#include <string>
#include <vector>

#include "exercise/channel.hpp"
#include "exercise/plan.hpp"
#include "exercise/result.hpp"

namespace gpulab::exercise {

struct Judged {
  const Plan* plan = nullptr;
  const RunnerOutputs* outputs = nullptr;
  std::vector<std::string> names;  // each buffer of the plan, as the student's kernel calls it
};

// Fills c.diagnoses and each test's reason from c.tests (results, records, findings), c.run and
// the runner's outputs.
void diagnose(CheckResult& c, const Judged& j);

}  // namespace gpulab::exercise
