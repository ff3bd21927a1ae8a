// gpulab: wiring only. Build the command line, register the subcommands, run one, map errors to
// exit codes (0 ok, 1 runtime failure, 2 usage error).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <algorithm>

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
#include "commands/complete.hpp"
#include "commands/device_info.hpp"
#include "commands/exercise.hpp"
#include "commands/hello.hpp"
#include "commands/help.hpp"
#include "commands/index_map.hpp"
#include "commands/inspect.hpp"
#include "commands/learn.hpp"
#include "commands/occupancy.hpp"
#include "commands/profile.hpp"
#include "commands/quiz.hpp"
#include "commands/run.hpp"
#include "commands/twonorm.hpp"
#include "commands/usage_error.hpp"
#include "commands/vecadd.hpp"
#include "commands/warp_hiding.hpp"
#include "core/error.hpp"
#include "core/input.hpp"
#include "core/output.hpp"
#include "core/process.hpp"
#include "core/version.hpp"

namespace {

using namespace gpulab;

int fail(int code, const std::string& message) {
  std::fflush(stdout);
  // What the user typed or a compiler printed may hold escape bytes: shown, never obeyed.
  write_stderr(fmt::format("gpulab: error: {}\n", escape_controls(message)));  // never throws
  return code;
}

// Output that never arrived is a failure, as in coreutils: `gpulab amdahl --p 0.5 >/dev/full`.
int finish(int code, int write_errno = 0) {
  const std::string failure = stdout_failure(write_errno);
  if (failure.empty() || code != kExitOk) return code;
  return fail(kExitFailure, failure);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpulab;
  protect_standard_streams();
  // The help is written in the user's language, so the language is known before the parse.
  GlobalOptions global;
  global.out.lang = prescan_lang(argc, argv);
  const Lang lang = global.out.lang;
  CLI::App app{std::string(tr(lang,
                              "gpulab: learn how GPUs work by running real CUDA kernels and "
                              "explaining every number",
                              "gpulab：运行真实的 CUDA 内核、解释每一个数字，学习 GPU 如何工作")),
               "gpulab"};
  install_help_formatter(app, lang);  // before the commands: they inherit it
  app.set_version_flag(
      "-v,--version",
      [lang] {  // probes the GPU only when the version is asked for
        const GpuProbe probe = probe_gpu();
        return version_text(probe.usable, probe.reason.in(lang));
      },
      std::string(tr(lang, "Print gpulab's version and backends, and exit",
                     "显示 gpulab 的版本和后端后退出")));
  app.fallthrough();  // global options work after the subcommand too: gpulab vecadd --json
  app.require_subcommand(1);
  app.footer(
      std::string(tr(lang,
                     "Exit codes: 0 success, 1 runtime failure, 2 usage error.\n"
                     "Run 'gpulab help COMMAND' (or 'gpulab COMMAND --help') for a "
                     "command's options.",
                     "退出码：0 成功，1 运行时失败，2 用法错误。\n"
                     "运行 'gpulab help 命令'（或 'gpulab 命令 --help'）查看该命令的选项。")));

  add_global_options(app, global);
  // Lessons first, then the kernels in the order the course meets them, then the calculators.
  setup_learn(app, global);
  setup_quiz(app, global);
  setup_run(app, global);
  setup_profile(app, global);
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
  setup_help(app, global);
  localize_groups(app, lang);
  reject_empty_values(app);

  // Hidden: the bash completion and the man page ask the binary itself.
  const std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "__complete") {
    std::string text;
    for (const auto& c : completions(app, std::vector<std::string>(argv + 2, argv + argc)))
      text += c + "\n";
    errno = 0;
    std::fwrite(text.data(), 1, text.size(), stdout);
    return finish(kExitOk, errno);
  }
  if (first == "__man") {
    const std::string text = man_page(app, lang);
    errno = 0;
    std::fwrite(text.data(), 1, text.size(), stdout);
    return finish(kExitOk, errno);
  }

  // gpulab run and gpulab profile take nvcc's command line: its spellings are made gpulab's
  // before the parse.
  const std::vector<std::string> normalized =
      normalize_run_arguments(std::vector<std::string>(argv + 1, argv + argc));
  std::vector<const char*> normalized_argv = {argv[0]};
  for (const std::string& w : normalized) normalized_argv.push_back(w.c_str());
  try {
    std::vector<std::string> words(normalized.rbegin(), normalized.rend());  // CLI11: last first
    app.parse(words);
  } catch (const CLI::Success& e) {  // --help, --version
    // Help for a command that does not exist is an error, not the help of the one before it.
    if (auto problem = usage_problem(app, argc, argv, lang)) return fail(kExitUsage, *problem);
    std::ostringstream text;  // written here, so that a failed write is seen with its reason
    const int code = app.exit(e, text, text);
    errno = 0;
    std::fwrite(text.str().data(), 1, text.str().size(), stdout);
    return finish(code, errno);
  } catch (const CLI::ParseError& e) {
    return fail(kExitUsage, explain_parse_error(app, e, static_cast<int>(normalized_argv.size()),
                                                normalized_argv.data(), lang));
  } catch (const ExitCode& e) {
    std::fflush(stdout);
    return finish(e.code());
  } catch (const Interrupted& e) {  // SIGINT, SIGTERM, SIGHUP: what it started is ended
    std::fflush(stdout);
    write_stderr(
        fmt::format("gpulab: {}\n", interrupted_message(e.signal(), message_lang(global))));
    return 128 + e.signal();
  } catch (const UsageError& e) {
    return fail(kExitUsage, e.message(message_lang(global)));
  } catch (const Error& e) {
    return fail(kExitFailure, e.message(message_lang(global)));
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
