// SPDX-License-Identifier: MIT
// The tests' fixtures folder, for the unit tests and the fuzzers.
#pragma once

#include <string>

/// tests/fixtures of the tree the tests were built from. Its path is compiled
/// into fixtures_dir.cpp alone, not into every test's command line, so that
/// ccache, keyed on paths relative to the tree, serves a clone in another
/// folder what an earlier build compiled.
std::string fixtures_dir();
