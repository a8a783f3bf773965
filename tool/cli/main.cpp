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
            return rdmastat::say_failed(std::cerr, "standard output", "write error");
        }
        return rc;
    } catch (const std::exception& e) {
        return rdmastat::say_failed(std::cerr, "", e.what());
    }
}
