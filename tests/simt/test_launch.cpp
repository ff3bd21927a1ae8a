// Tests of launch validation at each limit's edge, and of per-launch statistics.
#include <catch2/catch.hpp>

#include <string>

#include "kernels/prelude.cuh"
#include "simt/simt.hpp"
#include "test_util.hpp"

namespace simt_test::launch_limits {
GPULAB_SIMT_DYNAMIC_SHARED(float, dyn_f);
GPULAB_SIMT_DYNAMIC_SHARED(int, dyn_i);
GPULAB_SIMT_DYNAMIC_SHARED(float4, dyn_v);
#include "memory.cuh"
}  // namespace simt_test::launch_limits

namespace {

using gpulab::CudaError;
using gpulab::simt::validate_launch;
namespace k = simt_test::launch_limits;

std::string error_name_of(dim3 grid, dim3 block, std::size_t shared = 0) {
  try {
    validate_launch(k::empty_kernel, grid, block, shared);
  } catch (const CudaError& e) {
    return e.error_name();
  }
  return "ok";
}

}  // namespace

TEST_CASE("threads per block: 1024 fit, 1025 do not", "[simt][limits]") {
  CHECK(error_name_of(1, 1024) == "ok");
  CHECK(error_name_of(1, dim3(32, 32, 1)) == "ok");
  CHECK(error_name_of(1, 1025) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(32, 32, 2)) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(2, 513, 1)) == "cudaErrorInvalidValue");
}

TEST_CASE("block dimensions: at most (1024, 1024, 64)", "[simt][limits]") {
  CHECK(error_name_of(1, dim3(1, 1, 64)) == "ok");
  CHECK(error_name_of(1, dim3(1, 1, 65)) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(1, 1024, 1)) == "ok");
  CHECK(error_name_of(1, dim3(1, 1025, 1)) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(1024, 1, 1)) == "ok");
  CHECK(error_name_of(1, dim3(1025, 1, 1)) == "cudaErrorInvalidValue");
}

TEST_CASE("grid dimensions: at most (2^31-1, 65535, 65535)", "[simt][limits]") {
  CHECK(error_name_of(dim3(2147483647u, 1, 1), 1) == "ok");
  CHECK(error_name_of(dim3(2147483648u, 1, 1), 1) == "cudaErrorInvalidValue");
  CHECK(error_name_of(dim3(1, 65535, 1), 1) == "ok");
  CHECK(error_name_of(dim3(1, 65536, 1), 1) == "cudaErrorInvalidValue");
  CHECK(error_name_of(dim3(1, 1, 65535), 1) == "ok");
  CHECK(error_name_of(dim3(1, 1, 65536), 1) == "cudaErrorInvalidValue");
  CHECK(error_name_of(dim3(2147483647u, 65535, 65535), dim3(1024, 1, 1)) == "ok");
}

TEST_CASE("zero dimensions fail", "[simt][limits]") {
  CHECK(error_name_of(0, 32) == "cudaErrorInvalidValue");
  CHECK(error_name_of(dim3(1, 0, 1), 32) == "cudaErrorInvalidValue");
  CHECK(error_name_of(dim3(1, 1, 0), 32) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, 0) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(32, 0, 1)) == "cudaErrorInvalidValue");
  CHECK(error_name_of(1, dim3(32, 1, 0)) == "cudaErrorInvalidValue");
}

TEST_CASE("shared memory: 48 KiB fit, one byte more does not", "[simt][limits]") {
  CHECK(error_name_of(1, 32, 48 * 1024) == "ok");
  CHECK(error_name_of(1, 32, 48 * 1024 + 1) == "cudaErrorInvalidValue");
  try {
    validate_launch(k::empty_kernel, 1, 32, 48 * 1024 + 1);
    FAIL("no error");
  } catch (const CudaError& e) {
    CHECK_THAT(e.what(), Catch::Contains("49153") && Catch::Contains("cudaFuncSetAttribute"));
    CHECK(e.message(gpulab::Lang::zh) ==
          "线程块要求 49153 字节共享内存（静态 0 + 动态 49153）；不申请时一个线程块最多用 49152 "
          "(48 KiB)；在 H100 上，cudaFuncSetAttribute(kernel, "
          "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) 最多允许 232448 (227 KiB)");
  }
  // Static shared memory counts too: this kernel has 48 KiB of it, so no dynamic byte fits.
  CHECK(gpulab::simt::static_shared_bytes(k::static_shared_kernel) == 48 * 1024);
  CHECK_NOTHROW(validate_launch(k::static_shared_kernel, 1, 32, 0));
  CHECK_THROWS_AS(validate_launch(k::static_shared_kernel, 1, 32, 1), CudaError);
}

TEST_CASE("shared memory opt-in up to 227 KiB", "[simt][limits]") {
  using gpulab::simt::set_max_dynamic_shared_bytes;
  CHECK_THROWS_AS(validate_launch(k::reverse_kernel, 1, 32, 100 * 1024), CudaError);
  CHECK_THROWS_AS(set_max_dynamic_shared_bytes(k::reverse_kernel, 227 * 1024 + 1), CudaError);
  set_max_dynamic_shared_bytes(k::reverse_kernel, 227 * 1024);
  CHECK_NOTHROW(validate_launch(k::reverse_kernel, 1, 32, 227 * 1024));
  CHECK_THROWS_AS(validate_launch(k::reverse_kernel, 1, 32, 227 * 1024 + 1), CudaError);
  set_max_dynamic_shared_bytes(k::reverse_kernel, 100 * 1024);
  CHECK_NOTHROW(validate_launch(k::reverse_kernel, 1, 32, 100 * 1024));
  CHECK_THROWS_AS(validate_launch(k::reverse_kernel, 1, 32, 100 * 1024 + 1), CudaError);
  // Static shared memory takes its share of the 227 KiB.
  CHECK_THROWS_AS(set_max_dynamic_shared_bytes(k::static_shared_kernel, 180 * 1024), CudaError);
  CHECK_NOTHROW(set_max_dynamic_shared_bytes(k::static_shared_kernel, 179 * 1024));
}

TEST_CASE("a rejected launch runs nothing", "[simt][limits]") {
  simt_test::DeviceArray<unsigned> order(4, 7u), counter(1, 0u);
  try {
    gpulab::simt::launch(k::order_kernel, 4, 1025, 0, {}, order.get(), counter.get());
    FAIL("no error");
  } catch (const CudaError& e) {
    CHECK(e.error_name() == "cudaErrorInvalidValue");
    CHECK_THAT(e.what(), Catch::Contains("1025"));
  }
  CHECK(counter[0] == 0);
}

TEST_CASE("warp statistics: a block of 40 is 2 warps with 24 idle lanes", "[simt][stats]") {
  simt_test::DeviceArray<unsigned> order(3, 0u), counter(1, 0u);
  const auto s = gpulab::simt::launch(k::order_kernel, 3, 40, 0, {}, order.get(), counter.get());
  CHECK(s.blocks == 3);
  CHECK(s.threads_per_block == 40);
  CHECK(s.threads == 120);
  CHECK(s.warps_per_block == 2);
  CHECK(s.warps == 6);
  CHECK(s.idle_lanes_last_warp == 24);
  CHECK(s.grid.x == 3);
  CHECK(s.block.x == 40);
  CHECK(counter[0] == 3);

  const auto full =
      gpulab::simt::launch(k::order_kernel, 2, dim3(8, 4, 2), 0, {}, order.get(), counter.get());
  CHECK(full.warps_per_block == 2);
  CHECK(full.idle_lanes_last_warp == 0);
}
