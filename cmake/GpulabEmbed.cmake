# gpulab_embed(<target> NAME <id> BASE <dir> FILES <files...>): compiles the files' bytes into the
# target, reachable as gpulab::embedded::<id>(), so that a copied binary still has its lessons and
# kernel sources.
set(GPULAB_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)
function(gpulab_embed target)
  cmake_parse_arguments(E "" "NAME;BASE" "FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${E_NAME}.cpp)
  set(list_file ${CMAKE_CURRENT_BINARY_DIR}/embedded_${E_NAME}.txt)
  file(WRITE ${list_file}.in "")
  foreach(f IN LISTS E_FILES)
    file(APPEND ${list_file}.in "${f}\n")
  endforeach()
  configure_file(${list_file}.in ${list_file} COPYONLY)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DNAME=${E_NAME} -DBASE=${E_BASE} -DLIST=${list_file} -DOUT=${out}
            -P ${GPULAB_EMBED_SCRIPT}
    DEPENDS ${E_FILES} ${list_file} ${GPULAB_EMBED_SCRIPT}
    COMMENT "Embedding ${E_NAME}" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
