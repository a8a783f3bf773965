// SPDX-License-Identifier: MIT
// Attribution of siw's kernel TCP sockets to cm_ids: on the lab capture (rping over
// siw and rxe, plain TCP programs beside them) and on hand-built cases.
#include "analysis/attribution.h"
#include "analysis/ports.h"
#include "catch_compat.hpp"
#include "hand_built.h"

#include <map>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

Connection iw(const char* dev, std::uint32_t id, const char* state, Endpoint local, Endpoint peer,
              std::optional<std::uint32_t> pid = 100) {
    return cm(dev, Transport::iwarp, id, state, local, peer, pid);
}

HostSocket sock(const char* state, Endpoint local, Endpoint peer,
                std::optional<std::uint32_t> pid = std::nullopt) {
    return host_socket(state, local, peer, pid);
}

/// siw0 (siw) and cxgb0 (an iWARP RNIC), no connections or sockets yet.
Snapshot two_iwarp_devices() {
    Snapshot s;
    s.source = SnapshotSource::file;
    s.devices = {device("siw0", Transport::iwarp, "siw"),
                 device("cxgb0", Transport::iwarp, "cxgb4")};
    s.host_sockets_collected = true;
    return s;
}

std::string attribution(const HostSocket& s) {
    if (!s.rdma_device) return "-";
    return *s.rdma_device + "/" + std::to_string(s.rdma_cm_id.value());
}

} // namespace

TEST_CASE("siw's kernel sockets in the lab capture are attributed to their cm_ids",
          "[attribution]") {
    Snapshot snap = fixture_snapshot("snapshot-host.json");
    REQUIRE(snap.host_sockets_collected);
    auto sockets = attribute_host_sockets(snap);
    REQUIRE(sockets.size() == snap.host_sockets.size());
    std::map<std::uint64_t, std::string> by_inode;
    for (const HostSocket& s : sockets)
        by_inode[s.inode] = attribution(s);
    // Inodes and cm_ids as the lab reported them (ss -tanpe and rdma res show cm_id).
    CHECK(by_inode[10599] == "siw0/0"); // 10.9.0.1:7174 LISTEN
    CHECK(by_inode[11485] == "siw0/2"); // 10.9.0.1:7174 <- :39170, the server's side
    CHECK(by_inode[10609] == "siw0/1"); // 10.9.0.1:39170 -> :7174, the client's side
    CHECK(by_inode[11518] == "siw0/3"); // [fd00:9::1]:7176 LISTEN
    CHECK(by_inode[11528] == "siw0/4");
    CHECK(by_inode[10684] == "siw0/5");
    // Plain TCP programs' sockets, held by processes: never attributed.
    for (const HostSocket& s : sockets)
        if (s.pid) CHECK(attribution(s) == "-");
    std::size_t attributed = 0;
    for (const HostSocket& s : sockets)
        attributed += s.rdma_device.has_value();
    CHECK(attributed == 6);
    // ConnectionIndex finds the cm_id back; the owner is the rping process.
    for (const HostSocket& s : sockets) {
        const Connection* c = ConnectionIndex(snap).of(s);
        CHECK((c != nullptr) == s.rdma_device.has_value());
        if (c) CHECK(c->owner.comm == "rping");
    }
    CHECK(with_attribution(snap).host_sockets == sockets);
}

TEST_CASE("rxe's cm_ids never take a host socket", "[attribution]") {
    // The lab's rxe ids use no host TCP socket; a socket on their very 4-tuple (the
    // lab cannot produce this: hand-built) still is not theirs: RoCE is not iWARP.
    Snapshot snap = fixture_snapshot("snapshot-host.json");
    snap.host_sockets = {sock("LISTEN", ep("10.9.0.2", 7175), ep("0.0.0.0", 0))};
    CHECK(attributed_cm_id(snap, snap.host_sockets[0]) == nullptr);
}

TEST_CASE("attribution rules on hand-built snapshots", "[attribution]") {
    // The lab cannot produce this: hand-built (wildcard siw listeners, RNICs,
    // IPv4-mapped sockets and port-mapped ids).
    Snapshot s = two_iwarp_devices();
    s.connections = {iw("siw0", 1, "LISTEN", ep("0.0.0.0", 4567), ep("0.0.0.0", 0), 10),
                     iw("siw0", 2, "LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0), 11),
                     iw("siw0", 3, "CONNECT", ep("10.0.0.1", 4567), ep("10.0.0.2", 5000), 10),
                     iw("cxgb0", 4, "LISTEN", ep("10.0.0.9", 80), ep("0.0.0.0", 0), 12),
                     iw("siw0", 5, "LISTEN", ep("0.0.0.0", 9000), ep("0.0.0.0", 0), 13)};
    auto who = [&](const HostSocket& h) {
        const Connection* c = attributed_cm_id(s, h);
        return c ? std::to_string(c->cm_id.value_or(0)) : std::string("-");
    };
    SECTION("an equal address beats a wildcard") {
        CHECK(who(sock("LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0))) == "2");
    }
    SECTION("a wildcard cm_id covers any address of its family") {
        CHECK(who(sock("LISTEN", ep("10.0.0.7", 9000), ep("0.0.0.0", 0))) == "5");
        CHECK(who(sock("LISTEN", ep("10.0.0.7", 4567), ep("0.0.0.0", 0))) == "1");
        CHECK(who(sock("LISTEN", ep("fd00::7", 9000), ep("::", 0))) == "-");
    }
    SECTION("an established socket needs both endpoints equal") {
        CHECK(who(sock("ESTAB", ep("10.0.0.1", 4567), ep("10.0.0.2", 5000))) == "3");
        CHECK(who(sock("ESTAB", ep("10.0.0.1", 4567), ep("10.0.0.2", 5001))) == "-");
        CHECK(who(sock("ESTAB", ep("10.0.0.1", 4567), ep("10.0.0.3", 5000))) == "-");
        // IPv4-mapped IPv6 is the same address.
        CHECK(who(sock("ESTAB", ep("::ffff:10.0.0.1", 4567), ep("::ffff:10.0.0.2", 5000))) == "3");
    }
    SECTION("a LISTEN socket matches only a LISTEN id and the other way round") {
        CHECK(who(sock("ESTAB", ep("10.0.0.7", 9000), ep("10.0.0.8", 1))) == "-");
        CHECK(who(sock("LISTEN", ep("10.0.0.2", 5000), ep("0.0.0.0", 0))) == "-");
    }
    SECTION("a socket a process holds is that process's") {
        CHECK(who(sock("LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0), 77)) == "-");
    }
    SECTION("an RNIC's ids and devices of unknown driver take no host socket") {
        CHECK(who(sock("LISTEN", ep("10.0.0.9", 80), ep("0.0.0.0", 0))) == "-");
        s.devices[0].driver.reset();
        CHECK(who(sock("LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0))) == "-");
    }
    SECTION("the wire address counts when the source reported one") {
        s.connections[2].mapped_local = ep("10.0.0.1", 20001);
        CHECK(who(sock("ESTAB", ep("10.0.0.1", 20001), ep("10.0.0.2", 5000))) == "3");
        CHECK(who(sock("ESTAB", ep("10.0.0.1", 4567), ep("10.0.0.2", 5000))) == "-");
    }
}

TEST_CASE("attribution keeps what a saved snapshot carried and fills the rest", "[attribution]") {
    // The lab cannot produce this: hand-built.
    Snapshot s = two_iwarp_devices();
    s.connections = {iw("siw0", 1, "LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0))};
    HostSocket carried = sock("LISTEN", ep("10.0.0.5", 1), ep("0.0.0.0", 0));
    carried.rdma_device = "siw0";
    carried.rdma_cm_id = 9;
    s.host_sockets = {carried, sock("LISTEN", ep("10.0.0.1", 4567), ep("0.0.0.0", 0))};
    auto out = attribute_host_sockets(s);
    CHECK(attribution(out[0]) == "siw0/9");
    CHECK(attribution(out[1]) == "siw0/1");
    CHECK(ConnectionIndex(s).of(out[0]) == nullptr); // no such cm_id in the snapshot
    CHECK(ConnectionIndex(s).of(out[1]) == &s.connections[0]);
}

TEST_CASE("address overlap follows Linux bind rules", "[attribution]") {
    auto a = [](const char* t) { return IpAddress::parse(t).value(); };
    CHECK(addresses_overlap(a("10.0.0.1"), a("10.0.0.1")));
    CHECK_FALSE(addresses_overlap(a("10.0.0.1"), a("10.0.0.2")));
    CHECK(addresses_overlap(a("0.0.0.0"), a("10.0.0.2")));
    CHECK(addresses_overlap(a("10.0.0.2"), a("0.0.0.0")));
    CHECK(addresses_overlap(a("::"), a("10.0.0.2"))); // dual-stack
    CHECK(addresses_overlap(a("10.0.0.2"), a("::")));
    CHECK_FALSE(addresses_overlap(a("0.0.0.0"), a("fd00::1")));
    CHECK(addresses_overlap(a("::ffff:10.0.0.1"), a("10.0.0.1")));
    CHECK(addresses_overlap(a("fd00::1"), a("::")));
    CHECK_FALSE(addresses_overlap(a("fd00::1"), a("fd00::2")));
    CHECK_FALSE(addresses_overlap(IpAddress{}, IpAddress{}));
    CHECK(address_covers(a("0.0.0.0"), a("10.0.0.1")));
    CHECK_FALSE(address_covers(a("10.0.0.1"), a("0.0.0.0")));
    CHECK(endpoints_overlap(ep("0.0.0.0", 80), ep("10.0.0.1", 80)));
    CHECK_FALSE(endpoints_overlap(ep("0.0.0.0", 80), ep("10.0.0.1", 81)));
}
