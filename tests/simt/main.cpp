// Catch2's main for simt_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
