#!/usr/bin/env python3
"""Times gpulab_torch's operators against PyTorch's own, the right way, and prints what it found.

Usage (repository root, on a GPU machine): python bench/torch_ops.py [--reps R] [--quick] [--json FILE]
Method: every function is checked against a float64 reference first; then called 10 times to warm
up (lazy module loading, cuBLAS set-up, torch.compile's compilation, clocks ramping up); then R
repetitions, each of 10 back-to-back calls between two CUDA events recorded on the current
stream; the figure is the median time per call. Inputs of 2^26 floats and more are far larger
than the L2 cache (50 MiB on an H100), so those times are DRAM times.
"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import torch

# The source tree (a load() build), unless the pip-installed package is wanted.
if os.environ.get("GPULAB_TORCH_BUILD") != "installed":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python" / "gpulab_torch"))
import gpulab_torch  # noqa: E402

INNER = 10  # calls per timed repetition


def median_us(fn, reps):
    """Median microseconds per call of fn(), timed with CUDA events after a warm-up."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(INNER):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0 / INNER)
    return statistics.median(times)


def gbs(nbytes, us):
    return nbytes / (us * 1e-6) / 1e9


def bench_relu_scale(sizes, reps, rows):
    alpha = 1.5
    eager = lambda x: torch.relu(x) * alpha  # noqa: E731
    compiled = torch.compile(eager, dynamic=False)
    print("\nFused ReLU + scale, y = max(x, 0) * alpha (float32)")
    print("  gpulab reads x and writes y once (8 bytes per element); torch.relu(x) * alpha")
    print("  makes two passes (relu writes a temporary that * reads again: 16 bytes per element).")
    print(f"  {'elements':>11}  {'gpulab us':>10} {'GB/s':>6}  {'eager us':>10} {'GB/s':>6}  "
          f"{'compiled us':>11}  {'eager/gpulab':>12}  {'compiled/gpulab':>15}")
    for n in sizes:
        x = torch.randn(n, device="cuda")
        ref = torch.clamp(x.double(), min=0) * alpha
        for name, f in (("gpulab", gpulab_torch.relu_scale), ("compiled", compiled)):
            got = f(x, alpha) if name == "gpulab" else f(x)
            # One float rounding of the exact product either way: equal within an ulp.
            torch.testing.assert_close(got.double(), ref, rtol=2.0**-23, atol=0,
                                       msg=lambda m: f"{name} relu_scale is wrong: {m}")
        t_ours = median_us(lambda: gpulab_torch.relu_scale(x, alpha), reps)
        t_eager = median_us(lambda: eager(x), reps)
        t_comp = median_us(lambda: compiled(x), reps)
        print(f"  {n:>11,}  {t_ours:>10.2f} {gbs(8 * n, t_ours):>6.0f}  {t_eager:>10.2f} "
              f"{gbs(16 * n, t_eager):>6.0f}  {t_comp:>11.2f}  {t_eager / t_ours:>11.2f}x  "
              f"{t_comp / t_ours:>14.2f}x")
        rows.append({"bench": "relu_scale", "elements": n, "gpulab_us": t_ours,
                     "eager_us": t_eager, "compiled_us": t_comp,
                     "gpulab_gbs": gbs(8 * n, t_ours), "eager_gbs": gbs(16 * n, t_eager)})


def bench_linear_gelu(reps, rows):
    batch, inf, outf = 32, 768, 3072  # the notes' sizes
    torch.manual_seed(0)
    linear = torch.nn.Linear(inf, outf).cuda()
    gelu = torch.nn.GELU(approximate="tanh")  # the kernel's GELU; nn.GELU() is the erf form
    x = torch.randn(batch, inf, device="cuda")
    w, b = linear.weight.detach(), linear.bias.detach()
    with torch.no_grad():
        ref = torch.nn.functional.gelu(x.double() @ w.double().T + b.double(), approximate="tanh")
        ours = gpulab_torch.linear_gelu(x, w, b)
        native = gelu(linear(x))
        torch.testing.assert_close(ours.double(), ref, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(native.double(), ref, rtol=1e-4, atol=1e-4)
        t_ours = median_us(lambda: gpulab_torch.linear_gelu(x, w, b), reps)
        t_native = median_us(lambda: gelu(linear(x)), reps)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    print(f"\nThe notes' fused Linear + bias + GELU, batch {batch}, {inf} -> {outf} (FP32, TF32 "
          f"{'on' if tf32 else 'off'})")
    print(f"  gpulab linear_gelu (one thread per output, the notes' kernel)  {t_ours:9.2f} us")
    print(f"  nn.Linear (cuBLAS) + nn.GELU(approximate='tanh')               {t_native:9.2f} us")
    print(f"  the 'fused' kernel is {t_ours / t_native:.1f}x slower "
          f"({t_ours:.1f} / {t_native:.1f})")
    rows.append({"bench": "linear_gelu", "shape": [batch, inf, outf], "gpulab_us": t_ours,
                 "native_us": t_native, "slowdown": t_ours / t_native, "tf32": tf32})


def bench_two_norm(sizes, reps, rows):
    eager = lambda a, b: torch.linalg.vector_norm(a - b)  # noqa: E731
    compiled = torch.compile(eager, dynamic=False)
    print("\nTwo-norm distance ||a - b|| (float32 inputs)")
    print("  gpulab: one pass over a and b (grid-stride, float4, one partial per block) and a")
    print("  second launch adding the partials in float64; eager PyTorch writes a - b to a")
    print("  temporary and reads it again; torch.compile fuses the subtraction into the reduction.")
    print(f"  {'elements':>11}  {'gpulab us':>10} {'GB/s':>6}  {'eager us':>10}  "
          f"{'compiled us':>11}  {'eager/gpulab':>12}  {'compiled/gpulab':>15}  {'rel. error':>10}")
    for n in sizes:
        g = torch.Generator(device="cuda").manual_seed(2026)
        a = torch.rand(n, device="cuda", generator=g) * 2 - 1
        b = torch.rand(n, device="cuda", generator=g) * 2 - 1
        ref = torch.linalg.vector_norm(a.double() - b.double()).item()
        err = abs(gpulab_torch.two_norm(a, b).item() - ref) / ref
        assert err <= 1e-5, f"gpulab two_norm relative error {err}"
        assert abs(compiled(a, b).item() - ref) / ref <= 1e-4, "compiled norm is wrong"
        t_ours = median_us(lambda: gpulab_torch.two_norm(a, b), reps)
        t_eager = median_us(lambda: eager(a, b), reps)
        t_comp = median_us(lambda: compiled(a, b), reps)
        print(f"  {n:>11,}  {t_ours:>10.2f} {gbs(8 * n, t_ours):>6.0f}  {t_eager:>10.2f}  "
              f"{t_comp:>11.2f}  {t_eager / t_ours:>11.2f}x  {t_comp / t_ours:>14.2f}x  "
              f"{err:>10.1e}")
        rows.append({"bench": "two_norm", "elements": n, "gpulab_us": t_ours, "eager_us": t_eager,
                     "compiled_us": t_comp, "gpulab_gbs": gbs(8 * n, t_ours),
                     "relative_error": err})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30, help="timed repetitions (default 30)")
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke test)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/torch_ops.py: no CUDA GPU visible to PyTorch; it times GPU kernels")
    if args.reps < 1:
        sys.exit(f"bench/torch_ops.py: --reps {args.reps}: must be at least 1")
    sizes = [1 << 16, 1 << 20] if args.quick else [1 << 20, 1 << 24, 1 << 26, 1 << 28]
    dev = torch.cuda.get_device_name()
    print(f"gpulab_torch bench on {dev}, PyTorch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"library loaded as {gpulab_torch._library.how}")
    print(f"Each time: the median over {args.reps} repetitions of {INNER} calls between CUDA events,"
          " after 10 warm-up calls; results checked against float64 first.")
    rows = []
    bench_relu_scale(sizes, args.reps, rows)
    bench_linear_gelu(args.reps, rows)
    bench_two_norm(sizes, args.reps, rows)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": dev, "torch": torch.__version__,
                                               "reps": args.reps, "inner": INNER, "rows": rows},
                                              indent=2))


if __name__ == "__main__":
    main()
