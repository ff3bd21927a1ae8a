"""Loads the compiled operators: the pip-installed extension, or a load() build from the sources."""
import os
from pathlib import Path

# python/gpulab_torch/gpulab_torch/_library.py -> the project root holds src/kernels.
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent
SOURCES = [PACKAGE_ROOT / "csrc" / "ops.cpp", PACKAGE_ROOT / "csrc" / "ops_cuda.cu"]
KERNELS = REPO_ROOT / "src"

# How the library was loaded: "installed" (import gpulab_torch._C) or "jit" (load()).
how = None


def load_jit(verbose=False):
    """Builds csrc/ with torch.utils.cpp_extension.load() and loads it as a plain library.

    The build is cached in TORCH_EXTENSIONS_DIR (default ~/.cache/torch_extensions): a second
    run with unchanged sources and flags only loads it. is_python_module=False: the library
    registers operators (TORCH_LIBRARY) instead of exporting Python functions.
    """
    from torch.utils.cpp_extension import load

    missing = [str(p) for p in SOURCES + [KERNELS / "kernels" / "relu_scale.cuh"] if not p.exists()]
    if missing:
        raise ImportError("gpulab_torch: load() needs the sources of a gpulab checkout; missing: "
                          + ", ".join(missing))
    load(name="gpulab_torch_jit", sources=[str(p) for p in SOURCES],
         extra_include_paths=[str(KERNELS)], extra_cflags=["-O2"], extra_cuda_cflags=["-O3"],
         is_python_module=False, verbose=verbose)


def load_library():
    """GPULAB_TORCH_BUILD=installed|jit|auto (default auto: the installed extension if present)."""
    global how
    mode = os.environ.get("GPULAB_TORCH_BUILD", "auto")
    if mode not in ("auto", "installed", "jit"):
        raise ImportError(f"GPULAB_TORCH_BUILD={mode}: must be auto, installed or jit")
    if mode != "jit":
        try:
            from . import _C  # noqa: F401  (loading it registers the operators)
            how = "installed"
            return
        except ImportError:
            if mode == "installed":
                raise
    load_jit(verbose=os.environ.get("GPULAB_TORCH_VERBOSE") == "1")
    how = "jit"
