#!/usr/bin/env python3
"""Compares the run corpus's reference (nvcc on the GPU) with a `gpulab run` part, program by program.

    bench/corpus_compare.py REF_DIR RUN_DIR [--manifest bench/run_corpus.tsv] [--tsv FILE] [--diff N]

REF_DIR and RUN_DIR are bench/run_corpus.sh's part folders (<id>.out, .err, .rc; the reference also
.out2/.err2, a second run). A program passes when it gives the reference's exit code and every stable
line of its stdout and stderr, in order. A line is not stable when
  * a pattern of STABLE_FILTERS below matches it (each says why: timings, rates, the device's name
    and clocks, addresses), or
  * it differs between the reference's two runs on the GPU (random seeds from the clock, the order
    of printf from different blocks, anything else that changes from run to run).
Lines of gpulab itself (its report goes to a file; what it still says on stderr starts with
"gpulab") are not the program's and are left out of the emulator's side.
Where the lines are all there but in another order, the verdict says so ("pass, other order"):
kernel printf from different blocks has no defined order. A line a filter leaves out that changed
between the two GPU runs (an uninitialized variable printed, an address) pairs with whatever the run
printed in its place. A program of RACES below fails as "fail: a race in the program": the race is
the program's, the H100 survived it by luck, and the summary counts it apart.
"""
import argparse
import collections
import difflib
import json
import os
import re
import sys

# (pattern, reason): a line a pattern matches is left out on both sides. Conservative: each names
# what varies, not what a program computes.
NUM = r"[-+]?\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?"
STABLE_FILTERS = [
    (re.compile(r"\b(time|timer|elapsed|took|duration|latency|runtime)\b.*" + NUM, re.I),
     "a time measured on the machine"),
    (re.compile(NUM + r"\s*\(?\s*(ms|msec|msecs|milliseconds?|us|usec|µs|microseconds?|ns|nanoseconds?|"
                r"s|sec|secs|seconds?)\b\)?", re.I),
     "a number with a time unit"),
    (re.compile(r"\b(GB|MB|KB|GiB|MiB|KiB|bytes?)\s*/\s*s(ec)?\b|\bG?B/s\b", re.I), "a transfer rate"),
    (re.compile(r"\b([GMT]?FLOP/?S|[GMT]Flop/?s|GFlops?|TFlops?|[GM]ops|Gelem|Melem|"
                r"[GM]?elements?/s|[GMK]?samples?/s|per second|[GMK]?Items?/s|throughput|bandwidth|speed-?up|"
                r"performance=)", re.I), "a rate or speed derived from a timing"),
    (re.compile(r"\bvs\.?\b[^:]*:\s*" + NUM + r"x\s*$", re.I),
     "a ratio of two timings (\"GPU Scatter vs Sequential: 0.61x\")"),
    (re.compile(r"\b(NVIDIA|GeForce|Tesla|Quadro|H100|H200|A100|Hopper|gpulab|emulat\w*)\b", re.I),
     "the device's name (the emulator does not call itself a GPU)"),
    (re.compile(r"\b(GPU Device|Device \d+|device \d+|Using (CUDA )?device|Selected device|"
                r"Detected \d+ CUDA Capable|CUDA Capability|compute capability|Compute Capability|"
                r"SM \d+\.\d+|sm_\d+)", re.I), "which device, its number and compute capability"),
    (re.compile(r"\b(clock|clocks|clockRate|cycles?|MHz|GHz|kHz)\b", re.I),
     "clock rates and cycle counts"),
    (re.compile(r"^\s*[\w ()/.,-]*\b(multiprocessors?|SMs?|CUDA cores|L2 cache|warp size|threads per|"
                r"(global|shared|constant|total|managed|mapped) memory|memory bus|bus width|registers|"
                r"concurrent|overlap|async engines?|driver version|runtime version|UUID|PCI|"
                r"texture|pitch|ECC|TCC|integrated|unified addressing|compute mode|preemption|"
                r"cooperative|dimension size)\b[^:=]*[:=]", re.I),
     "the device's properties (\"Label: value\" lines of deviceQuery-style listings)"),
    (re.compile(r"0x[0-9a-fA-F]{6,}|\(nil\)|\b[0-9a-f]{12,}\b"), "an address or pointer"),
    (re.compile(r"OS_System_Type|\buname\b|hostname", re.I), "the host machine's operating system"),
    (re.compile(r"^\s*\[[^\]]*\]\s*-\s*Starting|^\S*/\S+ (Starting\.\.\.|completed, returned)|"
                r"^Starting \[[^\]]*\]\.\.\.",
                re.I),
     "the sample's banners with the program's own path (argv[0])"),
    (re.compile(r"^(memcopy|kernel|non-streamed|\d+ streams):\t+\d+\.\d+$"),
     "simpleStreams' table of elapsed milliseconds (printed without a unit)"),
]


# Programs that fail because of a race in the program itself, which the H100 survived by the timing
# of its warps and the emulator's order of threads (one after another between barriers) does not:
# each with the race's lines and how it was found. They stay failures; the summary counts them apart
# from the emulator's own differences. (Not a read past a window that a GPU rounds up: pmpp_merge's
# read past its tile is the race's consequence.)
RACES = {
    "pmpp_merge": "a race: merge.cu:123-124 read the co-ranks thread 0 left in A_S[0..1] "
                  "(merge.cu:118-119), which the tile's load at merge.cu:147 overwrites with no "
                  "barrier between; threads that read them late merge from wrong ranks and read past "
                  "the tile (merge.cu:46); `gpulab run --check` names merge.cu:123 and :147 (4 s)",
    "pmpp_bfs": "a race: bfs_parallel.cu:741 reads the current frontier from localFrontier[] while "
                "bfs_parallel.cu:753 appends the next frontier to the same array, with no barrier "
                "between (read in the code; --check finds the same bug in "
                "tests/run_corpus/bugs/frontier_overwrite.cu, but on this program ran past 900 s on "
                "2 cores in the earlier kernels, naming their global races)",
}


def stable(lines):
    return [l for l in lines if not filtered(l)]


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [l.rstrip("\r\n").rstrip() for l in f]
    except FileNotFoundError:
        return None


def read_rc(path):
    try:
        return open(path).read().strip()
    except FileNotFoundError:
        return None


def unstable_lines(a, b):
    """indexes of a's lines that b (the second run) does not have at the same place"""
    bad = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            bad.update(range(i1, i2))
    return bad


def shape(line):
    """the line with its numbers masked: "3, 1041.67" and "3, 0.48" have one shape"""
    return re.sub(NUM, "#", line)


# Stands in the reference for a line a filter leaves out that also changed between the two GPU
# runs: a value that is different every run (an uninitialized variable printed, an address). The
# run's line in its place, whatever a filter makes of it, pairs with this one.
RUN_DEPENDENT = "\x00(a value the GPU printed differently in each run)"


def filtered(line):
    return any(p.search(line) for p, _ in STABLE_FILTERS)


def reference_lines(ref, ref2):
    """(the reference's stable lines, with RUN_DEPENDENT for each filtered line that changed between
    the two runs; the indexes of the lines that changed)"""
    if ref2 is None:
        return stable(ref), set()
    raw_bad = unstable_lines(ref, ref2)
    kept = stable(ref)
    kept_bad = unstable_lines(kept, stable(ref2))
    r, bad, k = [], set(), 0
    for i, line in enumerate(ref):
        if filtered(line):
            if i in raw_bad:
                bad.add(len(r))
                r.append(RUN_DEPENDENT)
            continue
        if k in kept_bad:
            bad.add(len(r))
        r.append(line)
        k += 1
    return r, bad


def compare_stream(ref, ref2, run):
    """(ok, other_order, first_difference) for one stream"""
    r, bad = reference_lines(ref, ref2)
    e = stable(run)
    # shapes of lines whose numbers changed between the two GPU runs (a table of measured
    # bandwidths: a value that happens to repeat in both runs is no less a measurement)
    varying = {shape(r[i]) for i in bad}
    first = None
    ok = True
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=r, b=e, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        # a chunk where only lines that changed between the two GPU runs differ is excused
        if i2 > i1 and all(i in bad for i in range(i1, i2)):
            continue
        # ... and one whose lines pair up with lines of the same shape, a shape seen varying
        if tag == "replace" and i2 - i1 == j2 - j1 and all(
                i in bad or (shape(r[i]) == shape(e[j]) and shape(r[i]) in varying)
                for i, j in zip(range(i1, i2), range(j1, j2))):
            continue
        ok = False
        if first is None:
            shown = [r[i] for i in range(i1, i2) if r[i] != RUN_DEPENDENT]
            first = (shown[0] if shown else "(nothing)", e[j1] if j1 < j2 else "(nothing)")
    if ok:
        return True, False, None
    # every stable line is there, in another order, and the run has no more other lines than the
    # reference has lines that changed between its two runs
    kc = collections.Counter(l for i, l in enumerate(r) if i not in bad)
    ec = collections.Counter(e)
    if not (kc - ec) and sum((ec - kc).values()) <= len(bad):
        return True, True, first
    return False, False, first


def emulator_lines(lines):
    return [l for l in lines if not l.startswith("gpulab")]


def first_error(lines):
    for l in lines or []:  # a compiler's or linker's first error line first
        if re.search(r":\d+(:\d+)?: (fatal )?error:|\(\d+\): error|undefined reference", l):
            return l.strip()
    for l in lines or []:
        if "could not compile" in l:
            continue
        if re.search(r"error|fatal|refus|not supported|undefined|abort|fault|Assertion", l, re.I):
            return l.strip()
    return (lines or ["(no output)"])[0].strip() if lines else "(no output)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ref")
    ap.add_argument("run")
    ap.add_argument("--manifest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "run_corpus.tsv"))
    ap.add_argument("--tsv", help="write id, kind, verdict, ref exit, run exit, detail here")
    ap.add_argument("--diff", type=int, default=0, help="show up to N differing lines per program")
    ap.add_argument("--filters", action="store_true", help="list the stable-line filters and stop")
    a = ap.parse_args()
    if a.filters:
        for p, why in STABLE_FILTERS:
            print(f"{why}: {p.pattern}")
        return 0
    rows = []
    with open(a.manifest) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            stem = os.path.splitext(os.path.basename(c[4].split()[0]))[0] if len(c) > 4 and c[4] else c[0]
            rows.append((c[0], c[7] if len(c) > 7 else "?", stem))
    counts = collections.Counter()
    out = []
    for pid, kind, stem in rows:
        # The program's own path as it names itself (argv[0]): the reference's binary wherever it
        # was built, `./NAME` under gpulab run (NAME the file's stem), alike on both sides.
        own = re.compile(r"(?:\.|/[^\s\]'\"]*)/(?:%s|%s)\b" % (re.escape(pid), re.escape(stem)))
        def named(lines):
            return None if lines is None else [own.sub("<program>", l) for l in lines]
        rrc = read_rc(os.path.join(a.ref, pid + ".rc"))
        erc = read_rc(os.path.join(a.run, pid + ".rc"))
        rout = named(read_lines(os.path.join(a.ref, pid + ".out"))) or []
        rerr = named(read_lines(os.path.join(a.ref, pid + ".err"))) or []
        rout2 = named(read_lines(os.path.join(a.ref, pid + ".out2")))
        rerr2 = named(read_lines(os.path.join(a.ref, pid + ".err2")))
        eout = named(read_lines(os.path.join(a.run, pid + ".out"))) or []
        eerr_all = named(read_lines(os.path.join(a.run, pid + ".err"))) or []
        eerr = emulator_lines(eerr_all)
        report = {}
        try:
            with open(os.path.join(a.run, pid + ".report.json")) as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass
        detail = ""
        if rrc is None or erc is None or rrc in ("tree", "deadline") or erc in ("tree", "deadline"):
            verdict = "not run"
            detail = f"reference {rrc}, run {erc}"
        elif kind == "refused":
            ok = erc not in ("0",) and not re.search(r"Segmentation|core dumped|Aborted", "\n".join(eerr_all))
            verdict = "refused cleanly" if ok else "refused-kind program not refused cleanly"
            detail = first_error(eerr_all)
        elif rrc == "build":
            verdict = "no reference"
            detail = "nvcc refuses it: " + first_error(rerr) + f" | run exit {erc}"
        elif rrc == "timeout":
            verdict = "no reference"
            detail = "the GPU's own run passed the reference's time limit | run exit " + str(erc)
        elif not report and erc != "0":
            verdict = "fail"
            detail = f"not run (reference exit {rrc}): " + first_error(eerr_all)
        elif report.get("timed_out"):
            verdict = "fail"
            detail = f"timed out (reference exit {rrc})"
        else:
            ecode = str(report["exit_code"]) if report.get("exit_code") is not None else erc
            same_rc = ecode == rrc
            ok_o, order_o, first_o = compare_stream(rout, rout2, eout)
            ok_e, order_e, first_e = compare_stream(rerr, rerr2, eerr)
            if same_rc and ok_o and ok_e:
                verdict = "pass, other order" if (order_o or order_e) else "pass"
            else:
                verdict = "fail: a race in the program" if pid in RACES else "fail"
                parts = [RACES[pid]] if pid in RACES else []
                if not same_rc:
                    parts.append(f"exit {ecode} where the GPU gives {rrc}")
                if not ok_o:
                    parts.append(f"stdout: GPU {first_o[0]!r}, run {first_o[1]!r}")
                if not ok_e:
                    parts.append(f"stderr: GPU {first_e[0]!r}, run {first_e[1]!r}")
                if report == {} or ecode != rrc:
                    parts.append("first error: " + first_error(eerr_all))
                detail = "; ".join(parts)
        counts[verdict] += 1
        out.append((pid, kind, verdict, rrc or "-", erc or "-", detail))
        print(f"{pid:28} {verdict:18} ref {rrc or '-':>7} run {erc or '-':>7}  {detail}"[:400])
        if a.diff and verdict.startswith("fail"):
            r, e = stable(rout), stable(eout)
            for d in list(difflib.unified_diff(r, e, "gpu", "run", n=0, lineterm=""))[2:2 + a.diff]:
                print("      " + d[:200])
    if a.tsv:
        with open(a.tsv, "w") as f:
            f.write("# id\tkind\tverdict\treference exit\trun exit\tdetail\n")
            for row in out:
                f.write("\t".join(row) + "\n")
    compared = sum(v for k, v in counts.items() if k.startswith("pass") or k.startswith("fail"))
    passed = counts["pass"] + counts["pass, other order"]
    races = counts["fail: a race in the program"]
    print()
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    print(f"{passed} of {compared} give the H100's exit code and every stable line"
          f" ({counts['no reference']} without a reference: nvcc refuses them or the GPU's run"
          f" passed the time limit;"
          f" {counts['refused cleanly']} refused by design, counted apart)")
    if races:
        print(f"{races} of the failures are races in the program that the H100 survived by the"
              f" timing of its warps (RACES says where and how each was found)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
