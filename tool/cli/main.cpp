// SPDX-License-Identifier: MIT
#include "cli/app.h"
#include "cli/say.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    try {
        int rc = rdmastat::run_cli({argv + 1, argv + argc}, std::cout, std::cerr);
        std::cout.flush();
        if (!std::cout) {
            rdmastat::say(std::cerr, "standard output", "write error");
            return 2;
        }
        return rc;
    } catch (const std::exception& e) {
        rdmastat::say(std::cerr, "", e.what());
        return 2;
    }
}
