"""Builds gpulab_torch with CUDAExtension: pip install --no-build-isolation ./python/gpulab_torch."""
from pathlib import Path

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

HERE = Path(__file__).resolve().parent
# The kernels are gpulab's own headers (src/kernels/*.cuh), the very ones the CLI compiles: the
# package is built from a gpulab checkout and copies no kernel code.
KERNELS = HERE.parent.parent / "src"
if not (KERNELS / "kernels" / "relu_scale.cuh").exists():
    raise SystemExit(f"gpulab_torch: {KERNELS}/kernels not found; build from a gpulab checkout")

setup(
    name="gpulab_torch",
    version="0.1.0",
    description="gpulab's CUDA kernels as PyTorch operators",
    packages=["gpulab_torch"],
    ext_modules=[
        # CUDAExtension, not CppExtension: a .cu source needs nvcc, the CUDA include path and
        # the CUDA runtime (docs/errata.md, entry 53).
        CUDAExtension(
            "gpulab_torch._C",
            ["csrc/ops.cpp", "csrc/ops_cuda.cu"],
            include_dirs=[str(KERNELS)],
            extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O3"]},
        )
    ],
    # BuildExtension compiles with ninja when it is installed, in parallel and incrementally.
    cmdclass={"build_ext": BuildExtension},
    zip_safe=False,
)
