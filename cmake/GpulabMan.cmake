# Writes gpulab's man pages (English, and Chinese under zh_CN) from the binary's own help text:
#   cmake -DGPULAB=<gpulab binary> -DOUT=<folder> -P GpulabMan.cmake
foreach(lang en zh)
  if(lang STREQUAL "en")
    set(file ${OUT}/man1/gpulab.1)
  else()
    set(file ${OUT}/zh_CN/man1/gpulab.1)
  endif()
  get_filename_component(dir ${file} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${GPULAB} __man --lang ${lang} OUTPUT_FILE ${file}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gpulab __man --lang ${lang} failed: ${rc}")
  endif()
endforeach()
