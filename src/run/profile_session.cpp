// gpulab profile's engine (see profile_session.hpp): build with the counters, run, read the
// report; with --backend gpu, ncu's numbers.
#include "run/profile_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "core/toolchain.hpp"
#include "profile/branch_site.hpp"
#include "run/nvcc_flags.hpp"
#include "run/program.hpp"
#include "run/session.hpp"
#include "simt/simt.hpp"  // check_supported

namespace gpulab {

namespace fs = std::filesystem;
using nlohmann::json;
using profile::KernelProfile;

namespace {

// "/abs/dir/prog.cu:12" -> {"prog.cu", 12} for the user's own folder; other files keep their path.
profile::SourcePlace place_of(const std::string& where, const std::string& file) {
  profile::SourcePlace p;
  const auto colon = where.rfind(':');
  if (where.empty() || colon == std::string::npos) return p;
  std::string path = where.substr(0, colon);
  const std::string dir = fs::path(file).parent_path().string() + "/";
  if (path.rfind(dir, 0) == 0) path = path.substr(dir.size());
  p.file = path;
  try {
    p.line = std::stoi(where.substr(colon + 1));
  } catch (const std::exception&) {
    p.line = 0;
  }
  return p;
}

// The conditional jump that ends each branch's block, from objdump's disassembly of the code
// around it (profile/branch_site.hpp); blocks whose jump is not found are left out.
std::map<std::uint64_t, std::uint64_t> branch_jumps(const fs::path& program,
                                                    const std::vector<std::uint64_t>& blocks) {
  std::map<std::uint64_t, std::uint64_t> out;
  const auto objdump = toolchain::find_program("objdump");
  if (!objdump || blocks.empty()) return out;
  // Blocks near each other share one disassembly; a block is rarely longer than 4 KiB of code.
  constexpr std::uint64_t kReach = 4096;
  std::size_t first = 0;
  while (first < blocks.size()) {
    std::size_t last = first;
    while (last + 1 < blocks.size() && blocks[last + 1] - blocks[last] < kReach) ++last;
    const ProcessResult p = run_capture(
        {*objdump, "-d", "--no-show-raw-insn", fmt::format("--start-address={:#x}", blocks[first]),
         fmt::format("--stop-address={:#x}", blocks[last] + kReach), program.string()},
        std::chrono::seconds(30));
    if (p.ok()) {
      const std::vector<std::uint64_t> some(blocks.begin() + static_cast<std::ptrdiff_t>(first),
                                            blocks.begin() + static_cast<std::ptrdiff_t>(last) + 1);
      out.merge(profile::branch_instructions(p.out, some));
    }
    first = last + 1;
  }
  return out;
}

}  // namespace

void take_nvcc_flags(const std::vector<std::string>& flags, ProfileOptions& o) {
  RunOptions emulator, gpu;
  gpu.gpu = true;
  run::sort_nvcc_flags(flags, emulator, "profile");
  run::sort_nvcc_flags(flags, gpu, "profile");
  o.gpu_compiler_flags.insert(o.gpu_compiler_flags.end(), o.compiler_flags.begin(),
                              o.compiler_flags.end());
  o.gpu_compiler_flags.insert(o.gpu_compiler_flags.end(), gpu.compiler_flags.begin(),
                              gpu.compiler_flags.end());
  o.nvcc_flags.insert(o.nvcc_flags.end(), gpu.nvcc_flags.begin(), gpu.nvcc_flags.end());
  o.compiler_flags.insert(o.compiler_flags.end(), emulator.compiler_flags.begin(),
                          emulator.compiler_flags.end());
  o.link_flags.insert(o.link_flags.end(), emulator.link_flags.begin(), emulator.link_flags.end());
  o.flags_without_effect.insert(o.flags_without_effect.end(), emulator.emulator_ignores.begin(),
                                emulator.emulator_ignores.end());
  o.fmad = emulator.fmad;
}

void measure_on_gpu(const ProfileOptions& o, ProfileResult& r) {
  r.gpu_asked = true;
  // Built as the corpus was measured (nvcc -O3 -lineinfo, docs/profile.md), before ncu is looked
  // for: a program nvcc refuses is said as such, with or without ncu.
  run::BuildRequest b;
  b.source = fs::absolute(o.file);
  b.target = run::Target::gpu;
  b.gpu_arch = o.gpu_arch.empty() ? gpu_arch_of_device().value_or("") : o.gpu_arch;
  // -I, -D, -U and nvcc's own flags: the -Xcompiler items split for the emulator's g++ are no
  // flags of nvcc's (it would refuse -Wall); -Xcompiler=A,B goes to nvcc whole.
  b.extra_flags = o.gpu_compiler_flags;
  b.link_flags = o.link_flags;
  // -O3 as the corpus was measured unless the user's own -O says otherwise (build_program adds
  // -lineinfo unless -G or -lineinfo is given).
  b.nvcc_flags = o.nvcc_flags;
  if (std::none_of(o.nvcc_flags.begin(), o.nvcc_flags.end(),
                   [](const std::string& f) { return f.starts_with("-O"); }))
    b.nvcc_flags.insert(b.nvcc_flags.begin(), "-O3");
  b.use_cache = o.use_cache;
  b.lang = o.lang;
  run::Build build;
  try {
    build = run::build_program(b);
  } catch (const Error& e) {
    r.gpu_why_not = e.message(o.lang);
    return;
  }
  r.gpu_compiler = build.compiler;
  const auto ncu = toolchain::find_cuda_tool("ncu");
  if (!ncu) {
    r.gpu_why_not = toolchain::missing_message("ncu", o.lang);
    return;
  }
  std::vector<std::string> argv = {ncu->path};
  for (const auto& a : profile::ncu_arguments()) argv.push_back(a);
  argv.push_back(build.program.string());
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  // ncu replays every kernel once per pass of counters: more time than a plain run.
  const ProcessResult p = run_capture(argv, o.timeout * 4);
  r.gpu = profile::parse_ncu_csv(p.out);
  const std::string all = p.out + p.err;
  if (all.find("ERR_NVGPUCTRPERM") != std::string::npos) {
    r.gpu_why_not = tr(o.lang,
                       "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): an "
                       "administrator must allow it (NVreg_RestrictProfilingToAdminUsers=0) or "
                       "ncu must run as root",
                       "ncu 无权读取这块 GPU 的性能计数器（ERR_NVGPUCTRPERM）：需要管理员允许"
                       "（NVreg_RestrictProfilingToAdminUsers=0），或以 root 运行 ncu");
  } else if (r.gpu.empty()) {
    std::string first = p.err.empty() ? p.out : p.err;
    if (first.size() > 400) first = first.substr(0, 400) + "...";
    r.gpu_why_not = both("ncu measured no kernel (exit code {}): {}",
                         "ncu 没有测到任何内核（退出码 {}）：{}", p.exit_code, first)
                        .in(o.lang);
  }
}

ProfileResult run_profile(const ProfileOptions& o) {
  if (!simt::check_supported()) {
    throw RuntimeFailure(both(
        "gpulab profile is not available in this build: it is built with ThreadSanitizer, whose "
        "runtime owns the hooks the counters rely on",
        "这个构建不能使用 gpulab profile：它是用 ThreadSanitizer "
        "构建的，计数所依赖的钩子归它的运行时所有"));
  }
  ProfileResult r;
  // The engine (run/session.hpp) builds the program with the counters and runs it; its report's
  // "profile" lines come back among the events run does not read itself.
  RunOptions session;
  session.file = o.file;
  session.args = o.args;
  session.profile = true;
  session.compiler_flags = o.compiler_flags;
  session.link_flags = o.link_flags;
  session.emulator_ignores = o.flags_without_effect;
  session.fmad = o.fmad;
  session.timeout = o.timeout;
  session.max_output_bytes = o.max_output_bytes;
  session.use_cache = o.use_cache;
  session.workers = o.workers;
  session.lang = o.lang;
  const RunResult run = run_program(session);
  r.file = run.file;
  r.compiler = run.compiler;
  r.cached = run.cached;
  r.compile_ms = run.compile_ms;
  r.exit_code = run.exit_code;
  r.signal = run.signal;
  r.timed_out = run.timed_out;
  r.output_capped = run.output_capped;
  r.output_ends_line = run.output_ends_line;
  r.flags_without_effect = run.flags_without_effect;
  r.run_ms = run.run_ms;
  for (const RunLaunch& l : run.launches) {
    if (!l.fault.empty()) r.faults.push_back(l.kernel + ": " + l.fault);
  }
  if (run.crash || run.signal != 0) {
    const std::string signal =
        run.signal != 0 ? signal_name(run.signal) : run.crash->value("signal", json("?")).dump();
    const std::string kernel = run.crash ? run.crash->value("kernel", std::string()) : "";
    r.crash = (kernel.empty() || kernel == "?"
                   ? both("The program crashed ({}) in its host code.",
                          "程序在主机代码中崩溃（{}）。", signal)
                   : both("The program crashed ({}) in kernel {}; its counts stop there.",
                          "程序崩溃（{}），在内核 {} 中；计数到此为止。", signal, kernel))
                  .in(o.lang);
  }
  const std::vector<json>& report = run.other_events;

  std::vector<std::uint64_t> pcs = profile::profile_addresses(report);
  // Each branch at its conditional jump's own line: source_lines names the instruction before
  // an address (a hook's return address is after its call), hence the jump's address + 1.
  const std::map<std::uint64_t, std::uint64_t> jumps =
      branch_jumps(run.program, profile::branch_blocks(report));
  for (const auto& [block, jump] : jumps) pcs.push_back(jump + 1);
  const std::vector<std::string> where =
      run::source_lines(run.program, r.file, pcs, run.more_files);
  std::map<std::uint64_t, profile::SourcePlace> places;
  for (std::size_t i = 0; i < pcs.size() && i < where.size(); ++i)
    places[pcs[i]] = place_of(where[i], r.file);
  const auto place = [&](std::uint64_t pc) {
    const auto it = places.find(pc);
    return it == places.end() ? profile::SourcePlace{} : it->second;
  };
  r.kernels = profile::read_profiles(
      report, place, [&](const std::string& site) { return place_of(site, r.file); },
      [&](std::uint64_t block) {
        const auto it = jumps.find(block);
        return it == jumps.end() ? profile::SourcePlace{} : place(it->second + 1);
      });
  for (KernelProfile& k : r.kernels) {
    const profile::SourcePlace site = place_of(k.site, r.file);
    if (!site.file.empty()) k.site = fmt::format("{}:{}", site.file, site.line);
  }
  std::ifstream in(r.file);
  for (std::string line; std::getline(in, line);) r.source.push_back(line);

  for (const profile::CounterRule& rule : o.rules)
    r.rules.push_back(profile::check_counter_rule(rule, r.kernels));
  if (o.gpu) measure_on_gpu(o, r);
  return r;
}

}  // namespace gpulab
