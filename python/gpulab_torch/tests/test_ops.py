"""gpulab_torch's operators against float64 references, opcheck, gradcheck, torch.compile, bad inputs.

Run from the repository root: python -m pytest python/gpulab_torch/tests (or python -m unittest
discover -s python/gpulab_torch/tests). GPULAB_TORCH_BUILD=installed|jit picks the pip-installed
extension or a load() build from the sources. Without a GPU only the tests of the fake (meta)
implementations and of host tensors run.
"""
import math
import os
import sys
import unittest
from pathlib import Path

import torch

# The source tree, unless the pip-installed package is wanted (PYTHONPATH then points at it).
if os.environ.get("GPULAB_TORCH_BUILD") != "installed":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import gpulab_torch  # noqa: E402
from gpulab_torch import _library, add2, linear_gelu, relu_scale, two_norm  # noqa: E402

ops = torch.ops.gpulab
cuda = unittest.skipUnless(torch.cuda.is_available(), "needs a CUDA GPU")
# The seed of each run is fresh and printed, so that a failure can be replayed.
SEED = int(os.environ.get("GPULAB_TORCH_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"gpulab_torch tests: library loaded as {_library.how}, seed {SEED}", file=sys.stderr)

# Edge sizes around a block (256 threads, 1024 floats per float4 pass) and a large odd one.
SIZES = [0, 1, 3, 4, 5, 255, 256, 257, 1023, 1025, 4097, (1 << 20) + 3]


def gen():
    return torch.Generator(device="cuda").manual_seed(SEED)


def uniform(n, lo=-1.0, hi=1.0, g=None):
    return torch.rand(n, device="cuda", generator=g) * (hi - lo) + lo


@cuda
class TestResults(unittest.TestCase):
    def test_add2_matches_float64(self):
        g = gen()
        for n in SIZES:
            with self.subTest(n=n):
                a, b = uniform(n, -1e3, 1e3, g), uniform(n, -1e3, 1e3, g)
                c = add2(a, b)
                want = a.double() + b.double()
                # One float rounding of the exact sum: half an ulp.
                self.assertTrue(torch.all((c.double() - want).abs() <= want.abs() * 2.0**-24))

    def test_add2_keeps_the_shape(self):
        a = uniform(6 * 7, g=gen()).reshape(6, 7)
        b = torch.ones(6, 7, device="cuda")
        self.assertEqual(add2(a, b).shape, (6, 7))
        torch.testing.assert_close(add2(a, b), a + b, rtol=0, atol=0)

    def test_relu_scale_matches_float64(self):
        g = gen()
        for n in SIZES:
            for alpha in (1.5, -0.75, 0.0):
                with self.subTest(n=n, alpha=alpha):
                    x = uniform(n, -4, 4, g)
                    y = relu_scale(x, alpha)
                    want = torch.clamp(x.double(), min=0) * alpha
                    self.assertTrue(torch.all((y.double() - want).abs() <= want.abs() * 2.0**-24))

    def test_relu_scale_on_a_view_that_is_not_16_byte_aligned(self):
        x = uniform(1001, -4, 4, gen())[1:]  # contiguous, starts 4 bytes past the allocation
        self.assertNotEqual(x.data_ptr() % 16, 0)
        torch.testing.assert_close(relu_scale(x, 2.0), torch.relu(x) * 2.0, rtol=0, atol=0)

    def test_relu_scale_keeps_nan_as_torch_relu(self):
        x = torch.tensor([float("nan"), -1.0, 0.0, 2.0], device="cuda")
        y = relu_scale(x, 3.0)
        self.assertTrue(math.isnan(y[0].item()))
        self.assertEqual(y[1:].tolist(), [0.0, 0.0, 6.0])

    def test_two_norm_matches_float64(self):
        g = gen()
        for n in SIZES + [(1 << 24) + 1]:
            with self.subTest(n=n):
                a, b = uniform(n, g=g), uniform(n, g=g)
                got = two_norm(a, b)
                self.assertEqual(got.dtype, torch.float64)
                self.assertEqual(got.shape, ())
                want = torch.linalg.vector_norm(a.double() - b.double()).item()
                if n == 0:
                    self.assertEqual(got.item(), 0.0)
                else:
                    # gpulab twonorm --kernel reduce's tolerance: float partial sums per thread.
                    self.assertLessEqual(abs(got.item() - want) / want, 1e-5)

    def test_two_norm_of_matrices_and_unaligned_views(self):
        g = gen()
        a, b = uniform(301 * 77, g=g).reshape(301, 77), uniform(301 * 77, g=g).reshape(301, 77)
        want = torch.linalg.vector_norm(a.double() - b.double()).item()
        self.assertLessEqual(abs(two_norm(a, b).item() - want) / want, 1e-5)
        a1, b1 = uniform(5000, g=g)[3:], uniform(5000, g=g)[1:-2]  # the scalar path
        want = torch.linalg.vector_norm(a1.double() - b1.double()).item()
        self.assertLessEqual(abs(two_norm(a1, b1).item() - want) / want, 1e-5)

    def test_linear_gelu_matches_float64(self):
        g = gen()
        for rows, inf, outf in ((1, 1, 1), (3, 37, 70), (32, 768, 300), (0, 5, 4), (2, 0, 3)):
            with self.subTest(shape=(rows, inf, outf)):
                x = uniform(rows * inf, g=g).reshape(rows, inf)
                w = uniform(outf * inf, -0.1, 0.1, g).reshape(outf, inf)
                bias = uniform(outf, g=g)
                y = linear_gelu(x, w, bias)
                want = torch.nn.functional.gelu(x.double() @ w.double().T + bias.double(),
                                                approximate="tanh")
                self.assertEqual(y.shape, (rows, outf))
                torch.testing.assert_close(y.double(), want, rtol=1e-4, atol=1e-4)

    def test_launches_on_the_current_stream(self):
        # The side stream sleeps, then fills x: an op launched on another stream would not wait
        # for the fill and would read the old values.
        x = torch.zeros(1 << 20, device="cuda")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            torch.cuda._sleep(50_000_000)
            x.fill_(2.0)
            y = relu_scale(x, 1.5)
            n = two_norm(x, torch.zeros_like(x))
        s.synchronize()
        self.assertTrue(torch.all(y == 3.0))
        self.assertAlmostEqual(n.item(), 2.0 * 1024, places=6)


@cuda
class TestAutograd(unittest.TestCase):
    def test_gradcheck_relu_scale(self):
        # float32 (the kernel's type): finite differences with eps 1e-3 and loose tolerances.
        # Inputs stay 0.1 away from the kink at 0, where the derivative is undefined.
        x = uniform(64, 0.1, 2.0, gen()) * torch.where(torch.arange(64, device="cuda") % 2 == 0, 1, -1)
        x.requires_grad_(True)
        self.assertTrue(torch.autograd.gradcheck(lambda t: relu_scale(t, 1.5), (x,), eps=1e-3,
                                                 atol=1e-2, rtol=1e-2))

    def test_gradcheck_add2(self):
        g = gen()
        a = uniform(50, g=g).requires_grad_(True)
        b = uniform(50, g=g).requires_grad_(True)
        self.assertTrue(torch.autograd.gradcheck(add2, (a, b), eps=1e-3, atol=1e-2, rtol=1e-2))

    def test_backward_matches_float64(self):
        x = uniform(4097, -4, 4, gen()).requires_grad_(True)
        w = torch.linspace(-1, 1, 4097, device="cuda")
        (relu_scale(x, 0.5) * w).sum().backward()
        want = torch.where(x.detach() > 0, w.double() * 0.5, 0.0)
        torch.testing.assert_close(x.grad.double(), want, rtol=0, atol=0)

    def test_backward_of_sum_gets_an_expanded_gradient(self):
        # sum().backward() sends a stride-0 view of ones, which the kernel cannot read as is.
        x = uniform(1000, -4, 4, gen()).requires_grad_(True)
        relu_scale(x, 2.0).sum().backward()
        torch.testing.assert_close(x.grad, torch.where(x.detach() > 0, 2.0, 0.0), rtol=0, atol=0)

    def test_trains_inside_a_module(self):
        # The notes' MyModel (Linear, then fused ReLU + scale): gradients reach the Linear layer
        # and equal those of torch.relu(x) * alpha.
        torch.manual_seed(SEED)
        ours = torch.nn.Sequential(torch.nn.Linear(100, 100), gpulab_torch.ReLUScale(1.5)).cuda()
        ref = torch.nn.Sequential(torch.nn.Linear(100, 100)).cuda()
        ref.load_state_dict({"0.weight": ours[0].weight, "0.bias": ours[0].bias})
        x = torch.randn(32, 100, device="cuda")
        ours(x).square().mean().backward()
        (torch.relu(ref(x)) * 1.5).square().mean().backward()
        torch.testing.assert_close(ours[0].weight.grad, ref[0].weight.grad)
        torch.testing.assert_close(ours[0].bias.grad, ref[0].bias.grad)


@cuda
class TestRegistration(unittest.TestCase):
    def test_opcheck(self):
        g = gen()
        x, y = uniform(1000, g=g), uniform(1000, g=g)
        w = uniform(300 * 100, g=g).reshape(300, 100)
        cases = [
            (ops.add2.default, (x, y)),
            (ops.add2.default, (x.clone().requires_grad_(True), y.clone().requires_grad_(True))),
            (ops.relu_scale.default, (x, 1.5)),
            (ops.relu_scale.default, (x.clone().requires_grad_(True), -0.5)),
            (ops.relu_scale_backward.default, (y, x, 1.5)),
            (ops.two_norm.default, (x, y)),
            (ops.linear_gelu.default, (x.reshape(10, 100), w, uniform(300, g=g))),
            (ops.add2.default, (x[:0], y[:0])),
        ]
        for op, args in cases:
            with self.subTest(op=str(op)):
                torch.library.opcheck(op, args)

    def test_torch_compile_fullgraph(self):
        def f(a, b):
            return two_norm(relu_scale(a, 2.0), add2(b, b))

        g = gen()
        a, b = uniform(10000, g=g), uniform(10000, g=g)
        compiled = torch.compile(f, fullgraph=True)
        torch.testing.assert_close(compiled(a, b), f(a, b))


class TestFake(unittest.TestCase):
    """The fake (meta) implementations: shapes and dtypes without data, on any machine."""

    def test_meta_shapes(self):
        m = torch.empty(6, 7, device="meta")
        self.assertEqual(ops.add2(m, m).shape, (6, 7))
        self.assertEqual(ops.relu_scale(m, 1.5).shape, (6, 7))
        self.assertEqual(ops.relu_scale_backward(m, m, 1.5).shape, (6, 7))
        n = ops.two_norm(m, m)
        self.assertEqual((n.shape, n.dtype), ((), torch.float64))
        out = ops.linear_gelu(torch.empty(5, 3, device="meta"), torch.empty(4, 3, device="meta"),
                              torch.empty(4, device="meta"))
        self.assertEqual(out.shape, (5, 4))

    def test_opcheck_on_meta_tensors(self):
        # Schema, autograd registration, fake implementation and AOT dispatch, without data.
        m = torch.empty(40, device="meta")
        cases = [
            (ops.add2.default, (m, m)),
            (ops.relu_scale.default, (torch.empty(40, device="meta", requires_grad=True), 1.5)),
            (ops.relu_scale_backward.default, (m, m, 1.5)),
            (ops.two_norm.default, (m, m)),
            (ops.linear_gelu.default, (m.reshape(4, 10), torch.empty(3, 10, device="meta"),
                                       torch.empty(3, device="meta"))),
        ]
        for op, args in cases:
            with self.subTest(op=str(op)):
                torch.library.opcheck(op, args)

    def test_meta_rejects_what_the_kernel_would(self):
        m = torch.empty(6, 7, device="meta")
        with self.assertRaisesRegex(Exception, "they must be equal"):
            ops.add2(m, torch.empty(7, 6, device="meta"))
        with self.assertRaisesRegex(Exception, "the kernel reads float32"):
            ops.relu_scale(m.double(), 1.0)
        with self.assertRaisesRegex(Exception, "nn.Linear's layout"):
            ops.linear_gelu(torch.empty(5, 3, device="meta"), torch.empty(3, 4, device="meta"),
                            torch.empty(4, device="meta"))


class TestBadInputs(unittest.TestCase):
    """Every bad input gets one clear message naming the argument and what to do."""

    def test_host_tensors(self):
        x = torch.ones(10)
        for call in (lambda: add2(x, x), lambda: relu_scale(x, 1.0), lambda: two_norm(x, x),
                     lambda: ops.relu_scale_backward(x, x, 1.0),
                     lambda: linear_gelu(x.reshape(2, 5), x.reshape(2, 5), x[:2])):
            with self.assertRaisesRegex(RuntimeError, r"is on cpu; .*\.cuda\(\)"):
                call()

    @cuda
    def test_mixed_host_and_gpu(self):
        with self.assertRaisesRegex(RuntimeError, r"gpulab::add2: b is on cpu"):
            add2(torch.ones(10, device="cuda"), torch.ones(10))

    @cuda
    def test_dtype(self):
        x = torch.ones(10, device="cuda", dtype=torch.float64)
        with self.assertRaisesRegex(RuntimeError, r"gpulab::relu_scale: x has dtype Double; the kernel reads float32"):
            relu_scale(x, 1.0)
        with self.assertRaisesRegex(RuntimeError, r"gpulab::add2: b has dtype Int"):
            add2(x.float(), x.int())

    @cuda
    def test_not_contiguous(self):
        x = uniform(12, g=gen()).reshape(3, 4)
        with self.assertRaisesRegex(RuntimeError, r"x is not contiguous \(sizes \[4, 3\], strides \[1, 4\]\).*\.contiguous\(\)"):
            relu_scale(x.t(), 1.0)
        with self.assertRaisesRegex(RuntimeError, r"gpulab::two_norm: b is not contiguous"):
            two_norm(x[:, :2].contiguous(), x[:, :2])
        # The fix the message names works.
        torch.testing.assert_close(relu_scale(x.t().contiguous(), 1.0), torch.relu(x.t()))

    @cuda
    def test_sizes(self):
        a = torch.ones(1000, device="cuda")
        with self.assertRaisesRegex(RuntimeError, r"a has sizes \[1000\] and b \[999\]; they must be equal"):
            add2(a, a[:999])
        with self.assertRaisesRegex(RuntimeError, r"a has sizes \[10, 100\] and b \[100, 10\]"):
            two_norm(a.reshape(10, 100), a.reshape(100, 10))
        with self.assertRaisesRegex(RuntimeError, r"weight has sizes \[4, 5\]; it must be \(out_features, in_features = 3\)"):
            linear_gelu(torch.ones(2, 3, device="cuda"), torch.ones(4, 5, device="cuda"),
                        torch.ones(4, device="cuda"))

    @cuda
    def test_empty_tensors(self):
        e = torch.empty(0, device="cuda")
        self.assertEqual(add2(e, e).shape, (0,))
        self.assertEqual(relu_scale(e, 2.0).shape, (0,))
        self.assertEqual(two_norm(e, e).item(), 0.0)
        self.assertEqual(linear_gelu(torch.empty(0, 3, device="cuda"), torch.ones(4, 3, device="cuda"),
                                     torch.ones(4, device="cuda")).shape, (0, 4))
        e.requires_grad_(True)
        relu_scale(e, 2.0).sum().backward()
        self.assertEqual(e.grad.shape, (0,))


if __name__ == "__main__":
    unittest.main()
