// inspect's engine: a student's .cu compiled with nvcc for one architecture, ptxas's resource
// report and the cubin read per kernel, the occupancy that follows, and (on request) the PTX or
// SASS listings with the source lines interleaved. The command (commands/inspect) parses the
// options and renders the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calc/occupancy.hpp"
#include "core/output.hpp"
#include "inspect/listing.hpp"
#include "inspect/resources.hpp"

namespace gpulab {

struct InspectedKernel {
  KernelResources res;
  calc::Occupancy occ;
  std::vector<ListingLine> ptx, sass;
  std::vector<InstructionNote> ptx_notes, sass_notes;  // those that occur in the listing
};

struct InspectOptions {
  std::string file;
  std::string kernel;  // empty: every kernel
  int arch = 75;       // sm_XX
  bool ptx = false, sass = false;
  int threads = 256;
  std::int64_t dynamic_shared = 0;
};

struct InspectResult {
  std::string file;
  std::string arch;  // "sm_90"
  std::string nvcc, nvcc_version;
  std::vector<std::string> nvcc_command;
  std::string sass_tool;  // "nvdisasm" or "cuobjdump" (when --sass)
  // --sass without nvdisasm and cuobjdump: what to install; the PTX is shown instead.
  std::string sass_missing;
  std::vector<InspectedKernel> kernels;
};

// Throws RuntimeFailure when nvcc (or the --sass tool) is missing, naming what to install, or when
// the file does not compile, with nvcc's messages; UsageError for an unknown --kernel.
InspectResult run_inspect(const InspectOptions& o, Lang lang);

}  // namespace gpulab
