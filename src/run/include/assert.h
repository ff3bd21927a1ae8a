// gpulab run's <assert.h> (and so <cassert>): the C library's, except that assert() in a kernel
// fails as on a GPU. The failing thread, and each lane of its warp that fails it too, prints the
// GPU's message (file:line, function, block and thread, the expression) to stderr when the host
// next synchronises, the launch fails with cudaErrorAssert (sticky) and the process goes on. In
// host code assert() is the C library's.
// No include guard: like the C library's, this header may be included again with NDEBUG changed.
#include_next <assert.h>

#if !defined(NDEBUG) && defined(__cplusplus)
#undef assert
void gpulab_rt_assert_fail(const char* expression, const char* file, unsigned line,
                           const char* function);
#define assert(expr)          \
  (static_cast<bool>(expr)    \
       ? static_cast<void>(0) \
       : ::gpulab_rt_assert_fail(#expr, __FILE__, __LINE__, __extension__ __PRETTY_FUNCTION__))
#endif
