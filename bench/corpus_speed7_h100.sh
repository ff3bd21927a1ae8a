#!/usr/bin/env bash
# On the GPU machine (16 cores), from the repository root, with the binaries of build/gpu: the two
# run-corpus programs that last ran past the emulator's time limit, NVIDIA's scan (split-9: its
# kernels wait inside inlined device functions, now region loops) and PMPP's histogram (its
# contended atomicAdd deferred), as the corpus runs them (4 workers each, 240 s limit, both at
# once), compared with the H100's recorded output; then the new test program on the GPU itself.
#   OUT=/tmp/out bench/corpus_speed7_h100.sh
# Writes $OUT/corpus_speed7.tgz (the corpus log and comparison, each run's report, stdout and time,
# a per-kernel table of launch times, the GPU's stdout of tests/run_corpus/ok/inlined_barriers.cu
# against its .out) and prints the verdicts. Needs .corpus (bench/corpus_prepare.sh) in the
# repository root, or REPOS. Under 5 minutes.
set -u
R=$PWD
OUT=${OUT:-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$R/build/gpu/lib:${LD_LIBRARY_PATH:-}
export XDG_CACHE_HOME=/tmp/speed7_xdg
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/corpus_speed7
rm -rf "$B" /tmp/speed7_work /tmp/speed7_ref
mkdir -p "$B" /tmp/speed7_ref
tar -xzf bench/run_corpus_h100.tar.gz -C /tmp/speed7_ref
nproc > "$B/cores.txt"
# The test program on the GPU: its stdout must equal the .out the emulator's tests assert.
p=tests/run_corpus/ok/inlined_barriers
if nvcc -arch=sm_90 -o "$B/inlined_barriers" "$p.cu" > "$B/inlined_barriers.build.log" 2>&1; then
  "$B/inlined_barriers" > "$B/inlined_barriers.gpu.out" 2> "$B/inlined_barriers.gpu.err"
  echo "inlined_barriers on the GPU: exit $?, $(cmp -s "$B/inlined_barriers.gpu.out" "$p.out" &&
    echo 'stdout = .out' || echo 'stdout DIFFERS')" | tee "$B/gpu_program.txt"
else
  echo "inlined_barriers: nvcc failed" | tee "$B/gpu_program.txt"
fi
REPOS=${REPOS:-$R/.corpus} WORK=/tmp/speed7_work OUT=$B/corpus EMU_JOBS=2 EMU_THREADS=4 \
  EMU_TIMEOUT=240 DEADLINE=60 ONLY=pmpp_histogram,scan \
  timeout 280 bench/run_corpus.sh cpu > "$B/corpus.log" 2>&1
python3 bench/corpus_compare.py /tmp/speed7_ref/corpus/ref /tmp/speed7_work/corpus/cpu \
  > "$B/corpus_compare.txt" 2>&1
cp -r /tmp/speed7_work/corpus/cpu "$B/cpu" 2> /dev/null
# Each kernel's launches and emulator time a launch, from the reports.
python3 - "$B/cpu" > "$B/launches.txt" << 'EOF'
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.report.json")):
    r = json.loads(f.read_text())
    print(f"{f.name.split('.')[0]}: exit {r.get('exit_code')}, timed out {r.get('timed_out')}, "
          f"run {r.get('run_ms', 0) / 1000:.1f} s, {r.get('launches_total')} launches")
    per = {}
    for l in r.get("launches", []):
        n, ms = per.get(l["kernel"], (0, 0.0))
        per[l["kernel"]] = (n + l["count"], ms + l["emulator_ms"])
    for k, (n, ms) in per.items():
        print(f"  {k}: {n} launches, {ms / max(n, 1):.1f} ms a launch")
EOF
grep -E "^(scan|pmpp_histogram) " "$B/corpus_compare.txt" | cut -c1-200
cat "$B/launches.txt"
for i in scan pmpp_histogram; do echo "$i: $(cat /tmp/speed7_work/corpus/cpu/$i.time 2> /dev/null) s"; done
tar -czf "$OUT/corpus_speed7.tgz" -C /tmp corpus_speed7
