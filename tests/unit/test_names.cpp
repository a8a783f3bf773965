// SPDX-License-Identifier: MIT
// The model's enums and their names: every value a kernel may send survives a
// trip through its name, which is what a saved snapshot holds.
#include "catch_compat.hpp"
#include "model/names.h"
#include "support.h"

using namespace rdmastat;
using namespace rdmastat::test;

TEST_CASE("names: every CM state, QP state and QP type survives its name", "[names]") {
    for (unsigned v = 0; v <= 0xff; ++v) {
        auto cm = static_cast<CmState>(v);
        CHECK(enum_from_name<CmState>(name_of(cm)) == cm);
        auto qs = static_cast<QpState>(v);
        CHECK(enum_from_name<QpState>(name_of(qs)) == qs);
        auto qt = static_cast<QpType>(v);
        CHECK(enum_from_name<QpType>(name_of(qt)) == qt);
    }
    // The kernel's names for the known values, its number for the rest.
    CHECK(name_of(CmState::listen) == "LISTEN");
    CHECK(name_of(CmState::destroying) == "DESTROYING");
    CHECK(name_of(static_cast<CmState>(11)) == "11");
    CHECK(name_of(QpState::rts) == "RTS");
    CHECK(name_of(QpType::driver) == "DRIVER");
    CHECK(name_of(static_cast<QpType>(7)) == "7");
    CHECK_FALSE(enum_from_name<CmState>("listen")); // names are exact; the filter folds case
    CHECK_FALSE(enum_from_name<CmState>("256"));
    CHECK_FALSE(enum_from_name<QpType>(""));
}

TEST_CASE("names: port spaces by name or number", "[names]") {
    CHECK(enum_from_name<PortSpace>("tcp") == PortSpace::tcp);
    CHECK(enum_from_name<PortSpace>("ib") == PortSpace::ib);
    CHECK(enum_from_name<PortSpace>("ipoib") == PortSpace::ipoib);
    CHECK(enum_from_name<PortSpace>("udp") == PortSpace::udp);
    CHECK(static_cast<std::uint32_t>(*enum_from_name<PortSpace>("tcp")) == 0x0106); // RDMA_PS_TCP
    auto other = static_cast<PortSpace>(0x0200);
    CHECK(name_of(other) == "512");
    CHECK(enum_from_name<PortSpace>("512") == other);
    CHECK(enum_from_name<PortSpace>("262") == std::nullopt); // 0x106 is written "tcp", never "262"
    CHECK_FALSE(enum_from_name<PortSpace>("0512"));
    CHECK_FALSE(enum_from_name<PortSpace>("4294967296"));
    CHECK_FALSE(enum_from_name<PortSpace>("TCP"));
}

TEST_CASE("names: a snapshot naming an unknown state is refused where it says so", "[names]") {
    std::string text = fixture_text("snapshot.json");
    auto at = text.find("\"state\": \"LISTEN\"");
    if (at == std::string::npos) at = text.find("\"state\":\"LISTEN\"");
    REQUIRE(at != std::string::npos);
    text.replace(text.find("LISTEN", at), 6, "LISTENING");
    auto snap = snapshot_from_text(text);
    REQUIRE_FALSE(snap.ok());
    CHECK_THAT(snap.error(), Catch::Contains("unknown CM state 'LISTENING'"));
    CHECK_THAT(snap.error(), Catch::Contains("connections["));
}
