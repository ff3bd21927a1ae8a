// What a student's exercise file may hold, checked before anything is compiled: device code
// (__global__ and __device__ functions, __device__/__constant__ numbers, types, constants) and
// nothing that runs on the host, changes how the harness or the checkers are built, or reaches
// the process (its files, environment, command line). Each refusal names the line.
#pragma once

#include <string>
#include <vector>

#include "exercise/catalog.hpp"

namespace gpulab::exercise {

struct Refusal {
  int line = 0;
  std::string what;  // a short key: host_code, directive, attribute, forbidden_name, ...
  Text text;         // "line 3: #pragma is not allowed in an exercise file (...)"
};

// The refusals for `text`, in the order of its lines (empty: the file may be built).
std::vector<Refusal> screen_source(const std::string& text);

// The __global__ signatures of an exercise's starter, each as a declaration ending in ';'
// ("__global__ void map_add_ten(const float* a, float* out, int n);").
std::vector<std::string> kernel_declarations(const std::string& starter);

}  // namespace gpulab::exercise
