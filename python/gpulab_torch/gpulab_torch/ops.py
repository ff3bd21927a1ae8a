"""The Python side of gpulab's operators: fake (meta) implementations, autograd, and wrappers."""
import torch

ops = torch.ops.gpulab


# Fake implementations: the output's shape, dtype and device without running anything. They let
# torch.compile trace through the operators and opcheck test them on FakeTensors. They check
# what can be checked without data, so a traced call fails as early as a real one.
def _check_float(op, name, t):
    torch._check(t.dtype == torch.float32,
                 lambda: f"gpulab::{op}: {name} has dtype {t.dtype}; the kernel reads float32")


def _check_pair(op, a, b, names=("a", "b")):
    """Two inputs the kernel pairs element by element: both float32, of equal shape."""
    _check_float(op, names[0], a)
    _check_float(op, names[1], b)
    torch._check(a.shape == b.shape,
                 lambda: f"gpulab::{op}: {names[0]} has sizes {list(a.shape)} and {names[1]} "
                         f"{list(b.shape)}; they must be equal")


@torch.library.register_fake("gpulab::add2")
def _add2_fake(a, b):
    _check_pair("add2", a, b)
    return torch.empty_like(a)


@torch.library.register_fake("gpulab::relu_scale")
def _relu_scale_fake(x, alpha):
    _check_float("relu_scale", "x", x)
    return torch.empty_like(x)


@torch.library.register_fake("gpulab::relu_scale_backward")
def _relu_scale_backward_fake(grad_y, x, alpha):
    _check_pair("relu_scale_backward", grad_y, x, ("grad_y", "x"))
    return torch.empty_like(x)


@torch.library.register_fake("gpulab::two_norm")
def _two_norm_fake(a, b):
    _check_pair("two_norm", a, b)
    return a.new_empty((), dtype=torch.float64)


@torch.library.register_fake("gpulab::linear_gelu")
def _linear_gelu_fake(x, weight, bias):
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        _check_float("linear_gelu", name, t)
    torch._check(x.dim() == 2 and weight.dim() == 2 and bias.dim() == 1,
                 lambda: "gpulab::linear_gelu: x (rows, in), weight (out, in), bias (out)")
    torch._check(weight.shape[1] == x.shape[1] and bias.shape[0] == weight.shape[0],
                 lambda: f"gpulab::linear_gelu: x {list(x.shape)}, weight {list(weight.shape)}, "
                         f"bias {list(bias.shape)} do not fit (nn.Linear's layout)")
    return x.new_empty((x.shape[0], weight.shape[0]))


# Autograd. relu_scale saves its input: the gradient is grad_y * alpha where x > 0. A gradient
# that arrives as an expanded view (sum().backward() sends a stride-0 tensor of ones) is made
# contiguous first, because the kernel reads element i at data_ptr[i].
def _relu_scale_setup(ctx, inputs, output):
    x, alpha = inputs
    ctx.save_for_backward(x)
    ctx.alpha = alpha


def _relu_scale_backward(ctx, grad_y):
    (x,) = ctx.saved_tensors
    grad_x = None
    if ctx.needs_input_grad[0]:
        grad_x = ops.relu_scale_backward(grad_y.contiguous(), x, ctx.alpha)
    return grad_x, None


torch.library.register_autograd("gpulab::relu_scale", _relu_scale_backward,
                                setup_context=_relu_scale_setup)


# add2 is linear: each input's gradient is the output's gradient itself.
def _add2_backward(ctx, grad_c):
    return grad_c, grad_c


torch.library.register_autograd("gpulab::add2", _add2_backward)


def add2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """c = a + b for float32 CUDA tensors of equal shape (the notes' add2, grid-stride loop)."""
    return ops.add2(a, b)


def relu_scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    """max(x, 0) * alpha in one pass (the notes' fused ReLU + scale); differentiable."""
    return ops.relu_scale(x, float(alpha))


def two_norm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """||a - b|| over all elements, a 0-dim float64 tensor (gpulab twonorm --kernel reduce)."""
    return ops.two_norm(a, b)


def linear_gelu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The notes' naive fused gelu_tanh(x @ weight.T + bias): slow on purpose (bench/torch_ops.py)."""
    return ops.linear_gelu(x, weight, bias)


class ReLUScale(torch.nn.Module):
    """The notes' fused ReLU + scale as a module, usable inside a model and trainable."""

    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = float(alpha)

    def forward(self, x):
        return relu_scale(x, self.alpha)
