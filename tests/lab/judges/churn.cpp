// SPDX-License-Identifier: MIT
// [lab] tests of listing under churn: judge what tests/lab/scenarios/churn.sh
// wrote in the guest (every listing while ids were created and destroyed at a
// high rate). Run by tests/lab/check.sh.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"churn"};

} // namespace

TEST_CASE("lab: listings under churn all succeed and are well-formed", "[lab][churn]") {
    long created = 0;
    for (const char* dev : {"siw", "rxe"}) {
        INFO(dev);
        CHECK(std::stoi(ev.text(std::string(dev) + ".rc")) == 0);
        std::istringstream in(ev.text(std::string("created-") + dev));
        std::string word;
        long n = 0;
        in >> word >> n;
        CHECK(word == "created");
        created += n;
    }
    CHECK(created >= 2000); // both churners went round many times

    std::istringstream rounds(ev.text("rounds"));
    long round = 0, a = 0, b = 0, c = 0, seen = 0, with_ids = 0, max_ids = 0;
    while (rounds >> round >> a >> b >> c) {
        INFO("round " << round << ": "
                      << ev.text("list-" + std::to_string(round) + ".err"));
        CHECK(a == 0);
        CHECK(b == 0);
        CHECK(c == 0);
        json list = json::parse(ev.text("list-" + std::to_string(round) + ".json"));
        REQUIRE(list.at("version") == 1);
        CHECK(list.at("source") == "nldev");
        REQUIRE(list.at("connections").is_array());
        for (const json& conn : list["connections"]) {
            CHECK(conn.at("device").is_string());
            CHECK(conn.at("cm_id").is_number_unsigned());
            CHECK(conn.at("state").is_string());
        }
        json lsof = json::parse(ev.text("lsof-" + std::to_string(round) + ".json"));
        CHECK(lsof.at("version") == 1);
        long n = static_cast<long>(list["connections"].size());
        with_ids += n > 0;
        max_ids = std::max(max_ids, n);
        ++seen;
    }
    CHECK(seen >= 5);
    CHECK(with_ids >= 3); // the listings ran while ids existed
    WARN(seen << " rounds, up to " << max_ids << " cm_ids listed, " << created << " ids created");
}
