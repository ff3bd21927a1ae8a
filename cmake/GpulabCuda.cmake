# Optional CUDA backend. AUTO builds it when nvcc is found; OFF builds the emulator alone.
# The default architectures are explicit: 'native' fails on a machine with no GPU.
set(GPULAB_HAVE_CUDA OFF)
if(NOT GPULAB_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
      # Turing (T4, RTX 20xx), Ampere (A100), Hopper (H100); each also embeds PTX for newer GPUs.
      set(CMAKE_CUDA_ARCHITECTURES "75;80;90" CACHE STRING "CUDA architectures" FORCE)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(GPULAB_HAVE_CUDA ON)
  elseif(GPULAB_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPULAB_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "gpulab: CUDA backend ${GPULAB_HAVE_CUDA}")
