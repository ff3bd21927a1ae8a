#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's memory and divergence counters for every program of
# tests/profile/corpus (the textbook kernels gpulab profile is tested on), built as the issue asks
# (nvcc -O3 -lineinfo), so that the emulator's counts can be compared with the GPU's.
#
#   OUT=/some/dir bench/profile/ncu_corpus.sh        (from the repository root)
#
# Writes under $OUT/profile:
#   ncu_metrics.csv        program,kernel,metric,value: one row per metric (the file to read)
#   <program>.ncu.csv      ncu --csv --page details, as ncu printed it
#   <program>.source.csv   ncu's source page (SASS with the CUDA lines, per-instruction counters)
#   <program>.sass         cuobjdump -sass of the binary (to explain a difference)
#   <program>.gpulab.json  gpulab profile --json on the emulator, when this gpulab has the command
#   <program>.gpulab_gpu.txt  gpulab profile --backend gpu: the emulator's numbers beside ncu's
#   <program>.ncu.log      ncu's stderr (ERR_NVGPUCTRPERM there: counters not permitted)
#   summary.txt            what ran, what failed
set -uo pipefail
OUT=${OUT:-out}
dir="$OUT/profile"
mkdir -p "$dir/bin"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
arch=${ARCH:-sm_90}
G=${GPULAB:-build/gpu/bin/gpulab}
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_average_branch_targets_threads_uniform.pct,\
smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__sass_branch_targets.sum,\
smsp__sass_branch_targets_threads_uniform.sum,smsp__sass_branch_targets_threads_divergent.sum

summary="$dir/summary.txt"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
  ncu --version | tail -1; } > "$summary" 2>&1
has_profile=0
if [ -x "$G" ] && "$G" profile --help > /dev/null 2>&1; then has_profile=1; fi

for f in tests/profile/corpus/*.cu; do
  name=$(basename "$f" .cu)
  bin="$dir/bin/$name"
  if ! nvcc -O3 -lineinfo -arch="$arch" -o "$bin" "$f" > "$dir/$name.nvcc.txt" 2>&1; then
    echo "$name: nvcc failed (see $name.nvcc.txt)" | tee -a "$summary"; continue
  fi
  cuobjdump -sass "$bin" > "$dir/$name.sass" 2>&1
  # stdout holds the program's own lines, ncu's ==PROF== lines and the CSV (lines starting with ").
  if ncu --metrics "$metrics" --csv --print-units base --page details \
      "$bin" > "$dir/$name.ncu.csv" 2> "$dir/$name.ncu.log"; then
    echo "$name: ncu ok, $(grep -c "^\"" "$dir/$name.ncu.csv") CSV lines, $(grep -h ": ok$\|WRONG" "$dir/$name.ncu.csv")" >> "$summary"
  else
    echo "$name: ncu failed (rc $?; see $name.ncu.log)" | tee -a "$summary"
  fi
  # The per-line view (ncu --page source), for the per-line comparison; not needed for the totals.
  ncu --section SourceCounters --csv --page source --print-source cuda,sass \
      "$bin" > "$dir/$name.source.csv" 2>> "$dir/$name.ncu.log" || true
  if [ "$has_profile" = 1 ]; then
    # The emulator's counts, and the command's own --backend gpu (ncu beside the emulator).
    "$G" profile "$f" --backend cpu --json --report "$dir/$name.gpulab.json" \
      > /dev/null 2> "$dir/$name.gpulab.err"
    "$G" profile "$f" --backend gpu --report "$dir/$name.gpulab_gpu.txt" \
      > /dev/null 2>> "$dir/$name.gpulab.err"
  fi
done

# One tidy table: program,kernel,metric,value (ncu's CSV quotes kernel names that hold commas).
python3 - "$dir" <<'PY' || echo "python3 missing: read the <program>.ncu.csv files" >> "$summary"
import csv, glob, os, sys
d = sys.argv[1]
with open(os.path.join(d, "ncu_metrics.csv"), "w", newline="") as out:
    w = csv.writer(out)
    w.writerow(["program", "kernel", "metric", "value"])
    for path in sorted(glob.glob(os.path.join(d, "*.ncu.csv"))):
        name = os.path.basename(path)[: -len(".ncu.csv")]
        lines = [l for l in open(path, errors="replace") if l.startswith('"')]
        for row in csv.DictReader(lines):
            if "Metric Name" in row:
                w.writerow([name, row.get("Kernel Name", ""), row["Metric Name"], row["Metric Value"]])
PY
cat "$summary"
echo "wrote $dir/ncu_metrics.csv"
