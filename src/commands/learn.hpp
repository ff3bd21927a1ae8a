// gpulab learn: the course as lessons, walked step by step with live demos and check questions.
#pragma once

#include <CLI/CLI.hpp>

#include "commands/common.hpp"

namespace gpulab {

void setup_learn(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
