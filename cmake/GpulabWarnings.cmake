# Warnings for gpulab's own targets: -Wall -Wextra -Wpedantic, errors when GPULAB_WERROR is on.
include(GNUInstallDirs)
add_library(gpulab_warnings INTERFACE)
target_compile_options(gpulab_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPULAB_WERROR}>>:-Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPULAB_WERROR}>>:-Werror=all-warnings>)
