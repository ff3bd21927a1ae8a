// gpulab profile (see profile.hpp): options -> the profile engine (run/profile_session.hpp) ->
// the counts in words or JSON (run/profile_render.hpp).
#include "commands/profile.hpp"

#include <cstdio>

#include "commands/program_options.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/parse.hpp"

namespace gpulab {

using nlohmann::json;

namespace {

// gpulab profile's options as typed: the file, the program's arguments, the rules, and the
// options it shares with gpulab run.
struct ProfileArgs {
  std::string file;
  std::vector<std::string> args, require;
  ProgramArgs program;
};

// Called once the global options are finished (add_command does it first).
ProfileOptions profile_options(const ProfileArgs& raw, GlobalOptions& g) {
  ProfileOptions o;
  o.file = raw.file;
  o.args = raw.args;
  o.args.insert(o.args.end(), raw.program.args.begin(), raw.program.args.end());
  take_program_options(raw.program, g, o);
  take_nvcc_flags(raw.program.nvcc_flags, o);
  for (const std::string& text : raw.require) {
    const auto rule = profile::parse_counter_rule(text);
    if (!rule) {
      bad_value("--require", text,
                both("not a rule: max_sectors_per_request=N, max_bank_conflicts=N or "
                     "min_branch_uniformity=PERCENT (0 to 100)",
                     "不是规则：max_sectors_per_request=N、max_bank_conflicts=N 或 "
                     "min_branch_uniformity=百分比（0 到 100）"));
    }
    o.rules.push_back(*rule);
  }
  // The counters are the emulator's; --backend gpu adds ncu's numbers from the GPU.
  if (g.backend == BackendChoice::gpu) {
    std::string notice;
    o.gpu = gpu_chosen(g.backend, &notice, g.out.lang);
  }
  return o;
}

}  // namespace

void setup_profile(CLI::App& app, GlobalOptions& g) {
  const auto [sub, raw] = add_command<ProfileArgs>(
      app, g, "profile",
      {"Count what Nsight Compute counts (global sectors per request, shared-memory bank "
       "conflicts, divergent branches) for your CUDA program, per line, on the emulator",
       "统计 Nsight Compute 统计的数字（全局内存每请求扇区数、共享内存的存储体（bank）"
       "冲突、分歧分支），按行给出，在模拟器上运行你的 CUDA 程序"},
      [&g](const ProfileArgs& args) {
        const ProfileResult r = run_profile(profile_options(args, g));
        const std::string report =
            g.out.json ? profile_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n"
                       : render_profile(r, g.out);
        std::fflush(stdout);
        deliver_report(report, args.program.report, r.output_ends_line, g);
        if (r.timed_out || r.output_capped) throw ExitCode(kExitFailure);
        // A program a signal ended: 128 + the signal's number, as `gpulab run` and a shell say.
        if (r.signal != 0) throw ExitCode(128 + r.signal);
        if (r.exit_code != 0) throw ExitCode(r.exit_code);
        // A rule broken, or not measured (no kernel ran), is a failure: a script can rely on it.
        for (const profile::CounterRuleResult& x : r.rules)
          if (!x.ok) throw ExitCode(kExitFailure);
      });
  add_program_file(
      sub, g, "file", raw->file,
      {"The CUDA program (.cu) to build, run and count", "要编译、运行并计数的 CUDA 程序（.cu）"});
  sub->add_option(
         "args", raw->args,
         help_tr(g, "Arguments for the program (after --)", "传给程序的参数（写在 -- 之后）"))
      ->type_name("ARGS");
  add_program_options(*sub, g, raw->program,
                      {"GPU architecture for nvcc with --backend gpu (default: the GPU's own)",
                       "--backend gpu 时 nvcc 的 GPU 架构（默认：本机 GPU 自己的）",
                       "Write the profile (text, or JSON with --json) to FILE instead of stderr",
                       "把计数结果（文本，或加 --json 时为 JSON）写入 FILE，而不是标准错误"});
  sub->add_option(
         "--require", raw->require,
         help_tr(g,
                 "A rule the counts must keep, else exit code 1 (repeatable): "
                 "max_sectors_per_request=N, max_bank_conflicts=N, "
                 "min_branch_uniformity=PERCENT",
                 "计数必须满足的规则，否则退出码为 1（可重复）：max_sectors_per_request=N、"
                 "max_bank_conflicts=N、min_branch_uniformity=百分比"))
      ->type_name("RULE=N");
}

}  // namespace gpulab
