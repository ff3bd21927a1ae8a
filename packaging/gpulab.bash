# bash completion for gpulab. It asks the binary (gpulab __complete WORD... CURRENT), so that new
# commands, options, lessons and exercises complete without a change here.
_gpulab() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\n'
  local out
  out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
  if [[ $'\n'$out$'\n' == *$'\n@file\n'* ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    COMPREPLY=($out)
  fi
}
complete -F _gpulab gpulab
