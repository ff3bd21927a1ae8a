// gpulab: wiring only. Build the command line, register the subcommands, run one, map errors to
// exit codes (0 ok, 1 runtime failure, 2 usage error).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <new>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "commands/amdahl.hpp"
#include "commands/common.hpp"
#include "commands/device_info.hpp"
#include "commands/exercise.hpp"
#include "commands/hello.hpp"
#include "commands/index_map.hpp"
#include "commands/inspect.hpp"
#include "commands/learn.hpp"
#include "commands/occupancy.hpp"
#include "commands/quiz.hpp"
#include "commands/run.hpp"
#include "commands/twonorm.hpp"
#include "commands/vecadd.hpp"
#include "commands/warp_hiding.hpp"
#include "core/error.hpp"
#include "core/output.hpp"
#include "core/version.hpp"

namespace {

using namespace gpulab;

int fail(int code, const std::string& message) {
  std::fflush(stdout);
  write_stderr(fmt::format("gpulab: error: {}\n", message));  // never throws: stderr may be full
  return code;
}

// Output that never arrived is a failure, as in coreutils: `gpulab amdahl --p 0.5 >/dev/full`.
int finish(int code, int write_errno = 0) {
  const std::string failure = stdout_failure(write_errno);
  if (failure.empty() || code != kExitOk) return code;
  return fail(kExitFailure, failure);
}

// "gpulab frobnicate": CLI11 only says a subcommand is required; name the word and the commands.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.starts_with("-")) {
      // Global options that take a value in the next word.
      if (a == "--backend" || a == "--color" || a == "--lang" || a == "--shuffle-blocks" ||
          a == "--emu-threads") {
        ++i;
      }
      continue;
    }
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    return fmt::format("unknown command '{}'; the commands are: {}", a, fmt::join(names, ", "));
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpulab;
  protect_standard_streams();
  CLI::App app{
      "gpulab: learn how GPUs work by running real CUDA kernels and explaining every number",
      "gpulab"};
  app.set_version_flag("--version", std::string(version_text()));
  app.fallthrough();  // global options work after the subcommand too: gpulab vecadd --json
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 runtime failure, 2 usage error.\n"
      "Run 'gpulab <command> --help' for a command's options.");

  GlobalOptions global;
  add_global_options(app, global);
  // Lessons first, then the kernels in the order the course meets them, then the calculators.
  setup_learn(app, global);
  setup_quiz(app, global);
  setup_run(app, global);
  setup_exercise(app, global);
  setup_hello(app, global);
  setup_vecadd(app, global);
  setup_index_map(app, global);
  setup_twonorm(app, global);
  setup_warp_hiding(app, global);
  setup_occupancy(app, global);
  setup_inspect(app, global);
  setup_amdahl(app, global);
  setup_device_info(app, global);
  reject_empty_values(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    std::ostringstream text;         // written here, so that a failed write is seen with its reason
    const int code = app.exit(e, text, text);
    errno = 0;
    std::fwrite(text.str().data(), 1, text.str().size(), stdout);
    return finish(code, errno);
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty()) {
      if (auto unknown = unknown_command(app, argc, argv)) return fail(kExitUsage, *unknown);
    }
    std::string where = app.get_subcommands().empty()
                            ? std::string("gpulab --help")
                            : fmt::format("gpulab {} --help", app.get_subcommands()[0]->get_name());
    return fail(kExitUsage, fmt::format("{} (see '{}')", e.what(), where));
  } catch (const ExitCode& e) {
    std::fflush(stdout);
    return finish(e.code());
  } catch (const UsageError& e) {
    return fail(kExitUsage, e.what());
  } catch (const Error& e) {
    return fail(kExitFailure, e.what());
  } catch (const std::system_error& e) {  // fmt::print or iostream: a write that failed
    if (!stdout_failure().empty()) {
      return fail(kExitFailure, "cannot write to standard output: " + e.code().message());
    }
    return fail(kExitFailure, fmt::format("unexpected failure: {}", e.what()));
  } catch (const std::bad_alloc&) {
    return fail(kExitFailure, "out of host memory");
  } catch (const std::exception& e) {
    return fail(kExitFailure, fmt::format("unexpected failure: {}", e.what()));
  }
  return finish(kExitOk);
}
