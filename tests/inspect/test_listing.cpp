// inspect's engine, its listings: PTX with the source lines of its .loc directives, SASS from
// nvdisasm -g (with lines) and cuobjdump (without), the NOP padding dropped, and the notes on the
// instructions that occur.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "inspect/listing.hpp"

using namespace gpulab;

namespace {

// A source file of three lines in the test's own temporary folder.
std::string write_source() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gpulab-test-listing-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "k.cu").string();
  std::ofstream(path) << "__global__ void k(int* p) {\n  p[threadIdx.x] = 1;\r\n}\n";
  return path;
}

}  // namespace

TEST_CASE("ptx_listings interleaves each kernel's code with the lines of its .loc directives",
          "[inspect]") {
  const std::string src = write_source();
  const std::string ptx = ".version 8.0\n.file 1 \"" + src +
                          "\"\n"
                          ".visible .entry _Z1kPi(\n\t.param .u64 _Z1kPi_param_0\n)\n{\n"
                          "\t.loc 1 2 3\n\tld.param.u64 \t%rd1, [_Z1kPi_param_0];\n"
                          "\t.loc 1 2 3\n$L__tmp0:\n\tst.global.u32 \t[%rd1], %r1;\n"
                          "\t.loc 1 3 1\n\tret;\n\n}\n"
                          ".visible .entry _Z5otherv()\n{\n\tret;\n}\n";
  Sources sources;
  const Listings l = ptx_listings(ptx, sources);
  REQUIRE(l.count("_Z1kPi") == 1);
  REQUIRE(l.count("_Z5otherv") == 1);
  const auto& k = l.at("_Z1kPi");
  REQUIRE(k.size() == 10);
  CHECK(k[0].text == ".visible .entry _Z1kPi(");
  CHECK(k[1].text == ".param .u64 _Z1kPi_param_0");
  CHECK(k[3].text == "{");
  // A .loc repeated for the same line is shown once; the line's text is trimmed, '\r' included.
  CHECK(k[4].source_line == 2);
  CHECK(k[4].file == src);
  CHECK(k[4].text == "p[threadIdx.x] = 1;");
  CHECK(k[5].text == "ld.param.u64  %rd1, [_Z1kPi_param_0];");  // tabs become spaces
  CHECK(k[6].text == "st.global.u32  [%rd1], %r1;");            // $L__tmp labels left out
  CHECK(k[7].source_line == 3);
  CHECK(k[7].text == "}");
  CHECK(k[8].text == "ret;");
  CHECK(k[9].text == "}");
  CHECK(k[9].source_line == 0);
  const auto notes = ptx_notes(k);
  REQUIRE(notes.size() == 2);  // in the table's order, only those that occur
  CHECK(notes[0].opcode == "ld.param");
  CHECK(notes[1].opcode == "st.global");
  CHECK(ptx_notes(l.at("_Z5otherv")).empty());
  std::filesystem::remove_all(std::filesystem::path(src).parent_path());
}

TEST_CASE("SASS listings: nvdisasm's line markers, cuobjdump's functions, NOP padding dropped",
          "[inspect]") {
  const std::string nvdisasm =
      "//--------------------- .text._Z1kPi --------------------------\n"
      "\t//## File \"/nowhere/k.cu\", line 2\n"
      "        /*0000*/                   S2R R2, SR_TID.X ;\n"
      "\t//## File \"/nowhere/k.cu\", line 2\n"
      "        /*0010*/              @!P0 STG.E [R2.64], R5 ;\n"
      "        /*0020*/                   EXIT ;\n"
      "        /*0030*/                   NOP;\n"
      "        /*0040*/                   NOP;\n";
  Sources sources;
  Listings l = sass_listings_nvdisasm(nvdisasm, sources);
  drop_padding(l);
  const auto& k = l.at("_Z1kPi");
  REQUIRE(k.size() == 4);
  CHECK(k[0].source_line == 2);
  CHECK(k[0].text.empty());  // a file that cannot be read: the number without the text
  CHECK(k[1].text == "S2R R2, SR_TID.X");
  CHECK(k[2].text == "@!P0 STG.E [R2.64], R5");
  CHECK(k[3].text == "EXIT");
  const auto notes = sass_notes(k);  // a predicate (@!P0) does not hide the opcode
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].opcode == "S2R");
  CHECK(notes[1].opcode == "STG");
  CHECK(notes[2].opcode == "EXIT");

  const std::string cuobjdump =
      "\tcode for sm_75\n\t\tFunction : _Z1kPi\n"
      "        /*0000*/                   MOV R1, c[0x0][0x28] ;   /* 0x00000a0000017a02 */\n"
      "        /*0010*/                   LDG.E R0, [R2.64] ;      /* 0x0000000402007981 */\n";
  const Listings c = sass_listings_cuobjdump(cuobjdump);
  REQUIRE(c.at("_Z1kPi").size() == 2);
  CHECK(c.at("_Z1kPi")[1].text == "LDG.E R0, [R2.64]");
  CHECK(c.at("_Z1kPi")[1].source_line == 0);
}
