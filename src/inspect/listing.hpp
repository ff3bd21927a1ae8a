// Code listings with the source beside them: a kernel's PTX (from its .loc directives) or SASS
// (nvdisasm -g, or cuobjdump without line numbers) with the source lines it came from in between,
// and the instructions in it worth knowing, explained in both languages.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpulab {

struct ListingLine {
  int source_line = 0;  // > 0: a line of the source (text is that line), else code
  std::string file;     // the source file of a source line
  std::string text;
};

struct InstructionNote {
  std::string opcode;  // "ld.global", "LDG"
  std::string en, zh;
};

// Source files by path, read once.
class Sources {
 public:
  const std::vector<std::string>& lines(const std::string& path);
  ListingLine line(const std::string& path, int number);

 private:
  std::map<std::string, std::vector<std::string>> files_;
};

using Listings = std::map<std::string, std::vector<ListingLine>>;  // kernel (mangled) -> listing

// Kernel (mangled) -> its PTX body with the source lines of its .loc directives in between.
Listings ptx_listings(const std::string& ptx, Sources& sources);
// nvdisasm -g -c: "//## File "x.cu", line 12" before the instructions of that line.
Listings sass_listings_nvdisasm(const std::string& text, Sources& sources);
// cuobjdump -sass: "Function : NAME", then "/*0000*/  INSN ;  /* encoding */", no line numbers.
Listings sass_listings_cuobjdump(const std::string& text);
// Functions are padded with NOPs to an alignment after their last branch: not the kernel's code.
void drop_padding(Listings& listings);

// The instructions of the listing that are worth knowing, in the order of the notes' table.
std::vector<InstructionNote> ptx_notes(const std::vector<ListingLine>& listing);
std::vector<InstructionNote> sass_notes(const std::vector<ListingLine>& listing);

}  // namespace gpulab
