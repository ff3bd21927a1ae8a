// Without a usable GPU the [gpu] tests are skipped, not failed: the run stops before the first
// test with exit code 77, which CTest reports as "Skipped" (SKIP_RETURN_CODE in
// tests/CMakeLists.txt).
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "backend/backend.hpp"

namespace {

struct SkipWithoutGpu : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(Catch::TestRunInfo const& info) override {
    const gpulab::GpuProbe probe = gpulab::probe_gpu();
    if (probe.usable) return;
    std::printf("%s: no usable GPU (%s); the [gpu] tests are skipped\n", info.name.c_str(),
                probe.reason.en.c_str());
    std::fflush(stdout);
    std::_Exit(77);
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(SkipWithoutGpu)
