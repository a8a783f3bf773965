// SPDX-License-Identifier: MIT
// libFuzzer target: lsof's selectors. Each input line is one option: its first
// character picks it (p, c, u, i, a; anything else is ignored) and the rest is
// the value. Selectors that parse are run against the lab's snapshot.
#include "analysis/lsof.h"
#include "analysis/lsof_select.h"
#include "fixture.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    LsofSelectors sel;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        const std::string value = line.substr(1);
        bool ok = true;
        switch (line[0]) {
        case 'p':
            ok = add_pid_list(sel, value).ok();
            break;
        case 'c':
            ok = add_command(sel, value).ok();
            break;
        case 'u':
            ok = add_user_list(sel, value).ok();
            break;
        case 'a':
            sel.all_of = true;
            break;
        case 'i': {
            auto spec = parse_inet_spec(value);
            ok = spec.ok();
            if (ok) sel.inets.push_back(spec.value());
            break;
        }
        default:
            break;
        }
        if (!ok) return 0;
    }
    (void)select_lsof(fuzz::lab_snapshot(), sel);
    return 0;
}
