// SHA-256 (core/sha256.hpp) against the FIPS 180-4 examples, across a block boundary, of a file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/sha256.hpp"

TEST_CASE("sha256: the standard's examples and a file", "[sha256]") {
  CHECK(gpulab::sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(gpulab::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(gpulab::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(gpulab::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  const auto p =
      std::filesystem::temp_directory_path() / ("gpulab-sha256-" + std::to_string(::getpid()));
  std::ofstream(p, std::ios::binary) << "abc";
  CHECK(gpulab::sha256_file(p) ==
        std::optional<std::string>(
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  std::filesystem::remove(p);
  CHECK_FALSE(gpulab::sha256_file(p).has_value());
}
