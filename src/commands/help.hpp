// The help a user reads: --help and `gpulab help` in the user's language (the language is found
// before the command line is parsed, so that descriptions can be given in it), the global options
// listed under every command, the options a command needs marked, and the man page made from the
// same text.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "commands/cli_walk.hpp"  // visible_commands, find_command, find_option
#include "commands/common.hpp"

namespace gpulab {

// The language of the help: --lang X (or --lang=X) anywhere in argv when X is en or zh, else the
// environment's. A bad --lang value is left for the parse to report.
Lang prescan_lang(int argc, const char* const* argv);

// Installs gpulab's help formatter (labels and group names in `lang`, global options listed in
// every command's help) on `app`; call before the first subcommand is added, so they inherit it.
void install_help_formatter(CLI::App& app, Lang lang);

// `gpulab help [COMMAND]`: the same text as `gpulab [COMMAND] --help`.
void setup_help(CLI::App& app, GlobalOptions& g);

// Group names of `app`'s options and commands in `lang`; call after the last setup.
void localize_groups(CLI::App& app, Lang lang);

// The man page (roff, man(7) macros) made from the help of `app` and every command, in `lang`.
std::string man_page(const CLI::App& app, Lang lang);

}  // namespace gpulab
