#!/usr/bin/env python3
"""gpulab profile's counts beside the reference values, program by program and metric by metric.

    bench/profile/compare.py [--gpulab build/cpu-only/bin/gpulab] [--ncu OUT/ncu_metrics.csv]
                             [--jobs 2] [--only NAME,...] [--record]

Runs `gpulab profile --backend cpu --json` on every program of tests/profile/corpus and compares
its metrics with, per program, the first reference that has it:
  1. --ncu FILE: a fresh ncu_metrics.csv from bench/profile/ncu_corpus.sh on the GPU;
  2. tests/profile/ncu_h100.csv: the H100's values recorded in the project;
  3. tests/profile/hand_counts.csv: the memory counts worked out from the source.
tests/profile/known_differences.csv marks the values that differ for a known reason. Prints one
line per value that differs and a summary; exit 1 when an unexplained value differs. With
--record (and --ncu), the fresh GPU values of the programs not yet recorded are appended to
tests/profile/ncu_h100.csv.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFILE = os.path.join(ROOT, "tests", "profile")


def read_metrics(path, columns):
    """program -> metric -> (value, kernel) from a CSV with program,(kernel,)metric,value."""
    out = {}
    if not path or not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                value = float(row["value"].replace(",", ""))
            except ValueError:
                continue
            out.setdefault(row["program"], {})[row["metric"]] = (value, row.get("kernel", ""))
    return out


def emulator(gpulab, program):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as t:
        report = t.name
    try:
        p = subprocess.run(
            [gpulab, "profile", os.path.join(PROFILE, "corpus", program + ".cu"), "--backend",
             "cpu", "--json", "--report", report],
            capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            return program, None, p.stderr.strip().splitlines()[-1:] or ["exit %d" % p.returncode]
        with open(report) as f:
            return program, json.load(f), None
    finally:
        os.unlink(report)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpulab", default=os.path.join(ROOT, "build", "cpu-only", "bin", "gpulab"))
    ap.add_argument("--ncu", help="ncu_metrics.csv from bench/profile/ncu_corpus.sh")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()

    fresh = read_metrics(a.ncu, 4)
    h100 = read_metrics(os.path.join(PROFILE, "ncu_h100.csv"), 4)
    hand = read_metrics(os.path.join(PROFILE, "hand_counts.csv"), 3)
    known = {}
    with open(os.path.join(PROFILE, "known_differences.csv"), newline="") as f:
        for row in csv.DictReader(f):
            known[(row["program"], row["metric"])] = row["why"]

    programs = sorted(p[:-3] for p in os.listdir(os.path.join(PROFILE, "corpus")) if p.endswith(".cu"))
    if a.only:
        wanted = set(a.only.split(","))
        programs = [p for p in programs if p in wanted]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda p: emulator(a.gpulab, p), programs))

    equal = explained = unexplained = 0
    for program, j, error in results:
        if error:
            print(f"{program}: gpulab profile failed: {error[0]}")
            unexplained += 1
            continue
        for source, table in (("ncu (fresh)", fresh), ("H100 recorded", h100), ("by hand", hand)):
            if program in table:
                ref = table[program]
                break
        else:
            print(f"{program}: no reference value")
            continue
        metrics = j["launches"][0]["metrics"] if j["launches"] else {}
        for metric, value in sorted(metrics.items()):
            if metric not in ref or value is None:
                continue
            theirs = ref[metric][0]
            if abs(value - theirs) <= 0.005:
                equal += 1
                continue
            why = known.get((program, metric))
            if why:
                explained += 1
            else:
                unexplained += 1
            print(f"{program:24} {metric:58} emulator {value:>10.6g}  {source} {theirs:>10.6g}"
                  f"  {'known: ' + why[:60] if why else 'UNEXPLAINED'}")
    print(f"{equal} equal, {explained} differ for a known reason, {unexplained} unexplained")

    if a.record and fresh:
        recorded = set(h100)
        with open(os.path.join(PROFILE, "ncu_h100.csv"), "a", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for program in sorted(set(fresh) - recorded):
                for metric, (value, kernel) in sorted(fresh[program].items()):
                    w.writerow([program, kernel, metric, f"{value:g}"])
        print("recorded:", ", ".join(sorted(set(fresh) - recorded)) or "nothing new")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
