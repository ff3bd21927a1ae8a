// compute-sanitizer's text output (memcheck, racecheck, synccheck, initcheck) read back into the
// findings gpulab run reports on the emulator: the same kinds and facts (kernel, block, thread,
// bytes, FILE:LINE from -lineinfo), so that one report shape serves both backends.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gpulab::run {

struct SanitizerReport {
  // One object per finding, as the emulator's report lines: "kind" (out_of_bounds,
  // misaligned_access, shared_race, kernel_fault, uninitialized_read, leak, launch_error),
  // "where" (FILE:LINE as the tool printed it, or ""), "other_where" for races, and the facts it
  // printed: "kernel", "block", "thread", "bytes", "write", "space" (global, shared, local),
  // "offset" and "region_bytes" (from the nearest allocation), "hits" (a race's hazards),
  // "message" (the tool's own first line), "tool".
  std::vector<nlohmann::json> findings;
  int errors = -1;  // the tool's ERROR SUMMARY (racecheck: its hazard count); -1: not printed
};

// Reads the output of one tool ("memcheck", "racecheck", "synccheck", "initcheck"): the lines
// that start with the tool's prefix "========= "; anything else (the program's output) is skipped.
SanitizerReport parse_sanitizer_output(const std::string& tool, const std::string& text);

// "fill<3>" from "fill<3>", "fill<3>(int*)" or "void fill<3>(int*)": a function's name as the
// tools and the demangler print it, without its parameters and return type.
std::string bare_function_name(std::string name);

}  // namespace gpulab::run
