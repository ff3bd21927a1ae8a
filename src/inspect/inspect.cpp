// inspect's engine (see inspect.hpp): nvcc, its resource report, the listings.
#include "inspect/inspect.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include "calc/gpu_specs.hpp"
#include "core/error.hpp"
#include "core/i18n_format.hpp"
#include "core/lines.hpp"
#include "core/parse.hpp"
#include "core/process.hpp"
#include "core/text.hpp"
#include "core/toolchain.hpp"
#include "run/program.hpp"  // read_file

namespace gpulab {
namespace {

namespace fs = std::filesystem;

// A temporary directory, removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/gpulab-inspect-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      throw RuntimeFailure(both("cannot create a temporary directory in {}: {}",
                                "无法在 {} 中创建临时目录：{}",
                                fs::path(pattern).parent_path().string(), std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

ProcessResult run_tool(const std::vector<std::string>& argv) {
  ProcessResult r = run_capture(argv, std::chrono::seconds(120));
  if (!r.ok()) {
    throw RuntimeFailure(both("{0} failed ({1}):\n{3}", "{0} 失败（{2}）：\n{3}",
                              fs::path(argv[0]).filename().string(), r.describe().en,
                              r.describe().zh, trim(r.err + r.out)));
  }
  return r;
}

}  // namespace

InspectResult run_inspect(const InspectOptions& o, Lang lang) {
  const auto nvcc = toolchain::find_nvcc();
  if (!nvcc) throw RuntimeFailure(chosen(toolchain::missing_message("nvcc", lang)));
  std::optional<toolchain::Tool> sass_tool;
  if (o.sass) {
    sass_tool = toolchain::find_cuda_tool("nvdisasm");
    if (!sass_tool) sass_tool = toolchain::find_cuda_tool("cuobjdump");
  }
  InspectResult r;
  // No SASS tool: said, and the PTX shown instead (the nearest listing nvcc alone can make).
  if (o.sass && !sass_tool) {
    r.sass_missing = both("--sass needs nvdisasm or cuobjdump: {}; the PTX is shown instead",
                          "--sass 需要 nvdisasm 或 cuobjdump：{}；改为显示 PTX",
                          toolchain::missing_message("cuobjdump", lang))
                         .in(lang);
  }
  const bool want_ptx = o.ptx || !r.sass_missing.empty();
  r.file = o.file;
  r.arch = fmt::format("sm_{}", o.arch);
  r.nvcc = nvcc->path;
  r.nvcc_version = nvcc->version;
  const auto arch = calc::arch_info(o.arch / 10, o.arch % 10);

  TempDir tmp;
  const std::string cubin = (tmp.path() / "kernels.cubin").string();
  // -cubin compiles the device code alone, for one real architecture; -lineinfo keeps the source
  // lines for the listings; --resource-usage makes ptxas report each kernel's resources.
  r.nvcc_command = {
      nvcc->path, "-arch=" + r.arch, "-cubin", "-lineinfo", "--resource-usage", "-o", cubin,
      o.file};
  const ProcessResult compiled = run_capture(r.nvcc_command, std::chrono::seconds(300));
  if (!compiled.ok()) {
    throw RuntimeFailure(both("nvcc could not compile {0} ({1}):\n{3}",
                              "nvcc 无法编译 {0}（{2}）：\n{3}", o.file, compiled.describe().en,
                              compiled.describe().zh, trim(compiled.err + compiled.out)));
  }
  std::vector<KernelResources> kernels = parse_resource_usage(compiled.out + compiled.err);
  const auto sections = elf_section_sizes(run::read_file(cubin));
  for (KernelResources& k : kernels) {
    if (auto it = sections.find(".nv.shared." + k.mangled); it != sections.end()) {
      k.cubin_shared_bytes = static_cast<std::int64_t>(it->second);
    }
    if (!k.constant_bank0_bytes) {
      if (auto it = sections.find(".nv.constant0." + k.mangled); it != sections.end()) {
        k.constant_bank0_bytes = static_cast<std::int64_t>(it->second);
      }
    }
  }
  if (!o.kernel.empty()) {
    std::vector<KernelResources> picked;
    std::vector<std::string> names;
    for (auto& k : kernels) {
      names.push_back(k.short_name);
      if (k.short_name == o.kernel || k.mangled == o.kernel || k.name == o.kernel) {
        picked.push_back(k);
      }
    }
    if (picked.empty()) {
      const std::string list = fmt::format("{}", fmt::join(names, ", "));
      bad_value("--kernel", o.kernel,
                names.empty() ? both("{} defines no kernel", "{} 没有定义内核", o.file)
                              : both("not a kernel of {}; its kernels: {}",
                                     "不是 {} 中的内核；它的内核有：{}", o.file, list));
    }
    kernels = std::move(picked);
  }

  Sources sources;
  Listings ptx, sass;
  if (want_ptx) {
    const std::string ptx_file = (tmp.path() / "kernels.ptx").string();
    run_tool({nvcc->path, "-arch=" + r.arch, "-ptx", "-lineinfo", "-o", ptx_file, o.file});
    ptx = ptx_listings(run::read_file(ptx_file), sources);
  }
  if (o.sass && sass_tool) {
    r.sass_tool = sass_tool->name;
    if (sass_tool->name == "nvdisasm") {
      sass = sass_listings_nvdisasm(run_tool({sass_tool->path, "-g", "-c", cubin}).out, sources);
    } else {
      sass = sass_listings_cuobjdump(run_tool({sass_tool->path, "-sass", cubin}).out);
    }
    drop_padding(sass);
  }

  for (KernelResources& k : kernels) {
    InspectedKernel ik;
    ik.res = k;
    if (arch) {
      ik.occ = calc::occupancy(
          *arch, {o.threads, k.registers, k.static_shared_bytes, o.dynamic_shared, std::nullopt});
    }
    if (auto it = ptx.find(k.mangled); it != ptx.end()) ik.ptx = it->second;
    if (auto it = sass.find(k.mangled); it != sass.end()) ik.sass = it->second;
    ik.ptx_notes = ptx_notes(ik.ptx);
    ik.sass_notes = sass_notes(ik.sass);
    r.kernels.push_back(std::move(ik));
  }
  return r;
}

}  // namespace gpulab
