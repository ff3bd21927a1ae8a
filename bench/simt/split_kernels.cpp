// split_kernels IN OUT [--no-regions]: writes IN as gpulab run compiles it for the emulator
// (src/run/split: kernels with barriers as region loops or coroutines, yields in spin loops,
// warp-synchronous volatile accesses in rounds), with
// a #line directive naming IN, so that a benchmark can build its kernels the way a student's
// program is built. --no-regions: coroutines only (the form before region loops).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "run/split.hpp"

int main(int argc, char** argv) {
  const bool regions = argc != 4;
  if ((argc != 3 && argc != 4) || (argc == 4 && std::string(argv[3]) != "--no-regions")) {
    std::fprintf(stderr, "usage: split_kernels IN OUT [--no-regions]\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "split_kernels: cannot read %s\n", argv[1]);
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const gpulab::run::Split split = gpulab::run::split_kernels(text.str(), true, regions);
  std::ofstream out(argv[2], std::ios::binary);
  out << "#line 1 \"" << argv[1] << "\"\n" << split.text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "split_kernels: cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf(
      "split_kernels: %s: %d kernels as region loops, %d as coroutines, %d spin loops; %d calls "
      "inlined, %d atomic adds deferred, %d volatile accesses in rounds\n",
      argv[1], split.regions, split.kernels - split.regions, split.spin_loops, split.inlined,
      split.deferred_adds, split.lockstep_accesses);
  return 0;
}
