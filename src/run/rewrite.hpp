// Turns a student's CUDA file into C++ that g++ compiles against the emulator: the launch syntax
// `kernel<<<grid, block, bytes, stream>>>(args)` becomes a call into the emulated runtime, every
// line keeps its number, and features the emulator cannot run are named before compiling.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpulab::run {

// A feature found in the source that the emulator does not run (textures, inline PTX, ...).
struct Unsupported {
  int line = 0;            // 1-based, in the user's file
  std::string feature;     // "textures and surfaces"
  std::string feature_zh;  // "纹理和表面"
  std::string token;       // what was seen: "tex2D"
};

struct Rewritten {
  std::string text;  // starts with a #line directive naming the user's file
  int launches = 0;  // <<<...>>> launches rewritten
  // The first line that reads the clock (clock(), clock64(), %clock, %globaltimer), or 0: the
  // report says what the emulator's clock counts.
  int clock_line = 0;
  std::vector<Unsupported> unsupported;
};

// code[i] is true where source[i] is code (not a comment, a string or a character literal).
std::vector<bool> code_mask(std::string_view source);

// After `open` (an opening bracket of the source), its closing bracket `close`, counting code
// only (code: code_mask's); npos if none.
std::size_t matching_close(std::string_view source, const std::vector<bool>& code, std::size_t open,
                           char close);

// `path` is the name compile errors and reports will show (the user's file, absolute). The same
// rewrite serves the program's files and its own headers (the names it adds are unique per path).
Rewritten rewrite_for_emulator(std::string_view source, const std::string& path);

// An #include directive of the source (not one in a comment).
struct Include {
  int line = 0;
  std::string name;  // as written between the quotes or brackets
  bool quoted = false;
};
std::vector<Include> includes_of(std::string_view source);

}  // namespace gpulab::run
