// SPDX-License-Identifier: MIT
// libFuzzer target: snapshot JSON (--input). A snapshot that loads is rendered
// as the text listing and as JSON, as `rdmastat --input FILE -a -p -e` and `-j` would.
// The parser must also agree with nlohmann's on what is JSON (differential).
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "render/text.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::istringstream in(text);
    auto snap = parse_snapshot_json(in, "fuzz.json");
    const std::string why = snap ? "" : snap.error();
    // A limit stops the parser before it judges the rest of the text.
    const bool limit = why.find("fuzz.json: JSON ") == 0;
    const bool refused = why.find("fuzz.json: not valid JSON at byte ") == 0;
    // nlohmann takes a NUL outside strings for the end of the text; RFC 8259 does not.
    const bool nul = text.find('\0') != std::string::npos;
    if (!limit && !nul && refused == nlohmann::json::accept(text)) std::abort();
    if (!snap) return 0;
    std::vector<const Connection*> all;
    for (const Connection& c : snap.value().connections)
        all.push_back(&c);
    std::ostringstream out;
    render_listing(out, all, TextOptions{true, false, true, true});
    write_snapshot_json(out, snap.value(), all, false);
    return 0;
}
