// One line for a command line the parser refused: what the user typed and what was expected,
// with "did you mean" for a misspelt command or option, instead of the parser's own wording.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "core/output.hpp"

namespace gpulab {

// The message (without "gpulab: error: ") for `e`, thrown while `app` parsed argv.
// The first thing wrong with argv that gpulab can tell without running a command (an unknown
// command or option, a value missing): asked before --help is answered, so that
// `gpulab exercise nonsense --help` is refused instead of printing help.
std::optional<std::string> usage_problem(const CLI::App& app, int argc, const char* const* argv,
                                         Lang lang);

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc,
                                const char* const* argv, Lang lang);

}  // namespace gpulab
