// SPDX-License-Identifier: MIT
#pragma once

/// The rdmastat command line: parses args (without argv[0]), runs the command,
/// writes results to out and the one error line to err, returns the exit code
/// (0 success, 1 "found something" where a command defines it, 2 usage or
/// runtime error). main() is a thin wrapper, so tests drive the whole tool here.

#include <ostream>
#include <string>
#include <vector>

namespace rdmastat {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace rdmastat
