#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's memory and divergence counters for every program of
# tests/profile/corpus (the textbook kernels gpulab profile is tested on), built as the issue asks
# (nvcc -O3 -lineinfo), so that the emulator's counts can be compared with the GPU's.
#
#   OUT=/some/dir bench/profile/ncu_corpus.sh        (from the repository root; about 3 minutes)
#   ONLY="strided transpose_tiled" OUT=... bench/profile/ncu_corpus.sh   (a few programs)
#
# Steps, each bounded so that the whole stays under 4 minutes (DEADLINE seconds, default 220):
#   1. nvcc -O3 -lineinfo -arch=$ARCH for every program, 16 at a time; cuobjdump -sass of each;
#   2. ncu with the metrics below, one program after another (the GPU's counters are exclusive),
#      while gpulab profile --backend cpu --json counts the same programs on the emulator beside it
#      (CPU only, 8 at a time);
#   3. while time is left: ncu's source page (per-line counters, SASS beside the CUDA lines);
#   4. gpulab profile --backend gpu --json on four programs: the command's own ncu path.
# Writes (at most 8 files come back from the device, so the details are one archive):
#   $OUT/ncu_metrics.csv     program,kernel,metric,value: one row per metric and kernel (the file to read)
#   $OUT/summary.txt         versions, per program what ran and what failed, seconds per step
#   $OUT/profile.tar.gz      profile/: <program>.ncu.csv (as ncu printed it), .sass, .source.csv,
#                            .gpulab.json (emulator), gpu/<program>.json (--backend gpu), logs
set -uo pipefail
OUT=${OUT:-out}
dir="$OUT/profile"
mkdir -p "$dir/bin" "$dir/gpu"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$dir/cache}
arch=${ARCH:-sm_90}
G=${GPULAB:-build/gpu/bin/gpulab}
DEADLINE=${DEADLINE:-220}
begin=$(date +%s)
elapsed() { echo $(( $(date +%s) - begin )); }
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,\
smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__sass_branch_targets.sum,\
smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,\
smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum

summary="$OUT/summary.txt"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
  ncu --version | tail -1; } > "$summary" 2>&1
has_profile=0
if [ -x "$G" ] && "$G" profile --help > /dev/null 2>&1; then has_profile=1; fi
# ONLY="name name": just those programs (a quick try); all of them by default.
programs=${ONLY:-$(for f in tests/profile/corpus/*.cu; do basename "$f" .cu; done)}
echo "programs: $(echo $programs | wc -w); gpulab profile: $has_profile" >> "$summary"

# 1. Builds, in parallel.
export arch dir
printf "%s\n" $programs | xargs -P 16 -I{} sh -c \
  'nvcc -O3 -lineinfo -arch="$arch" -o "$dir/bin/{}" "tests/profile/corpus/{}.cu" > "$dir/{}.nvcc.txt" 2>&1 \
   && cuobjdump -sass "$dir/bin/{}" > "$dir/{}.sass" 2>&1'
echo "step 1 (nvcc, cuobjdump): $(elapsed) s" >> "$summary"

# 2. The emulator's counts in the background (CPU), ncu's on the GPU one program at a time.
emulator_pid=
if [ "$has_profile" = 1 ]; then
  export G
  ( printf "%s\n" $programs | xargs -P 8 -I{} sh -c \
      'timeout 120 "$G" profile "tests/profile/corpus/{}.cu" --backend cpu --json \
         --report "$dir/{}.gpulab.json" > /dev/null 2> "$dir/{}.gpulab.err"' ) &
  emulator_pid=$!
fi
for name in $programs; do
  bin="$dir/bin/$name"
  if [ ! -x "$bin" ]; then echo "$name: nvcc failed (see $name.nvcc.txt)" >> "$summary"; continue; fi
  # stdout holds the program's own lines, ncu's ==PROF== lines and the CSV (lines starting with ").
  if timeout 60 ncu --metrics "$metrics" --csv --print-units base --page details \
      "$bin" > "$dir/$name.ncu.csv" 2> "$dir/$name.ncu.log"; then
    echo "$name: ncu ok, $(grep -c '^"' "$dir/$name.ncu.csv") CSV lines, $(grep -h ': ok$\|WRONG' "$dir/$name.ncu.csv")" >> "$summary"
  else
    echo "$name: ncu failed (rc $?; see $name.ncu.log)" >> "$summary"
  fi
done
echo "step 2 (ncu metrics): $(elapsed) s" >> "$summary"

# 3. Per-line counters while time is left (each run takes a few seconds).
for name in $programs; do
  [ -x "$dir/bin/$name" ] || continue
  if [ "$(elapsed)" -gt $((DEADLINE - 50)) ]; then
    echo "source page: stopped before $name (deadline)" >> "$summary"; break
  fi
  timeout 30 ncu --section SourceCounters --csv --page source --print-source cuda,sass \
    "$dir/bin/$name" > "$dir/$name.source.csv" 2>> "$dir/$name.ncu.log" || true
done
echo "step 3 (ncu source page): $(elapsed) s" >> "$summary"

# 4. The command's own --backend gpu (nvcc -O3 -lineinfo, ncu, the GPU's numbers beside the
# emulator's) on four programs.
if [ "$has_profile" = 1 ]; then
  for name in transpose_tiled strided reduce_interleaved branch_divergent; do
    [ "$(elapsed)" -gt $((DEADLINE - 20)) ] && { echo "--backend gpu: stopped before $name" >> "$summary"; break; }
    timeout 60 "$G" profile "tests/profile/corpus/$name.cu" --backend gpu --json \
      --report "$dir/gpu/$name.json" > /dev/null 2> "$dir/gpu/$name.err"
    echo "$name --backend gpu: rc $?" >> "$summary"
  done
fi
[ -n "$emulator_pid" ] && wait "$emulator_pid"
echo "step 4 (--backend gpu), emulator done: $(elapsed) s" >> "$summary"

# One tidy table: program,kernel,metric,value (ncu's CSV quotes kernel names that hold commas).
python3 - "$dir" "$OUT/ncu_metrics.csv" <<'PY' || echo "python3 missing: read the <program>.ncu.csv files" >> "$summary"
import csv, glob, os, sys
d, target = sys.argv[1], sys.argv[2]
with open(target, "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["program", "kernel", "metric", "value"])
    for path in sorted(glob.glob(os.path.join(d, "*.ncu.csv"))):
        name = os.path.basename(path)[: -len(".ncu.csv")]
        lines = [l for l in open(path, errors="replace") if l.startswith('"')]
        for row in csv.DictReader(lines):
            if "Metric Name" in row:
                w.writerow([name, row.get("Kernel Name", ""), row["Metric Name"], row["Metric Value"]])
PY
rm -rf "${dir:?}/bin" "${dir:?}/cache"
tar -C "$OUT" -czf "$OUT/profile.tar.gz" profile && rm -rf "$dir"
echo "total: $(elapsed) s" >> "$summary"
cat "$summary"
echo "wrote $OUT/ncu_metrics.csv, $OUT/summary.txt, $OUT/profile.tar.gz"
