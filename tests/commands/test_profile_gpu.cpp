// gpulab profile --backend gpu's own part (measure_on_gpu): the program built with nvcc -O3
// -lineinfo as the corpus was measured, run under ncu with the ten metrics, ncu's CSV read back;
// and the reason said when nvcc or ncu is missing. Needs no GPU: ncu is a stand-in script here.
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "commands/profile.hpp"
#include "core/toolchain.hpp"

namespace fs = std::filesystem;
using namespace gpulab;

namespace {

const fs::path kCorpus = fs::path(GPULAB_SOURCE_DIR) / "tests" / "profile" / "corpus";

// PATH for the duration of a scope.
struct PathFor {
  std::string saved;
  explicit PathFor(const std::string& path) {
    if (const char* p = std::getenv("PATH")) saved = p;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathFor() { ::setenv("PATH", saved.c_str(), 1); }
};

}  // namespace

TEST_CASE("profile --backend gpu: nvcc -O3 -lineinfo, then ncu's numbers or the reason why not",
          "[profile]") {
  const fs::path dir =
      fs::temp_directory_path() / ("gpulab-profile-gpu-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ProfileOptions o;
  o.file = (kCorpus / "coalesced.cu").string();
  o.gpu_arch = "sm_90";
  o.use_cache = false;
  o.timeout = std::chrono::seconds(60);

  if (!toolchain::find_nvcc()) {
    ProfileResult r;
    measure_on_gpu(o, r);
    CHECK(r.gpu_asked);
    CHECK(r.gpu.empty());
    CHECK_THAT(r.gpu_why_not, Catch::Contains("nvcc is not installed"));
    fs::remove_all(dir);
    return;
  }

  SECTION("a stand-in ncu: its arguments, and its CSV beside the emulator's") {
    const fs::path bin = dir / "bin";
    fs::create_directories(bin);
    const fs::path args = dir / "ncu-args.txt";
    std::ofstream(bin / "ncu")
        << "#!/bin/sh\n"
        << "printf '%s\\n' \"$@\" > '" << args.string() << "'\n"
        << "echo '==PROF== Connected to process 7'\n"
        << "echo 'coalesced: ok'\n"
        << R"csv(echo '"ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"')csv"
        << "\n"
        << R"csv(echo '"0","scale(const float *, float *, int)","(256, 1, 1)","(32, 1, 1)","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","1,024"')csv"
        << "\n";
    ::chmod((bin / "ncu").c_str(), 0755);
    const PathFor path(bin.string() + ":" + std::string(std::getenv("PATH")));
    ProfileResult r;
    measure_on_gpu(o, r);
    CAPTURE(r.gpu_why_not);
    CHECK(r.gpu_why_not.empty());
    CHECK(r.gpu_compiler.rfind("nvcc", 0) == 0);
    REQUIRE(r.gpu.size() == 1);
    CHECK(profile::ncu_short_name(r.gpu[0].kernel) == "scale");
    CHECK(r.gpu[0].metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == 1024.0);
    std::ifstream in(args);
    std::stringstream s;
    s << in.rdbuf();
    // ncu --metrics <the ten> --csv --page details --print-units base <program>
    CHECK_THAT(s.str(),
               Catch::StartsWith("--metrics\nl1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"));
    CHECK_THAT(s.str(), Catch::Contains("--csv\n--page\ndetails\n"));
  }

  SECTION("-Xcompiler's items reach nvcc as -Xcompiler=, the emulator's g++ as they are") {
    // nvcc refuses -Wall and -fno-strict-aliasing as its own flags ("Unknown option").
    ProfileOptions x = o;
    take_nvcc_flags({"-Xcompiler=-Wall,-fno-strict-aliasing", "-O3", "-UNOTHING", "-lm"}, x);
    CHECK(x.compiler_flags ==
          std::vector<std::string>{"-Wall", "-fno-strict-aliasing", "-UNOTHING"});
    CHECK(x.gpu_compiler_flags == std::vector<std::string>{"-UNOTHING"});
    CHECK(x.nvcc_flags == std::vector<std::string>{"-Xcompiler=-Wall,-fno-strict-aliasing", "-O3"});
    CHECK(x.link_flags == std::vector<std::string>{"-lm"});
    CHECK(x.flags_without_effect == std::vector<std::string>{"-O3"});
    ProfileResult r;
    measure_on_gpu(x, r);
    CHECK(r.gpu_compiler.rfind("nvcc", 0) == 0);
    CHECK_THAT(r.gpu_why_not, !Catch::Contains("nvcc"));
    CHECK_THAT(r.gpu_why_not, !Catch::Contains("Unknown option"));
  }

  SECTION("no ncu anywhere: the program is still built, and the reason is said") {
    if (toolchain::find_cuda_tool("ncu")) {
      WARN("ncu is installed here: its own run is tested by bench/profile/ncu_corpus.sh");
      return;
    }
    ProfileResult r;
    measure_on_gpu(o, r);
    CHECK(r.gpu_compiler.rfind("nvcc", 0) == 0);
    CHECK(r.gpu.empty());
    CHECK_THAT(r.gpu_why_not, Catch::Contains("ncu is not installed"));
  }

  SECTION("a program nvcc refuses is said as such") {
    const fs::path bad = dir / "bad.cu";
    std::ofstream(bad) << "__global__ void k() { undeclared_name = 1; }\nint main() {}\n";
    ProfileOptions b = o;
    b.file = bad.string();
    ProfileResult r;
    measure_on_gpu(b, r);
    CHECK(r.gpu.empty());
    CHECK_THAT(r.gpu_why_not, Catch::Contains("undeclared_name"));
  }
  fs::remove_all(dir);
}
