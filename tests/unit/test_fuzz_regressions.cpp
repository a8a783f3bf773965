// SPDX-License-Identifier: MIT
// Inputs the fuzzers (tests/fuzz) found crashing or tripping a sanitizer,
// replayed through the same parsers. The unit tests also run under ASan and
// UBSan (make check, build-asan), where the old bugs would abort the run.
#include "collect/module_parse.h"
#include "collect/nldev_parse.h"
#include "collect/snapshot_file.h"
#include "collect/sockdiag_parse.h"
#include "support.h"

#include <filesystem>
#include <limits>

using namespace rdmastat;
using rdmastat::test::snapshot_from_text;
namespace fs = std::filesystem;

namespace {

std::vector<Bytes> regressions(const std::string& target) {
    std::vector<Bytes> out;
    for (const auto& e :
         fs::directory_iterator(fixtures_dir() + "/../fuzz/regressions/" + target)) {
        std::string text = test::read_file(e.path().string());
        out.emplace_back(text.begin(), text.end());
    }
    REQUIRE_FALSE(out.empty());
    return out;
}

} // namespace

TEST_CASE("fuzz regressions: an error code of INT_MIN is an unknown error") {
    // negating INT_MIN was undefined behaviour (found by fuzz_nldev)
    for (const Bytes& b : regressions("nldev")) {
        auto driver = parse_chardev_driver(b);
        REQUIRE_FALSE(driver.ok());
        CHECK(driver.error_code() == std::numeric_limits<int>::max());
        CHECK_FALSE(parse_device_dump(b).ok());
    }
}

TEST_CASE("fuzz regressions: extended-ack attributes after an odd-sized echoed request") {
    // the TLVs were read at the unaligned end of the echoed request (found by
    // fuzz_module and fuzz_sockdiag); they start at the next 4-byte boundary
    for (const Bytes& b : regressions("module")) {
        CHECK_FALSE(parse_module_dump(b).ok());
        CHECK_FALSE(parse_module_qp_dump(b).ok());
    }
    for (const Bytes& b : regressions("sockdiag"))
        CHECK_FALSE(parse_inet_diag_dump(b).ok());
}

TEST_CASE("fuzz regressions: a number with a fraction as a whole list element") {
    // the element was handed over (and cleared) before its value was stored
    // in it: a write before the start of an empty vector (found by fuzz_snapshot)
    for (const Bytes& b : regressions("snapshot"))
        CHECK_FALSE(snapshot_from_text(std::string(b.begin(), b.end())).ok());
    CHECK(snapshot_from_text(R"({"version": 1, "connections": [1.5]})").error() ==
          "test.json: connections[0]: expected an object");
}
