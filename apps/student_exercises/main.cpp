// Build tool of gpulab's student edition (GPULAB_STUDENT_EDITION=ON): writes each exercise file
// given without its solution, planted mistakes and final hint (exercise/edition.hpp) into a
// folder, from which the build embeds them. Usage: student_exercises OUT_DIR FILE...
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "exercise/edition.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: student_exercises OUT_DIR FILE...\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);
  for (int i = 2; i < argc; ++i) {
    const std::filesystem::path in = argv[i];
    std::ifstream f(in, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (!f.good() && !f.eof()) {
      std::cerr << "student_exercises: cannot read " << in << "\n";
      return 1;
    }
    const bool exercise = in.extension() == ".txt";
    std::ofstream o(out / in.filename(), std::ios::binary);
    o << (exercise ? gpulab::exercise::student_edition(text) : text);
    if (!o) {
      std::cerr << "student_exercises: cannot write " << (out / in.filename()) << "\n";
      return 1;
    }
  }
  return 0;
}
