// SPDX-License-Identifier: MIT
#include "cli/app.h"
#include "cli/say.h"

#include <cstring>
#include <exception>
#include <iostream>

#ifdef RDMASTAT_HELPER
#include <sys/prctl.h>

// rdmastat execs this helper with the command line the user typed
// (cli/delegate.cpp), and exec names the process after the helper's file. The
// name the user typed goes back into comm, which ps, top, rdma and rdmastat's
// own listings show; every thread made later inherits it.
static void keep_typed_name(const char* argv0) {
    if (!argv0 || !*argv0) return;
    const char* slash = std::strrchr(argv0, '/');
    const char* name = slash ? slash + 1 : argv0;
    if (*name) prctl(PR_SET_NAME, name, 0, 0, 0); // the kernel keeps 15 bytes
}
#endif

int main(int argc, char** argv) {
#ifdef RDMASTAT_HELPER
    keep_typed_name(argv[0]);
#endif
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
