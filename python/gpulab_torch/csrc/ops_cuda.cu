// The CUDA implementations of gpulab's PyTorch operators: every input checked, then gpulab's own
// kernel headers (src/kernels, the ones the CLI runs) launched on PyTorch's current stream.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>
#include <string>

#include <algorithm>
#include <cstdint>
#include <limits>

// Outside the namespace: the CUDA headers it includes must not land in it.
#include "kernels/prelude.cuh"

// The kernel headers declare no namespace; each user includes them inside its own.
namespace gpulab_torch {
#include "kernels/add2.cuh"
#include "kernels/linear_gelu.cuh"
#include "kernels/relu_scale.cuh"
#include "kernels/twonorm_reduce.cuh"
}  // namespace gpulab_torch

namespace {

namespace k = gpulab_torch;

constexpr int kBlock = 256;

// A kernel gets raw pointers, so everything a pointer cannot say is checked here: a host tensor
// would be an illegal address on the GPU, another dtype would be reinterpreted as float, a
// strided view would be read in the wrong order.
// "[4, 3]": sizes and strides spelled out by hand, and numbers through std::to_string: streaming an
// IntArrayRef or an int64_t into c10::str from nvcc-compiled code crashed inside the error path on
// the H100 machine (PyTorch 2.11, CUDA 13); strings and devices streamed fine.
std::string dims_of(at::IntArrayRef a) {
  std::string s = "[";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(a[i]);
  }
  return s + "]";
}

void check_input(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.is_cuda(), "gpulab::", op, ": ", name, " is on ", t.device(),
              "; the kernel reads GPU memory through a raw pointer: pass ", name, ".cuda()");
  TORCH_CHECK(t.scalar_type() == at::kFloat, "gpulab::", op, ": ", name, " has dtype ",
              t.scalar_type(), "; the kernel reads float32: pass ", name, ".float()");
  TORCH_CHECK(t.is_contiguous(), "gpulab::", op, ": ", name, " is not contiguous (sizes ",
              dims_of(t.sizes()), ", strides ", dims_of(t.strides()),
              "); the kernel reads element i at data_ptr[i]: pass ", name, ".contiguous()");
}

void check_same_device(const char* op, const char* name, const at::Tensor& t,
                       const char* first_name, const at::Tensor& first) {
  TORCH_CHECK(t.device() == first.device(), "gpulab::", op, ": ", name, " is on ", t.device(),
              " and ", first_name, " on ", first.device(), "; one kernel runs on one GPU");
}

// Two inputs that the kernel pairs element by element: both valid, on one GPU, of equal sizes.
void check_pair(const char* op, const char* first_name, const at::Tensor& first,
                const char* second_name, const at::Tensor& second) {
  check_input(op, first_name, first);
  check_input(op, second_name, second);
  check_same_device(op, second_name, second, first_name, first);
  TORCH_CHECK(first.sizes() == second.sizes(), "gpulab::", op, ": ", first_name, " has sizes ",
              dims_of(first.sizes()), " and ", second_name, " ", dims_of(second.sizes()),
              "; they must be equal (no broadcasting: the kernel pairs element i of one with "
              "element i of the other)");
}

// Enough blocks of kBlock threads to cover `work` items, at most `per_sm` per SM: beyond that
// the kernels' grid-stride loops hand each thread several items.
unsigned grid_for(std::int64_t work, int per_sm) {
  const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  const std::int64_t covering = std::max<std::int64_t>(1, (work + kBlock - 1) / kBlock);
  return static_cast<unsigned>(std::min<std::int64_t>(covering, std::int64_t{sms} * per_sm));
}

at::Tensor add2(const at::Tensor& a, const at::Tensor& b) {
  check_pair("add2", "a", a, "b", b);
  const c10::cuda::CUDAGuard guard(a.device());
  at::Tensor c = at::empty_like(a);
  const std::int64_t n = a.numel();
  if (n == 0) return c;  // a grid of 0 blocks is an invalid launch
  k::add2_kernel<<<grid_for(n, 32), kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
      c.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return c;
}

at::Tensor relu_scale(const at::Tensor& x, double alpha) {
  check_input("relu_scale", "x", x);
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  const std::int64_t n = x.numel();
  if (n == 0) return y;
  // Each thread moves 4 floats per step (float4); 8 blocks of 256 fill an SM's 2048 threads.
  k::relu_scale_forward<<<grid_for((n + 3) / 4, 8), kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), y.data_ptr<float>(), n, static_cast<float>(alpha));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}

at::Tensor relu_scale_backward(const at::Tensor& grad_y, const at::Tensor& x, double alpha) {
  check_pair("relu_scale_backward", "grad_y", grad_y, "x", x);
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor grad_x = at::empty_like(x);
  const std::int64_t n = x.numel();
  if (n == 0) return grad_x;
  k::relu_scale_backward<<<grid_for((n + 3) / 4, 8), kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
      grad_y.data_ptr<float>(), x.data_ptr<float>(), grad_x.data_ptr<float>(), n,
      static_cast<float>(alpha));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return grad_x;
}

at::Tensor two_norm(const at::Tensor& a, const at::Tensor& b) {
  check_pair("two_norm", "a", a, "b", b);
  const c10::cuda::CUDAGuard guard(a.device());
  const std::int64_t n = a.numel();
  // As gpulab twonorm --kernel reduce on a GPU: 8 blocks per SM, each thread loading float4s;
  // an empty input still gets one block, whose partial is 0, so the result is 0.
  const unsigned blocks = grid_for((n + 3) / 4, 8);
  at::Tensor partials = at::empty({blocks}, a.options().dtype(at::kDouble));
  at::Tensor result = at::empty({}, a.options().dtype(at::kDouble));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  k::two_norm_partials<<<blocks, TWO_NORM_BLOCK, 0, stream>>>(
      a.data_ptr<float>(), b.data_ptr<float>(), partials.data_ptr<double>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  k::two_norm_finish<<<1, TWO_NORM_BLOCK, 0, stream>>>(
      partials.data_ptr<double>(), static_cast<int>(blocks), result.data_ptr<double>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return result;
}

at::Tensor linear_gelu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  check_input("linear_gelu", "x", x);
  check_input("linear_gelu", "weight", weight);
  check_input("linear_gelu", "bias", bias);
  check_same_device("linear_gelu", "weight", weight, "x", x);
  check_same_device("linear_gelu", "bias", bias, "x", x);
  TORCH_CHECK(x.dim() == 2, "gpulab::linear_gelu: x has ", std::to_string(x.dim()),
              " dimensions; it must be (rows, in_features)");
  TORCH_CHECK(weight.dim() == 2 && weight.size(1) == x.size(1),
              "gpulab::linear_gelu: weight has sizes ", dims_of(weight.sizes()),
              "; it must be (out_features, in_features = ", std::to_string(x.size(1)),
              "), nn.Linear's layout");
  TORCH_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0),
              "gpulab::linear_gelu: bias has sizes ", dims_of(bias.sizes()),
              "; it must be (out_features = ", std::to_string(weight.size(0)), ")");
  // The notes' kernel indexes with int: every index it forms must fit.
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  TORCH_CHECK(
      x.numel() <= kIntMax && weight.numel() <= kIntMax && x.size(0) * weight.size(0) <= kIntMax,
      "gpulab::linear_gelu: x ", dims_of(x.sizes()), " and weight ", dims_of(weight.sizes()),
      " need indices above 2^31 - 1; the notes' kernel computes them in int");
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor out = at::empty({x.size(0), weight.size(0)}, x.options());
  const std::int64_t outputs = out.numel();
  if (outputs == 0) return out;
  // One thread per output, as in the notes.
  const auto blocks = static_cast<unsigned>((outputs + kBlock - 1) / kBlock);
  k::fused_linear_gelu<<<blocks, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(),
      static_cast<int>(x.size(0)), static_cast<int>(x.size(1)), static_cast<int>(weight.size(0)));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(gpulab, CUDA, m) {
  m.impl("add2", &add2);
  m.impl("relu_scale", &relu_scale);
  m.impl("relu_scale_backward", &relu_scale_backward);
  m.impl("two_norm", &two_norm);
  m.impl("linear_gelu", &linear_gelu);
}

// Host tensors reach the same functions, whose first check says what to do; otherwise the
// dispatcher's own message ("Could not run 'gpulab::add2' with arguments from the 'CPU' backend")
// would be all a student sees.
TORCH_LIBRARY_IMPL(gpulab, CPU, m) {
  m.impl("add2", &add2);
  m.impl("relu_scale", &relu_scale);
  m.impl("relu_scale_backward", &relu_scale_backward);
  m.impl("two_norm", &two_norm);
  m.impl("linear_gelu", &linear_gelu);
}
