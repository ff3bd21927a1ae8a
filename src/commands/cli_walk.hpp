// Walking a CLI::App: its visible commands, a command or an option by its name. The help, the
// shell completion and the usage errors all read the same CLI::App this way.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

// The visible commands of `app`, in the order they were added (not the hidden ones).
std::vector<const CLI::App*> visible_commands(const CLI::App& app);

// The visible command named `name`, or nullptr.
const CLI::App* find_command(const CLI::App& app, std::string_view name);
// The option of `app` (not a positional) spelt `name` ("--json", "-I"), hidden ones too.
const CLI::Option* find_option(const CLI::App& app, const std::string& name);

}  // namespace gpulab
