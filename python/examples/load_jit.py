#!/usr/bin/env python3
"""The notes' load() way: build gpulab_torch's operators from the sources when Python runs, then use them.

Usage (repository root): python python/examples/load_jit.py
load() compiles python/gpulab_torch/csrc/*.cpp|*.cu with ninja, g++ and nvcc against gpulab's
kernel headers (src/kernels) and caches the build in TORCH_EXTENSIONS_DIR (default
~/.cache/torch_extensions): run it twice and the second run only loads the cached library.
"""
import sys
import time
from pathlib import Path

import torch
from torch.utils.cpp_extension import load

ROOT = Path(__file__).resolve().parents[2]
CSRC = ROOT / "python" / "gpulab_torch" / "csrc"

t0 = time.perf_counter()
# name is the extension's (library's) name, not an operator's. is_python_module=False: the
# library registers operators with TORCH_LIBRARY, found as torch.ops.gpulab.*, instead of
# exporting pybind11 functions.
load(name="gpulab_torch_jit", sources=[str(CSRC / "ops.cpp"), str(CSRC / "ops_cuda.cu")],
     extra_include_paths=[str(ROOT / "src")], extra_cflags=["-O2"], extra_cuda_cflags=["-O3"],
     is_python_module=False, verbose=False)
print(f"load(): {time.perf_counter() - t0:.1f} s (a cached build takes well under a second)")

if not torch.cuda.is_available():
    sys.exit("load_jit.py: built; calling the operators needs a CUDA GPU")

a = torch.rand(1000, device="cuda")
b = torch.rand(1000, device="cuda")
c = torch.ops.gpulab.add2(a, b)
err = (c.double() - (a.double() + b.double())).abs().max().item()
print(f"torch.ops.gpulab.add2: 1000 elements, largest difference from float64 {err:.2e}")
y = torch.ops.gpulab.relu_scale(a - 0.5, 1.5)
ok = torch.equal(y, torch.relu(a - 0.5) * 1.5)
print(f"torch.ops.gpulab.relu_scale: equal to torch.relu(x) * 1.5: {ok}")
n = torch.ops.gpulab.two_norm(a, b).item()
ref = torch.linalg.vector_norm(a.double() - b.double()).item()
print(f"torch.ops.gpulab.two_norm: {n:.9f}, float64 {ref:.9f}")
sys.exit(0 if err <= 1e-6 and ok and abs(n - ref) <= 1e-5 * ref else 1)
