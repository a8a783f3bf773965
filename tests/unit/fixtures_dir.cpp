// SPDX-License-Identifier: MIT
#include "fixtures_dir.h"

std::string fixtures_dir() { return RDMASTAT_FIXTURES; }
