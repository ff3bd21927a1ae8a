// What every subcommand shares: the global options, opening a backend, printing a result.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/backend.hpp"
#include "commands/complete.hpp"  // set_completer, for the setup functions
#include "core/i18n.hpp"
#include "core/output.hpp"

namespace gpulab {

// Options valid before or after any subcommand.
struct GlobalOptions {
  OutputOptions out;
  BackendChoice backend = BackendChoice::automatic;
  EmulatorSettings emu;

  // As typed, validated by finish_global_options().
  std::string backend_text = "auto";
  std::string color_text = "auto";
  std::string lang_text;
  std::string shuffle_text;
  std::string workers_text;
  bool projector = false;
};

void add_global_options(CLI::App& app, GlobalOptions& g);
// Marks an option that a command needs although the parser cannot require it (the command checks
// it, e.g. because --source works without it): its help shows it as required. Returns `opt`.
CLI::Option* needed(CLI::Option* opt);
bool is_needed(const CLI::Option* opt);
// Help text (a description, a footer) in the language of the help: g.out.lang, which main sets
// from argv and the environment before the commands are set up. English and Chinese side by side.
inline std::string help_tr(const GlobalOptions& g, std::string_view en, std::string_view zh) {
  return std::string(tr(g.out.lang, en, zh));
}
// Makes an empty value (`--seed ''`) a usage error for every option of `app` and its subcommands
// that takes one, instead of the default it would silently stand for. Call after the last setup.
void reject_empty_values(CLI::App& app);
// One vocabulary for launch shapes in every command: --grid (blocks in the grid) and --block
// (threads per block), as CUDA's gridDim and blockDim. An older name (hello --blocks, --threads)
// keeps working as a hidden option bound to `old_value`; this returns the name the user typed and
// its value, `fallback` when neither was given. Both given: UsageError.
struct TypedOption {
  std::string name;
  std::string value;
};
TypedOption renamed_option(std::string_view name, const std::string& value,
                           std::string_view old_name, const std::string& old_value,
                           const std::string& fallback = {});

// The names --model takes (each spec sheet's first name: g80, t4, ...), for its completion.
std::vector<std::string> gpu_model_names();
// Validates the typed global options; throws UsageError.
void finish_global_options(GlobalOptions& g);
// The language of an error message: --lang as typed when it is en or zh (an error may come before
// the options were validated), else the environment's.
Lang message_lang(const GlobalOptions& g);

// The backend --backend asks for; says on stderr, in one line, when it falls back to the emulator.
std::unique_ptr<Backend> open_backend(const GlobalOptions& g);

// Prints a result: the JSON document, or the explained text, on stdout, laid out for its width
// (core/layout.hpp) unless `fit` is false (a file as it is, such as --source).
void emit(const GlobalOptions& g, const nlohmann::json& json, const std::string& text,
          bool fit = true);
// A kernel command's result, printed as emit() does; then, when the answer did not check out
// against the host's reference, the run fails with `wrong` (a RuntimeFailure): the numbers are
// shown either way.
void emit_verified(const GlobalOptions& g, const nlohmann::json& json, const std::string& text,
                   bool verified, const Text& wrong);

// A kernel command's --source flag ("print the CUDA source of the kernel instead of running it")
// and --seed option (of its random inputs), worded alike in every command.
CLI::Option* add_source_flag(CLI::App* sub, bool& source, const GlobalOptions& g);
CLI::Option* add_seed_option(CLI::App* sub, std::string& seed, const GlobalOptions& g);

// The CUDA program a command builds and runs (run, profile, exercise check): its one required
// argument, FILE.cu in the usage line; `files` holds one path or several.
template <class T>
CLI::Option* add_program_file(CLI::App* sub, const GlobalOptions& g, const std::string& name,
                              T& files, const Text& help) {
  return sub->add_option(name, files, help_tr(g, help.en, help.zh))
      ->required()
      ->type_name("FILE.cu");
}

// --source: prints the kernel source files a command runs (text, or JSON {command, sources}).
void emit_sources(const GlobalOptions& g, std::string_view command,
                  std::initializer_list<std::string_view> files);

// The facts a kernel command's JSON and text share about the backend that ran it.
nlohmann::json backend_json_fields(const std::string& backend, const std::string& device,
                                   const KernelRun& run);
// `first` and `second` as one run: the emulator's counts added, races in launch order, the time
// and the rest of `second`.
KernelRun add_emulator_stats(const KernelRun& first, KernelRun second);
std::string emulator_notes(const KernelRun& run, const Style& style, Lang lang);

// Adds a subcommand whose callback validates the global options and then runs `body`.
template <class Body>
CLI::App* add_command(CLI::App& app, GlobalOptions& g, const std::string& name,
                      const std::string& description, Body body) {
  CLI::App* sub = app.add_subcommand(name, description);
  sub->callback([&g, body]() {
    finish_global_options(g);
    body();
  });
  return sub;
}
// The same for a command whose options are read, as typed, into a `Raw`: the subcommand,
// described in both languages, and the Raw its options bind to; `body` gets the Raw when the
// command runs.
template <class Raw, class Body>
std::pair<CLI::App*, std::shared_ptr<Raw>> add_command(CLI::App& app, GlobalOptions& g,
                                                       const std::string& name,
                                                       const Text& description, Body body) {
  auto raw = std::make_shared<Raw>();
  CLI::App* sub = add_command(app, g, name, help_tr(g, description.en, description.zh),
                              [raw, body] { body(*raw); });
  return {sub, raw};
}

}  // namespace gpulab

namespace gpulab {

// --seed as typed, or a fresh random seed when none was given (reported, so runs can be repeated).
std::uint64_t pick_seed(const std::string& raw);

// --show auto|all|none: how many rows of a command's table to print; the option (worded alike in
// every command that has the table) and its value.
enum class ShowMode { automatic, all, none };
CLI::Option* add_show_option(CLI::App* sub, std::string& show, const GlobalOptions& g);
ShowMode parse_show(const std::string& raw);

// Throws RuntimeFailure when `bytes` more device memory than `backend` has free are needed.
void require_memory(const Backend& backend, std::size_t bytes, std::string_view what);

// One buffer (or table) a run will hold, for the estimate checked before any is allocated.
struct MemoryItem {
  Text what;  // "a, b, c on the host"
  std::size_t bytes = 0;
  bool on_device = false;
};
// Every buffer of a run, checked at once before the first is allocated: the device ones against
// the GPU's free memory, the host ones against the host's available memory. On the emulator the
// "device" is host memory too, so all of them must fit there. Throws RuntimeFailure naming the
// total, each item and what is free.
void require_memory(const Backend& backend, std::string_view what,
                    const std::vector<MemoryItem>& items);
// Refuses (RuntimeFailure, with the estimate) an emulator run of `elements` that would take more
// than ten minutes at `per_thread_rate` elements per second per worker thread (measured on this
// build, and counted twice as fast, so that a faster machine is never refused wrongly).
void refuse_long_emulator_run(const Backend& backend, const EmulatorSettings& emu, double elements,
                              double per_thread_rate, std::string_view what);
// The host memory the kernel would give gpulab without swapping (MemAvailable), or SIZE_MAX.
std::size_t host_available_memory();

// A user's program built by gpulab (run, profile): -I DIR and -D NAME[=VALUE] as compiler flags
// (a -D without a name is refused), and --arch checked to be sm_XY ("" when not given).
std::vector<std::string> include_define_flags(const std::vector<std::string>& includes,
                                              const std::vector<std::string>& defines);
std::string checked_gpu_arch(const std::string& arch);

}  // namespace gpulab
