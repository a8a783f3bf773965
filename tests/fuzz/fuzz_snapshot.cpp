// SPDX-License-Identifier: MIT
// libFuzzer target: snapshot JSON (--input). A snapshot that loads is rendered
// as the text listing and as JSON, as `rdmastat --input FILE -a -p -e` and `-j` would.
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "render/text.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    auto snap = parse_snapshot_json(in, "fuzz.json");
    if (!snap) return 0;
    std::vector<const Connection*> all;
    for (const Connection& c : snap.value().connections)
        all.push_back(&c);
    std::ostringstream out;
    render_listing(out, all, TextOptions{true, false, true, true});
    write_snapshot_json(out, snap.value(), all, false);
    return 0;
}
