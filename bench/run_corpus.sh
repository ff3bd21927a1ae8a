#!/usr/bin/env bash
# The run corpus (bench/run_corpus.tsv): public CUDA teaching programs, unmodified, from plain trees
# made by bench/corpus_prepare.sh. Parts, in the order given (default: ref cpu):
#   ref   the reference: each program built with plain nvcc (nvcc -arch=sm_90 FLAGS FILES -o prog)
#         and run on the GPU, in its own folder; exit code, stdout and stderr kept
#   cpu   the same program under `gpulab run --backend cpu` (the emulator)
#   gpu   the same program under `gpulab run --backend gpu`
#   check the programs the emulator ran with exit 0, again with `gpulab run --backend cpu --check`
#   sanitize  on the GPU: each program built as the reference (with -lineinfo) and run once under
#         compute-sanitizer's memcheck (SANITIZER_TOOL), for the programs where the GPU faults or
#         the emulator and the GPU disagree (give them with ONLY)
# Works in $WORK/corpus/<part>/<id>.{out,err,rc,time}[.build.log|.report.json] (WORK: default a new
# folder under /tmp, removed at the end; a given WORK is kept and may hold earlier parts), and writes
# to $OUT five files: run_corpus.md (the table), corpus_env.txt, corpus_compare_{cpu,gpu}.txt
# (bench/corpus_compare.py's verdicts, when a reference is there) and run_corpus.tar.gz (all of
# $WORK/corpus; stdout and stderr cut at 1 MiB each).
#   REPOS=/abs/.corpus OUT=/tmp/out bench/run_corpus.sh ref cpu
# Settings (environment): REPOS (the trees; default .corpus), G (gpulab; default build/gpu/bin/gpulab,
# else build/cpu-only/bin/gpulab), ONLY (ids, comma-separated), REF_TIMEOUT (60 s a run),
# BUILD_TIMEOUT (300 s an nvcc build), EMU_TIMEOUT (120 s, gpulab's --timeout), EMU_THREADS (16),
# REF_JOBS (8 builds and runs at once), EMU_JOBS (4 gpulab runs at once), DEADLINE (420 s: after it
# no new program starts; those left are marked "deadline"), ARCH (sm_90).
set -uo pipefail
start=$(date +%s)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
manifest=${MANIFEST:-$root/bench/run_corpus.tsv}
OUT=${OUT:-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ -n "${WORK:-}" ]; then keep_work=1; else keep_work=0; WORK=$(mktemp -d /tmp/run_corpus.XXXXXX); fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
REPOS=$(cd "${REPOS:-.corpus}" 2> /dev/null && pwd) ||
  { echo "run_corpus: no trees at ${REPOS:-.corpus}: run bench/corpus_prepare.sh DEST first and set REPOS=DEST" >&2; exit 2; }
if [ -z "${G:-}" ]; then
  if [ -x build/gpu/bin/gpulab ]; then G=build/gpu/bin/gpulab; else G=build/cpu-only/bin/gpulab; fi
fi
G=$(realpath "$G")
for lib in build/gpu/lib build/cpu-only/lib; do
  [ -d "$lib" ] && export LD_LIBRARY_PATH=$root/$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} && break
done
export PATH=/usr/local/cuda/bin:$PATH
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpulab-run-corpus-cache}
REF_TIMEOUT=${REF_TIMEOUT:-60} BUILD_TIMEOUT=${BUILD_TIMEOUT:-300} EMU_TIMEOUT=${EMU_TIMEOUT:-120}
EMU_THREADS=${EMU_THREADS:-16} REF_JOBS=${REF_JOBS:-8} EMU_JOBS=${EMU_JOBS:-4}
DEADLINE=${DEADLINE:-420} ARCH=${ARCH:-sm_90} ONLY=${ONLY:-}
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(ref cpu)
export G OUT WORK REPOS REF_TIMEOUT BUILD_TIMEOUT EMU_TIMEOUT EMU_THREADS ARCH start DEADLINE manifest

# One line of the manifest as shell variables: id repo commit folder files flags args kind.
# `flagv` gets the flags with -I paths made absolute (relative to the repository's tree).
program() {
  local want=$1 line
  # (fields joined by \x1f: read would merge the empty fields between tabs)
  line=$(awk -F'\t' -v OFS=$'\x1f' -v id="$want" '$1 == id {$1 = $1; print}' "$manifest")
  IFS=$'\x1f' read -r id repo commit folder files flags args kind teaches outcome <<< "$line"
  tree="$REPOS/${repo/\//+}"
  dir="$tree/$folder"
  set -f
  local raw=($flags)
  set +f
  flagv=()
  for ((i = 0; i < ${#raw[@]}; i++)); do
    case ${raw[i]} in
      -I) flagv+=(-I "$tree/${raw[i+1]}"); i=$((i + 1)) ;;
      -I*) flagv+=("-I$tree/${raw[i]#-I}") ;;
      *) flagv+=("${raw[i]}") ;;
    esac
  done
  set -f
  filev=($files)
  argv=($args)
  set +f
}
export -f program

# The tree must be at the manifest's commit: a stamp written by corpus_prepare.sh, or a checkout.
tree_ok() {
  local stamp
  stamp=$(cat "$tree/.corpus-commit" 2> /dev/null || git -C "$tree" rev-parse HEAD 2> /dev/null)
  [ "$stamp" = "$commit" ]
}
export -f tree_ok

past_deadline() { [ $(($(date +%s) - start)) -ge "$DEADLINE" ]; }
export -f past_deadline

now() { date +%s.%N; }
export -f now

# runs one program's part; its results under $WORK/corpus/<part>/
one() {
  local part=$1 id=$2 d="$WORK/corpus/$1" t0 rc
  program "$id"
  mkdir -p "$d"
  if ! tree_ok; then
    echo "no tree of $repo at $commit under $REPOS" > "$d/$id.err"; : > "$d/$id.out"; echo tree > "$d/$id.rc"
    return
  fi
  if past_deadline; then
    echo "not started: the run passed DEADLINE=$DEADLINE s" > "$d/$id.err"; : > "$d/$id.out"; echo deadline > "$d/$id.rc"
    return
  fi
  t0=$(now)
  case $part in
    ref)
      local bin="$WORK/bin/$id"
      mkdir -p "$WORK/bin"
      (cd "$dir" && timeout -k 5 "$BUILD_TIMEOUT" nvcc -arch="$ARCH" "${flagv[@]}" "${filev[@]}" -o "$bin") \
        > "$d/$id.build.log" 2>&1
      rc=$?
      if [ $rc -ne 0 ] || [ ! -x "$bin" ]; then
        : > "$d/$id.out"; cp "$d/$id.build.log" "$d/$id.err"; echo build > "$d/$id.rc"
      else
        (cd "$dir" && timeout -k 5 "$REF_TIMEOUT" "$bin" "${argv[@]}" < /dev/null) > "$d/$id.out" 2> "$d/$id.err"
        rc=$?
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
          echo timeout > "$d/$id.rc"
        else
          echo $rc > "$d/$id.rc"
          # a second run: the lines that change from run to run are not compared
          (cd "$dir" && timeout -k 5 "$REF_TIMEOUT" "$bin" "${argv[@]}" < /dev/null) > "$d/$id.out2" 2> "$d/$id.err2"
          echo $? > "$d/$id.rc2"
        fi
      fi
      ;;
    sanitize)
      local bin="$WORK/bin/$id.san"
      mkdir -p "$WORK/bin"
      (cd "$dir" && timeout -k 5 "$BUILD_TIMEOUT" nvcc -arch="$ARCH" -lineinfo "${flagv[@]}" "${filev[@]}" -o "$bin") \
        > "$d/$id.build.log" 2>&1
      if [ ! -x "$bin" ]; then
        : > "$d/$id.out"; cp "$d/$id.build.log" "$d/$id.err"; echo build > "$d/$id.rc"
      else
        (cd "$dir" && timeout -k 5 $((REF_TIMEOUT * 4)) compute-sanitizer --tool "${SANITIZER_TOOL:-memcheck}" \
          --print-limit 20 "$bin" "${argv[@]}" < /dev/null) > "$d/$id.out" 2> "$d/$id.err"
        echo $? > "$d/$id.rc"
      fi
      ;;
    cpu | gpu | check)
      local backend=$part opts=()
      [ "$part" = check ] && backend=cpu opts=(--check)
      [ "$backend" = cpu ] && opts+=(--emu-threads "$EMU_THREADS")
      (cd "$dir" && timeout -k 5 $((EMU_TIMEOUT + BUILD_TIMEOUT)) "$G" run --backend "$backend" "${opts[@]}" --timeout "$EMU_TIMEOUT" --json \
        --report "$d/$id.report.json" "${flagv[@]}" "${filev[@]}" -- "${argv[@]}" < /dev/null) \
        > "$d/$id.out" 2> "$d/$id.err"
      echo $? > "$d/$id.rc"
      ;;
  esac
  local f
  for f in "$d/$id".{out,err,out2,err2}; do  # a program that prints without end: its first MiB
    [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -le 1048576 ] || truncate -s 1M "$f"
  done
  echo "$(now) $t0" | awk '{printf "%.1f\n", $1 - $2}' > "$d/$id.time"
  echo "[$part] $id: exit $(cat "$d/$id.rc") in $(cat "$d/$id.time") s"
}
export -f one

# programs whose recorded outcome is a timeout start first (the longest first keeps the parallel
# runs short), the others in the manifest's order
mapfile -t ids < <(awk -F'\t' '!/^#/ && NF > 1 && $10 ~ /^timeout/ {print $1}' "$manifest"
  awk -F'\t' '!/^#/ && NF > 1 && $10 !~ /^timeout/ {print $1}' "$manifest")
if [ -n "$ONLY" ]; then
  IFS=, read -r -a ids <<< "$ONLY"
fi

{
  echo "date: $(date -u +%FT%TZ)"
  echo "gpulab: $("$G" --version 2>&1 | head -1)"
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -2 | tr '\n' ' ')"
  echo "gpu: $(nvidia-smi -L 2>/dev/null | head -1)"
  echo "cpus: $(nproc)"
  echo "settings: REF_TIMEOUT=$REF_TIMEOUT EMU_TIMEOUT=$EMU_TIMEOUT EMU_THREADS=$EMU_THREADS REF_JOBS=$REF_JOBS EMU_JOBS=$EMU_JOBS DEADLINE=$DEADLINE ARCH=$ARCH"
} > "$OUT/corpus_env.txt"
mkdir -p "$WORK/corpus"
cp "$OUT/corpus_env.txt" "$WORK/corpus/env.txt"

for part in "${parts[@]}"; do
  case $part in
    ref | sanitize) jobs=$REF_JOBS ;;
    cpu | gpu) jobs=$EMU_JOBS ;;
    check)
      jobs=$EMU_JOBS
      # only the programs the emulator ran with exit 0
      mapfile -t ids < <(for i in "${ids[@]}"; do
        [ "$(cat "$WORK/corpus/cpu/$i.rc" 2> /dev/null)" = 0 ] && echo "$i"; done)
      ;;
    *) echo "run_corpus: unknown part $part (ref, cpu, gpu, check, sanitize)" >&2; exit 2 ;;
  esac
  echo "== $part: ${#ids[@]} programs, $jobs at a time ($(($(date +%s) - start)) s so far)"
  printf '%s\n' "${ids[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$0" "$1"' "$part" {}
done

# the table: one line per program, each part's exit and seconds
{
  printf '| program | kind |'
  for p in "${parts[@]}"; do printf ' %s exit | %s s |' "$p" "$p"; done
  printf '\n|---|---|'
  for p in "${parts[@]}"; do printf -- '---|---|'; done
  printf '\n'
  awk -F'\t' '!/^#/ && NF > 1 {print $1 "\t" $8}' "$manifest" | while IFS=$'\t' read -r id kind; do
    printf '| %s | %s |' "$id" "$kind"
    for p in "${parts[@]}"; do
      printf ' %s | %s |' "$(cat "$WORK/corpus/$p/$id.rc" 2> /dev/null || echo -)" \
        "$(cat "$WORK/corpus/$p/$id.time" 2> /dev/null || echo -)"
    done
    printf '\n'
  done
} > "$OUT/run_corpus.md"

if [ -d "$WORK/corpus/ref" ] && command -v python3 > /dev/null; then
  for p in cpu gpu; do
    [ -d "$WORK/corpus/$p" ] || continue
    python3 bench/corpus_compare.py "$WORK/corpus/ref" "$WORK/corpus/$p" > "$OUT/corpus_compare_$p.txt" 2>&1
    tail -3 "$OUT/corpus_compare_$p.txt"
  done
fi
rm -rf "$WORK/bin"
left=$(grep -lx deadline "$WORK"/corpus/*/*.rc 2> /dev/null | xargs -r -n1 basename | sed 's/\.rc$//' | sort -u | paste -sd, -)
[ -z "$left" ] || echo "run_corpus: not started before DEADLINE; run them with ONLY=$left" | tee -a "$OUT/run_corpus.md"
tar -czf "$OUT/run_corpus.tar.gz" -C "$WORK" corpus
[ "$keep_work" = 1 ] || rm -rf "$WORK"
echo "run_corpus: done in $(($(date +%s) - start)) s; $OUT/run_corpus.md, $OUT/run_corpus.tar.gz ($(du -k "$OUT/run_corpus.tar.gz" | cut -f1) KiB)"
