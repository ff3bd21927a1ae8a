// The options gpulab run and gpulab profile share (see program_options.hpp).
#include "commands/program_options.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/input.hpp"
#include "core/layout.hpp"

namespace gpulab {

namespace {

// An option given once per value (-I a -I b), never taking the words after it.
CLI::Option* one_value_each(CLI::Option* option) {
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace

void add_program_options(CLI::App& sub, const GlobalOptions& g, ProgramArgs& raw,
                         const ProgramHelp& help) {
  one_value_each(sub.add_option("--program-arg", raw.args,
                                help_tr(g, "Arguments for the program", "传给程序的参数")))
      ->group("");
  one_value_each(sub.add_option("--nvcc-flag", raw.nvcc_flags,
                                help_tr(g, "One of nvcc's flags", "一个 nvcc 选项")))
      ->group("");
  one_value_each(
      sub.add_option(
          "-I,--include", raw.includes,
          help_tr(g,
                  "Add a folder to the compiler's include path (also -IDIR, "
                  "--include-path)",
                  "把一个文件夹加入编译器的头文件搜索路径（也可写 -IDIR、--include-path）")))
      ->type_name("DIR");
  one_value_each(
      sub.add_option("-D,--define", raw.defines,
                     help_tr(g, "Define a preprocessor macro (NAME or NAME=VALUE; also -DNAME)",
                             "定义一个预处理宏（NAME 或 NAME=VALUE；也可写 -DNAME）")))
      ->type_name("NAME[=VALUE]");
  sub.add_option("--timeout", raw.timeout,
                 help_tr(g, "Stop the program after this many seconds (default 120)",
                         "程序运行超过这么多秒就停止它（默认 120）"))
      ->type_name("SECONDS");
  sub.add_option("--max-output", raw.max_output,
                 help_tr(g, "Stop the program once it has printed this many bytes (default 64 MiB)",
                         "程序输出达到这么多字节就停止它（默认 64 MiB）"))
      ->type_name("BYTES");
  sub.add_option("--arch", raw.arch, help_tr(g, help.arch_en, help.arch_zh))->type_name("sm_XY");
  sub.add_option("--report", raw.report, help_tr(g, help.report_en, help.report_zh))
      ->type_name("FILE");
  sub.add_flag("--no-cache", raw.no_cache,
               help_tr(g, "Compile again even if a cached build exists",
                       "即使已有缓存的编译结果也重新编译"));
}

bool deliver_report(const std::string& report, const std::string& report_file,
                    bool output_ends_line, const GlobalOptions& g) {
  if (report_file.empty()) {
    // "hello world" without a newline: on a terminal, the report starts on a line of its own.
    std::string shown = !output_ends_line && isatty(STDERR_FILENO) ? "\n" : "";
    shown += g.out.json ? report : lay_out(report, output_width(STDERR_FILENO), g.out.lang);
    const bool wrote = std::fwrite(shown.data(), 1, shown.size(), stderr) == shown.size();
    const bool flushed = std::fflush(stderr) == 0;
    std::clearerr(stderr);
    return wrote && flushed;
  }
  std::FILE* f = std::fopen(report_file.c_str(), "w");
  if (f == nullptr || std::fwrite(report.data(), 1, report.size(), f) != report.size() ||
      std::fclose(f) != 0) {
    const int error = errno;
    throw RuntimeFailure(both("--report {}: cannot write the report: {}",
                              "--report {}：无法写入报告：{}", printable(report_file, 200),
                              std::string(std::strerror(error))));
  }
  return true;
}

std::vector<std::string> normalize_run_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::size_t i = 0;
  // Up to the subcommand (global options may come first), nothing changes.
  for (; i < args.size(); ++i) {
    out.push_back(args[i]);
    if (args[i] == "--") return args;
    if (args[i] == "run" || args[i] == "profile") break;
  }
  if (i == args.size()) return args;
  ++i;
  // nvcc's flags, as users type them (-IDIR, -I DIR, --include-path DIR, -arch=sm_90, ...): one
  // option of gpulab's each, so that no flag swallows the file after it.
  const auto value_of = [&](std::string_view t, std::string_view name, std::string* v) {
    if (t == name) {
      if (i + 1 >= args.size()) return false;
      *v = args[++i];
      return true;
    }
    if (t.starts_with(name) && t.size() > name.size()) {
      std::string_view rest = t.substr(name.size());
      if (name.starts_with("--") || name.size() > 2) {
        if (rest.front() != '=') return false;
        rest.remove_prefix(1);
      } else if (rest.front() == '=') {
        rest.remove_prefix(1);
      }
      *v = std::string(rest);
      return true;
    }
    return false;
  };
  static const std::set<std::string> kBare = {"-g",
                                              "-G",
                                              "-lineinfo",
                                              "--generate-line-info",
                                              "--device-debug",
                                              "-use_fast_math",
                                              "--use_fast_math",
                                              "-dc",
                                              "-rdc",
                                              "-m64",
                                              "-w",
                                              "-Wno-deprecated-gpu-targets",
                                              "--expt-relaxed-constexpr",
                                              "--expt-extended-lambda",
                                              "--extended-lambda",
                                              "-res-usage",
                                              "--resource-usage",
                                              "--debug",
                                              "-O0",
                                              "-O1",
                                              "-O2",
                                              "-O3",
                                              "-O"};
  // An empty value (-I=, --define=) stays a value, which the command then names.
  const auto gpulab_option = [&](const std::string& name, const std::string& v) {
    if (v.empty()) {
      out.insert(out.end(), {name, ""});
    } else {
      out.push_back(name + "=" + v);
    }
  };
  for (; i < args.size(); ++i) {
    const std::string& t = args[i];
    std::string v;
    if (t == "--") {
      for (++i; i < args.size(); ++i) out.push_back("--program-arg=" + args[i]);
      break;
    }
    if (t.size() < 2 || t[0] != '-' || t.starts_with("--program-arg=")) {
      out.push_back(t);
    } else if ((t == "-I" || t == "-D") && i + 1 >= args.size()) {
      out.push_back(t == "-I" ? "--include" : "--define");  // without its value: said so
    } else if (value_of(t, "-I", &v) || value_of(t, "--include-path", &v) ||
               value_of(t, "--include", &v)) {
      gpulab_option("--include", v);
    } else if (value_of(t, "-D", &v) || value_of(t, "--define-macro", &v) ||
               value_of(t, "--define", &v)) {
      gpulab_option("--define", v);
    } else if (value_of(t, "-U", &v) || value_of(t, "--undefine-macro", &v)) {
      out.push_back("--nvcc-flag=-U" + v);
    } else if (value_of(t, "-L", &v) || value_of(t, "--library-path", &v)) {
      out.push_back("--nvcc-flag=-L" + v);
    } else if (t != "-lineinfo" && (value_of(t, "-l", &v) || value_of(t, "--library", &v))) {
      out.push_back("--nvcc-flag=-l" + v);
    } else if (value_of(t, "-Xcompiler", &v) || value_of(t, "--compiler-options", &v)) {
      out.push_back("--nvcc-flag=-Xcompiler=" + v);
    } else if (value_of(t, "-std", &v) || value_of(t, "--std", &v)) {
      out.push_back("--nvcc-flag=-std=" + v);
    } else if (value_of(t, "-arch", &v) || value_of(t, "--gpu-architecture", &v)) {
      out.push_back("--nvcc-flag=-arch=" + v);
    } else if (value_of(t, "-gencode", &v) || value_of(t, "--generate-code", &v)) {
      out.push_back("--nvcc-flag=-gencode=" + v);
    } else if (value_of(t, "-code", &v) || value_of(t, "--gpu-code", &v)) {
      out.push_back("--nvcc-flag=-code=" + v);
    } else if (value_of(t, "-Xptxas", &v) || value_of(t, "--ptxas-options", &v)) {
      out.push_back("--nvcc-flag=-Xptxas=" + v);
    } else if (value_of(t, "-fmad", &v) || value_of(t, "--fmad", &v)) {
      out.push_back("--nvcc-flag=-fmad=" + v);
    } else if (value_of(t, "-maxrregcount", &v) || value_of(t, "--maxrregcount", &v)) {
      out.push_back("--nvcc-flag=-maxrregcount=" + v);
    } else if (value_of(t, "-Xnvlink", &v) || value_of(t, "--nvlink-options", &v)) {
      out.push_back("--nvcc-flag=-Xnvlink=" + v);
    } else if (value_of(t, "-ccbin", &v) || value_of(t, "--compiler-bindir", &v)) {
      out.push_back("--nvcc-flag=-ccbin=" + v);
    } else if (value_of(t, "-cudart", &v) || value_of(t, "--cudart", &v)) {
      out.push_back("--nvcc-flag=-cudart=" + v);
    } else if (value_of(t, "-rdc", &v) || value_of(t, "--relocatable-device-code", &v)) {
      out.push_back("--nvcc-flag=-rdc=" + v);
    } else if (value_of(t, "-o", &v) || value_of(t, "--output-file", &v)) {
      out.push_back("--nvcc-flag=-o=" + v);
    } else if (kBare.count(t) != 0) {
      out.push_back("--nvcc-flag=" + t);
    } else if (t[1] != '-' && t != "-h" && t != "-v") {
      out.push_back("--nvcc-flag=" + t);  // refused by name in the command's callback
    } else {
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace gpulab
