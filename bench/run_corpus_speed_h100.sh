#!/usr/bin/env bash
# On the GPU machine (16 cores), from the repository root, with the binaries of build/gpu: the
# corpus programs that ran past their limit for the emulator's speed, one at a time on every core,
# compared with the H100's recorded output (bench/run_corpus_h100.md, "Where the time of the slow
# programs goes"). The graph programs first: their launches now run the compiled thread loop.
#   OUT=/tmp/out bench/run_corpus_speed_h100.sh
# Writes $OUT/run_corpus_speed.tgz: the two CI programs' GPU output against their .out, the corpus
# log, the comparison, each run's report and time.
# Needs .corpus (bench/corpus_prepare.sh) in the repository root. Under 5 minutes.
set -u
R=$PWD
OUT=${OUT:-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$R/build/gpu/lib:${LD_LIBRARY_PATH:-}
export XDG_CACHE_HOME=/tmp/speed_xdg
B=/tmp/run_corpus_speed
rm -rf "$B" /tmp/speed_work /tmp/speed_ref
mkdir -p "$B" /tmp/speed_ref
tar -xzf bench/run_corpus_h100.tar.gz -C /tmp/speed_ref
nproc > "$B/cores.txt"
# The CI programs of these changes, on the GPU: their stdout must equal the .out the emulator's
# tests assert (a graph replaying each kind of kernel; cuBLAS calls captured into a graph).
export PATH=/usr/local/cuda/bin:$PATH
for p in tests/run_corpus/gpu_semantics/graph_replay_forms tests/run_corpus/ok/cublas_graph; do
  n=$(basename "$p")
  if nvcc -arch=sm_90 -o "$B/$n" "$p.cu" -lcublas > "$B/$n.build.log" 2>&1; then
    "$B/$n" > "$B/$n.gpu.out" 2> "$B/$n.gpu.err"
    echo "$n: exit $?, $(cmp -s "$B/$n.gpu.out" "$p.out" && echo 'stdout = .out' || echo 'stdout DIFFERS')" \
      | tee -a "$B/gpu_programs.txt"
  else
    echo "$n: nvcc failed" | tee -a "$B/gpu_programs.txt"
  fi
done
# olcf_axpy_cublas: 200 launches of 500,000 blocks of 512 threads (kernel nodes by address) and 100
# cuBLAS saxpy; olcf_axpy_capture: 4,400 such launches (a captured graph replayed 1,100 times).
REPOS=$R/.corpus WORK=/tmp/speed_work OUT=$B/corpus EMU_JOBS=1 \
  EMU_THREADS=16 EMU_TIMEOUT=180 DEADLINE=200 ONLY=olcf_axpy_cublas,olcf_axpy_capture \
  timeout 230 bench/run_corpus.sh cpu > "$B/corpus.log" 2>&1
python3 bench/corpus_compare.py /tmp/speed_ref/corpus/ref /tmp/speed_work/corpus/cpu \
  > "$B/corpus_compare.txt" 2>&1
cp -r /tmp/speed_work/corpus/cpu "$B/cpu" 2>/dev/null
grep -E "olcf_axpy" "$B/corpus_compare.txt" | cut -c1-300
cat /tmp/speed_work/corpus/cpu/olcf_axpy_*.time 2>/dev/null
tar -czf "$OUT/run_corpus_speed.tgz" -C /tmp run_corpus_speed
