// SPDX-License-Identifier: MIT
#pragma once

#include "common/error.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace rdmastat {

/// The whole file at path; a failure reads "PATH: strerror" with errno.
inline Result<std::string> read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Failure{path + ": " + std::strerror(errno), errno};
    std::ostringstream text;
    text << in.rdbuf();
    return std::move(text).str();
}

} // namespace rdmastat
