#!/usr/bin/env python3
"""Times gpulab's two-norm reduce kernel and torch.linalg.vector_norm(a - b) on the same GPU and size.

Usage: bench/twonorm_vs_torch.py [path to gpulab] [rows] [cols] [reps]
Both are timed the same way: one warm-up, then the median of `reps` runs timed with CUDA events.
PyTorch's version does two passes (a - b into a temporary, then the norm), gpulab's one.
"""
import json
import statistics
import subprocess
import sys

import torch


def torch_median_ms(rows, cols, reps):
    n = rows * cols
    gen = torch.Generator(device="cuda").manual_seed(2026)
    a = torch.rand(n, device="cuda", generator=gen) * 2 - 1
    b = torch.rand(n, device="cuda", generator=gen) * 2 - 1
    ref = torch.linalg.vector_norm(a.double() - b.double()).item()
    out = torch.linalg.vector_norm(a - b)  # warm-up
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = torch.linalg.vector_norm(a - b)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), abs(out.item() - ref) / ref


def main():
    gpulab = sys.argv[1] if len(sys.argv) > 1 else "build/default/bin/gpulab"
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    cols = int(sys.argv[3]) if len(sys.argv) > 3 else 16384
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    run = subprocess.run([gpulab, "twonorm", "--rows", str(rows), "--cols", str(cols), "--kernel", "reduce",
                          "--bench", "--reps", str(reps), "--backend", "gpu", "--json", "--seed", "2026"],
                         capture_output=True, text=True, check=True)
    g = json.loads(run.stdout)
    torch_ms, torch_err = torch_median_ms(rows, cols, reps)
    bytes_ = 2 * rows * cols * 4
    result = {
        "device": torch.cuda.get_device_name(),
        "elements": rows * cols,
        "gpulab_median_ms": g["bench"]["median_ms"],
        "gpulab_gbs": g["bench"]["gbs"],
        "gpulab_relative_error": g["relative_error"],
        "torch_median_ms": torch_ms,
        "torch_gbs": bytes_ / torch_ms / 1e6,
        "torch_relative_error": torch_err,
        "speedup_over_torch": torch_ms / g["bench"]["median_ms"],
        "torch_version": torch.__version__,
    }
    print(json.dumps(result, indent=2))
    print(f"gpulab {g['bench']['median_ms']:.4f} ms, torch {torch_ms:.4f} ms: "
          f"gpulab is {result['speedup_over_torch']:.2f}x faster")


if __name__ == "__main__":
    main()
