// SPDX-License-Identifier: MIT
// One main for Catch2 2 and 3 (version 3 no longer defines it from a macro).
#define CATCH_CONFIG_RUNNER
#include "catch_compat.hpp"

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
