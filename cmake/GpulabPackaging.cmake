# What `cmake --install` and `cpack -G DEB` add beside the binary: the man pages (made from the
# help by the built gpulab), the bash completion, and the Debian package's description.
set(gpulab_man_dir ${CMAKE_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${gpulab_man_dir}/man1/gpulab.1 ${gpulab_man_dir}/zh_CN/man1/gpulab.1
  COMMAND ${CMAKE_COMMAND} -DGPULAB=$<TARGET_FILE:gpulab> -DOUT=${gpulab_man_dir}
          -P ${CMAKE_CURRENT_LIST_DIR}/GpulabMan.cmake
  DEPENDS gpulab ${CMAKE_CURRENT_LIST_DIR}/GpulabMan.cmake
  COMMENT "Writing the man pages from gpulab's help"
  VERBATIM)
add_custom_target(gpulab_man ALL DEPENDS ${gpulab_man_dir}/man1/gpulab.1
  ${gpulab_man_dir}/zh_CN/man1/gpulab.1)

install(FILES ${gpulab_man_dir}/man1/gpulab.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${gpulab_man_dir}/zh_CN/man1/gpulab.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/zh_CN/man1)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/gpulab.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME gpulab)

set(CPACK_PACKAGE_NAME gpulab)
set(CPACK_PACKAGE_VENDOR gpulab)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "learn how GPUs work by running real CUDA kernels and explaining every number")
set(CPACK_PACKAGE_DESCRIPTION
  "gpulab runs the course's CUDA kernels on an NVIDIA GPU, or on its own CPU emulator of the SIMT model when there is none, and explains every number: lessons, a quiz, calculators for occupancy, Amdahl's law and latency hiding, and gpulab run for your own .cu programs.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "gpulab maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION education)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The libraries the binary links (libfmt, Boost.Context, libstdc++) found by dpkg-shlibdeps;
# g++ for gpulab run's emulator builds; bubblewrap for exercise grade's sandbox.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++, bash-completion, bubblewrap")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
include(CPack)
