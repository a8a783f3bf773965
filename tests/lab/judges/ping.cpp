// SPDX-License-Identifier: MIT
// [lab] tests of rdmastat ping: judge what tests/lab/scenarios/ping.sh wrote in
// the guest. Real rping is the peer and the referee (its -V validates what our
// server echoed, its -v shows the payload our client must reproduce), rdma the
// referee of the listing.
#include "ping/wire.h"
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <map>
#include <sstream>
#include <vector>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"ping"};

std::uint32_t pid_of(const std::string& name) {
    return static_cast<std::uint32_t>(std::stoul(ev.text(name)));
}

bool rping_client_ok(const std::string& name) {
    return rping_ended_ok(ev.rc(name), ev.text(name + ".err"));
}

const struct {
    const char* name;
    const char* device;
} devices[] = {{"siw", "siw0"}, {"rxe", "rxe0"}};
const std::uint32_t sizes[] = {64, 4096, 65535};

} // namespace

TEST_CASE("lab: rdmastat ping -c against rping -s, validated", "[lab][ping]") {
    for (const auto& d : devices)
        for (std::uint32_t size : sizes) {
            const std::string name = "c2r-" + std::string(d.name) + "-" + std::to_string(size);
            INFO(name << ": " << ev.text(name + ".json.err"));
            REQUIRE(ev.rc(name + ".json") == 0);
            json r = ev.json(name + ".json");
            CHECK(r["role"] == "client");
            CHECK(r["mode"] == "rping");
            CHECK(r["device"] == d.device);
            CHECK(r["size"] == size);
            CHECK(r["completed"] == 10);
            CHECK(r["validated"] == true);
            CHECK(r["bytes"] == 2ull * 10 * size);
            CHECK_FALSE(r.contains("error"));
            // rping's server ended on its own when our client left.
            CHECK(rping_ended_ok(ev.rc(name + ".rping"), ev.text(name + ".rping")));
        }
}

TEST_CASE("lab: rping -c against rdmastat ping -s, validated by rping", "[lab][ping]") {
    for (const auto& d : devices)
        for (std::uint32_t size : sizes) {
            const std::string name = "r2c-" + std::string(d.name) + "-" + std::to_string(size);
            INFO(name << ": " << ev.text(name + ".rping.err") << ev.text(name + ".json.err"));
            // rping -V checks every echo.
            CHECK(rping_client_ok(name + ".rping"));
            auto data = lines_starting(ev.text(name + ".rping"), "ping data: ");
            REQUIRE(data.size() == 10);
            // What rping sent (and we echoed) is what our client generates.
            for (std::size_t seq = 0; seq < data.size(); ++seq)
                CHECK(data[seq] == our_payload_text(size, seq));
            REQUIRE(ev.rc(name + ".json") == 0);
            json r = ev.json(name + ".json");
            CHECK(r["role"] == "server");
            CHECK(r["device"] == d.device);
            CHECK(r["size"] == size);
            CHECK(r["completed"] == 10);
            CHECK_FALSE(r.contains("error"));
        }
}

TEST_CASE("lab: a long ping is listed with both pids and its QP numbers", "[lab][ping]") {
    json listing = ev.json("listing.json");
    json qps = ev.json("rdma-qp.json");
    std::map<std::uint32_t, std::uint32_t> tgid; // thread -> process, read in the guest
    std::istringstream in(ev.text("tgid.txt"));
    for (std::uint32_t t, p; in >> t >> p;)
        tgid[t] = p;
    for (const auto& d : devices) {
        const std::string dev = d.name;
        INFO(dev);
        const std::uint32_t client = pid_of("long-" + dev + "-client.pid");
        const std::uint32_t server = pid_of("long-" + dev + "-server.pid");
        json result = ev.json("long-" + dev + "-client.json");
        int client_ends = 0, server_ends = 0, listeners = 0;
        for (const auto& c : listing["connections"]) {
            if (c["device"] != d.device || !c["owner"].contains("pid")) continue;
            const std::uint32_t pid = c["owner"]["pid"];
            if (pid != client && pid != server) continue;
            if (c["state"] == "LISTEN") {
                CHECK(pid == server);
                ++listeners;
                continue;
            }
            // Started as `rdmastat ping`, which execs rdmastat-full: the
            // process keeps the name typed.
            CHECK(c["owner"].value("comm", "") == "rdmastat");
            REQUIRE(c["qp"].is_object());
            const std::uint32_t qpn = c["qp"]["number"];
            if (pid == client) {
                ++client_ends;
                CHECK(qpn == result["qp"]);
                CHECK(c["local"]["port"] == result["local"]["port"]);
            } else {
                ++server_ends;
                CHECK(c["local"]["port"] == result["peer"]["port"]);
            }
            // rdma names the same QP under the same process (or its thread).
            bool found = false;
            for (const auto& q : qps)
                if (q["ifname"] == d.device && q["lqpn"] == qpn) {
                    found = true;
                    CHECK(tgid[q["pid"]] == pid);
                    CHECK(q.value("comm", "") == "rdmastat");
                    // A connected QP read as RESET is a driver that does not
                    // report states (siw before 6.8): unknown, and the device
                    // says so; any other state is shown as rdma shows it.
                    const bool unreported = q["state"] == "RESET";
                    CHECK(c["qp"].contains("state") == !unreported);
                    if (!unreported) CHECK(c["qp"]["state"] == q["state"]);
                    for (const auto& listed : listing["devices"])
                        if (listed["name"] == d.device)
                            CHECK(listed.value("qp_states_unreported", false) == unreported);
                }
            CHECK(found);
        }
        CHECK(client_ends == 1);
        CHECK(server_ends == 1);
        CHECK(listeners == 1);
    }
}

TEST_CASE("lab: SIGINT and SIGTERM end a ping cleanly and free its ids", "[lab][ping]") {
    json left = ev.json("after-long-cm_id.json");
    unsigned stranded = 0;
    for (const auto& d : devices) {
        const std::string dev = d.name;
        INFO(dev);
        std::vector<std::string> tries{"long-" + dev};
        // ping.sh ran siw's teardown again when siw stranded the client's
        // first message: both ends then ended with nothing completed.
        if (ev.has(tries[0] + ".stranded")) {
            CHECK(dev == "siw");
            // Connected (the server names the client's port), then nothing:
            // not a failed connect.
            const json first = ev.json(tries[0] + "-client.json");
            const json server = ev.json(tries[0] + "-server.json");
            CHECK(first.value("completed", -1) == 0);
            CHECK(first.value("interrupted", false) == true);
            CHECK(server.value("completed", -1) == 0);
            CHECK(server.value("peer", json::object()).value("port", 0) ==
                  first.value("local", json::object()).value("port", -1));
            tries.push_back(tries[0] + "-again");
            ++stranded;
        }
        const std::string last = tries.back();
        INFO(last);
        CHECK(ev.rc(last + "-client") == 0);
        CHECK(ev.rc(last + "-server") == 0);
        json r = ev.json(last + "-client.json");
        CHECK(r["interrupted"] == true);
        CHECK(r["completed"] > 0);
        CHECK(r["validated"] == true);
        CHECK_FALSE(r.contains("error"));
        // The server saw the client leave: an end, not an error.
        json s = ev.json(last + "-server.json");
        CHECK_FALSE(s.contains("error"));
        CHECK(s["completed"] >= r["completed"]);
        // Every try's ids are gone, the stranded one's too.
        for (const auto& t : tries)
            for (const auto& e : left) {
                std::uint32_t pid = e.value("pid", 0u);
                CHECK(pid != pid_of(t + "-client.pid"));
                CHECK(pid != pid_of(t + "-server.pid"));
            }
    }
    if (stranded) WARN("siw's long ping ran again after siw stranded its first message");
}

TEST_CASE("lab: hostile clients get clear errors and the server keeps serving", "[lab][ping]") {
    const struct {
        const char* mode;
        const char* error; // what the server says of it
    } cases[] = {
        {"short", "advertisement of 12 bytes, expected 16"},
        {"zerokey", "advertisement with a zero rkey"},
        {"oversize", "advertised buffer of 1073741824 bytes is larger than the 65535 bytes"},
        {"badhello", "rejected a connection request: rdmastat hello of version 9"},
    };
    json left = ev.json("after-hostile-cm_id.json");
    for (const auto& d : devices) {
        const std::string dev = d.name;
        INFO(dev);
        const std::string said =
            ev.text("hostile-" + dev + "-server.err") + ev.text("hostile-" + dev + "-server.out");
        for (const auto& c : cases) {
            INFO(c.mode);
            // rdmastat-hostile exits 0 when the server closed (or refused) it.
            CHECK(ev.rc("hostile-" + dev + "-" + c.mode) == 0);
            CHECK_THAT(said, Catch::Contains(c.error));
        }
        // Too long a message fails in the RDMA stack and the server closes only
        // that connection. rxe completes the RECV in error (named); siw may
        // instead terminate the connection first, which looks like the client
        // leaving.
        CHECK(ev.rc("hostile-" + dev + "-long") == 0);
        if (dev == "rxe") CHECK_THAT(said, Catch::Contains("RECV completion: "));
        // A made-up rkey: rxe fails the READ (named); siw's peer answers with
        // a TERMINATE and closes, which the server sees as the client leaving.
        CHECK(ev.rc("hostile-" + dev + "-badkey") == 0);
        if (dev == "rxe")
            CHECK_THAT(said, Catch::Contains("ping 0: RDMA READ completion: remote access error"));
        // A silent client held open while rping ran: both served at once.
        CHECK(ev.rc("hostile-" + dev + "-silent") == 0);
        CHECK(rping_client_ok("hostile-" + dev + "-rping"));
        CHECK(lines_starting(ev.text("hostile-" + dev + "-rping"), "ping data: ").size() == 5);
        CHECK(ev.rc("hostile-" + dev + "-server") == 0);
        for (const auto& e : left)
            CHECK(e.value("pid", 0u) != pid_of("hostile-" + dev + "-server.pid"));
    }
}

TEST_CASE("lab: --lat and --bw between two rdmastat ends", "[lab][ping]") {
    for (const auto& d : devices) {
        const std::string dev = d.name;
        INFO(dev << ev.text("lat-" + dev + ".json.err") << ev.text("bw-" + dev + ".json.err"));
        REQUIRE(ev.rc("lat-" + dev + ".json") == 0);
        json lat = ev.json("lat-" + dev + ".json");
        CHECK(lat["mode"] == "lat");
        CHECK(lat["completed"] == 300);
        CHECK(lat["validated"] == true);
        CHECK(lat["latency_us"]["min"] > 0);
        CHECK(lat["latency_us"]["min"] <= lat["latency_us"]["p50"]);
        CHECK(lat["latency_us"]["p50"] <= lat["latency_us"]["p99"]);
        CHECK(lat["latency_us"]["p99"] <= lat["latency_us"]["max"]);
        REQUIRE(ev.rc("bw-" + dev + ".json") == 0);
        json bw = ev.json("bw-" + dev + ".json");
        CHECK(bw["completed"] == 2000);
        CHECK(bw["bytes"] == 2000ull * 65536);
        CHECK(bw["depth"] == 128);
        CHECK(bw["bandwidth"]["gbit_per_s"] > 0);
        // Small writes; in lat, 256 B go inline where the device takes that much.
        INFO(ev.text("bw64-" + dev + ".json.err") << ev.text("lat256q-" + dev + ".json.err"));
        REQUIRE(ev.rc("bw64-" + dev + ".json") == 0);
        json small = ev.json("bw64-" + dev + ".json");
        CHECK(small["completed"] == 5000);
        CHECK(small["bytes"] == 5000ull * 64);
        INFO(ev.text("bwodd-" + dev + ".json.err") << ev.text("bwt-" + dev + ".json.err"));
        REQUIRE(ev.rc("bwodd-" + dev + ".json") == 0);
        json bwodd = ev.json("bwodd-" + dev + ".json");
        CHECK(bwodd["completed"] == 1001);
        CHECK(bwodd["bytes"] == 1001ull * 64);
        CHECK(bwodd["depth"] == 130);
        REQUIRE(ev.rc("bwt-" + dev + ".json") == 0);
        json bwt = ev.json("bwt-" + dev + ".json");
        // Every write posted is counted once it completes: whole writes only.
        CHECK(bwt["completed"] > 0);
        CHECK(bwt["bytes"] == bwt["completed"].get<std::uint64_t>() * 4096);
        // The deadline counts from the connection, seconds from the first write
        // (after the buffer exchange, which on siw waits 100 ms).
        CHECK(bwt["seconds"] > 0.0);
        CHECK(bwt["seconds"] < 10.0);
        REQUIRE(ev.rc("lat256q-" + dev + ".json") == 0);
        json lat_q = ev.json("lat256q-" + dev + ".json");
        CHECK(lat_q["completed"] == 100);
        CHECK(lat_q["size"] == 256);
        CHECK(lat_q["validated"] == true);
        // The same server also serves plain rping clients.
        CHECK(rping_client_ok("bw-rping-" + dev + ".txt"));
        CHECK(ev.rc("modes-" + dev + "-server") == 0);
        // 64 KiB, one byte more than rping takes, in rping mode between rdmastat ends.
        REQUIRE(ev.rc("rping64k-" + dev + ".json") == 0);
        json big = ev.json("rping64k-" + dev + ".json");
        CHECK(big["size"] == 65536);
        CHECK(big["completed"] == 10);
        CHECK(big["validated"] == true);
        // rping cannot do --lat: the client says so instead of hanging.
        CHECK(ev.rc("lat-vs-rping-" + dev + ".json") == 2);
        CHECK_THAT(ev.text("lat-vs-rping-" + dev + ".json.err"),
                   Catch::Contains("does not run rdmastat's lat mode"));
    }
}

TEST_CASE("lab: ping over IPv6 from a given source address", "[lab][ping]") {
    INFO(ev.text("ipv6-siw.json.err"));
    REQUIRE(ev.rc("ipv6-siw.json") == 0);
    json r = ev.json("ipv6-siw.json");
    CHECK(r["device"] == "siw0");
    CHECK(r["local"]["address"] == "fd00:9::1");
    CHECK(r["peer"]["address"] == "fd00:9::1");
    CHECK(r["peer"]["port"] == 7360);
    CHECK(r["completed"] == 5);
    CHECK(r["validated"] == true);
    CHECK(ev.rc("ipv6-server") == 0);
}

TEST_CASE("lab: ping's errors name the failing step", "[lab][ping]") {
    CHECK(ev.rc("err-noserver.txt") == 2);
    CHECK_THAT(ev.text("err-noserver.txt.err"),
               Catch::StartsWith("rdmastat: ping: rdma_connect 10.9.0.1 port 7399: "));
    CHECK(ev.rc("err-noroute.txt") == 2);
    CHECK_THAT(ev.text("err-noroute.txt.err"),
               Catch::StartsWith("rdmastat: ping: rdma_resolve_addr 10.77.0.1 port 7399: "));
    CHECK(ev.rc("err-size.txt") == 2);
    CHECK_THAT(ev.text("err-size.txt.err"), Catch::Contains("-S 10: rping mode needs 26"));
    CHECK(ev.rc("err-inuse.txt") == 2);
    CHECK_THAT(ev.text("err-inuse.txt.err"),
               Catch::Contains("rdma_bind_addr 10.9.0.1 port 7398: Address already in use"));
    CHECK(ev.rc("err-inuse-server") == 0);
}
