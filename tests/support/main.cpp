// The Catch2 main of every gpulab test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
