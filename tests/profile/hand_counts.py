#!/usr/bin/env python3
"""The profile corpus's memory counts worked out from the source, independently of gpulab.

Each kernel below is its .cu file's kernel written again as the accesses each thread makes, in
source order: (site, space, op, byte address, width). The counting rules are Nsight Compute's, as
docs/profile.md states them, written here a second time:
  - a request is one warp-level instruction (one site, the k-th time each lane reaches it since
    the last __syncthreads(), which every lane passes together: BAR below) with an active lane; its sectors are the distinct 32-byte sectors the lanes' bytes touch;
  - shared memory: 32 banks of 4 bytes; the whole warp (up to 4 bytes), each half-warp (8 bytes)
    or each quarter-warp (16 bytes) costs as many wavefronts as the most distinct words any one
    bank must deliver; bank conflicts = wavefronts - (parts with an active lane).
Atomics are neither loads nor stores. Writes tests/profile/hand_counts.csv (program,metric,value).

    python3 tests/profile/hand_counts.py          (from the repository root)
"""
import csv
import os
from collections import defaultdict

G, S = "global", "shared"
BAR = ("__syncthreads", None, None, 0, 0)  # yielded where the kernel calls __syncthreads()
LD, ST = "ld", "st"
ALIGN = 256  # cudaMalloc's alignment: every array starts on its own sector


class Launch:
    def __init__(self, grid, block):
        self.grid = grid if isinstance(grid, tuple) else (grid, 1, 1)
        self.block = block if isinstance(block, tuple) else (block, 1, 1)

    def threads(self):
        bx, by, bz = self.block
        for gz in range(self.grid[2]):
            for gy in range(self.grid[1]):
                for gx in range(self.grid[0]):
                    block = []
                    for tz in range(bz):
                        for ty in range(by):
                            for tx in range(bx):
                                block.append(((gx, gy, gz), (tx, ty, tz)))
                    yield block


def count(launch, kernel, bases):
    """kernel(ctx, b, t) yields (site, space, op, address, width) for one thread."""
    totals = defaultdict(int)
    for block in launch.threads():
        per_warp = defaultdict(lambda: defaultdict(dict))  # warp -> (site, epoch, k) -> lane -> access
        for linear, (b, t) in enumerate(block):
            warp, lane = divmod(linear, 32)
            seen = defaultdict(int)
            epoch = 0
            for site, space, op, addr, width in kernel(bases, b, t, launch.block):
                if space is None:  # a barrier
                    epoch += 1
                    seen.clear()
                    continue
                k = seen[site]
                seen[site] += 1
                per_warp[warp][(site, epoch, k)][lane] = (space, op, addr, width)
        for warp, groups in per_warp.items():
            for (site, epoch, k), lanes in groups.items():
                space, op, _, width = next(iter(lanes.values()))
                if space == G:
                    sectors = set()
                    for (_, _, a, w) in lanes.values():
                        sectors.update(range(a // 32, (a + w - 1) // 32 + 1))
                    totals[f"global_{op}_requests"] += 1
                    totals[f"global_{op}_sectors"] += len(sectors)
                else:
                    part = 32 if width <= 4 else 16 if width == 8 else 8
                    wavefronts = parts = 0
                    for first in range(0, 32, part):
                        words = set()
                        for lane in range(first, first + part):
                            if lane in lanes:
                                a, w = lanes[lane][2], lanes[lane][3]
                                words.update(range(a // 4, a // 4 + max(w, 4) // 4))
                        if not words:
                            continue
                        per_bank = defaultdict(int)
                        for word in words:
                            per_bank[word % 32] += 1
                        wavefronts += max(per_bank.values())
                        parts += 1
                    totals[f"shared_{op}_requests"] += 1
                    totals[f"shared_{op}_wavefronts"] += wavefronts
                    totals[f"shared_{op}_conflicts"] += wavefronts - parts
    return totals


# Kernels: b = blockIdx, t = threadIdx, d = blockDim; bases: array name -> byte address.
def reduce_interleaved(m, b, t, d):
    tid = t[0]
    yield "in", G, LD, m["in"] + 4 * (b[0] * d[0] + tid), 4
    yield "s=", S, ST, 4 * tid, 4
    yield BAR
    stride = 1
    while stride < d[0]:
        if tid % (2 * stride) == 0:
            yield "s[tid]", S, LD, 4 * tid, 4
            yield "s[tid+stride]", S, LD, 4 * (tid + stride), 4
            yield "s[tid]=", S, ST, 4 * tid, 4
        yield BAR
        stride *= 2
    if tid == 0:
        yield "s[0]", S, LD, 0, 4
        yield "out", G, ST, m["out"] + 4 * b[0], 4


def reduce_strided_index(m, b, t, d):
    tid = t[0]
    yield "in", G, LD, m["in"] + 4 * (b[0] * d[0] + tid), 4
    yield "s=", S, ST, 4 * tid, 4
    yield BAR
    stride = 1
    while stride < d[0]:
        index = 2 * stride * tid
        if index < d[0]:
            yield "s[index]", S, LD, 4 * index, 4
            yield "s[index+stride]", S, LD, 4 * (index + stride), 4
            yield "s[index]=", S, ST, 4 * index, 4
        yield BAR
        stride *= 2
    if tid == 0:
        yield "s[0]", S, LD, 0, 4
        yield "out", G, ST, m["out"] + 4 * b[0], 4


def reduce_sequential(m, b, t, d):
    tid = t[0]
    yield "in", G, LD, m["in"] + 4 * (b[0] * d[0] + tid), 4
    yield "s=", S, ST, 4 * tid, 4
    yield BAR
    stride = d[0] // 2
    while stride > 0:
        if tid < stride:
            yield "s[tid]", S, LD, 4 * tid, 4
            yield "s[tid+stride]", S, LD, 4 * (tid + stride), 4
            yield "s[tid]=", S, ST, 4 * tid, 4
        yield BAR
        stride //= 2
    if tid == 0:
        yield "s[0]", S, LD, 0, 4
        yield "out", G, ST, m["out"] + 4 * b[0], 4


def reduce_shuffle(m, b, t, d):
    tid = t[0]
    yield "in", G, LD, m["in"] + 4 * (b[0] * d[0] + tid), 4
    if tid % 32 == 0:
        yield "partial=", S, ST, 4 * (tid // 32), 4
    yield BAR
    if tid < 32 and tid < d[0] // 32:
        yield "partial", S, LD, 4 * tid, 4
    if tid == 0:
        yield "out", G, ST, m["out"] + 4 * b[0], 4


def matmul_naive(m, b, t, d):
    n = 64
    row, col = b[1] * 16 + t[1], b[0] * 16 + t[0]
    for k in range(n):
        yield "a", G, LD, m["a"] + 4 * (row * n + k), 4
        yield "b", G, LD, m["b"] + 4 * (k * n + col), 4
    yield "c", G, ST, m["c"] + 4 * (row * n + col), 4


def matmul_tiled(m, b, t, d):
    n, tile = 64, 16
    tx, ty = t[0], t[1]
    row, col = b[1] * tile + ty, b[0] * tile + tx
    as_, bs = 0, tile * tile * 4
    for tt in range(n // tile):
        yield "a", G, LD, m["a"] + 4 * (row * n + tt * tile + tx), 4
        yield "as=", S, ST, as_ + 4 * (ty * tile + tx), 4
        yield "b", G, LD, m["b"] + 4 * ((tt * tile + ty) * n + col), 4
        yield "bs=", S, ST, bs + 4 * (ty * tile + tx), 4
        yield BAR
        for k in range(tile):
            yield "as", S, LD, as_ + 4 * (ty * tile + k), 4
            yield "bs", S, LD, bs + 4 * (k * tile + tx), 4
        yield BAR
    yield "c", G, ST, m["c"] + 4 * (row * n + col), 4


def histogram_shared(m, b, t, d):
    yield "local=", S, ST, 4 * t[0], 4
    yield BAR
    yield "data", G, LD, m["data"] + b[0] * d[0] + t[0], 1
    # atomicAdd(&local[...]) and atomicAdd(&bins[...]): atomics, not counted
    yield BAR
    yield "local", S, LD, 4 * t[0], 4


def stencil_halo(m, b, t, d):
    radius, block = 3, 256
    g = b[0] * d[0] + t[0]
    l = t[0] + radius
    yield "in[g+R]", G, LD, m["in"] + 4 * (g + radius), 4
    yield "temp[l]=", S, ST, 4 * l, 4
    if t[0] < radius:
        yield "in[g]", G, LD, m["in"] + 4 * g, 4
        yield "temp[l-R]=", S, ST, 4 * (l - radius), 4
        yield "in[g+R+B]", G, LD, m["in"] + 4 * (g + radius + block), 4
        yield "temp[l+B]=", S, ST, 4 * (l + block), 4
    yield BAR
    for o in range(-radius, radius + 1):
        yield "temp[l+o]", S, LD, 4 * (l + o), 4
    yield "out", G, ST, m["out"] + 4 * g, 4


def scan_hillis_steele(m, b, t, d):
    block = 256
    tid = t[0]
    g = b[0] * block + tid
    pout, pin = 0, 1
    yield "in", G, LD, m["in"] + 4 * g, 4
    yield "temp=", S, ST, 4 * tid, 4
    yield BAR
    offset = 1
    while offset < block:
        pout = 1 - pout
        pin = 1 - pout
        if tid >= offset:
            yield "then temp[pin]", S, LD, 4 * (pin * block + tid), 4
            yield "then temp[pin-offset]", S, LD, 4 * (pin * block + tid - offset), 4
            yield "then temp[pout]=", S, ST, 4 * (pout * block + tid), 4
        else:
            yield "else temp[pin]", S, LD, 4 * (pin * block + tid), 4
            yield "else temp[pout]=", S, ST, 4 * (pout * block + tid), 4
        yield BAR
        offset *= 2
    yield "temp[pout]", S, LD, 4 * (pout * block + tid), 4
    yield "out", G, ST, m["out"] + 4 * g, 4


def scan_blelloch(m, b, t, d):
    block = 256
    tid = t[0]
    base = b[0] * block
    yield "in0", G, LD, m["in"] + 4 * (base + 2 * tid), 4
    yield "temp0=", S, ST, 4 * (2 * tid), 4
    yield "in1", G, LD, m["in"] + 4 * (base + 2 * tid + 1), 4
    yield "temp1=", S, ST, 4 * (2 * tid + 1), 4
    offset = 1
    dd = block // 2
    while dd > 0:
        yield BAR
        if tid < dd:
            ai, bi = offset * (2 * tid + 1) - 1, offset * (2 * tid + 2) - 1
            yield "up temp[bi]", S, LD, 4 * bi, 4
            yield "up temp[ai]", S, LD, 4 * ai, 4
            yield "up temp[bi]=", S, ST, 4 * bi, 4
        offset *= 2
        dd //= 2
    if tid == 0:
        yield "clear", S, ST, 4 * (block - 1), 4
    dd = 1
    while dd < block:
        offset //= 2
        yield BAR
        if tid < dd:
            ai, bi = offset * (2 * tid + 1) - 1, offset * (2 * tid + 2) - 1
            yield "down temp[ai]", S, LD, 4 * ai, 4
            yield "down temp[bi]", S, LD, 4 * bi, 4
            yield "down temp[ai]=", S, ST, 4 * ai, 4
            yield "down temp[bi]=", S, ST, 4 * bi, 4
        dd *= 2
    yield BAR
    yield "temp0", S, LD, 4 * (2 * tid), 4
    yield "out0", G, ST, m["out"] + 4 * (base + 2 * tid), 4
    yield "temp1", S, LD, 4 * (2 * tid + 1), 4
    yield "out1", G, ST, m["out"] + 4 * (base + 2 * tid + 1), 4


def strided_store(m, b, t, d):
    i = b[0] * d[0] + t[0]
    yield "in", G, LD, m["in"] + 4 * i, 4
    yield "out", G, ST, m["out"] + 4 * ((i % 256) * 32 + i // 256), 4


def char_copy(m, b, t, d):
    i = b[0] * d[0] + t[0]
    yield "in", G, LD, m["in"] + i, 1
    yield "out", G, ST, m["out"] + i, 1


def double_copy(m, b, t, d):
    i = b[0] * d[0] + t[0]
    yield "in", G, LD, m["in"] + 8 * i, 8
    yield "out", G, ST, m["out"] + 8 * i, 8


def aos_struct(m, b, t, d):
    i = b[0] * d[0] + t[0]
    yield "p.x", G, LD, m["p"] + 12 * i, 4
    yield "out", G, ST, m["out"] + 4 * i, 4


def partial_2d(m, b, t, d):
    w, h = 40, 48
    x, y = b[0] * d[0] + t[0], b[1] * d[1] + t[1]
    if x < w and y < h:
        yield "in", G, LD, m["in"] + 4 * (y * w + x), 4
        yield "out", G, ST, m["out"] + 4 * (y * w + x), 4


def loop_divergent(m, b, t, d):
    i = b[0] * d[0] + t[0]
    n = 8192
    for k in range(t[0] % 4 + 1):
        yield "in", G, LD, m["in"] + 4 * (k * n + i), 4
    yield "out", G, ST, m["out"] + 4 * i, 4


def shared_stride(stride, count):
    def kernel(m, b, t, d):
        i = b[0] * d[0] + t[0]
        yield "in", G, LD, m["in"] + 4 * i, 4
        for k in range(count):
            yield f"s{k}=", S, ST, 4 * (t[0] + 256 * k), 4
        yield BAR
        yield "s", S, LD, 4 * (stride * t[0]), 4
        yield "out", G, ST, m["out"] + 4 * i, 4
    return kernel


def shared_double_conflict(m, b, t, d):
    i = b[0] * d[0] + t[0]
    yield "in", G, LD, m["in"] + 8 * i, 8
    yield "s0=", S, ST, 8 * t[0], 8
    yield "s1=", S, ST, 8 * (t[0] + 256), 8
    yield BAR
    yield "s", S, LD, 8 * (2 * t[0]), 8
    yield "out", G, ST, m["out"] + 8 * i, 8


def transpose_coalesced(m, b, t, d):
    n, tile, rows = 64, 32, 8
    x, y = b[0] * tile + t[0], b[1] * tile + t[1]
    for j in range(0, tile, rows):
        yield "in", G, LD, m["in"] + 4 * ((y + j) * n + x), 4
        yield "tile=", S, ST, 4 * ((t[1] + j) * (tile + 1) + t[0]), 4
    yield BAR
    x, y = b[1] * tile + t[0], b[0] * tile + t[1]
    for j in range(0, tile, rows):
        yield "tile", S, LD, 4 * (t[0] * (tile + 1) + t[1] + j), 4
        yield "out", G, ST, m["out"] + 4 * ((y + j) * n + x), 4


def bases(*names):
    return {name: ALIGN * 1024 * (i + 1) for i, name in enumerate(names)}


PROGRAMS = {
    "reduce_interleaved": (Launch(32, 256), reduce_interleaved, bases("in", "out")),
    "reduce_strided_index": (Launch(32, 256), reduce_strided_index, bases("in", "out")),
    "reduce_sequential": (Launch(32, 256), reduce_sequential, bases("in", "out")),
    "reduce_shuffle": (Launch(32, 256), reduce_shuffle, bases("in", "out")),
    "matmul_naive": (Launch((4, 4, 1), (16, 16, 1)), matmul_naive, bases("a", "b", "c")),
    "matmul_tiled": (Launch((4, 4, 1), (16, 16, 1)), matmul_tiled, bases("a", "b", "c")),
    "histogram_shared": (Launch(32, 256), histogram_shared, bases("data", "bins")),
    "stencil_halo": (Launch(32, 256), stencil_halo, bases("in", "out")),
    "scan_hillis_steele": (Launch(32, 256), scan_hillis_steele, bases("in", "out")),
    "scan_blelloch": (Launch(32, 128), scan_blelloch, bases("in", "out")),
    "strided_store": (Launch(32, 256), strided_store, bases("in", "out")),
    "char_copy": (Launch(32, 256), char_copy, bases("in", "out")),
    "double_copy": (Launch(32, 256), double_copy, bases("in", "out")),
    "aos_struct": (Launch(32, 256), aos_struct, bases("p", "out")),
    "partial_2d": (Launch((3, 3, 1), (16, 16, 1)), partial_2d, bases("in", "out")),
    "loop_divergent": (Launch(32, 256), loop_divergent, bases("in", "out")),
    "shared_4way": (Launch(32, 256), shared_stride(4, 4), bases("in", "out")),
    "shared_stride3": (Launch(32, 256), shared_stride(3, 3), bases("in", "out")),
    "shared_double_conflict": (Launch(32, 256), shared_double_conflict, bases("in", "out")),
    "transpose_coalesced": (Launch((2, 2, 1), (32, 8, 1)), transpose_coalesced, bases("in", "out")),
}

NCU = {
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "global_st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rows = []
    for name, (launch, kernel, m) in PROGRAMS.items():
        totals = count(launch, kernel, m)
        for key, metric in NCU.items():
            rows.append((name, metric, totals.get(key, 0)))
        rows.append((name, "shared_ld_requests", totals.get("shared_ld_requests", 0)))
        rows.append((name, "shared_st_requests", totals.get("shared_st_requests", 0)))
    with open(os.path.join(here, "hand_counts.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["program", "metric", "value"])
        w.writerows(rows)
    for r in rows:
        print(*r)


if __name__ == "__main__":
    main()
