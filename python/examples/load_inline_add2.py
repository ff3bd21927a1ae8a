#!/usr/bin/env python3
"""The notes' load_inline() way, done right: add2 from strings, with cpp_sources declaring the function.

Usage (repository root): python python/examples/load_inline_add2.py
load_inline() writes cpp_sources to main.cpp and cuda_sources to cuda.cu in its build directory and
then works exactly like load(): ninja, g++ and nvcc, no NVRTC. functions=["add2"] makes it write
the pybind11 binding into main.cpp, so main.cpp must know add2: cpp_sources declares it (with an
empty cpp_sources, as in the notes, the build fails: 'add2' was not declared in this scope). The
kernel is gpulab's own src/kernels/add2.cuh, included, not pasted.
"""
import sys
from pathlib import Path

import torch
from torch.utils.cpp_extension import load_inline

ROOT = Path(__file__).resolve().parents[2]

cpp_sources = "torch::Tensor add2(torch::Tensor a, torch::Tensor b);"

cuda_sources = r"""
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include "kernels/add2.cuh"

torch::Tensor add2(torch::Tensor a, torch::Tensor b) {
  TORCH_CHECK(a.is_cuda() && b.is_cuda(), "add2: a and b must be CUDA tensors");
  TORCH_CHECK(a.device() == b.device(), "add2: a and b must be on the same GPU");
  TORCH_CHECK(a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat,
              "add2: a and b must be float32");
  TORCH_CHECK(a.is_contiguous() && b.is_contiguous(), "add2: a and b must be contiguous");
  TORCH_CHECK(a.sizes() == b.sizes(), "add2: a has sizes ", a.sizes(), " and b ", b.sizes());
  const c10::cuda::CUDAGuard guard(a.device());
  auto c = torch::empty_like(a);  // every element is written: no need for zeros_like
  const long long n = a.numel();
  if (n == 0) return c;
  const int threads = 1024;  // the notes' add2 launch: ceil(n / 1024) blocks of 1024
  const long long blocks = (n + threads - 1) / threads;
  add2_kernel<<<(unsigned)blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
      c.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return c;
}
"""

module = load_inline(name="gpulab_add2_inline", cpp_sources=cpp_sources,
                     cuda_sources=cuda_sources, functions=["add2"],
                     extra_include_paths=[str(ROOT / "src")], extra_cuda_cflags=["-O3"],
                     verbose=False)
print("load_inline(): built (or found in the cache) and imported", module.__name__)

if not torch.cuda.is_available():
    sys.exit("load_inline_add2.py: built; calling add2 needs a CUDA GPU")

worst = 0.0
for n in (1, 1000, 1024, 1025, (1 << 20) + 7):
    a = torch.rand(n, device="cuda")
    b = torch.rand(n, device="cuda")
    c = module.add2(a, b)  # positional: functions=[...] binds no argument names
    worst = max(worst, (c.double() - (a.double() + b.double())).abs().max().item())
print(f"add2 on 1 to 1,048,583 elements: largest difference from float64 {worst:.2e}")
try:
    module.add2(torch.ones(3), torch.ones(3))
    sys.exit("add2 accepted host tensors")
except RuntimeError as e:
    print("a host tensor is refused:", str(e).splitlines()[0])
sys.exit(0 if worst <= 1e-6 else 1)
