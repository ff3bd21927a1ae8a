#!/usr/bin/env python3
"""The README's examples against the real output of the gpulab they document.

Each example block in README.md is a fenced block of "$ gpulab ..." commands, each followed by its
output, after a marker line:

    <!-- example: here -->   run and compared by ctest (the emulator, the calculators: no GPU)
    <!-- example: h100 -->   captured on an H100; compared by bench/readme_h100.sh on that machine
    <!-- example: shown -->  not run: the block shows steps between which the reader edits a file

A README line "..." (alone on its line) stands for any number of output lines. Times and
bandwidths (a number before ms, us, s, GB/s, TB/s, GFLOPS) vary from run to run and are compared
as "#", and gpulab run's "(cached)" or "(compiled in ...)" is left out. Commands run in the repository root under bash, with the tested gpulab first on PATH,
COLUMNS=100 and LANG=C.UTF-8.

  check_readme.py README GPULAB --kind here|h100 [--update | --write FILE] [--out DIR]

--update writes the real output into the README (keeping "..." elisions where they still match);
--write FILE writes that README to FILE instead, leaving the README as it is (on the GPU machine:
the lead takes FILE, or its diff, back); --out DIR also saves each command's output there. Exit 0
when every block of the kind matches (with --update or --write too: what differed is printed).
"""
import argparse
import os
import re
import subprocess
import sys

MARK = re.compile(r"^<!-- example: (here|h100|shown) -->\s*$")
VARYING = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?( ?)(ms|us|µs|s|GB/s|TB/s|GFLOPS|TFLOPS)\b")


def normal(line):
    # gpulab run says "(cached)" when an earlier run built the same program.
    line = re.sub(r" \((?:cached|compiled in [^)]*)\)", "", line)
    return VARYING.sub(lambda m: "#" + m.group(1) + m.group(2), line.rstrip())


def blocks(lines):
    """(kind, first line index inside the fence, index of the closing fence) of each example."""
    out = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            k = j + 1
            while k < len(lines) and not lines[k].startswith("```"):
                k += 1
            out.append((m.group(1), j + 1, k))
            i = k
        i += 1
    return out


def commands(body):
    """[(command, [expected lines])] of a block's lines."""
    out = []
    for line in body:
        if line.startswith("$ gpulab") or (line.startswith("$ ") and out == []):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def matches(expected, actual):
    """Whether actual fits expected, "..." lines standing for any lines."""
    e = [normal(l) for l in expected]
    a = [normal(l) for l in actual]
    while e and e[-1] == "":
        e.pop()
    while a and a[-1] == "":
        a.pop()

    memo = {}

    def fit(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(e):
            r = j == len(a)
        elif e[i].strip() == "...":
            r = any(fit(i + 1, k) for k in range(j, len(a) + 1))
        else:
            r = j < len(a) and e[i] == a[j] and fit(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return fit(0, 0)


def run(command, gpulab, root):
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(gpulab)) + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "100"  # the README's width: its lines are laid out for 100 columns
    env.pop("NO_COLOR", None)
    env["LANG"] = "C.UTF-8"
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    r = subprocess.run(["bash", "-c", command], cwd=root, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    text = r.stdout.decode("utf-8", "replace")
    return text.split("\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("readme")
    p.add_argument("gpulab")
    p.add_argument("--kind", required=True, choices=["here", "h100"])
    p.add_argument("--update", action="store_true")
    p.add_argument("--write", metavar="FILE")
    p.add_argument("--out")
    a = p.parse_args()
    root = os.path.dirname(os.path.abspath(a.readme))
    with open(a.readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    failures = 0
    checked = 0
    replacements = []
    for n, (kind, start, end) in enumerate(blocks(lines)):
        if kind != a.kind:
            continue
        new_body = []
        for command, expected in commands(lines[start:end]):
            actual = run(command, a.gpulab, root)
            checked += 1
            if a.out:
                os.makedirs(a.out, exist_ok=True)
                with open(os.path.join(a.out, f"example-{n:02d}-{checked:02d}.txt"), "w") as f:
                    f.write("$ " + command + "\n" + "\n".join(actual))
            while actual and actual[-1] == "":
                actual.pop()
            new_body.append("$ " + command)
            if matches(expected, actual):
                new_body.extend(expected if expected and expected[-1] != "" else expected[:-1])
                continue
            new_body.extend(actual)
            failures += 1
            print(f"README line {start}: '$ {command}' printed something else:")
            print("--- README\n" + "\n".join(expected) + "\n--- gpulab\n" + "\n".join(actual))
        replacements.append((start, end, new_body))
    if a.update or a.write:
        for start, end, body in reversed(replacements):
            lines[start:end] = body
        with open(a.write or a.readme, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"README with the real outputs of its '{a.kind}' blocks written to {a.write or a.readme}")
    if checked == 0:
        print(f"no '{a.kind}' example in {a.readme}")
        return 1
    print(f"{checked} README commands ({a.kind}): {failures} differ")
    return 1 if failures and not a.update else 0


if __name__ == "__main__":
    sys.exit(main())
