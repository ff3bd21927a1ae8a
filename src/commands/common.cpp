// What every subcommand shares (see common.hpp).
#include "commands/common.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "calc/gpu_specs.hpp"
#include "core/embedded.hpp"
#include "core/error.hpp"
#include "core/layout.hpp"
#include "core/parse.hpp"
#include "core/text.hpp"

namespace gpulab {

void add_global_options(CLI::App& app, GlobalOptions& g) {
  auto say = [&g](std::string_view en, std::string_view zh) { return help_tr(g, en, zh); };
  app.add_flag("--json", g.out.json,
               say("Print the result as one JSON document on stdout (run: on stderr, or in "
                   "--report FILE, since stdout carries the program's own output)",
                   "把结果作为一个 JSON 文档输出到标准输出（run 命令例外：输出到标准错误或 "
                   "--report FILE，因为标准输出属于程序自己的输出）"));
  app.add_option("--backend", g.backend_text,
                 say("Where kernels run: auto (the GPU if usable, else the emulator), gpu, cpu",
                     "内核在哪里运行：auto（有可用的 GPU 就用 GPU，否则用模拟器）、gpu、cpu"))
      ->type_name("auto|gpu|cpu");
  app.add_option("--color", g.color_text,
                 say("Colour: auto (only on a terminal, never with NO_COLOR set), always, never",
                     "颜色：auto（只在终端上，设置了 NO_COLOR 时不用）、always、never"))
      ->type_name("auto|always|never");
  app.add_option("--lang", g.lang_text,
                 say("Language of explanations and help: en or zh (default: from LANG)",
                     "说明和帮助的语言：en 或 zh（默认取自 LANG）"))
      ->type_name("en|zh");
  app.add_option("--shuffle-blocks", g.shuffle_text,
                 say("Emulator: run blocks in a random order drawn from SEED (correct kernels "
                     "don't care)",
                     "模拟器：按由 SEED 决定的随机顺序运行线程块（正确的内核不受影响）"))
      ->type_name("SEED");
  app.add_flag("--check", g.emu.check,
               say("Emulator: check every access and barrier: out-of-bounds and host-pointer "
                   "accesses, reads of memory never written, races on shared and global memory, a "
                   "__syncthreads() not every thread reaches; with run also leaks and unchecked "
                   "launch errors",
                   "模拟器：检查每次访问和每道屏障：越界访问、主机指针、读取从未写入的内存、"
                   "共享内存和全局内存上的竞争、不是所有线程都能到达的 __syncthreads()；"
                   "用于 run 时还有内存泄漏和未检查的启动错误"));
  app.add_flag("--projector", g.projector,
               say("High contrast and a large layout for a projector: bold and inverse instead of "
                   "colours, no faint text, lines of at most 64 columns (a large font fits)",
                   "适合投影仪的高对比度大字版式：用粗体和反显代替颜色，不用暗淡文字，每行最多 "
                   "64 列（可以用大字体）"));
  app.add_option("--emu-threads", g.workers_text,
                 say("Emulator: CPU threads that run blocks in parallel (default: one per core)",
                     "模拟器：并行运行线程块的 CPU 线程数（默认每个核心一个）"))
      ->type_name("N");
}

namespace {

// Options a command checks itself (see needed()); filled once while the commands are set up.
std::set<const CLI::Option*>& needed_options() {
  static std::set<const CLI::Option*> options;
  return options;
}

}  // namespace

CLI::Option* needed(CLI::Option* opt) {
  needed_options().insert(opt);
  return opt;
}

bool is_needed(const CLI::Option* opt) {
  return needed_options().contains(opt);
}

void reject_empty_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size_max() == 0 || !opt->nonpositional()) continue;  // flags, positionals
    const std::string name = opt->get_name(false, true);
    // Thrown from inside the parse, UsageError reaches main as any other bad value does.
    opt->each([name](const std::string& value) {
      if (value.empty()) {
        bad_value(
            name, value,
            {"empty; give a value or leave the option out", "为空；请给出一个值，或去掉这个选项"});
      }
    });
  }
  for (CLI::App* sub : app.get_subcommands({})) reject_empty_values(*sub);
}

TypedOption renamed_option(std::string_view name, const std::string& value,
                           std::string_view old_name, const std::string& old_value,
                           const std::string& fallback) {
  if (!value.empty() && !old_value.empty()) {
    // Concatenated: fmt::format of these string_views trips GCC 12's -Wrestrict at -O3.
    const std::string n(name), o(old_name);
    const std::string typed = n + " " + value + " " + o + " " + old_value;
    throw UsageError(typed + ": " + o + " is the old name of " + n + "; give one of them",
                     typed + "：" + o + " 是 " + n + " 的旧名字；只写其中一个");
  }
  if (!old_value.empty()) return {std::string(old_name), old_value};
  return {std::string(name), value.empty() ? fallback : value};
}

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> names;
  for (const auto& m : calc::gpu_models()) names.emplace_back(m.aliases.front());
  return names;
}

void finish_global_options(GlobalOptions& g) {
  const std::string b = parse_choice("--backend", g.backend_text, {"auto", "gpu", "cpu"});
  g.backend = b == "gpu"   ? BackendChoice::gpu
              : b == "cpu" ? BackendChoice::cpu
                           : BackendChoice::automatic;
  const std::string c = parse_choice("--color", g.color_text, {"auto", "always", "never"});
  g.out.color = c == "always"  ? ColorMode::always
                : c == "never" ? ColorMode::never
                               : ColorMode::automatic;
  // In the environment, so that a lesson's demos (gpulab run by gpulab) show the same style.
  if (g.projector) setenv(kProjectorVariable, "1", 1);
  if (g.lang_text.empty()) {
    g.out.lang = lang_from_environment();
  } else {
    g.out.lang = parse_choice("--lang", g.lang_text, {"en", "zh"}) == "zh" ? Lang::zh : Lang::en;
  }
  if (!g.shuffle_text.empty()) {
    g.emu.shuffle_seed =
        static_cast<std::uint64_t>(parse_int("--shuffle-blocks", g.shuffle_text, 0, INT64_MAX));
  }
  if (!g.workers_text.empty()) {
    g.emu.workers = static_cast<unsigned>(parse_int("--emu-threads", g.workers_text, 1, 256));
  }
  const bool emulator_only = g.emu.check || g.emu.shuffle_seed.has_value();
  if (emulator_only && g.backend == BackendChoice::gpu) {
    throw UsageError(
        both("{} needs --backend cpu: only gpulab's emulator can shuffle blocks or watch for races",
             "{} 需要 --backend cpu：只有 gpulab 的模拟器能打乱线程块的顺序或监视竞争",
             g.emu.check ? "--check" : "--shuffle-blocks"));
  }
  if (emulator_only) g.backend = BackendChoice::cpu;
}

Lang message_lang(const GlobalOptions& g) {
  if (g.lang_text == "zh") return Lang::zh;
  if (g.lang_text == "en") return Lang::en;
  return lang_from_environment();
}

std::unique_ptr<Backend> open_backend(const GlobalOptions& g) {
  std::string notice;
  auto backend = make_backend(g.backend, g.emu, &notice, g.out.lang);
  if (!notice.empty()) write_stderr(fmt::format("gpulab: {}\n", notice));
  return backend;
}

void emit(const GlobalOptions& g, const nlohmann::json& json, const std::string& text, bool fit) {
  errno = 0;  // so that a failed write's reason reaches flush_stdout()
  if (g.out.json) {
    std::string doc = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fputc('\n', stdout);
  } else {
    // Every command's explained text goes through here: laid out for the terminal's width.
    const std::string laid_out = fit ? lay_out(text, output_width(), g.out.lang) : text;
    std::fwrite(laid_out.data(), 1, laid_out.size(), stdout);
  }
  flush_stdout();
}

CLI::Option* add_source_flag(CLI::App* sub, bool& source, const GlobalOptions& g) {
  return sub->add_flag("--source", source,
                       help_tr(g, "Print the CUDA source of the kernel instead of running it",
                               "打印内核的 CUDA 源码，而不运行它"));
}

CLI::Option* add_seed_option(CLI::App* sub, std::string& seed, const GlobalOptions& g) {
  return sub
      ->add_option("--seed", seed,
                   help_tr(g, "Seed of the random inputs (default: a fresh one, printed)",
                           "随机输入的种子（默认：新取一个，并打印出来）"))
      ->type_name("S");
}

void emit_verified(const GlobalOptions& g, const nlohmann::json& json, const std::string& text,
                   bool verified, const Text& wrong) {
  emit(g, json, text);
  if (!verified) throw RuntimeFailure(wrong);
}

void emit_sources(const GlobalOptions& g, std::string_view command,
                  std::initializer_list<std::string_view> files) {
  nlohmann::json sources = nlohmann::json::array();
  std::string text;
  const Style style = style_for(g.out);
  for (std::string_view f : files) {
    auto data = embedded::find(embedded::kernel_sources(), f);
    if (!data) {
      throw RuntimeFailure(
          both("kernel source {} is missing from this build", "这个构建中缺少内核源文件 {}", f));
    }
    sources.push_back({{"file", fmt::format("src/kernels/{}", f)}, {"text", *data}});
    text += style.dim(fmt::format("// ---- src/kernels/{} ----", f)) + "\n";
    text += std::string(*data);
    if (!text.empty() && text.back() != '\n') text += '\n';
  }
  // The kernel files as compiled, like cat: a wrapped or cut line of code would mislead.
  emit(g, {{"command", command}, {"sources", sources}}, text, false);
}

nlohmann::json backend_json_fields(const std::string& backend, const std::string& device,
                                   const KernelRun& run) {
  nlohmann::json j = {{"backend", backend}, {"device", device}};
  if (run.emulator) {
    nlohmann::json races = nlohmann::json::array(), races_zh = nlohmann::json::array();
    for (const Text& r : run.emulator->races) {
      races.push_back(r.en);
      races_zh.push_back(r.zh);
    }
    j["emulator"] = {{"barriers_crossed", run.emulator->barriers_crossed},
                     {"blocks_on_fibers", run.emulator->blocks_on_fibers},
                     {"races", races},
                     {"races_zh", races_zh}};
  }
  return j;
}

KernelRun add_emulator_stats(const KernelRun& first, KernelRun second) {
  if (first.emulator && second.emulator) {
    second.emulator->barriers_crossed += first.emulator->barriers_crossed;
    second.emulator->blocks_on_fibers += first.emulator->blocks_on_fibers;
    second.emulator->races.insert(second.emulator->races.begin(), first.emulator->races.begin(),
                                  first.emulator->races.end());
  }
  return second;
}

std::string emulator_notes(const KernelRun& run, const Style& style, Lang lang) {
  if (!run.emulator) return {};
  const EmulatorStats& e = *run.emulator;
  std::string out;
  // No space after the full-width colon in Chinese.
  // A sentence of its own ("Emulator: ..."): in lower case the layout would join it to the line
  // before.
  out +=
      "  " + style.dim(std::string(tr(lang, "Emulator: ", "模拟器："))) +
      (lang == Lang::zh
           ? fmt::format("跨越 {} 次屏障；{} 个线程块用到了纤程",
                         group_thousands(e.barriers_crossed), group_thousands(e.blocks_on_fibers))
           : fmt::format("{}; {} needed fibers",
                         count_noun(e.barriers_crossed, "barrier crossing", "barrier crossings"),
                         count_noun(e.blocks_on_fibers, "block", "blocks"))) +
      "\n";
  for (const auto& race : e.races) {
    out += "  " + style.bad(std::string(tr(lang, "race: ", "竞争："))) + race.in(lang) + "\n";
  }
  return out;
}

std::uint64_t pick_seed(const std::string& raw) {
  if (!raw.empty()) return static_cast<std::uint64_t>(parse_int("--seed", raw, 0, INT64_MAX));
  std::random_device rd;
  return ((static_cast<std::uint64_t>(rd()) << 32) | rd()) & static_cast<std::uint64_t>(INT64_MAX);
}

CLI::Option* add_show_option(CLI::App* sub, std::string& show, const GlobalOptions& g) {
  return sub
      ->add_option("--show", show,
                   help_tr(g, "Table rows: auto (all up to 64), all, none",
                           "表格行数：auto（不超过 64 行时全部显示）、all、none"))
      ->type_name("auto|all|none");
}

ShowMode parse_show(const std::string& raw) {
  const std::string s = parse_choice("--show", raw, {"auto", "all", "none"});
  return s == "all" ? ShowMode::all : s == "none" ? ShowMode::none : ShowMode::automatic;
}

void require_memory(const Backend& backend, std::size_t bytes, std::string_view what) {
  const std::size_t free_bytes = backend.free_memory();
  if (bytes > free_bytes) {
    const bool gpu = backend.kind() == BackendKind::cuda;
    const std::string need = format_bytes(static_cast<double>(bytes));
    const std::string free_text = format_bytes(static_cast<double>(free_bytes));
    throw RuntimeFailure(fmt::format("{} needs {} of {} memory, but only {} is free", what, need,
                                     gpu ? "GPU" : "host", free_text),
                         fmt::format("{} 需要 {} 的{}内存，但只有 {} 空闲", what, need,
                                     gpu ? " GPU " : "主机", free_text));
  }
}

void refuse_long_emulator_run(const Backend& backend, const EmulatorSettings& emu, double elements,
                              double per_thread_rate, std::string_view what) {
  if (backend.kind() != BackendKind::emulator) return;
  const unsigned threads = emu.workers != 0 ? emu.workers : std::thread::hardware_concurrency();
  const double seconds = elements / (2 * per_thread_rate * std::max(1u, threads));
  constexpr double kLongest = 600;
  if (seconds <= kLongest) return;
  const std::string count = group_thousands(static_cast<std::uint64_t>(elements));
  const std::string rate =
      group_thousands(static_cast<std::uint64_t>(2 * per_thread_rate * threads));
  const double minutes = seconds / 60;
  throw RuntimeFailure(
      fmt::format("{} would run for about {:.0f} minutes or more on the emulator ({} elements at "
                  "about {} per second on {}); ask for fewer elements, or run it on a GPU",
                  what, minutes, count, rate, count_noun(threads, "CPU thread", "CPU threads")),
      fmt::format("{} 在模拟器上大约要运行 {:.0f} 分钟或更久（{} 个元素，{} 个 CPU 线程每秒约 {} "
                  "个）；请减少元素个数，或在 GPU 上运行",
                  what, minutes, count, threads, rate));
}

std::size_t host_available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return SIZE_MAX;
}

void require_memory(const Backend& backend, std::string_view what,
                    const std::vector<MemoryItem>& items) {
  const bool gpu = backend.kind() == BackendKind::cuda;
  auto check = [&](bool device_side, std::size_t free_bytes, const Text& where) {
    std::size_t total = 0;
    std::vector<Text> parts;
    for (const auto& item : items) {
      if (gpu && item.on_device != device_side) continue;
      total += item.bytes;
      parts.push_back({fmt::format("{} {}", item.what.en, format_bytes(double(item.bytes))),
                       fmt::format("{} {}", item.what.zh, format_bytes(double(item.bytes)))});
    }
    if (total <= free_bytes) return;
    std::string list_en, list_zh;
    for (const Text& p : parts) {
      list_en += (list_en.empty() ? "" : " + ") + p.en;
      list_zh += (list_zh.empty() ? "" : " + ") + p.zh;
    }
    throw RuntimeFailure(
        fmt::format("{} needs {} of {} memory ({}{}), but only {} is available; "
                    "nothing was allocated",
                    what, format_bytes(static_cast<double>(total)), where.en, list_en,
                    gpu ? "" : "; the emulator's device memory is host memory",
                    format_bytes(static_cast<double>(free_bytes))),
        fmt::format("{} 需要 {} 的{}内存（{}{}），但只有 {} 可用；什么也没有分配", what,
                    format_bytes(static_cast<double>(total)), where.zh, list_zh,
                    gpu ? "" : "；模拟器的设备内存就是主机内存",
                    format_bytes(static_cast<double>(free_bytes))));
  };
  if (gpu) check(true, backend.free_memory(), {"GPU", " GPU "});
  check(false, host_available_memory(), {"host", "主机"});
}

std::vector<std::string> include_define_flags(const std::vector<std::string>& includes,
                                              const std::vector<std::string>& defines) {
  std::vector<std::string> flags;
  for (const auto& d : includes) {
    if (d.empty()) bad_value("-I", d, {"expected a folder", "应为一个文件夹"});
    flags.push_back("-I" + d);
  }
  for (const auto& d : defines) {
    if (d.empty() || d.front() == '=') {
      bad_value("-D", d, {"expected NAME or NAME=VALUE", "应为 NAME 或 NAME=VALUE"});
    }
    flags.push_back("-D" + d);
  }
  return flags;
}

std::string checked_gpu_arch(const std::string& arch) {
  static const std::regex kArch(R"(sm_[0-9]{2,3}[a-z]?)");
  if (!arch.empty() && !std::regex_match(arch, kArch))
    bad_value("--arch", arch, {"expected sm_XY, e.g. sm_90", "应为 sm_XY，例如 sm_90"});
  return arch;
}

}  // namespace gpulab
