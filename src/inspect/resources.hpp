// What ptxas and the cubin say about each kernel: nvcc --resource-usage's report parsed (registers,
// barriers, shared, local and constant memory, spills) and the section sizes of a cubin (ELF).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_fields.hpp"

namespace gpulab {

// What ptxas reports for one kernel (nvcc --resource-usage), plus the cubin's own section sizes.
struct KernelResources {
  std::string mangled;     // "_Z10vector_addPKiS0_Pii"
  std::string name;        // demangled: "vector_add(int const*, int const*, int*, int)"
  std::string short_name;  // "vector_add"
  int registers = 0;
  int barriers = 0;
  std::int64_t static_shared_bytes = 0;  // "bytes smem"
  std::int64_t stack_frame_bytes = 0, spill_store_bytes = 0, spill_load_bytes = 0;
  std::int64_t cumulative_stack_bytes = 0;           // with the functions it calls
  std::optional<std::int64_t> constant_bank0_bytes;  // "cmem[0]", or the cubin's .nv.constant0
  std::optional<std::int64_t> cubin_shared_bytes;    // the cubin's .nv.shared section
};
// The figures in JSON under the members' names, as `gpulab inspect --json` shows them (it adds the
// kernel's "name" and "signature").
GPULAB_JSON_WRITER(KernelResources, mangled, registers, barriers, static_shared_bytes,
                   stack_frame_bytes, spill_store_bytes, spill_load_bytes, cumulative_stack_bytes,
                   constant_bank0_bytes, cubin_shared_bytes)

// The kernels in nvcc --resource-usage (ptxas info) output, in the order ptxas lists them.
std::vector<KernelResources> parse_resource_usage(std::string_view ptxas_output);
// Section name -> size of a 64-bit little-endian ELF file (a cubin); empty when it is not one.
std::map<std::string, std::uint64_t> elf_section_sizes(std::string_view elf);
// "foo(int*)" -> "foo"; "ns::bar<4>(float)" -> "ns::bar<4>".
std::string kernel_short_name(const std::string& demangled);

}  // namespace gpulab
