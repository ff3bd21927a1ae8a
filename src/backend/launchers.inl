// The kernel launches of every backend, written once. Included inside a backend's own namespace
// (gpulab::cuda_backend, gpulab::emulator_backend, ...) after kernels/prelude.cuh, so that each
// backend compiles its own copy of the kernels. `Impl` supplies
//   template <class... P, class... A> KernelRun launch(const LaunchShape&, void (*)(P...), A...);
// (no include guard: each including file wants its own copy)

#include "kernels/hello.cuh"
#include "kernels/index_map.cuh"
#include "kernels/latency_probe.cuh"
#include "kernels/twonorm_course.cuh"
#include "kernels/twonorm_ladder.cuh"
#include "kernels/twonorm_reduce.cuh"
#include "kernels/vecadd.cuh"

template <class Impl>
class Launchers : public ::gpulab::Backend {
 public:
  KernelRun hello(const LaunchShape& s) override { return impl().launch(s, hello_kernel); }
  KernelRun vector_add(const LaunchShape& s, const int* a, const int* b, int* c, int n) override {
    return impl().launch(s, ::gpulab::GPULAB_BACKEND_NS::vector_add, a, b, c, n);
  }
  KernelRun two_norm_course(const LaunchShape& s, const float* a, const float* b, float* c, int n,
                            int m) override {
    return impl().launch(s, two_norm_kernel, a, b, c, n, m);
  }
  KernelRun two_norm_partials(const LaunchShape& s, const float* a, const float* b,
                              double* partials, long long count) override {
    return impl().launch(s, ::gpulab::GPULAB_BACKEND_NS::two_norm_partials, a, b, partials, count);
  }
  KernelRun two_norm_finish(const LaunchShape& s, const double* partials, int count,
                            double* result) override {
    return impl().launch(s, ::gpulab::GPULAB_BACKEND_NS::two_norm_finish, partials, count, result);
  }
  KernelRun two_norm_ladder(LadderStep step, const LaunchShape& s, const float* a, const float* b,
                            double* partials, long long count) override {
    switch (step) {
      case LadderStep::interleaved:
        return impl().launch(s, ladder_interleaved, a, b, partials, count);
      case LadderStep::sequential:
        return impl().launch(s, ladder_sequential, a, b, partials, count);
      case LadderStep::first_add:
        return impl().launch(s, ladder_first_add, a, b, partials, count);
      case LadderStep::warp_shuffle:
        break;
    }
    return impl().launch(s, ladder_warp_shuffle, a, b, partials, count);
  }
  KernelRun write_indices(const LaunchShape& s, unsigned* records) override {
    return impl().launch(s, ::gpulab::GPULAB_BACKEND_NS::write_indices, records);
  }
  KernelRun latency_probe(const LaunchShape& s, const LatencyProbeArgs& p) override {
    return impl().launch(s, ::gpulab::GPULAB_BACKEND_NS::latency_probe, p.next, p.starts, p.steps,
                         p.ops, p.ends, p.clocks, p.sms);
  }

 private:
  Impl& impl() { return static_cast<Impl&>(*this); }
};
