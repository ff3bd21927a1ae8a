// Helpers shared by the SIMT emulator's tests: device buffers, fresh random seeds, source sites.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "simt/simt.hpp"

namespace simt_test {

// Emulated global memory, filled from / copied to host vectors like cudaMemcpy would.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n, T fill = T{})
      : n_(n), p_(static_cast<T*>(gpulab::simt::device_malloc(n * sizeof(T)))) {
    for (std::size_t i = 0; i < n; ++i) p_[i] = fill;
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    for (std::size_t i = 0; i < n_; ++i) p_[i] = host[i];
  }
  ~DeviceArray() { gpulab::simt::device_free(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  T* get() const { return p_; }
  std::vector<T> to_host() const { return std::vector<T>(p_, p_ + n_); }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  std::size_t n_;
  T* p_;
};

inline std::uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

// The line of `file` (in this directory) that holds the marker "site:<name>", as "file:line".
inline std::string site(const std::string& file, const std::string& name) {
  std::ifstream in(std::string(GPULAB_SIMT_TEST_DIR) + "/" + file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("site:" + name) != std::string::npos) return file + ":" + std::to_string(n);
  }
  throw std::runtime_error("no marker site:" + name + " in " + file);
}

inline gpulab::simt::RunOptions workers(unsigned n) {
  gpulab::simt::RunOptions o;
  o.workers = n;
  return o;
}

// Check mode (RunOptions::check), for kernels compiled with gpulab_simt_instrument().
inline gpulab::simt::RunOptions check_mode() {
  gpulab::simt::RunOptions o;
  o.check = true;
  return o;
}

}  // namespace simt_test
