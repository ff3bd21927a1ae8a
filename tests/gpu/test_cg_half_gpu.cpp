// On a real GPU: the cooperative-groups and __half test kernels (tests/simt/cg.cuh, half.cuh) give
// the emulator's results, line by line. Run on the device machine: ctest -L gpu.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "support/run.hpp"

#if defined(GPULAB_CG_HALF_DUMP_GPU)

namespace {

std::string output_of(const std::string& program) {
  std::string out;
  FILE* p = popen(program.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  CHECK(pclose(p) == 0);
  return out;
}

}  // namespace

TEST_CASE("cg and __half: the GPU's results equal the emulator's, line by line", "[gpu]") {
  const std::vector<std::string> gpu = gpulab::test::lines_of(output_of(GPULAB_CG_HALF_DUMP_GPU));
  const std::vector<std::string> emu = gpulab::test::lines_of(output_of(GPULAB_CG_HALF_DUMP_EMU));
  REQUIRE(gpu.size() == emu.size());
  int differ = 0;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (gpu[i] == emu[i]) continue;
    if (++differ <= 8) {
      UNSCOPED_INFO("GPU:      " << gpu[i].substr(0, 240));
      UNSCOPED_INFO("emulator: " << emu[i].substr(0, 240));
    }
  }
  CHECK(differ == 0);
}

#endif
