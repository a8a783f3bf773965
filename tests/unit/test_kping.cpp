// SPDX-License-Identifier: MIT
// rdmastat_kping's generic netlink dump: bytes captured in the lab during two
// long runs (tests/lab/scenarios/kping.sh: rdmastat-capture --kping; a kernel
// server in frwr-local mode with an rping client on siw0, a kernel client in
// dma mode with an rping server on rxe0), judged against iproute2's `rdma -j`
// cm_id output captured just before; the CLI's parsing and the renderers.
#include "catch_compat.hpp"
#include "cli/commands.h"
#include "collect/kping.h"
#include "render/kping.h"
#include "render/output.h"
#include "support.h"

#include <linux/rdmastat_kping.h>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

std::vector<KpingRun> fixture_runs() {
    return parse_kping_reply(fixture_bytes("kping-dump.bin")).take();
}

} // namespace

TEST_CASE("kping dump: the two running runs, with consistent counters", "[kping]") {
    auto runs = fixture_runs();
    REQUIRE(runs.size() == 2);
    const KpingRun& s = runs[0];
    const KpingRun& c = runs[1];
    CHECK(s.id < c.id);

    CHECK(s.server);
    CHECK(s.state == KpingState::running);
    CHECK(s.mem == KpingMem::frwr_local);
    CHECK(s.device == "siw0");
    CHECK(Endpoint{s.address, s.port}.to_string() == "10.9.0.1:7480");
    CHECK(s.size == 65535);
    // rping's cycle on the server: one READ and one WRITE of 64 bytes per ping,
    // two messages each way; the ping in flight may be half done.
    CHECK(s.iters > 0);
    CHECK(s.read_ops - s.iters <= 1);
    CHECK(s.write_ops - s.iters <= 1);
    CHECK(s.read_bytes == 64 * s.read_ops);
    CHECK(s.write_bytes == 64 * s.write_ops);
    CHECK(s.recv_bytes == 16 * s.recv_ops);
    CHECK(s.recv_ops - 2 * s.iters <= 2);
    CHECK(s.reg_ops - s.inv_ops <= 1);
    CHECK(s.reg_ops >= s.iters);
    CHECK_FALSE(s.lat_sum_ns); // only clients time
    CHECK(s.elapsed_ns.value_or(0) > 0);
    CHECK_FALSE(s.error);

    CHECK_FALSE(c.server);
    CHECK(c.state == KpingState::running);
    CHECK(c.mem == KpingMem::dma);
    CHECK(c.device == "rxe0");
    REQUIRE(c.peer);
    CHECK(c.peer->to_string() == "10.9.0.2:7481");
    CHECK(c.count == 0);
    CHECK(c.size == 64);
    CHECK(c.read_ops == 0);
    CHECK(c.write_ops == 0);
    CHECK(c.send_ops - 2 * c.iters <= 2);
    CHECK(c.reg_ops == 0);
    REQUIRE(c.lat_sum_ns);
    CHECK(*c.lat_min_ns <= *c.lat_max_ns);
    CHECK(*c.lat_sum_ns >= *c.lat_min_ns * c.iters);
    CHECK(*c.lat_sum_ns <= *c.lat_max_ns * c.iters);
}

TEST_CASE("kping dump: its connections are the kernel-owned ids rdma lists", "[kping]") {
    auto runs = fixture_runs();
    json rdma = json::parse(fixture_text("kping-rdma-cm_id.json"));
    // The server's peer is rping's client: rdma shows it connected to 7480.
    REQUIRE(runs[0].peer);
    bool server_seen = false, client_seen = false;
    for (const json& id : rdma) {
        if (id.value("comm", "") != "rdmastat_kping" || id.contains("pid")) continue;
        if (id["ifname"] == runs[0].device && id["dst-addr"] == runs[0].peer->to_string())
            server_seen = true;
        if (id["ifname"] == runs[1].device && id["dst-addr"] == runs[1].peer->to_string())
            client_seen = true;
    }
    CHECK(server_seen);
    CHECK(client_seen);
}

TEST_CASE("kping dump: a cut dump is refused", "[kping]") {
    require_cut_dumps_refused(fixture_bytes("kping-dump.bin"), parse_kping_reply);
}

TEST_CASE("kping runs render as golden text and JSON", "[kping][render]") {
    auto runs = fixture_runs();
    std::ostringstream text, js;
    write_kping_text(text, runs);
    json_writer()->kping_runs(js, runs);
    CHECK(text.str() == golden("kping-show.txt", text.str()));
    CHECK(js.str() == golden("kping-show.json", js.str()));
    json parsed = json::parse(js.str());
    CHECK(parsed["runs"][0]["reg_ops"] == runs[0].reg_ops);
    CHECK(parsed["runs"][1]["peer"]["port"] == 7481);
    std::ostringstream none;
    write_kping_text(none, {});
    CHECK(none.str() == "no kping runs\n");
}

TEST_CASE("kping arguments: start, stop and show, and what is refused", "[kping][cli]") {
    auto a = parse_kping_args({"start", "-c", "-a", "10.9.0.1", "-p", "7400", "-C", "5", "-S",
                               "4096", "-V", "--mode", "write-bw", "--depth", "16", "--mem",
                               "frwr-remote", "-w"});
    REQUIRE(a.ok());
    CHECK(a.value().command == "start");
    CHECK_FALSE(a.value().start.server);
    CHECK(a.value().start.address.to_string() == "10.9.0.1");
    CHECK(a.value().start.port == 7400);
    CHECK(a.value().start.count == 5u);
    CHECK(a.value().start.size == 4096u);
    CHECK(a.value().start.depth == 16u);
    CHECK(a.value().start.validate);
    CHECK(a.value().start.mode == KpingMode::write_bw);
    CHECK(a.value().start.mem == KpingMem::frwr_remote);
    CHECK(a.value().wait);

    auto server = parse_kping_args({"start", "-s"});
    REQUIRE(server.ok());
    CHECK(server.value().start.address.is_any());
    CHECK_FALSE(server.value().start.size);       // the kernel's default
    CHECK_FALSE(server.value().start.timeout_ms); // the kernel's default

    auto timed = parse_kping_args({"start", "-s", "--timeout", "2500"});
    REQUIRE(timed.ok());
    CHECK(timed.value().start.timeout_ms == 2500u);

    auto stop = parse_kping_args({"stop", "7", "-j"});
    REQUIRE(stop.ok());
    CHECK(stop.value().id == 7u);
    CHECK(stop.value().common.json);
    CHECK(parse_kping_args({"show"}).value().command == "show");

    const std::pair<std::vector<std::string>, const char*> bad[] = {
        {{}, "kping: "},
        {{"start"}, "give -s (server) or -c (client)"},
        {{"start", "-c"}, "a client needs -a ADDR"},
        {{"start", "-c", "-a", "nowhere"}, "not an IPv4 or IPv6 address"},
        {{"start", "-c", "-a", "10.9.0.1", "--mode", "fast"}, "unknown --mode 'fast'"},
        {{"start", "-c", "-a", "10.9.0.1", "--mem", "user"}, "unknown --mem 'user'"},
        // A number is how an unknown value is shown, not something to ask for.
        {{"start", "-c", "-a", "10.9.0.1", "--mode", "4"}, "unknown --mode '4'"},
        {{"start", "-c", "-a", "10.9.0.1", "--mem", "3"}, "unknown --mem '3'"},
        {{"start", "-s", "--mode", "write-bw"}, "a server follows its client"},
        {{"start", "-s", "-c"}, "excludes"},
        {{"start", "-s", "--timeout", "-1"}, "--timeout"},
        {{"start", "-s", "--timeout", "soon"}, "--timeout"},
        {{"stop"}, "id is required"},
        {{"stop", "x"}, "kping: "},
    };
    for (const auto& [args, says] : bad) {
        auto r = parse_kping_args(args);
        INFO(says);
        REQUIRE_FALSE(r.ok());
        CHECK_THAT(r.error(), Catch::StartsWith("kping: ") && Catch::Contains(says));
    }
}

TEST_CASE("kping names round-trip and unknown values print as numbers", "[kping]") {
    for (std::uint8_t m = 0; m <= RDMASTAT_KPING_MODE_MAX; ++m)
        CHECK(enum_from_name<KpingMode>(name_of(KpingMode{m})) == KpingMode{m});
    for (std::uint8_t m = 0; m <= RDMASTAT_KPING_MEM_MAX; ++m)
        CHECK(enum_from_name<KpingMem>(name_of(KpingMem{m})) == KpingMem{m});
    CHECK(name_of(KpingMode{9}) == "9");
    CHECK(name_of(KpingState::failed) == "failed");
    CHECK(name_of(KpingState{200}) == "200");
}
