// Building, caching and running a student's program (see program.hpp).
#include "run/program.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include <cxxabi.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "core/toolchain.hpp"
#include "run/report.hpp"
#include "run/rewrite.hpp"

namespace gpulab::run {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

// The cache key: every source, header and flag, field by field (core/hash.hpp).
struct Hasher {
  Fnv1a f;
  void add(std::string_view s) { f.field(s); }
  std::string hex() const { return fmt::format("{:016x}", f.h); }
};

std::string file_stamp(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return "missing";
  return fmt::format("{}:{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

// The files a compile read (from its -MD dependency file).
std::vector<std::string> read_depfile(const fs::path& d) {
  std::string text = read_file(d);
  std::vector<std::string> deps;
  const auto colon = text.find(": ");
  if (colon == std::string::npos) return deps;
  std::string word;
  for (std::size_t i = colon + 2; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      word += ' ';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t') {
      if (!word.empty()) deps.push_back(word);
      word.clear();
      continue;
    }
    word += c;
  }
  if (!word.empty()) deps.push_back(word);
  return deps;
}

bool deps_unchanged(const fs::path& manifest) {
  std::ifstream in(manifest);
  if (!in) return false;
  try {
    const json m = json::parse(in);
    for (const auto& d : m.at("deps")) {
      if (file_stamp(d.at(0).get<std::string>()) != d.at(1).get<std::string>()) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void write_manifest(const fs::path& manifest, const std::vector<std::string>& deps,
                    const fs::path& work_dir) {
  json m = {{"deps", json::array()}};
  for (const std::string& d : deps) {
    // The rewritten copy lives in the work folder, which goes away; the source itself is hashed.
    if (fs::path(d).parent_path() == work_dir) continue;
    m["deps"].push_back({d, file_stamp(d)});
  }
  std::ofstream(manifest) << m.dump();
}

std::string first_lines(const std::string& text, std::size_t max_lines) {
  std::size_t pos = 0, lines = 0;
  while (pos < text.size() && lines < max_lines) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos) return text;
    pos = nl + 1;
    ++lines;
  }
  if (pos >= text.size()) return text;
  return text.substr(0, pos) + "[... more compiler output cut]\n";
}

struct Kit {
  fs::path dir;
  std::vector<std::string> shared_libraries;
  std::vector<std::string> link_flags;
  std::vector<std::string> check_flags;
  std::string id;  // changes when the kit does
};

Kit load_kit(Lang lang) {
  const auto dir = kit_dir();
  if (!dir) {
    throw RuntimeFailure(chosen(std::string(
        tr(lang,
           "the emulator kit of gpulab run (lib/gpulab/run next to the gpulab binary) is missing: "
           "reinstall gpulab (cmake --install) or run it from its build folder",
           "缺少 gpulab run 的模拟器套件（gpulab 可执行文件旁的 lib/gpulab/run）：请重新安装 "
           "gpulab（cmake --install），或在它的构建目录中运行"))));
  }
  Kit kit;
  kit.dir = *dir;
  const json j = json::parse(read_file(*dir / "kit.json"));
  const fs::path exe_lib = dir->parent_path().parent_path();  // <bin>/../lib
  for (const auto& lib : j.at("shared_libraries")) {
    fs::path p = lib.get<std::string>();
    // A copied gpulab (a GPU machine without the -dev packages) carries them in <bin>/../lib.
    if (!fs::exists(p) && fs::exists(exe_lib / p.filename())) p = exe_lib / p.filename();
    kit.shared_libraries.push_back(p.string());
  }
  for (const auto& f : j.at("link_flags")) kit.link_flags.push_back(f.get<std::string>());
  for (const auto& f : j.at("check_flags")) {
    if (!f.get<std::string>().empty()) kit.check_flags.push_back(f.get<std::string>());
  }
  Hasher h;
  h.add(j.dump());
  h.add(file_stamp(*dir / "lib/libgpulab_cudart.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_simt.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_calc.a"));
  h.add(file_stamp(*dir / "include/cuda_runtime.h"));
  kit.id = h.hex();
  return kit;
}

std::string unsupported_message(const std::vector<Unsupported>& found, const fs::path& source,
                                Lang lang) {
  const Unsupported& u = found.front();
  return fmt::format(
      fmt::runtime(std::string(tr(
          lang,
          "{}:{}: '{}' needs {}, which gpulab's emulator does not run; run the program on an "
          "NVIDIA GPU (--backend gpu)",
          "{}:{}：'{}' 需要{}，gpulab 的模拟器不支持；请在 NVIDIA GPU 上运行（--backend gpu）"))),
      source.string(), u.line, u.token, u.feature);
}

// Keeps the cache from growing without end: past kKeep entries, the least recently used go.
void prune_cache(const fs::path& dir) {
  constexpr std::size_t kKeep = 200;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    // Left by a gpulab that was killed mid-way (reports and build folders live for one run).
    if ((name.starts_with("report-") || name.starts_with("build-")) &&
        fs::last_write_time(e.path(), ec) < hour_ago) {
      fs::remove_all(e.path(), ec);
      continue;
    }
    if (name.size() != 16 || name.find_first_not_of("0123456789abcdef") != std::string::npos)
      continue;
    entries.emplace_back(fs::last_write_time(e.path(), ec), e.path());
  }
  if (entries.size() <= kKeep) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + kKeep < entries.size(); ++i) fs::remove_all(entries[i].second, ec);
}

}  // namespace

std::optional<fs::path> kit_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path dir = exe.parent_path().parent_path() / "lib" / "gpulab" / "run";
  if (fs::exists(dir / "kit.json")) return dir;
  return std::nullopt;
}

fs::path cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x == '/') {
    return fs::path(x) / "gpulab" / "run";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".cache" / "gpulab" / "run";
  }
  return fs::temp_directory_path() / fmt::format("gpulab-run-{}", ::getuid());
}

// nvcc's flags for a program with the launch log: host debug lines name each launch's kernel and
// line; the launch entry point is wrapped by the log (src/run/gpu/launch_log.cpp).
constexpr std::array<const char*, 7> kLaunchLogFlags = {"-g",
                                                        "-Xcompiler",
                                                        "-fno-optimize-sibling-calls",
                                                        "-Xlinker",
                                                        "--wrap=__cudaLaunchKernel",
                                                        "-Xlinker",
                                                        "--wrap=__cudaLaunchKernel_ptsz"};

Build build_program(const BuildRequest& r) {
  const Lang lang = r.lang;
  if (!fs::exists(r.source)) {
    throw UsageError(both("{}: no such file", "{}：文件不存在", r.source.string()));
  }
  if (!fs::is_regular_file(r.source)) {
    throw UsageError(both("{}: not a regular file", "{}：不是普通文件", r.source.string()));
  }
  const std::string source = read_file(r.source);

  Build build;
  std::optional<toolchain::Tool> compiler;
  Kit kit;
  std::optional<fs::path> launch_log;  // --backend gpu: the report's launch list (if built)
  if (r.target == Target::gpu) {
    compiler = toolchain::find_nvcc();
    if (!compiler) throw RuntimeFailure(chosen(toolchain::missing_message("nvcc", lang)));
    if (const auto dir = kit_dir(); dir && fs::exists(*dir / "lib/libgpulab_launch_log.a")) {
      launch_log = *dir / "lib/libgpulab_launch_log.a";
      Hasher h;
      h.add(file_stamp(*launch_log));
      for (const char* f : kLaunchLogFlags) h.add(f);
      kit.id = h.hex();
    }
  } else {
    compiler = toolchain::find_cxx();
    if (!compiler) throw RuntimeFailure(chosen(toolchain::missing_message("g++", lang)));
    kit = load_kit(lang);
  }
  build.compiler = compiler->name + (compiler->version.empty() ? "" : " " + compiler->version);

  Hasher key;
  key.add(GPULAB_VERSION);
  key.add(source);
  key.add(r.source.string());
  key.add(std::to_string(static_cast<int>(r.target)));
  key.add(r.gpu_arch);
  key.add(compiler->path);
  key.add(compiler->version);
  key.add(kit.id);
  for (const auto& f : r.extra_flags) key.add(f);
  const fs::path entry = cache_dir() / key.hex();
  const fs::path program = entry / "program";
  build.program = program;
  if (r.use_cache && fs::exists(program) && deps_unchanged(entry / "deps.json")) {
    build.cached = true;
    std::error_code touched;
    fs::last_write_time(entry, fs::file_time_type::clock::now(), touched);  // recently used
    return build;
  }

  std::error_code ec;
  fs::create_directories(cache_dir(), ec);
  if (ec) {
    throw RuntimeFailure(both("cannot create the cache folder {}: {}", "无法创建缓存目录 {}：{}",
                              cache_dir().string(), ec.message()));
  }
  std::string work_template = (cache_dir() / "build-XXXXXX").string();
  if (::mkdtemp(work_template.data()) == nullptr) {
    throw RuntimeFailure(both("cannot create a build folder in {}", "无法在 {} 中创建构建目录",
                              cache_dir().string()));
  }
  const fs::path work = work_template;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{work};

  const auto start = std::chrono::steady_clock::now();
  const fs::path out = work / "program";
  const fs::path depfile = work / "deps.d";
  const std::string source_dir = r.source.parent_path().string();
  auto compile_failed = [&](const ProcessResult& p) {
    std::string diagnostics = p.err.empty() ? p.out : p.err;
    if (p.timed_out) {
      diagnostics +=
          tr(lang, "[the compiler ran past its time limit]\n", "[编译器超过了时间限制]\n");
    }
    throw RuntimeFailure(both("{} could not compile {}:\n{}", "{} 无法编译 {}：\n{}",
                              compiler->name, r.source.string(), first_lines(diagnostics, 40)));
  };
  constexpr auto kCompileLimit = std::chrono::minutes(5);

  if (r.target == Target::gpu) {
    std::vector<std::string> argv = {compiler->path, "-O2", "-lineinfo", "-std=c++17"};
    if (!r.gpu_arch.empty()) argv.push_back("-arch=" + r.gpu_arch);
    argv.insert(argv.end(), r.extra_flags.begin(), r.extra_flags.end());
    argv.insert(argv.end(),
                {"-MD", "-MF", depfile.string(), "-o", out.string(), r.source.string()});
    if (launch_log) {
      // Device code is compiled as before.
      // No sibling calls in host code, so that a function that ends with its launch keeps its
      // frame (launch_two_norm(...) { kernel<<<1, 512>>>(...); }).
      argv.insert(argv.end(), kLaunchLogFlags.begin(), kLaunchLogFlags.end());
      argv.push_back(launch_log->string());
    }
    const ProcessResult p = run_capture(argv, kCompileLimit);
    if (!p.ok()) compile_failed(p);
  } else {
    const Rewritten rewritten = rewrite_for_emulator(source, r.source.string());
    if (!rewritten.unsupported.empty()) {
      throw RuntimeFailure(chosen(unsupported_message(rewritten.unsupported, r.source, lang)));
    }
    const fs::path cpp = work / "main.cpp";
    std::ofstream(cpp, std::ios::binary) << rewritten.text;
    const bool checked = r.target == Target::emulator_checked;
    std::vector<std::string> argv = {compiler->path,
                                     "-std=c++20",
                                     checked ? "-O1" : "-O2",
                                     "-g",
                                     "-fno-extern-tls-init",
                                     "-iquote",
                                     source_dir,
                                     "-I" + (kit.dir / "include").string(),
                                     "-include",
                                     "cuda_runtime.h"};
    if (checked) argv.insert(argv.end(), kit.check_flags.begin(), kit.check_flags.end());
    argv.insert(argv.end(), r.extra_flags.begin(), r.extra_flags.end());
    argv.insert(argv.end(), {"-MD", "-MF", depfile.string(), "-x", "c++", "-c", cpp.string(), "-o",
                             (work / "main.o").string()});
    const ProcessResult p = run_capture(argv, kCompileLimit);
    if (!p.ok()) compile_failed(p);
    std::vector<std::string> link = {compiler->path,
                                     "-no-pie",
                                     (work / "main.o").string(),
                                     "-Wl,--whole-archive",
                                     (kit.dir / "lib/libgpulab_cudart.a").string(),
                                     "-Wl,--no-whole-archive",
                                     (kit.dir / "lib/libgpulab_simt.a").string(),
                                     (kit.dir / "lib/libgpulab_calc.a").string()};
    for (const auto& lib : kit.shared_libraries) {
      link.push_back(lib);
      link.push_back("-Wl,-rpath," + fs::path(lib).parent_path().string());
    }
    link.insert(link.end(), kit.link_flags.begin(), kit.link_flags.end());
    link.insert(link.end(), {"-lpthread", "-ldl", "-o", out.string()});
    const ProcessResult l = run_capture(link, kCompileLimit);
    if (!l.ok()) compile_failed(l);
  }
  build.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  // Into the cache: a folder of its own, renamed into place in one step.
  write_manifest(work / "deps.json", read_depfile(depfile), work);
  fs::remove(depfile, ec);
  fs::remove(work / "main.o", ec);
  fs::remove_all(entry, ec);
  fs::rename(work, entry, ec);
  if (ec) {
    // Another gpulab got there first, or the cache is not writable: run from the build folder.
    if (!fs::exists(program)) {
      throw RuntimeFailure(both("cannot store the program in {}: {}", "无法把程序存入 {}：{}",
                                entry.string(), ec.message()));
    }
  } else {
    cleanup.dir.clear();
  }
  prune_cache(cache_dir());
  return build;
}

Execution execute(const ExecRequest& r) {
  std::error_code ec;
  fs::create_directories(cache_dir(), ec);
  std::string report_template = (cache_dir() / "report-XXXXXX").string();
  const int fd = ::mkstemp(report_template.data());
  if (fd < 0) {
    throw RuntimeFailure(both("cannot create the report file in {}", "无法在 {} 中创建报告文件",
                              cache_dir().string()));
  }
  ::close(fd);
  const fs::path report = report_template;

  ProcessSpec spec;
  spec.argv = {r.program.string()};
  spec.argv.insert(spec.argv.end(), r.args.begin(), r.args.end());
  spec.env = {{report::kEnvReport, report.string()}, {report::kEnvCheck, r.check ? "1" : "0"}};
  if (r.workers != 0) spec.env.emplace_back(report::kEnvWorkers, std::to_string(r.workers));
  if (r.shuffle_seed) spec.env.emplace_back(report::kEnvShuffle, std::to_string(*r.shuffle_seed));
  spec.output = ProcessSpec::Output::forward;
  spec.timeout = r.timeout;
  spec.max_output_bytes = r.max_output_bytes;
  const ProcessResult p = run_process(spec);

  Execution e;
  if (!p.started) {
    fs::remove(report, ec);
    throw RuntimeFailure(
        both("cannot start {}: {}", "无法启动 {}：{}", r.program.string(), p.start_error));
  }
  e.exit_code = p.exit_code;
  e.signal = p.signal;
  e.timed_out = p.timed_out;
  e.output_capped = p.output_capped;
  e.run_ms = p.wall_ms;
  e.output_ends_line = p.last_stdout_byte == '\n';
  std::ifstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      e.report.push_back(json::parse(line));
    } catch (const std::exception&) {
      // A line cut short by a crash: the rest is still good.
    }
  }
  fs::remove(report, ec);
  return e;
}

std::vector<std::string> source_lines(const fs::path& program, const fs::path& source,
                                      const std::vector<std::uint64_t>& addresses) {
  std::vector<std::string> out(addresses.size());
  if (addresses.empty()) return out;
  const auto addr2line = toolchain::find_program("addr2line");
  if (!addr2line) return out;
  std::vector<std::string> argv = {*addr2line, "-e", program.string(), "-a", "-i"};
  for (std::uint64_t a : addresses) argv.push_back(fmt::format("{:#x}", a > 0 ? a - 1 : a));
  const ProcessResult p = run_capture(argv, std::chrono::seconds(30));
  if (!p.ok()) return out;
  // Output: for each address "0x...", then one "file:line" per frame, innermost first.
  std::istringstream lines(p.out);
  std::string l;
  int index = -1;
  bool found = false;
  while (std::getline(lines, l)) {
    if (l.rfind("0x", 0) == 0) {
      ++index;
      found = false;
      continue;
    }
    if (index < 0 || index >= static_cast<int>(out.size()) || found) continue;
    if (l.rfind("??", 0) == 0) continue;
    // gpulab's own headers (the emulator's device API) are never what the student wrote.
    if (l.find("/lib/gpulab/run/include/") != std::string::npos ||
        l.find("/src/simt/") != std::string::npos || l.find("/usr/include/") != std::string::npos) {
      if (out[index].empty()) out[index] = l;
      continue;
    }
    if (const auto disc = l.find(" (discriminator"); disc != std::string::npos) l.resize(disc);
    // GCC names the rewritten copy (build-*/main.cpp) for some lines despite its #line 1; the
    // line numbers are already the user's.
    if (const auto colon = l.rfind(':');
        colon != std::string::npos && l.compare(0, colon, "main.cpp") != 0 &&
        l.substr(0, colon).ends_with("/main.cpp") && l.find("/build-") != std::string::npos) {
      l = source.string() + l.substr(colon);
    }
    out[index] = l;
    found = true;
  }
  return out;
}

namespace {

// "fill<3>" from "fill<3>", "fill<3>(int*)" or "void fill<3>(int*)": the name without its
// parameters and return type.
std::string bare_function_name(std::string name) {
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0) {
      name.resize(i);
      break;
    }
  }
  depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (name[i] == ' ' && depth == 0) {
      name.erase(0, i + 1);
      break;
    }
  }
  return name;
}

}  // namespace

std::vector<GpuLaunchSite> gpu_launch_sites(const fs::path& program,
                                            const std::vector<std::vector<std::uint64_t>>& frames) {
  std::vector<GpuLaunchSite> out(frames.size());
  const auto addr2line = toolchain::find_program("addr2line");
  if (!addr2line || frames.empty()) return out;
  std::vector<std::string> argv = {*addr2line, "-e", program.string(), "-a", "-f", "-C", "-i"};
  for (const auto& stack : frames) {
    for (std::uint64_t a : stack) argv.push_back(fmt::format("{:#x}", a > 0 ? a - 1 : a));
    argv.push_back("0x0");  // marks the end of one launch's frames
  }
  const ProcessResult p = run_capture(argv, std::chrono::seconds(30));
  if (!p.ok()) return out;
  // For each address "0x...", then pairs of lines (function, file:line), innermost first. nvcc's
  // device stub, __device_stub__<mangled kernel>, names the kernel; the launch is the first frame
  // after it in the user's code that is not the kernel's host stub (which nvcc places at the
  // kernel's own line). The runtime's headers and nvcc's generated files are not the user's code.
  const auto users = [](const std::string& where) {
    return where.rfind("??", 0) != 0 && where.find("/tmpxft_") == std::string::npos &&
           where.find(".stub.c") == std::string::npos && where.find("/crt/") == std::string::npos &&
           where.find("/targets/") == std::string::npos &&
           where.find("/usr/include/") == std::string::npos;
  };
  constexpr std::string_view kStub = "__device_stub__";
  std::istringstream lines(p.out);
  std::string l, function;
  std::size_t launch = 0;
  bool pending_function = false;
  while (std::getline(lines, l) && launch < out.size()) {
    if (l.rfind("0x", 0) == 0) {
      if (l.find_first_not_of("0x") == std::string::npos) ++launch;  // the end marker
      pending_function = false;
      continue;
    }
    if (!pending_function) {
      function = l;
      pending_function = true;
      continue;
    }
    pending_function = false;
    std::string where = l;
    if (const auto disc = where.find(" (discriminator"); disc != std::string::npos) {
      where.resize(disc);
    }
    GpuLaunchSite& site = out[launch];
    if (function.rfind(kStub, 0) == 0 && site.kernel.empty()) {
      std::string mangled = "_" + bare_function_name(function.substr(kStub.size()));
      int status = 0;
      char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      site.kernel = bare_function_name(status == 0 && demangled ? demangled : mangled);
      std::free(demangled);
      continue;
    }
    if (site.kernel.empty() || !site.site.empty() || !users(where)) continue;
    if (bare_function_name(function) == site.kernel) continue;  // the kernel's host stub
    site.site = where;
  }
  return out;
}

}  // namespace gpulab::run
