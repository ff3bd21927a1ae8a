// inspect's engine, its parsers: ptxas's resource report (kernels, device functions, spills, shared
// and constant memory), demangled kernel names, and the section sizes of an ELF file.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "inspect/resources.hpp"

using namespace gpulab;

TEST_CASE("parse_resource_usage reads each kernel's line and ignores device functions",
          "[inspect]") {
  const std::string text =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z10vector_addPKiS0_Pii' for 'sm_75'\n"
      "ptxas info    : Function properties for _Z10vector_addPKiS0_Pii\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compile time = 1.2 ms\n"
      "ptxas info    : Compiling entry function '_Z6spillyPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z6helperi\n"
      "    48 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Function properties for _Z6spillyPf\n"
      "    1536 bytes stack frame, 3280 bytes spill stores, 3380 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 1 barriers, 4096 bytes smem, 1584 bytes "
      "cumulative stack size\n";
  const auto v = parse_resource_usage(text);
  REQUIRE(v.size() == 2);
  CHECK(v[0].mangled == "_Z10vector_addPKiS0_Pii");
  CHECK(v[0].name == "vector_add(int const*, int const*, int*, int)");
  CHECK(v[0].short_name == "vector_add");
  CHECK(v[0].registers == 10);
  CHECK(v[0].static_shared_bytes == 0);
  CHECK(v[0].constant_bank0_bytes == 380);
  CHECK(v[1].short_name == "spilly");
  CHECK(v[1].registers == 24);
  CHECK(v[1].barriers == 1);
  CHECK(v[1].static_shared_bytes == 4096);
  CHECK(v[1].stack_frame_bytes == 1536);  // its own, not the helper's 48
  CHECK(v[1].spill_store_bytes == 3280);
  CHECK(v[1].spill_load_bytes == 3380);
  CHECK(v[1].cumulative_stack_bytes == 1584);
  CHECK_FALSE(v[1].constant_bank0_bytes.has_value());
}

TEST_CASE("kernel_short_name keeps template arguments and namespaces", "[inspect]") {
  CHECK(kernel_short_name("foo(int*)") == "foo");
  CHECK(kernel_short_name("ns::bar<4, (char)40>(float)") == "ns::bar<4, (char)40>");
  CHECK(kernel_short_name("plain") == "plain");
}

TEST_CASE("elf_section_sizes reads a 64-bit ELF file's section table", "[inspect]") {
  // A minimal ELF: header, a string table, and 3 section headers (null, .shstrtab, .nv.shared.k).
  std::string strtab = std::string("\0.shstrtab\0.nv.shared.k\0", 24);
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;  // 64-bit
  elf[5] = 1;  // little-endian
  const std::uint64_t strtab_at = 64, shoff = 64 + 32;
  elf += strtab;
  elf.resize(shoff, '\0');
  auto put = [&](std::size_t at, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
      elf[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
  };
  put(0x28, shoff, 8);
  put(0x3A, 64, 2);
  put(0x3C, 3, 2);
  put(0x3E, 1, 2);
  elf.resize(shoff + 3 * 64, '\0');
  put(shoff + 64 + 0, 1, 4);  // name ".shstrtab"
  put(shoff + 64 + 0x18, strtab_at, 8);
  put(shoff + 64 + 0x20, strtab.size(), 8);
  put(shoff + 128 + 0, 11, 4);  // name ".nv.shared.k"
  put(shoff + 128 + 0x20, 3072, 8);
  const auto sizes = elf_section_sizes(elf);
  CHECK(sizes.at(".shstrtab") == strtab.size());
  CHECK(sizes.at(".nv.shared.k") == 3072);
  CHECK(elf_section_sizes("not an elf file at all, but long enough to have a header .......")
            .empty());
  CHECK(elf_section_sizes(elf.substr(0, 100)).empty());  // truncated: no section table
  // A section table offset near 2^64 must not wrap around into the file.
  std::string wild = elf;
  for (int i = 0; i < 8; ++i) wild[0x28 + static_cast<std::size_t>(i)] = '\xff';
  CHECK(elf_section_sizes(wild).empty());
  // A name offset past the end is skipped, not read.
  std::string far_name = elf;
  for (int i = 0; i < 4; ++i) far_name[shoff + 128 + static_cast<std::size_t>(i)] = '\x7f';
  CHECK(elf_section_sizes(far_name).count(".nv.shared.k") == 0);
}
