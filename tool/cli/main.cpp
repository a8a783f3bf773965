// SPDX-License-Identifier: MIT
#include "cli/app.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    try {
        int rc = rdmastat::run_cli({argv + 1, argv + argc}, std::cout, std::cerr);
        std::cout.flush();
        if (!std::cout) {
            std::cerr << "rdmastat: standard output: write error\n";
            return 2;
        }
        return rc;
    } catch (const std::exception& e) {
        std::cerr << "rdmastat: " << e.what() << '\n';
        return 2;
    }
}
