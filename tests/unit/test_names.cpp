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
        CHECK(cm_state_from_name(cm_state_name(cm)) == cm);
        auto qs = static_cast<QpState>(v);
        CHECK(qp_state_from_name(qp_state_name(qs)) == qs);
        auto qt = static_cast<QpType>(v);
        CHECK(qp_type_from_name(qp_type_name(qt)) == qt);
    }
    // The kernel's names for the known values, its number for the rest.
    CHECK(cm_state_name(CmState::listen) == "LISTEN");
    CHECK(cm_state_name(CmState::destroying) == "DESTROYING");
    CHECK(cm_state_name(static_cast<CmState>(11)) == "11");
    CHECK(qp_state_name(QpState::rts) == "RTS");
    CHECK(qp_type_name(QpType::driver) == "DRIVER");
    CHECK(qp_type_name(static_cast<QpType>(7)) == "7");
    CHECK_FALSE(cm_state_from_name("listen")); // names are exact; the filter folds case
    CHECK_FALSE(cm_state_from_name("256"));
    CHECK_FALSE(qp_type_from_name(""));
}

TEST_CASE("names: port spaces by name or number", "[names]") {
    CHECK(port_space_from_name("tcp") == PortSpace::tcp);
    CHECK(port_space_from_name("ib") == PortSpace::ib);
    CHECK(port_space_from_name("ipoib") == PortSpace::ipoib);
    CHECK(port_space_from_name("udp") == PortSpace::udp);
    CHECK(static_cast<std::uint32_t>(*port_space_from_name("tcp")) == 0x0106); // RDMA_PS_TCP
    auto other = static_cast<PortSpace>(0x0200);
    CHECK(port_space_name(other) == "512");
    CHECK(port_space_from_name("512") == other);
    CHECK(port_space_from_name("262") == std::nullopt); // 0x106 is written "tcp", never "262"
    CHECK_FALSE(port_space_from_name("0512"));
    CHECK_FALSE(port_space_from_name("4294967296"));
    CHECK_FALSE(port_space_from_name("TCP"));
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
