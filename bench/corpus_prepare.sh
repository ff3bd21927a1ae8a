#!/usr/bin/env bash
# Prepares the sources of the run corpus (bench/run_corpus.tsv) as plain trees, for a machine
# without the repositories: DEST/<owner>+<name>/ holds, at the manifest's commit, each program's
# folder (its source and header files only), the folders its -I flags name, the folders its
# files' "../x.h" includes reach, and cuda-samples' Common/ headers. DEST/<owner>+<name>/.corpus-commit
# records the commit (bench/run_corpus.sh checks it). Of the rest, only the files of a data/
# folder of up to 1 MiB each are kept (the samples' inputs and reference results, which
# dwtHaar1D and eigenvalues read); images, project files and binaries are left out.
#   bench/corpus_prepare.sh DEST          (MIRRORS: folder of <owner>+<name>/ git snapshots,
#                                          default /work/.mirror; each repo/ or repo/.git inside)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
manifest=${MANIFEST:-$here/run_corpus.tsv}
mirrors=${MIRRORS:-/work/.mirror}
dest=${1:?usage: bench/corpus_prepare.sh DEST (an absolute or relative folder; created)}
limit_mib=${LIMIT_MIB:-20}
[ -f "$manifest" ] || { echo "corpus_prepare: manifest $manifest not found" >&2; exit 2; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# The file kinds a program is built from; everything else (data, images, binaries) stays out.
keep_re='\.(cu|cuh|c|cc|cpp|cxx|h|hh|hpp|hxx|inl|inc|ipp|tcc)$'

gitdir_of() {  # the snapshot's git directory for owner/name
  local base="$mirrors/${1/\//+}"
  if [ -d "$base/repo/.git" ]; then echo "$base/repo/.git"; elif [ -d "$base/repo" ]; then echo "$base/repo"
  else return 1; fi
}

# extract GITDIR COMMIT OUTDIR PATH...: the kept files under each PATH (a folder or a file), blob by
# blob (a snapshot lacks its largest files, which git archive would stop at).
extract() {
  local gd=$1 commit=$2 out=$3; shift 3
  git --git-dir="$gd" ls-tree -r -z --full-tree "$commit" -- "$@" |
    while IFS= read -r -d '' entry; do
      local meta=${entry%%$'\t'*} path=${entry#*$'\t'}
      local type=${meta#* }; type=${type%% *}
      local sha=${meta##* }
      [ "$type" = blob ] || continue
      if ! [[ "$path" =~ $keep_re ]]; then
        [[ "$path" =~ /data/[^/]+$ ]] || continue
        [ "$(git --git-dir="$gd" cat-file -s "$sha" 2> /dev/null || echo 0)" -le 1048576 ] || continue
      fi
      [ -e "$out/$path" ] && continue
      mkdir -p "$out/$(dirname "$path")"
      if [ "${meta%% *}" = 120000 ]; then
        # a symbolic link (a course's prac1/helper_cuda.h -> ../helper_cuda.h): the file it names,
        # copied (a tree that travels to another machine keeps no links)
        local target
        target=$(normpath "$(dirname "$path")/$(git --git-dir="$gd" cat-file blob "$sha")")
        [ -n "$target" ] && git --git-dir="$gd" cat-file blob "$commit:$target" > "$out/$path" 2> /dev/null && continue
        rm -f "$out/$path"
        echo "corpus_prepare: $path links to a file outside the repository or not in it (left out)" >&2
        continue
      fi
      if ! git --git-dir="$gd" cat-file blob "$sha" > "$out/$path" 2> /dev/null; then
        rm -f "$out/$path"
        echo "corpus_prepare: $path is not in the snapshot (left out)" >&2
      fi
    done
}

# normalise a relative path (a/b/../c -> a/c); prints nothing when it leaves the repository
normpath() {
  local IFS=/ part out=()
  for part in $1; do
    case $part in
      '' | .) ;;
      ..) [ ${#out[@]} -gt 0 ] || return 0; unset 'out[${#out[@]}-1]' ;;
      *) out+=("$part") ;;
    esac
  done
  (IFS=/; echo "${out[*]}")
}

declare -A commit_of paths_of
programs=0
# (fields joined by \x1f: read would merge the empty fields between tabs)
while IFS=$'\x1f' read -r id repo commit folder files flags args kind teaches outcome; do
  [[ -z "$id" || "$id" == \#* ]] && continue
  programs=$((programs + 1))
  if [ -n "${commit_of[$repo]:-}" ] && [ "${commit_of[$repo]}" != "$commit" ]; then
    echo "corpus_prepare: $repo appears at two commits (${commit_of[$repo]}, $commit); one tree per repository" >&2
    exit 1
  fi
  commit_of[$repo]=$commit
  paths_of[$repo]+="$folder"$'\n'
  set -f
  flagv=($flags)
  set +f
  for ((i = 0; i < ${#flagv[@]}; i++)); do
    case ${flagv[i]} in
      -I) paths_of[$repo]+="${flagv[i+1]}"$'\n'; i=$((i + 1)) ;;
      -I*) paths_of[$repo]+="${flagv[i]#-I}"$'\n' ;;
    esac
  done
done < <(awk -F'\t' -v OFS=$'\x1f' '{$1 = $1; print}' "$manifest")

for repo in "${!commit_of[@]}"; do
  commit=${commit_of[$repo]}
  gd=$(gitdir_of "$repo") || { echo "corpus_prepare: no snapshot of $repo under $mirrors" >&2; exit 1; }
  git --git-dir="$gd" cat-file -e "$commit^{commit}" 2> /dev/null ||
    { echo "corpus_prepare: $repo's snapshot lacks commit $commit" >&2; exit 1; }
  out="$dest/${repo/\//+}"
  rm -rf "$out"
  mkdir -p "$out"
  mapfile -t paths < <(printf '%s' "${paths_of[$repo]}" | sort -u)
  [ "$repo" = NVIDIA/cuda-samples ] && paths+=(Common)
  extract "$gd" "$commit" "$out" "${paths[@]}"
  # headers the programs reach with "../dir/x.h": their folders too (one level, as the books use it)
  mapfile -t extra < <(
    for p in "${paths[@]}"; do
      [ -d "$out/$p" ] || continue
      grep -rhoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./[^"]+"' "$out/$p" 2> /dev/null |
        sed -E 's/.*"([^"]+)".*/\1/' | while read -r inc; do
          n=$(normpath "$p/$(dirname "$inc")")
          [ -n "$n" ] && echo "$n"
        done
    done | sort -u)
  [ ${#extra[@]} -eq 0 ] || extract "$gd" "$commit" "$out" "${extra[@]}"
  echo "$commit" > "$out/.corpus-commit"
  echo "$repo $commit -> $out ($(du -sk "$out" | cut -f1) KiB)"
done

total_kib=$(du -sk "$dest" | cut -f1)
echo "corpus_prepare: $programs programs from ${#commit_of[@]} repositories in $dest: $((total_kib / 1024)) MiB ($total_kib KiB)"
if [ "$total_kib" -gt $((limit_mib * 1024)) ]; then
  echo "corpus_prepare: $dest is over ${limit_mib} MiB; the device takes 64 MiB with gpulab's build" >&2
  exit 1
fi
