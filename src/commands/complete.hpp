// Shell completion that asks the binary: `gpulab __complete WORD... CURRENT` prints the words that
// may follow, one a line, so that new commands, options, lessons and exercises complete without
// touching the bash script (packaging/gpulab.bash).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace gpulab {

// Values `opt` (an option or a positional) can take, offered by the completion; asked only when
// the user presses Tab, so it may read the lessons or the spec sheets.
void set_completer(CLI::Option* opt, std::function<std::vector<std::string>()> values);

// The completions of `words` (the words after "gpulab"; the last is the one being typed, maybe
// empty). "@file" asks the shell for file names instead.
std::vector<std::string> completions(const CLI::App& app, const std::vector<std::string>& words);

}  // namespace gpulab
