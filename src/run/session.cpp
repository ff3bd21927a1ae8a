// The run engine (see session.hpp): build, run in a child, read the report (run/report.hpp).
#include "run/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/file_check.hpp"
#include "core/input.hpp"
#include "core/process.hpp"
#include "core/toolchain.hpp"
#include "run/program.hpp"
#include "run/report.hpp"
#include "run/sanitizer.hpp"

#if GPULAB_HAVE_CUDA
#include "cuda/device_query.hpp"
#endif

namespace gpulab {

namespace fs = std::filesystem;
namespace report = run::report;
using nlohmann::json;

namespace kinds = run::report::kind;

std::string dims_text(const json& d) {
  if (!d.is_array() || d.size() != 3) return "?";
  return fmt::format("({},{},{})", d[0].get<std::uint64_t>(), d[1].get<std::uint64_t>(),
                     d[2].get<std::uint64_t>());
}

std::string short_path(const std::string& where, const std::string& file) {
  // "/abs/dir/prog.cu:12" -> "prog.cu:12" when it is the user's file.
  // File names may hold escape bytes: shown escaped (core/input.hpp), never sent to the terminal.
  const std::string dir = fs::path(file).parent_path().string() + "/";
  if (!dir.empty() && where.rfind(dir, 0) == 0) return escape_controls(where.substr(dir.size()));
  return escape_controls(where);
}

bool is_check_kind(const std::string& kind) {
  for (const char* k : kinds::all) {
    if (kind == k) return true;
  }
  return false;
}

namespace {

// On the GPU the launch log gives each launch's call frames: addr2line names the kernel and the
// line, once for each distinct call path.
std::map<std::string, run::GpuLaunchSite> gpu_sites(const run::Execution& e,
                                                    const fs::path& program) {
  std::map<std::string, run::GpuLaunchSite> sites;
  std::vector<std::string> keys;
  std::vector<std::vector<std::uint64_t>> frames;
  for (const json& line : e.report) {
    if (line.value(report::kEventField, "") != report::event::launch || !line.contains("frames"))
      continue;
    const std::string key = line.at("frames").dump();
    if (!sites.emplace(key, run::GpuLaunchSite{}).second) continue;
    keys.push_back(key);
    frames.push_back(line.at("frames").get<std::vector<std::uint64_t>>());
  }
  const std::vector<run::GpuLaunchSite> found = run::gpu_launch_sites(program, frames);
  for (std::size_t i = 0; i < keys.size(); ++i) sites[keys[i]] = found[i];
  return sites;
}

void collect(run::Execution& e, RunResult& r, const fs::path& program) {
  std::map<std::string, std::size_t> launch_index;
  std::vector<std::uint64_t> pcs;
  const std::map<std::string, run::GpuLaunchSite> sites = gpu_sites(e, program);
  std::optional<json> begun;  // a launch that started and has not ended (yet)
  for (const json& line : e.report) {
    const std::string event = line.value(report::kEventField, "");
    if (event == report::event::launch_begin) {
      begun = line;
      continue;
    }
    if (event == report::event::launch) {
      begun.reset();
      RunLaunch l;
      l.kernel = line.value("kernel", "");
      l.site = line.value("site", "");
      for (int i = 0; i < 3; ++i) {
        l.grid[i] = line.at("grid")[i].get<std::uint64_t>();
        l.block[i] = line.at("block")[i].get<std::uint64_t>();
      }
      l.shared_bytes = line.value("shared_bytes", std::uint64_t{0});
      l.static_shared_bytes = line.value("static_shared_bytes", std::uint64_t{0});
      l.threads = line.value("threads", std::uint64_t{0});
      l.warps = line.value("warps", std::uint64_t{0});
      l.idle_lanes_per_block = line.value("idle_lanes_per_block", std::uint64_t{0});
      l.barriers = line.value("barriers", std::uint64_t{0});
      l.collectives = line.value("collectives", std::uint64_t{0});
      l.error = line.value("error", "");
      l.error_message = line.value("error_message", "");
      l.error_message_zh = line.value("error_message_zh", "");
      l.fault = line.value("fault", "");
      if (line.contains("frames")) {  // the GPU: the shape's facts follow from grid and block
        const run::GpuLaunchSite& site = sites.at(line.at("frames").dump());
        if (site.library) {
          ++r.library_launches;
          continue;
        }
        l.kernel = site.kernel.empty() ? "?" : site.kernel;
        l.site = site.site;
        l.emulated = false;
        const std::uint64_t blocks = l.grid[0] * l.grid[1] * l.grid[2];
        const std::uint64_t per_block = l.block[0] * l.block[1] * l.block[2];
        const std::uint64_t warps_per_block = (per_block + 31) / 32;
        if (l.error.empty()) {
          l.threads = blocks * per_block;
          l.warps = blocks * warps_per_block;
          l.idle_lanes_per_block = warps_per_block * 32 - per_block;
        }
      }
      const std::string row =
          fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", l.kernel, l.site, line.at("grid").dump(),
                      line.at("block").dump(), l.shared_bytes, l.error, l.fault, l.barriers);
      const auto it = launch_index.find(row);
      if (it == launch_index.end()) {
        l.count = 1;
        l.ms = line.value("ms", 0.0);
        launch_index.emplace(row, r.launches.size());
        r.launches.push_back(l);
      } else {
        RunLaunch& existing = r.launches[it->second];
        ++existing.count;
        existing.ms += line.value("ms", 0.0);
      }
    } else if (event == report::event::launches_not_listed) {
      r.launches_truncated = true;
    } else if (event == report::event::finding) {
      RunFinding f;
      f.kind = line.value(report::kKindField, "");
      f.facts = line;
      f.facts.erase(report::kEventField);
      r.findings.push_back(std::move(f));
    } else if (event == report::event::crash) {
      r.crash = line;
    } else if (event == report::event::gpu_exit) {
      r.report_complete = true;
      r.launches_total = line.value("launches", std::uint64_t{0});
      r.launches_total -= std::min(r.launches_total, r.library_launches);
    } else if (event == report::event::exit) {
      r.report_complete = true;
      r.launches_total = line.value("launches", std::uint64_t{0});
      r.lost_printf_bytes = line.value("lost_printf_bytes", std::uint64_t{0});
      r.dropped_printf_bytes = line.value("dropped_printf_bytes", std::uint64_t{0});
      r.lost_printf_first_line = line.value("lost_printf_first_line", "");
    }
  }
  if (begun && !r.report_complete) {
    // The program ended (a crash, --timeout) inside this launch.
    RunLaunch l;
    l.kernel = begun->value("kernel", "");
    l.site = begun->value("site", "");
    for (int i = 0; i < 3; ++i) {
      l.grid[i] = begun->at("grid")[i].get<std::uint64_t>();
      l.block[i] = begun->at("block")[i].get<std::uint64_t>();
    }
    l.count = 1;
    l.unfinished = true;
    r.launches.push_back(l);
  }
  if (!r.report_complete) {
    std::uint64_t n = 0;
    for (const RunLaunch& l : r.launches) n += l.count;
    r.launches_total = n;
  }
  // FILE:LINE of the accesses (and of a crash), in one call of addr2line.
  for (const RunFinding& f : r.findings) {
    for (const char* key : {"pc", "other_pc"}) {
      if (f.facts.contains(key)) pcs.push_back(f.facts.at(key).get<std::uint64_t>());
    }
  }
  const bool crash_pc = r.crash && r.crash->contains("pc") && r.crash->at("pc").is_number();
  if (crash_pc) pcs.push_back(r.crash->at("pc").get<std::uint64_t>() + 1);  // not a return address
  const std::vector<std::string> lines = run::source_lines(program, r.file, pcs, r.more_files);
  if (crash_pc) {
    const std::string where = lines.back();
    if (where.rfind(r.file + ":", 0) == 0) (*r.crash)["where"] = short_path(where, r.file);
    r.crash->erase("pc");
  }
  std::size_t k = 0;
  for (RunFinding& f : r.findings) {
    if (f.facts.contains("pc")) f.where = short_path(lines[k++], r.file);
    if (f.facts.contains("other_pc")) f.other_where = short_path(lines[k++], r.file);
    if (f.where.empty() && f.kind == report::kind::kernel_fault) {
      // A barrier or a warp collective names its call site in the message.
      static const std::regex site(R"(([^ :()]+\.cuh?):([0-9]+))");
      std::smatch m;
      const std::string message = f.facts.value("message", "");
      if (std::regex_search(message, m, site)) f.where = short_path(m.str(0), r.file);
    }
    if (f.where.empty()) {
      f.where = short_path(f.facts.value("site", f.facts.value("launch_site", "")), r.file);
    }
    f.facts.erase("pc");
    f.facts.erase("other_pc");
    for (const char* key : {"site", "launch_site", "region_site", "allocation_site"}) {
      if (f.facts.contains(key)) f.facts[key] = short_path(f.facts[key].get<std::string>(), r.file);
    }
  }
  // One finding per bug: the same kind at the same line (a missing guard touches a, b and c; a
  // missing barrier races on every element) is counted, not repeated.
  std::vector<RunFinding> merged;
  std::map<std::string, std::size_t> seen;
  for (RunFinding& f : r.findings) {
    const std::string key =
        f.kind + "|" + f.where + "|" + f.other_where + "|" +
        (f.kind == report::kind::leak || f.kind == report::kind::kernel_fault ? f.facts.dump()
                                                                              : "");
    const auto it = seen.find(key);
    if (it == seen.end() || f.where.empty()) {
      seen.emplace(key, merged.size());
      merged.push_back(std::move(f));
      continue;
    }
    json& kept = merged[it->second].facts;
    kept["hits"] = kept.value("hits", std::uint64_t{1}) + f.facts.value("hits", std::uint64_t{1});
  }
  r.findings = std::move(merged);
}

void run_sanitizers(const fs::path& program, const RunOptions& o, RunResult& r) {
  const auto tool = toolchain::find_cuda_tool("compute-sanitizer");
  if (!tool) {
    r.sanitizer_missing = toolchain::missing_message("compute-sanitizer", o.lang);
    return;
  }
  const std::vector<std::vector<std::string>> tools = {
      {"memcheck", "--leak-check", "full"}, {"racecheck"}, {"synccheck"}, {"initcheck"}};
  for (const auto& t : tools) {
    std::vector<std::string> argv = {tool->path, "--tool"};
    argv.insert(argv.end(), t.begin(), t.end());
    argv.push_back(program.string());
    argv.insert(argv.end(), o.args.begin(), o.args.end());
    ProcessSpec spec;
    spec.argv = argv;
    spec.timeout = o.timeout * 4;
    std::optional<run::Contained> box;  // a student's program is contained under its tools too
    if (o.contain) box.emplace(spec, *o.contain);
    ProcessResult p = run_process(box ? box->spec() : spec);
    if (box) box->read_back(p);
    RunResult::SanitizerRun s;
    s.tool = t.front();
    const std::string all = p.out + p.err;
    const run::SanitizerReport parsed = run::parse_sanitizer_output(s.tool, all);
    s.errors = parsed.errors;
    s.findings = parsed.findings.size();
    // Leaks, copies and launches have no device line: their host frames, named by addr2line,
    // give the line of the user's file that made them.
    std::vector<std::uint64_t> frames;
    for (const json& x : parsed.findings) {
      for (const json& a : x.value("host_frames", json::array())) {
        frames.push_back(a.get<std::uint64_t>());
      }
    }
    const std::vector<std::string> frame_lines =
        run::source_lines(program, r.file, frames, r.more_files);
    std::size_t next_frame = 0;
    // Into the findings the emulator gives, one per bug (kind and line), counted.
    for (json x : parsed.findings) {
      for (std::size_t i = 0; i < x.value("host_frames", json::array()).size(); ++i) {
        const std::string& line = frame_lines[next_frame++];
        if (x.value("where", "").empty() && line.rfind(r.file + ":", 0) == 0) x["where"] = line;
      }
      x.erase("host_frames");
      RunFinding f;
      f.kind = x.at(report::kKindField).get<std::string>();
      f.where = short_path(x.value("where", ""), r.file);
      f.other_where = short_path(x.value("other_where", ""), r.file);
      f.facts = x;
      f.facts.erase(report::kKindField);
      f.facts.erase("where");
      f.facts.erase("other_where");
      const auto same =
          std::find_if(r.findings.begin(), r.findings.end(), [&](const RunFinding& seen) {
            return seen.kind == f.kind && seen.where == f.where &&
                   seen.other_where == f.other_where && seen.facts.value("tool", "") == s.tool;
          });
      if (same != r.findings.end()) {
        same->facts["hits"] =
            same->facts.value("hits", std::uint64_t{1}) + f.facts.value("hits", std::uint64_t{1});
        continue;
      }
      r.findings.push_back(std::move(f));
    }
    // Only the sanitizer's own lines; the program's output was shown once already.
    std::string own;
    std::istringstream in(all);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("========= ", 0) == 0 && own.size() < 4000) own += line + "\n";
    }
    s.output = own;
    r.sanitizer.push_back(std::move(s));
  }
}

}  // namespace

std::optional<std::string> gpu_arch_of_device() {
#if GPULAB_HAVE_CUDA
  try {
    const auto info = cuda::query_device(0);
    return fmt::format("sm_{}{}", info.cc_major, info.cc_minor);
  } catch (const std::exception&) {
    return std::nullopt;
  }
#else
  return std::nullopt;
#endif
}

RunResult run_program(const RunOptions& o) {
  RunResult r;
  require_readable_file(o.file);
  r.file = fs::absolute(o.file).lexically_normal().string();
  r.check = o.check;
  r.backend = o.gpu ? "cuda" : "cpu-emulator";
  r.timeout_ms = static_cast<std::uint64_t>(o.timeout.count());
  r.max_output_bytes = o.max_output_bytes;

  run::BuildRequest b;
  b.source = r.file;
  b.as_typed.push_back(o.file);
  b.as_typed.insert(b.as_typed.end(), o.more_files.begin(), o.more_files.end());
  for (const std::string& f : o.more_files) {
    r.more_files.push_back(fs::absolute(f).lexically_normal().string());
    b.more_sources.push_back(r.more_files.back());
  }
  b.link_flags = o.link_flags;
  if (o.gpu) {
    b.nvcc_flags = o.nvcc_flags;
  } else {
    r.flags_without_effect = o.emulator_ignores;
  }
  b.target = o.gpu       ? run::Target::gpu
             : o.profile ? run::Target::emulator_profiled
             : o.check   ? run::Target::emulator_checked
                         : run::Target::emulator;
  b.gpu_arch = o.gpu_arch;
  if (o.gpu && b.gpu_arch.empty()) b.gpu_arch = gpu_arch_of_device().value_or("");
  b.extra_flags = o.compiler_flags;
  b.fmad = o.fmad;
  for (const auto& x : o.extra_sources)
    b.more_sources.push_back(fs::absolute(x).lexically_normal());
  b.use_cache = o.use_cache;
  b.lang = o.lang;
  const run::Build build = run::build_program(b);
  // As `nvcc -Xptxas -v` prints them while it compiles: before the program runs, on stderr.
  for (const std::string& line : build.ptxas_lines)
    std::fprintf(stderr, "%s\n", escape_controls(line).c_str());
  r.cache_problem = build.cache_problem;
  r.compiler = build.compiler;
  r.program = build.program.string();
  r.cached = build.cached;
  r.compile_ms = build.compile_ms;
  for (const run::RemovedUse& u : build.removed_api) r.removed_api.emplace_back(u.key, u.where);
  r.clock_read_at = build.clock_read_at;
  r.as_written = build.as_written;

  run::ExecRequest x;
  x.program = build.program;
  x.args = o.args;
  // On the emulator the program is called by its file's name, as a student's own build is.
  if (!o.gpu) x.argv0 = "./" + fs::path(r.file).stem().string();
  x.check = o.check && !o.gpu;
  x.profile = o.profile && !o.gpu;
  x.workers = o.workers;
  x.shuffle_seed = o.shuffle_seed;
  x.timeout = o.timeout;
  x.max_output_bytes = o.max_output_bytes;
  x.capture = o.capture_output;
  x.contain = o.contain;
  run::Execution e = run::execute(x);
  r.output = std::move(e.out);
  r.errors = std::move(e.err);
  r.exit_code = e.exit_code;
  r.signal = e.signal;
  r.timed_out = e.timed_out;
  r.output_capped = e.output_capped;
  r.run_ms = e.run_ms;
  r.output_ends_line = e.output_ends_line;
  r.main_returned = e.main_returned;
  r.leftover_processes = e.leftover_processes;
  r.leftovers_held_output = e.leftovers_held_output;
  r.processes_capped = e.processes_capped;
  r.most_processes = e.most_processes;
  r.containment = e.containment;
  r.stdout_errno = e.stdout_errno;
  r.stderr_errno = e.stderr_errno;
  static const std::set<std::string> run_events = {
      report::event::start,        report::event::launch,
      report::event::launch_begin, report::event::launches_not_listed,
      report::event::finding,      report::event::crash,
      report::event::exit,         report::event::gpu_exit};
  for (const json& line : e.report) {
    if (run_events.count(line.value(report::kEventField, "")) == 0) r.other_events.push_back(line);
  }
  if (o.keep_report) r.report = e.report;
  collect(e, r, build.program);
  if (o.gpu && o.check) run_sanitizers(build.program, o, r);
  return r;
}

std::size_t check_failures(const RunResult& r) {
  if (!r.check) return 0;
  std::size_t n = 0;
  for (const RunFinding& f : r.findings) n += is_check_kind(f.kind) ? 1 : 0;
  // A tool that counted errors in a shape gpulab could not read still fails the check.
  for (const auto& s : r.sanitizer) {
    if (s.findings == 0 && s.errors > 0) n += static_cast<std::size_t>(s.errors);
  }
  return n;
}

}  // namespace gpulab
