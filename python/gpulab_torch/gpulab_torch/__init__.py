"""gpulab's kernels as PyTorch operators: torch.ops.gpulab.add2, relu_scale, two_norm, linear_gelu."""
import torch  # noqa: F401  (the library needs libtorch loaded first)

from . import _library

_library.load_library()

from .ops import ReLUScale, add2, linear_gelu, relu_scale, two_norm  # noqa: E402

__all__ = ["ReLUScale", "add2", "linear_gelu", "relu_scale", "two_norm"]
