// Building, caching and running a student's program (see program.hpp).
#include "run/program.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <cxxabi.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/i18n_format.hpp"
#include "core/process.hpp"
#include "core/sha256.hpp"
#include "core/toolchain.hpp"
#include "run/cuda_api.hpp"
#include "run/headers.hpp"
#include "run/report.hpp"
#include "run/rewrite.hpp"
#include "run/sanitizer.hpp"
#include "run/split.hpp"

namespace gpulab::run {

namespace fs = std::filesystem;
using nlohmann::json;

TemporaryFolder::~TemporaryFolder() {
  std::error_code e;
  if (!dir.empty()) fs::remove_all(dir, e);
}

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

// A path of ours: owned by this user, not a symbolic link, and (for `private_dir`) writable by
// nobody else.
bool ours(const fs::path& p, bool private_dir) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return false;
  if (S_ISLNK(st.st_mode) || st.st_uid != ::getuid()) return false;
  return !private_dir || (st.st_mode & 022) == 0;
}

// A cached program runs only if its entry and its file are the user's own, writable by nobody
// else, and the file's SHA-256 is the one recorded when it was built.
bool entry_trusted(const fs::path& entry) {
  if (!ours(entry, true) || !ours(entry / "program", true) || !ours(entry / "program.sha256", true))
    return false;
  struct stat st {};
  if (::lstat((entry / "program").c_str(), &st) != 0 || (st.st_mode & 022) != 0) return false;
  const auto hash = sha256_file(entry / "program");
  std::string recorded = read_file(entry / "program.sha256");
  while (!recorded.empty() && (recorded.back() == '\n' || recorded.back() == ' '))
    recorded.pop_back();
  return hash && recorded.size() == 64 && *hash == recorded;
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
  const std::string work = work_dir.string() + "/";
  for (const std::string& d : deps) {
    // The rewritten copies live in the work folder, which goes away; the sources themselves are
    // hashed and the user's headers they stand for are stamped.
    if (d.starts_with(work) || fs::path(d).parent_path() == work_dir) continue;
    m["deps"].push_back({d, file_stamp(d)});
  }
  std::ofstream(manifest) << m.dump();
}

// The build's notes (Build::removed_api, Build::clock_read_at), kept beside a cached program.
void write_notes(const fs::path& file, const Build& b) {
  json j = {{"removed_api", json::array()},
            {"clock_read_at", b.clock_read_at},
            {"ptxas_lines", b.ptxas_lines},
            {"as_written", json::array()}};
  for (const RemovedUse& u : b.removed_api) j["removed_api"].push_back({u.key, u.where});
  for (const Build::AsWritten& a : b.as_written) {
    j["as_written"].push_back({a.file, a.behaviour, a.error});
  }
  std::ofstream(file) << j.dump();
}
void read_notes(const fs::path& file, Build& b) {
  std::ifstream in(file);
  if (!in) return;
  try {
    const json j = json::parse(in);
    for (const auto& u : j.at("removed_api")) {
      if (find_removed_api(u.at(0).get<std::string>()) != nullptr) {
        b.removed_api.push_back({u.at(0).get<std::string>(), u.at(1).get<std::string>()});
      }
    }
    b.clock_read_at = j.value("clock_read_at", "");
    b.ptxas_lines = j.value("ptxas_lines", std::vector<std::string>{});
    for (const auto& a : j.value("as_written", json::array())) {
      b.as_written.push_back(
          {a.at(0).get<std::string>(), a.at(1).get<bool>(), a.at(2).get<std::string>()});
    }
  } catch (const std::exception&) {
    // A damaged file: the notes are left out, the program still runs.
  }
}

// The compiler's first error line ("FILE:LINE:COL: error: ..."), else its first line.
std::string first_error_line(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    if (line.find(": error: ") != std::string_view::npos ||
        line.find(": sorry, unimplemented: ") != std::string_view::npos ||
        line.find(": internal compiler error: ") != std::string_view::npos)
      return std::string(line);
    start = end + 1;
  }
  return text.substr(0, text.find('\n'));
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

// nvcc's words for what the emulator's headers refuse with a static_assert that g++ words its own
// way: parameters past 32764 bytes (cuda_runtime.h's formal_parameter_space<REQUIRED, MAX>) get
// nvcc's "Formal parameter space overflowed (N bytes required, max M bytes allowed)", at the launch
// g++ names last ("required from here").
std::string nvcc_words(const std::string& diagnostics) {
  static const std::regex overflow(R"(formal_parameter_space<([0-9]+)[ul]*, ([0-9]+)[ul]*>)");
  static const std::regex here(R"((^|\n)([^\n:]+:[0-9]+):[0-9]+:\s+required from here)");
  std::smatch m;
  if (!std::regex_search(diagnostics, m, overflow)) return "";
  std::string where;
  for (auto it = std::sregex_iterator(diagnostics.begin(), diagnostics.end(), here);
       it != std::sregex_iterator(); ++it) {
    where = (*it)[2].str() + ": ";
  }
  return where + "error: Formal parameter space overflowed (" + m[1].str() +
         " bytes required, max " + m[2].str() + " bytes allowed)\n";
}

struct Kit {
  fs::path dir;
  std::vector<std::string> shared_libraries;
  std::vector<std::string> link_flags;
  std::vector<std::string> check_flags;
  // cuBLAS (libgpulab_cublas.a) and the BLAS it calls; empty when the kit was built without it.
  std::vector<std::string> cublas_shared_libraries;
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
  // A library found when gpulab was built; a copied gpulab (a GPU machine without the -dev
  // packages) carries it in <bin>/../lib.
  const auto library = [&](const json& lib) {
    fs::path p = lib.get<std::string>();
    if (!fs::exists(p) && fs::exists(exe_lib / p.filename())) p = exe_lib / p.filename();
    return p.string();
  };
  for (const auto& lib : j.at("shared_libraries")) kit.shared_libraries.push_back(library(lib));
  for (const auto& f : j.at("link_flags")) kit.link_flags.push_back(f.get<std::string>());
  for (const auto& f : j.at("check_flags")) {
    if (!f.get<std::string>().empty()) kit.check_flags.push_back(f.get<std::string>());
  }
  if (j.contains("cublas_shared_libraries") && j["cublas_shared_libraries"].is_array()) {
    for (const auto& lib : j["cublas_shared_libraries"])
      kit.cublas_shared_libraries.push_back(library(lib));
  }
  Hasher h;
  h.add(j.dump());
  h.add(file_stamp(*dir / "lib/libgpulab_cudart.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_simt.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_cublas.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_calc.a"));
  h.add(file_stamp(*dir / "lib/libgpulab_profile.a"));
  h.add(file_stamp(*dir / "include/cuda_runtime.h"));
  kit.id = h.hex();
  return kit;
}

std::string unsupported_message(const std::vector<Unsupported>& found, const fs::path& source,
                                Lang lang) {
  const Unsupported& u = found.front();
  return say(lang,
             "{}:{}: '{}' needs {}, which gpulab's emulator does not run; run the program on an "
             "NVIDIA GPU (--backend gpu)",
             "{}:{}：'{}' 需要{}，gpulab 的模拟器不支持；请在 NVIDIA GPU 上运行（--backend gpu）",
             source.string(), u.line, u.token, lang == Lang::zh ? u.feature_zh : u.feature);
}

// Of the features the emulator does not run, those that g++'s preprocessor keeps: a feature in a
// branch #if leaves out (deviceQuery's driver API under CUDART_VERSION < 5000) or in a macro no
// one uses is no reason to refuse the program. `preprocessed` is g++ -E's output, whose line
// markers name the user's files (each copy starts with #line).
std::vector<std::pair<fs::path, Unsupported>> kept_by_preprocessor(
    const std::string& preprocessed, const std::map<fs::path, std::vector<Unsupported>>& found) {
  std::map<std::pair<std::string, int>, std::string> text;  // (file, line) -> what stands there
  std::string file;
  int line = 0;
  std::istringstream in(preprocessed);
  for (std::string l; std::getline(in, l);) {
    // A line marker: # LINE "FILE" FLAGS...
    if (l.size() > 2 && l[0] == '#' && l[1] == ' ' &&
        std::isdigit(static_cast<unsigned char>(l[2]))) {
      line = std::atoi(l.c_str() + 2);
      const std::size_t open = l.find('"');
      const std::size_t close = l.rfind('"');
      if (open != std::string::npos && close > open) {
        file.clear();
        for (std::size_t k = open + 1; k < close; ++k) {
          if (l[k] == '\\' && k + 1 < close) ++k;
          file += l[k];
        }
      }
      continue;
    }
    text[{file, line}] += l;
    ++line;
  }
  const auto has_word = [](const std::string& t, const std::string& word) {
    const auto ident = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    for (std::size_t at = t.find(word); at != std::string::npos; at = t.find(word, at + 1)) {
      const bool before = at == 0 || !ident(t[at - 1]);
      const bool after = at + word.size() >= t.size() || !ident(t[at + word.size()]);
      if (before && after) return true;
    }
    return false;
  };
  std::vector<std::pair<fs::path, Unsupported>> kept;
  for (const auto& [path, features] : found) {
    for (const Unsupported& u : features) {
      const auto it = text.find({path.string(), u.line});
      if (it != text.end() && has_word(it->second, u.token)) kept.emplace_back(path, u);
    }
  }
  return kept;
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

// Writes `text` to `p`; 0, or the errno of the failure (ENOSPC on a full disk).
int write_whole(const fs::path& p, const std::string& text) {
  errno = 0;
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (f == nullptr) return errno != 0 ? errno : EIO;
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int error = wrote ? 0 : (errno != 0 ? errno : EIO);
  if (std::fclose(f) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  return error;
}

std::string cache_problem_message(int error, Lang lang) {
  return say(lang,
             "cannot write the compile cache at {}: {}; building without "
             "it (nothing is kept for the next run)",
             "无法写入编译缓存 {}：{}；本次不使用缓存编译（不会为下次保留）", cache_dir().string(),
             error == ENOSPC
                 ? std::string(tr(lang, "no space left on device", "设备上没有剩余空间"))
                 : std::string(std::strerror(error)));
}

// A fresh folder in the cache for one build ("build-XXXXXX"); 0 or the errno of the failure.
int make_build_folder(fs::path& work) {
  std::error_code ec;
  fs::create_directories(cache_dir(), ec);
  if (ec) return ec.value();
  std::string work_template = (cache_dir() / "build-XXXXXX").string();
  errno = 0;
  if (::mkdtemp(work_template.data()) == nullptr) return errno != 0 ? errno : EIO;
  work = work_template;
  return 0;
}

// A private folder in the temporary folder ($TMPDIR or /tmp), for when the cache cannot be used.
fs::path private_folder(const char* pattern) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  std::string t = ((ec ? fs::path("/tmp") : tmp) / pattern).string();
  if (::mkdtemp(t.data()) == nullptr) {
    const int error = errno;
    throw RuntimeFailure(both("cannot create a folder in {}: {}", "无法在 {} 中创建目录：{}",
                              fs::path(t).parent_path().string(), std::strerror(error)));
  }
  return t;
}

}  // namespace

std::vector<std::string> libraries_used(std::string_view source) {
  std::vector<std::string> out;
  const auto includes = [&](std::string_view header) {
    for (std::size_t at = source.find(header); at != std::string_view::npos;
         at = source.find(header, at + 1)) {
      const std::size_t line = source.rfind('\n', at);
      const std::string_view before =
          source.substr(line == std::string_view::npos ? 0 : line + 1,
                        at - (line == std::string_view::npos ? 0 : line + 1));
      if (before.find("#") != std::string_view::npos &&
          before.find("include") != std::string_view::npos)
        return true;
    }
    return false;
  };
  if (includes("curand.h")) out.push_back("curand");
  if (includes("cublas_v2.h") || includes("cublas.h") || includes("cublas_api.h"))
    out.push_back("cublas");
  return out;
}

std::optional<fs::path> kit_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path dir = exe.parent_path().parent_path() / "lib" / "gpulab" / "run";
  if (fs::exists(dir / "kit.json")) return dir;
  return std::nullopt;
}

// Makes the per-user cache folder (0700 from the start) and checks that it is the user's own:
// 0, or the errno of why it cannot be used (then gpulab builds without it). A folder of another
// user's is refused outright: gpulab never runs a program from it.
static int private_cache_error() {
  const fs::path dir = cache_dir();
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    const mode_t old = ::umask(077);  // the folders above it too, where they are new
    fs::create_directories(dir, ec);
    ::umask(old);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return ec ? ec.value() : (errno != 0 ? errno : EIO);
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  if (st.st_uid != ::getuid()) {
    throw RuntimeFailure(
        both("the cache folder {} belongs to another user (uid {}): gpulab runs only programs "
             "from a folder of your own (set XDG_CACHE_HOME to one)",
             "缓存目录 {} 属于另一个用户（uid {}）：gpulab 只运行你自己目录中的程序（请把 "
             "XDG_CACHE_HOME 设为你自己的目录）",
             dir.string(), st.st_uid));
  }
  if ((st.st_mode & 077) != 0) ::chmod(dir.c_str(), 0700);
  return 0;
}

fs::path private_cache_dir() {
  if (const int error = private_cache_error(); error != 0) {
    throw RuntimeFailure(both("cannot create the cache folder {}: {}", "无法创建缓存目录 {}：{}",
                              cache_dir().string(), std::string(std::strerror(error))));
  }
  return cache_dir();
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
constexpr std::array<const char*, 19> kLaunchLogFlags = {"-g",
                                                         "-Xcompiler",
                                                         "-fno-optimize-sibling-calls",
                                                         "-Xlinker",
                                                         "--wrap=__cudaLaunchKernel",
                                                         "-Xlinker",
                                                         "--wrap=__cudaLaunchKernel_ptsz",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchKernel",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchKernel_ptsz",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchCooperativeKernel",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchCooperativeKernel_ptsz",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchKernelExC",
                                                         "-Xlinker",
                                                         "--wrap=cudaLaunchKernelExC_ptsz"};

namespace {

// g++'s -fmacro-prefix-map flags that make __FILE__ what nvcc gives for the same command: the
// emulator compiles copies whose #line names each file by its absolute path, while nvcc names a
// file as it was typed and a header as the folder it was found in was typed (`-I ../common`,
// the includer's own folder): each relative -I folder and the file's folder as typed, the file
// itself as typed (later maps win in g++). std::source_location in the kit's calls names the
// files the same way; execute() makes the report's sites absolute again.
std::vector<std::string> file_macro_maps(const std::vector<std::string>& include_flags,
                                         const fs::path& file, const std::string& typed) {
  std::vector<std::string> out;
  const auto map = [&out](const std::string& from, const std::string& to) {
    // g++ splits the option at its first '=': a path with one cannot be mapped.
    if (from.empty() || from.find('=') != std::string::npos || from == to) return;
    out.push_back("-fmacro-prefix-map=" + from + "=" + to);
  };
  const auto folder = [](std::string f) {
    while (f.size() > 1 && f.back() == '/') f.pop_back();
    return f == "." ? std::string() : f + "/";
  };
  for (const std::string& f : include_flags) {
    if (!f.starts_with("-I") || f.size() <= 2) continue;
    const std::string typed_dir = f.substr(2);
    if (fs::path(typed_dir).is_absolute()) continue;
    const std::string to = folder(typed_dir);
    map(folder(fs::absolute(typed_dir).string()), to);
    map(folder(fs::absolute(typed_dir).lexically_normal().string()), to);
  }
  if (!fs::path(typed).is_absolute()) {
    map(folder(file.parent_path().string()), folder(fs::path(typed).parent_path().string()));
  }
  map(file.string(), typed);
  return out;
}

// The flag that gives g++ this CPU's fused multiply-add instructions, or nullopt where it has none
// (an x86-64 CPU older than Haswell): then a * b + c in device code rounds twice, as it does
// without --fmad on a GPU. The program is built for the machine it runs on.
std::optional<std::string> fma_flag() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("fma")) return "-mfma";
  return std::nullopt;
#elif defined(__aarch64__)
  return "";  // every aarch64 CPU has them
#else
  return std::nullopt;
#endif
}

// The report's FILE:LINE fields (site, launch_site, ..._site, where, other_where) with an absolute
// path: __FILE__ and std::source_location name a file as the user typed it (file_macro_maps),
// relative to the folder gpulab and the program run in.
void absolute_sites(json& line) {
  if (!line.is_object()) return;
  for (auto it = line.begin(); it != line.end(); ++it) {
    const std::string& key = it.key();
    json& value = it.value();
    const bool site =
        key == "site" || key.ends_with("_site") || key == "where" || key == "other_where";
    if (!site || !value.is_string()) continue;
    const std::string text = value.get<std::string>();
    if (text.empty() || text.front() == '/' || text.find(':') == std::string::npos) continue;
    std::error_code ec;
    const fs::path absolute = fs::absolute(text, ec);
    if (!ec) value = absolute.lexically_normal().string();
  }
}

}  // namespace

Build build_program(const BuildRequest& r) {
  const Lang lang = r.lang;
  std::vector<fs::path> sources = {r.source};
  sources.insert(sources.end(), r.more_sources.begin(), r.more_sources.end());
  std::vector<std::string> texts;
  for (const fs::path& f : sources) {
    if (!fs::exists(f)) throw UsageError(both("{}: no such file", "{}：文件不存在", f.string()));
    if (!fs::is_regular_file(f)) {
      throw UsageError(both("{}: not a regular file", "{}：不是普通文件", f.string()));
    }
    texts.push_back(read_file(f));
  }
  std::string all_sources;  // what the libraries_used scan reads
  for (const std::string& t : texts) all_sources += t + "\n";

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
  for (std::size_t i = 0; i < sources.size(); ++i) {
    key.add(texts[i]);
    key.add(sources[i].string());
  }
  for (const auto& f : r.link_flags) key.add("link:" + f);
  for (const auto& f : r.nvcc_flags) key.add("nvcc:" + f);
  key.add(std::to_string(static_cast<int>(r.target)));
  key.add(r.gpu_arch);
  key.add(compiler->path);
  key.add(compiler->version);
  key.add(kit.id);
  key.add(kSplitVersion);
  for (const auto& f : r.extra_flags) key.add(f);
  const std::optional<std::string> fma = r.fmad ? fma_flag() : std::nullopt;
  key.add(fma ? "fmad:" + *fma : "fmad:off");
  // __FILE__ names the files as typed, relative to the folder gpulab runs in.
  for (const auto& f : r.as_typed) key.add("typed:" + f);
  std::error_code cwd_error;
  const fs::path cwd = fs::current_path(cwd_error);
  key.add("cwd:" + cwd.string());
  const int cache_error = private_cache_error();
  const fs::path entry = cache_dir() / key.hex();
  const fs::path program = entry / "program";
  build.program = program;
  if (r.use_cache && cache_error == 0 && fs::exists(program) &&
      deps_unchanged(entry / "deps.json") && entry_trusted(entry)) {
    build.cached = true;
    read_notes(entry / "notes.json", build);
    std::error_code touched;
    fs::last_write_time(entry, fs::file_time_type::clock::now(), touched);  // recently used
    return build;
  }

  std::error_code ec;
  constexpr auto kCompileLimit = std::chrono::minutes(5);
  // The build folder: in the cache, or (the cache cannot be written) in the temporary folder.
  fs::path work;
  const auto cache_failed = [&](int error) {
    build.cache_problem = cache_problem_message(error, lang);
    work = private_folder("gpulab-build-XXXXXX");
    build.temporary = std::make_shared<TemporaryFolder>(work);
  };
  if (cache_error != 0) {
    cache_failed(cache_error);
  } else if (const int error = make_build_folder(work); error != 0) {
    cache_failed(error);
  }
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code e;
      if (!dir.empty()) fs::remove_all(dir, e);
    }
  } cleanup{build.temporary ? fs::path() : work};
  // The compilers' own temporary files go into the build folder too, so that they go with it
  // (also when gpulab is interrupted).
  const auto tool_env = [&] {
    fs::create_directories(work / "tmp", ec);
    return std::vector<std::pair<std::string, std::string>>{{"TMPDIR", (work / "tmp").string()}};
  };
  const auto compile = [&](const std::vector<std::string>& argv) {
    ProcessSpec spec;
    spec.argv = argv;
    spec.timeout = kCompileLimit;
    spec.env = tool_env();
    return run_process(spec);
  };

  const auto start = std::chrono::steady_clock::now();
  fs::path out = work / "program";
  fs::path depfile = work / "deps.d";
  std::vector<std::string> all_deps;  // every file the compiles read
  auto compile_failed = [&](const ProcessResult& p, const fs::path& what) {
    std::string diagnostics = p.err.empty() ? p.out : p.err;
    if (diagnostics.find("No space left on device") != std::string::npos) {
      throw RuntimeFailure(both("cannot write the build folder {}: no space left on device",
                                "无法写入构建目录 {}：设备上没有剩余空间",
                                work.parent_path().string()));
    }
    if (p.timed_out) {
      diagnostics +=
          tr(lang, "[the compiler ran past its time limit]\n", "[编译器超过了时间限制]\n");
    }
    std::string shown = nvcc_words(diagnostics) + first_lines(diagnostics, 40);
    // nvcc 13 refusing what CUDA 13 removed: said in words, with the call that replaces it.
    if (r.target == Target::gpu) {
      const std::string en = explain_nvcc_refusal(diagnostics, Lang::en);
      const std::string zh = explain_nvcc_refusal(diagnostics, Lang::zh);
      if (!en.empty()) {
        throw RuntimeFailure(Text{
            fmt::format("{} could not compile {}:\n{}{}", compiler->name, what.string(), shown, en),
            fmt::format("{} 无法编译 {}：\n{}{}", compiler->name, what.string(), shown, zh)});
      }
    }
    // thrust's headers (or the CUB ones it includes) missing on a machine that builds for the
    // emulator: which package brings them.
    const auto missing = [&](std::string_view dir) {
      const auto at = diagnostics.find(fmt::format("fatal error: {}/", dir));
      return at != std::string::npos &&
             diagnostics.find("No such file or directory", at) != std::string::npos;
    };
    if (r.target != Target::gpu && (missing("thrust") || missing("cub"))) {
      throw RuntimeFailure(Text{
          fmt::format("{} could not compile {}:\n{}thrust on the emulator needs libthrust-dev (and "
                      "the libcub-dev it brings): install it (scripts/install-deps.sh)\n",
                      compiler->name, what.string(), shown),
          fmt::format("{} 无法编译 {}：\n{}模拟器上的 thrust 需要 libthrust-dev（以及它带来的 "
                      "libcub-dev）：请安装它（scripts/install-deps.sh）\n",
                      compiler->name, what.string(), shown)});
    }
    throw RuntimeFailure(both("{} could not compile {}:\n{}", "{} 无法编译 {}：\n{}",
                              compiler->name, what.string(), shown));
  };

  if (r.target == Target::gpu) {
    const auto given = [&](std::string_view prefix) {
      return std::any_of(r.nvcc_flags.begin(), r.nvcc_flags.end(),
                         [&](const std::string& f) { return f.starts_with(prefix); });
    };
    // gpulab's defaults, unless the user's own nvcc flags say otherwise.
    std::vector<std::string> argv = {compiler->path};
    if (!given("-O")) argv.push_back("-O2");
    if (!given("-G") && !given("-lineinfo")) argv.push_back("-lineinfo");
    if (!given("-std=")) argv.push_back("-std=c++17");
    if (!r.gpu_arch.empty() && !given("-arch") && !given("-gencode") && !given("-code")) {
      argv.push_back("-arch=" + r.gpu_arch);
    }
    argv.insert(argv.end(), r.nvcc_flags.begin(), r.nvcc_flags.end());
    argv.insert(argv.end(), r.extra_flags.begin(), r.extra_flags.end());
    // One file: its dependencies come from -MD (nvcc takes -MD with one input only).
    if (sources.size() == 1) argv.insert(argv.end(), {"-MD", "-MF", depfile.string()});
    argv.insert(argv.end(), {"-o", out.string()});
    // Each file as the user typed it, relative to the folder gpulab runs in (nvcc runs there
    // too), so that __FILE__ is what `nvcc FILE` gives, as on the emulator (file_macro_maps).
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::string typed = i < r.as_typed.size() ? r.as_typed[i] : "";
      std::error_code same_error;
      const bool as_typed =
          !typed.empty() && typed.front() != '-' && fs::equivalent(typed, sources[i], same_error);
      argv.push_back(as_typed ? typed : sources[i].string());
    }
    argv.insert(argv.end(), r.link_flags.begin(), r.link_flags.end());
    // The CUDA libraries the program's headers name, linked as `nvcc ... -lcurand` would.
    for (const std::string& lib : libraries_used(all_sources)) argv.push_back("-l" + lib);
    if (launch_log) {
      // Device code is compiled as before.
      // No sibling calls in host code, so that a function that ends with its launch keeps its
      // frame (launch_two_norm(...) { kernel<<<1, 512>>>(...); }).
      argv.insert(argv.end(), kLaunchLogFlags.begin(), kLaunchLogFlags.end());
      argv.push_back(launch_log->string());
    }
    const ProcessResult p = compile(argv);
    if (!p.ok()) compile_failed(p, r.source);
    // ptxas's resource report (-Xptxas -v), which nvcc prints on stderr: passed on, with the
    // indented lines that continue a ptxas line ("    0 bytes stack frame, ...").
    std::istringstream said(p.err + p.out);
    bool in_ptxas = false;
    for (std::string line; std::getline(said, line);) {
      in_ptxas = line.starts_with("ptxas ") || (in_ptxas && line.starts_with(" "));
      if (in_ptxas) build.ptxas_lines.push_back(line);
    }
  } else {
    const std::vector<std::string> libraries = libraries_used(all_sources);
    const bool cublas = std::find(libraries.begin(), libraries.end(), "cublas") != libraries.end();
    if (cublas && kit.cublas_shared_libraries.empty()) {
      throw RuntimeFailure(
          both("{}: cuBLAS on the emulator needs OpenBLAS, and this gpulab was built without it: "
               "install libopenblas-dev (scripts/install-deps.sh) and rebuild gpulab",
               "{}：模拟器上的 cuBLAS 需要 OpenBLAS，而这个 gpulab 构建时没有它：请安装 "
               "libopenblas-dev（scripts/install-deps.sh）后重新构建 gpulab",
               r.source.string()));
    }
    // A library this gpulab was built with and links every program with, removed since (or a
    // copied gpulab without it in <bin>/../lib): one line naming it, not the linker's page of
    // errors.
    const auto require = [&](const std::vector<std::string>& libs, std::string_view package_en,
                             std::string_view package_zh) {
      for (const auto& lib : libs) {
        if (fs::exists(lib)) continue;
        throw RuntimeFailure(both(
            "{0}: the emulator needs {1} (found when gpulab was built), which is not there now: "
            "install {2} (scripts/install-deps.sh) or copy it into {4}",
            "{0}：模拟器需要 {1}（构建 gpulab 时找到的），而它现在不在了：请安装 {3}"
            "（scripts/install-deps.sh），或把它复制到 {4}",
            r.source.string(), lib, package_en, package_zh,
            kit.dir.parent_path().parent_path().string()));
      }
    };
    require(kit.shared_libraries, "the package that has it", "包含它的软件包");
    if (cublas) require(kit.cublas_shared_libraries, "libopenblas-dev", "libopenblas-dev");
    const bool profiled = r.target == Target::emulator_profiled;
    const bool checked = r.target == Target::emulator_checked || profiled;
    std::vector<std::string> objects;
    std::vector<std::string> deps;
    // The user's headers are CUDA too: each is rewritten once into work/headers/<its path>, and
    // those folders are searched before the originals.
    // Features the emulator does not run, by the file (a program's file or header) they are in.
    std::map<fs::path, std::vector<Unsupported>> unsupported;
    std::set<fs::path> header_folders;
    std::vector<fs::path> include_dirs;
    for (const std::string& f : r.extra_flags) {
      if (f.starts_with("-I") && f.size() > 2) include_dirs.push_back(fs::absolute(f.substr(2)));
    }
    const auto headers_of = [&](const fs::path& file, const std::string& text) {
      HeaderSearch search;
      search.kit_include = kit.dir / "include";
      search.quote_dirs = {file.parent_path()};
      search.include_dirs = include_dirs;
      return user_headers(file, text, search, read_file);
    };
    // The rewritten copies of headers whose kernels or spin loops split_kernels changed, each with
    // the rewrite of the header as written: what a compile that fails writes back, as it does the
    // file's own text.
    std::vector<std::pair<fs::path, std::string>> plain_headers;
    // Whether the transformation of the file being built, or of its headers, changes what the
    // program does beyond its speed.
    bool split_behaviour = false;
    // elsewhere: what the headers' kernels may call besides the header's own functions (the
    // file's headers and the program's files; empty in check and profile builds).
    const auto shadow_headers = [&](const std::vector<fs::path>& headers,
                                    const std::string& elsewhere) {
      for (const fs::path& h : headers) {
        if (unsupported.count(h) != 0) continue;
        const std::string original = read_file(h);
        Rewritten rewritten = rewrite_for_emulator(original, h.string());
        const fs::path copy = shadow_path(work / "headers", h);
        // A header's kernels are split as the file's are (below), every line where it was.
        std::string text = std::move(rewritten.text);
        if (const Split split = split_kernels(original, !checked, true, elsewhere);
            split.changed()) {
          plain_headers.emplace_back(copy, std::move(text));
          text = rewrite_for_emulator(split.text, h.string()).text;
          split_behaviour |= split.changes_behaviour();
        }
        fs::create_directories(copy.parent_path(), ec);
        if (const int error = write_whole(copy, text); error != 0) {
          throw RuntimeFailure(
              both("cannot write {}: {}", "无法写入 {}：{}", copy.string(), std::strerror(error)));
        }
        unsupported[h] = std::move(rewritten.unsupported);
        if (rewritten.clock_line != 0 && build.clock_read_at.empty()) {
          build.clock_read_at = fmt::format("{}:{}", h.string(), rewritten.clock_line);
        }
        header_folders.insert(h.parent_path());
        deps.push_back(h.string());
      }
    };
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const fs::path& file = sources[i];
      const std::string ext = file.extension().string();
      const bool c_file = ext == ".c";
      // Every file but C is CUDA to the emulator: nvcc compiles .cpp files with the host compiler,
      // where no <<<>>> can stand, so the rewrite leaves them as they are.
      std::string text;
      // The same file without split_kernels' transformation: compiled instead if the
      // transformed one does not compile (a construct the lexical transformation misread).
      std::string plain_text;
      split_behaviour = false;
      // The file's own headers (not a C file's): rewritten below, and read by split_kernels.
      const std::vector<fs::path> headers =
          c_file ? std::vector<fs::path>{} : headers_of(file, texts[i]);
      // What the file's kernels may call besides its own functions: its headers' and the other
      // files' device functions (below).
      std::string elsewhere;
      if (c_file) {
        text = "#line 1 \"" + file.string() + "\"\n" + texts[i];
      } else {
        Rewritten rewritten = rewrite_for_emulator(texts[i], file.string());
        unsupported[file] = std::move(rewritten.unsupported);
        if (rewritten.clock_line != 0 && build.clock_read_at.empty()) {
          build.clock_read_at = fmt::format("{}:{}", file.string(), rewritten.clock_line);
        }
        text = rewritten.text;
        // Kernels with barriers become region loops or coroutines (not in check and profile
        // builds, whose instrumentation must see the kernel's own code); spin loops yield in
        // every build. What the file's kernels may call besides its own functions: its user
        // headers' and the other files' device functions.
        if (!checked) {
          for (const fs::path& h : headers) elsewhere += read_file(h) + "\n";
          for (std::size_t j = 0; j < sources.size(); ++j) {
            if (j != i) elsewhere += texts[j] + "\n";
          }
        }
        const Split split = split_kernels(texts[i], !checked, true, elsewhere);
        if (split.changed()) {
          plain_text = std::move(text);
          text = rewrite_for_emulator(split.text, file.string()).text;
          split_behaviour = split.changes_behaviour();
        }
      }
      const std::string copy_name =
          i == 0 ? std::string("main.cpp") : fmt::format("main_{}{}", i, c_file ? ".c" : ".cpp");
      fs::path copy = work / copy_name;
      if (const int error = write_whole(copy, text); error != 0) {
        // A full disk under the cache: build elsewhere (before the first object only).
        if (build.temporary || !objects.empty()) {
          throw RuntimeFailure(
              both("cannot write {}: {}", "无法写入 {}：{}", copy.string(), std::strerror(error)));
        }
        cache_failed(error);
        copy = work / copy_name;
        out = work / "program";
        depfile = work / "deps.d";
        if (const int again = write_whole(copy, text); again != 0) {
          throw RuntimeFailure(
              both("cannot write {}: {}", "无法写入 {}：{}", copy.string(), std::strerror(again)));
        }
      }
      const fs::path object = work / fmt::format("main_{}.o", i);
      const fs::path dep = work / fmt::format("deps_{}.d", i);
      // DWARF 4: with DWARF 5's file table, addr2line (binutils 2.40) names the compiled copy
      // instead of the #line file for a function that opens a file's code (a header's kernel
      // reported at main.cpp:4 instead of k.cuh:4).
      std::vector<std::string> argv = {compiler->path};
      std::vector<std::string> extra_flags = r.extra_flags;
      if (c_file) {
        argv.insert(argv.end(),
                    {"-x", "c", "-O2", "-g", "-gdwarf-4", "-iquote", file.parent_path().string(),
                     "-I" + (kit.dir / "include").string(), "-D__NVCC__=1"});
      } else {
        // The headers' kernels may call the file's too.
        shadow_headers(headers, checked ? std::string() : elsewhere + texts[i]);
        // The rewritten headers first: beside the file, in each -I folder; the folders of the
        // originals after every other folder (-idirafter: an -iquote folder would come before
        // the -I ones), for a header found some other way (a macro's name) that includes its
        // neighbours.
        const fs::path shadow = work / "headers";
        if (!header_folders.empty()) {
          // Each shadow folder exists, even one that holds no header, so that a path through it
          // resolves: `#include "../scan/scan.cu"` from the file's folder finds the rewritten copy
          // only if the shadow of that folder is there to go up from.
          const fs::path own = shadow_path(shadow, file.parent_path());
          fs::create_directories(own, ec);
          argv.insert(argv.end(), {"-iquote", own.string()});
          extra_flags.clear();
          for (const std::string& f : r.extra_flags) {
            if (f.starts_with("-I") && f.size() > 2) {
              const fs::path dir = shadow_path(shadow, f.substr(2));
              fs::create_directories(dir, ec);
              extra_flags.push_back("-I" + dir.string());
            }
            extra_flags.push_back(f);
          }
          for (const fs::path& folder : header_folders) {
            extra_flags.insert(extra_flags.end(), {"-idirafter", folder.string()});
          }
        }
        // -fcheck-new: new in a kernel gives nullptr when the device heap is full, as on a GPU,
        // and the program's test of the pointer must stay. -fno-aggressive-loop-optimizations:
        // the loops over a block's threads are the emulator's, not the program's; one thread's
        // out-of-bounds index (tile[threadIdx.x * 65536] into a 32-int array) must fault in that
        // thread, not let g++ conclude the loop runs once and drop its end test.
        argv.insert(
            argv.end(),
            {"-std=c++20", checked ? "-O1" : "-O2", "-g", "-gdwarf-4", "-fno-extern-tls-init",
             "-fcheck-new", "-fno-aggressive-loop-optimizations", "-iquote",
             file.parent_path().string(), "-I" + (kit.dir / "include").string(), "-D__NVCC__=1"});
        // A kernel's inner loops (a tile's dot product) unrolled, as nvcc unrolls them too: the
        // matrixMul-style product and the tiled matmul of bench/ run 1.3-2.7x faster, in the same
        // compile time, with the same results (unrolling does not reorder floating-point sums).
        // Not in checked and profiled builds: their accesses stay as the source writes them.
        if (!checked) argv.push_back("-funroll-loops");
        // A .cu file is CUDA: the runtime comes with it and __CUDACC__ is defined. nvcc gives
        // a .cpp file to the host compiler as it is: it includes cuda_runtime.h itself if it
        // wants it (the samples' mergeSort_host.cpp defines its own umin, which a device
        // function of the same name would clash with).
        if (ext == ".cu") {
          argv.insert(argv.end(), {"-include", "cuda_runtime.h", "-DGPULAB_RT_CUDA_SOURCE=1"});
          // Device code fuses a * b + c as nvcc's does (cuda_runtime.h); -O1 (checked builds)
          // fuses only with g++'s expensive optimizations. Not in a profiled build: its basic
          // blocks stay those its counts were checked with against Nsight Compute.
          if (fma && !profiled) {
            if (!fma->empty()) argv.push_back(*fma);
            argv.push_back("-DGPULAB_RT_FMAD=1");
            if (checked) argv.push_back("-fexpensive-optimizations");
          }
        }
        // Host code rounds every operation, in a .cu file and a .cpp one alike (g++'s GNU
        // dialects would fuse where the instructions are there).
        argv.push_back("-ffp-contract=off");
        if (checked) argv.insert(argv.end(), kit.check_flags.begin(), kit.check_flags.end());
        // Every basic block calls a hook (the branches); aggregates are not split into scalars,
        // so that a float4 is one 16-byte access as on a GPU, not four 4-byte ones.
        if (profiled) {
          argv.insert(argv.end(),
                      {"-fsanitize-coverage=trace-pc", "-fno-tree-sra", "-DGPULAB_RT_PROFILED"});
        }
      }
      const std::vector<std::string> maps = file_macro_maps(
          r.extra_flags, file, i < r.as_typed.size() ? r.as_typed[i] : file.string());
      argv.insert(argv.end(), maps.begin(), maps.end());
      argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
      // The checked and profiled builds keep their own level after the user's flags (g++ takes
      // the last -O): a -Xcompiler -O3 would let the vectoriser merge a loop's accesses into
      // wider ones, and the findings and counts would no longer be the source's.
      if (checked) argv.push_back("-O1");
      // The marks of removed API (removed_api.hpp) stay warnings under the user's -Werror.
      if (!c_file)
        argv.insert(argv.end(),
                    {"-Wdeprecated-declarations", "-Wno-error=deprecated-declarations"});
      if (!c_file) argv.insert(argv.end(), {"-x", "c++"});
      // A feature the emulator does not run, in the file or a header it includes, is named before
      // compiling, where the preprocessor keeps it (one g++ -E, only when the rewrite saw one).
      const bool any_unsupported =
          std::any_of(unsupported.begin(), unsupported.end(),
                      [](const auto& found) { return !found.second.empty(); });
      if (!c_file && any_unsupported) {
        std::vector<std::string> preprocess = argv;
        const fs::path preprocessed = work / fmt::format("main_{}.ii", i);
        preprocess.insert(preprocess.end(), {"-E", copy.string(), "-o", preprocessed.string()});
        if (compile(preprocess).ok()) {
          const auto kept = kept_by_preprocessor(read_file(preprocessed), unsupported);
          if (!kept.empty()) {
            // The file's own first, then its headers'.
            const auto first = std::find_if(kept.begin(), kept.end(),
                                            [&](const auto& k) { return k.first == file; });
            const auto& [where, feature] = first != kept.end() ? *first : kept.front();
            throw RuntimeFailure(chosen(unsupported_message({feature}, where, lang)));
          }
        }
        fs::remove(preprocessed, ec);
      }
      argv.insert(argv.end(), {"-MD", "-MF", dep.string()});
      argv.insert(argv.end(), {"-c", copy.string(), "-o", object.string()});
      ProcessResult p = compile(argv);
      if (!p.ok() && (!plain_text.empty() || !plain_headers.empty()) && !p.timed_out) {
        bool written = plain_text.empty() || write_whole(copy, plain_text) == 0;
        for (const auto& [header, plain] : plain_headers) {
          written = write_whole(header, plain) == 0 && written;
        }
        plain_headers.clear();  // later files read the headers as written
        if (written) {
          const std::string refused = p.err.empty() ? p.out : p.err;
          p = compile(argv);
          // Said in the report: the program runs, but not as gpulab meant to run it.
          if (p.ok())
            build.as_written.push_back({file.string(), split_behaviour, first_error_line(refused)});
        }
      }
      if (!p.ok()) {
        if (const auto missing = missing_cuda_api(p.err.empty() ? p.out : p.err, lang)) {
          throw RuntimeFailure(chosen(*missing));
        }
        compile_failed(p, file);
      }
      // API CUDA 13 removed: the emulator's headers mark it deprecated, and g++ names each use.
      for (RemovedUse& u : removed_uses_in(p.err)) {
        const bool seen = std::any_of(build.removed_api.begin(), build.removed_api.end(),
                                      [&](const RemovedUse& known) { return known.key == u.key; });
        if (!seen) build.removed_api.push_back(std::move(u));
      }
      objects.push_back(object.string());
      for (std::string& d : read_depfile(dep)) deps.push_back(std::move(d));
      fs::remove(dep, ec);
    }
    all_deps = deps;
    std::vector<std::string> link = {compiler->path, "-no-pie"};
    link.insert(link.end(), objects.begin(), objects.end());
    // The user's -L before the libraries; -l of CUDA's own libraries are gpulab's here.
    static const std::set<std::string> kCudaLibraries = {
        "-lcudart",   "-lcudart_static", "-lcudadevrt",     "-lcublas", "-lcublas_static",
        "-lcublasLt", "-lcurand",        "-lcurand_static", "-lcuda"};
    std::vector<std::string> user_libraries;
    for (const std::string& f : r.link_flags) {
      if (kCudaLibraries.count(f) == 0) user_libraries.push_back(f);
    }
    const std::size_t after_objects = link.size();
    link.insert(link.end(), {"-Wl,--whole-archive", (kit.dir / "lib/libgpulab_cudart.a").string(),
                             "-Wl,--no-whole-archive", (kit.dir / "lib/libgpulab_simt.a").string(),
                             (kit.dir / "lib/libgpulab_profile.a").string(),
                             (kit.dir / "lib/libgpulab_calc.a").string()});
    link.insert(link.begin() + static_cast<std::ptrdiff_t>(after_objects), user_libraries.begin(),
                user_libraries.end());
    if (cublas) {
      // After the program, before the emulator's runtime it calls into.
      link.insert(link.begin() + static_cast<std::ptrdiff_t>(after_objects),
                  (kit.dir / "lib/libgpulab_cublas.a").string());
      for (const auto& lib : kit.cublas_shared_libraries) {
        link.push_back(lib);
        link.push_back("-Wl,-rpath," + fs::path(lib).parent_path().string());
      }
    }
    for (const auto& lib : kit.shared_libraries) {
      link.push_back(lib);
      link.push_back("-Wl,-rpath," + fs::path(lib).parent_path().string());
    }
    link.insert(link.end(), kit.link_flags.begin(), kit.link_flags.end());
    if (checked) {
      // What a library allocates for a kernel's own code is device memory: the runtime's
      // wrappers (run/runtime/device_heap.cpp) tell the checks about it. (A kernel's malloc, free,
      // new and delete are the device heap's already: run/runtime/heap.cpp.)
      link.push_back("-Wl,--wrap=malloc,--wrap=calloc,--wrap=free");
    }
    link.insert(link.end(), {"-lpthread", "-ldl", "-o", out.string()});
    const ProcessResult l = compile(link);
    if (!l.ok()) compile_failed(l, r.source);
  }
  build.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  fs::remove_all(work / "tmp", ec);
  if (build.temporary) {  // no cache: run from the temporary folder
    build.program = out;
    return build;
  }
  // Into the cache: a folder of its own, renamed into place in one step.
  if (r.target == Target::gpu) {
    // Relative to the folder nvcc ran in, where the files were named as typed.
    for (std::string& d : read_depfile(depfile)) all_deps.push_back(fs::absolute(d).string());
    // Several files: nvcc gives no dependency list; the files themselves are in the key, and the
    // headers in their folders and in the -I folders are stamped.
    if (sources.size() > 1) {
      std::set<fs::path> folders;
      for (const fs::path& f : sources) folders.insert(f.parent_path());
      for (const std::string& f : r.extra_flags) {
        if (f.starts_with("-I") && f.size() > 2) folders.insert(fs::absolute(f.substr(2)));
      }
      for (const fs::path& folder : folders) {
        for (const auto& e : fs::directory_iterator(folder, ec)) {
          const std::string ext = e.path().extension().string();
          if (ext == ".h" || ext == ".hpp" || ext == ".cuh" || ext == ".inl" || ext == ".hxx")
            all_deps.push_back(e.path().string());
        }
      }
    }
  }
  write_manifest(work / "deps.json", all_deps, work);
  write_notes(work / "notes.json", build);
  if (const auto hash = sha256_file(out)) std::ofstream(work / "program.sha256") << *hash << "\n";
  ::chmod(out.c_str(), 0700);
  fs::remove(depfile, ec);
  for (std::size_t i = 0; i < sources.size(); ++i)
    fs::remove(work / fmt::format("main_{}.o", i), ec);
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
  (void)private_cache_error();  // a folder that cannot be used: the temporary folder, below
  std::string report_template = (cache_dir() / "report-XXXXXX").string();
  int fd = ::mkstemp(report_template.data());
  if (fd < 0) {  // the cache cannot be written: the report goes to the temporary folder
    report_template = (fs::temp_directory_path(ec) / "gpulab-report-XXXXXX").string();
    fd = ::mkstemp(report_template.data());
  }
  if (fd < 0) {
    const int error = errno;
    throw RuntimeFailure(both("cannot create the report file {}: {}", "无法创建报告文件 {}：{}",
                              report_template, std::strerror(error)));
  }
  ::close(fd);
  const TemporaryFolder report_file(report_template);  // removed however this ends
  const fs::path report = report_template;

  ProcessSpec spec;
  spec.argv = {r.program.string()};
  spec.argv.insert(spec.argv.end(), r.args.begin(), r.args.end());
  spec.env = {{report::kEnvReport, report.string()}, {report::kEnvCheck, r.check ? "1" : "0"}};
  if (r.profile) spec.env.emplace_back(report::kEnvProfile, "1");
  if (!r.argv0.empty()) spec.env.emplace_back(report::kEnvArgv0, r.argv0);
  if (r.workers != 0) spec.env.emplace_back(report::kEnvWorkers, std::to_string(r.workers));
  if (r.shuffle_seed) spec.env.emplace_back(report::kEnvShuffle, std::to_string(*r.shuffle_seed));
  spec.output = r.capture ? ProcessSpec::Output::capture : ProcessSpec::Output::forward;
  spec.timeout = r.timeout;
  spec.max_output_bytes = r.max_output_bytes;
  std::optional<Contained> box;
  if (r.contain) {
    ContainLimits limits = *r.contain;
    limits.writable.push_back(report);  // the report is the one file it writes besides its own
    box.emplace(spec, limits);
  }
  ProcessResult p = run_process(box ? box->spec() : spec);
  if (box) box->read_back(p);

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
  e.main_returned = p.main_returned;
  e.leftover_processes = p.leftover_processes;
  e.leftovers_held_output = p.leftovers_held_output;
  e.processes_capped = p.processes_capped;
  e.most_processes = p.most_processes;
  if (box) e.containment = box->used();
  e.stdout_errno = p.stdout_errno;
  e.stderr_errno = p.stderr_errno;
  e.out = p.out;
  e.err = p.err;
  std::ifstream in(report);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      e.report.push_back(json::parse(line));
      absolute_sites(e.report.back());
    } catch (const std::exception&) {
      // A line cut short by a crash: the rest is still good.
    }
  }
  fs::remove(report, ec);
  return e;
}

namespace {

// The user's file that a rewritten copy in a build folder stands for: .../build-*/main.cpp is the
// first file, main_N.cpp (main_N.c) the N-th of the others, as build_program names them.
std::optional<std::string> user_file_of_copy(const std::string& path, const fs::path& source,
                                             const std::vector<std::string>& more_sources) {
  const std::string name = fs::path(path).filename().string();
  if (name == "main.cpp") return source.string();
  if (!name.starts_with("main_")) return std::nullopt;
  std::size_t n = 0, at = 5;
  while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at])) && n < 100000) {
    n = n * 10 + static_cast<std::size_t>(name[at++] - '0');
  }
  const std::string_view rest = std::string_view(name).substr(at);
  if (at == 5 || (rest != ".cpp" && rest != ".c") || n == 0 || n > more_sources.size()) {
    return std::nullopt;
  }
  return more_sources[n - 1];
}

}  // namespace

std::vector<std::string> source_lines(const fs::path& program, const fs::path& source,
                                      const std::vector<std::uint64_t>& addresses,
                                      const std::vector<std::string>& more_sources) {
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
    // A rewritten header (build-*/headers/<its path>) stands for the user's own.
    if (const auto build = l.find("/build-"); build != std::string::npos) {
      const auto slash = l.find('/', build + 1);
      if (slash != std::string::npos && l.compare(slash, 9, "/headers/") == 0) {
        l.erase(0, slash + 8);
      }
    }
    // GCC names the rewritten copy (build-*/main.cpp, main_1.cpp, ...) for some lines despite
    // its #line 1; the line numbers are already the user's.
    if (const auto colon = l.rfind(':');
        colon != std::string::npos && l.find("/build-") != std::string::npos) {
      if (const auto user = user_file_of_copy(l.substr(0, colon), source, more_sources)) {
        l = *user + l.substr(colon);
      }
    }
    out[index] = l;
    found = true;
  }
  return out;
}

std::vector<GpuLaunchSite> gpu_launch_sites(const fs::path& program,
                                            const std::vector<std::vector<std::uint64_t>>& frames) {
  std::vector<GpuLaunchSite> out(frames.size());
  const auto addr2line = toolchain::find_program("addr2line");
  if (!addr2line || frames.empty()) return out;
  std::vector<std::string> argv = {*addr2line, "-e", program.string(), "-a", "-f", "-C", "-i"};
  // A launch the program called itself (cudaLaunchKernel & co.) starts with the marker 1 and then
  // the kernel's host function, which names the kernel as a device stub would.
  std::vector<bool> kernel_first(frames.size(), false);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    std::size_t from = 0;
    if (frames[i].size() >= 2 && frames[i][0] == 1) {
      kernel_first[i] = true;
      from = 1;
    }
    for (std::size_t k = from; k < frames[i].size(); ++k) {
      const std::uint64_t a = frames[i][k];
      argv.push_back(fmt::format("{:#x}", a > 0 ? a - 1 : a));
    }
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
  int marker_lines = 0;  // the end marker's own "??" and "??:0", which name nothing
  while (std::getline(lines, l) && launch < out.size()) {
    if (l.rfind("0x", 0) == 0) {
      if (l.find_first_not_of("0x") == std::string::npos) {  // the end marker
        ++launch;
        marker_lines = 2;
      }
      pending_function = false;
      continue;
    }
    if (marker_lines > 0) {
      --marker_lines;
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
    if (kernel_first[launch] && site.kernel.empty()) {
      site.kernel = bare_function_name(function);
      continue;
    }
    if (function.rfind(kStub, 0) == 0 && site.kernel.empty()) {
      std::string mangled = "_" + bare_function_name(function.substr(kStub.size()));
      int status = 0;
      char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      site.kernel = bare_function_name(status == 0 && demangled ? demangled : mangled);
      std::free(demangled);
      continue;
    }
    if (site.kernel.empty() || !site.site.empty()) continue;
    if (!users(where)) {
      // Between the kernel's stub and the program's own frame: thrust's or CUB's launch code.
      if (where.find("/thrust/") != std::string::npos || where.find("/cub/") != std::string::npos) {
        site.library = true;
      }
      continue;
    }
    if (bare_function_name(function) == site.kernel) continue;  // the kernel's host stub
    if (function.rfind("__wrap_", 0) == 0) continue;            // the launch log itself
    site.site = where;
  }
  return out;
}

}  // namespace gpulab::run
