// SPDX-License-Identifier: MIT
// libFuzzer target: the ss-style filter grammar. The input is split into words
// on whitespace (as the shell would), parsed, and a filter that parses is
// evaluated against every connection of the lab's snapshot.
#include "analysis/filter.h"
#include "fixture.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    auto filter = Filter::parse(words);
    if (!filter) return 0;
    for (const Connection& c : fuzz::lab_snapshot().connections)
        (void)filter.value().matches(c);
    return 0;
}
