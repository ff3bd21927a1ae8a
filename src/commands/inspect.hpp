// gpulab inspect FILE.cu: compiles a student's file with nvcc and shows, per kernel, its
// registers, shared, local and constant memory, the occupancy that follows, and (--ptx, --sass)
// its code with the source lines interleaved and the key instructions explained.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calc/occupancy.hpp"
#include "commands/common.hpp"

namespace gpulab {

// What ptxas reports for one kernel (nvcc --resource-usage), plus the cubin's own section sizes.
struct KernelResources {
  std::string mangled;     // "_Z10vector_addPKiS0_Pii"
  std::string name;        // demangled: "vector_add(int const*, int const*, int*, int)"
  std::string short_name;  // "vector_add"
  int registers = 0;
  int barriers = 0;
  std::int64_t static_shared = 0;  // "bytes smem"
  std::int64_t stack_frame = 0, spill_stores = 0, spill_loads = 0;
  std::int64_t cumulative_stack = 0;           // with the functions it calls
  std::optional<std::int64_t> constant_bank0;  // "cmem[0]", or the cubin's .nv.constant0 section
  std::optional<std::int64_t> cubin_shared;    // the cubin's .nv.shared section
};

// The kernels in nvcc --resource-usage (ptxas info) output, in the order ptxas lists them.
std::vector<KernelResources> parse_resource_usage(std::string_view ptxas_output);
// Section name -> size of a 64-bit little-endian ELF file (a cubin); empty when it is not one.
std::map<std::string, std::uint64_t> elf_section_sizes(std::string_view elf);
// "foo(int*)" -> "foo"; "ns::bar<4>(float)" -> "ns::bar<4>".
std::string kernel_short_name(const std::string& demangled);

struct ListingLine {
  int source_line = 0;  // > 0: a line of the source (text is that line), else code
  std::string file;     // the source file of a source line
  std::string text;
};

struct InstructionNote {
  std::string opcode;  // "ld.global", "LDG"
  std::string en, zh;
};

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
std::string render_inspect(const InspectResult& r, const OutputOptions& out);
nlohmann::json inspect_json(const InspectResult& r);
void setup_inspect(CLI::App& app, GlobalOptions& g);

}  // namespace gpulab
