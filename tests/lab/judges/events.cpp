// SPDX-License-Identifier: MIT
// [lab] tests of tests/lab/scenarios/events.sh: -E from the kernel's rdma_cma
// tracepoints (as root) beside -E polling every second (as an unprivileged
// user), while short rping connections, connects to closed ports and a
// rejecting server (rdmastat-reject) come and go on siw and rxe.
#include "catch_compat.hpp"
#include "evidence.h"
#include "support.h"

#include <map>
#include <set>
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"events"};

// Everything the tracer said about the ids of one connection to port: the
// active end's (peer port) and the passive end's (local port, with a peer).
struct Ends {
    std::vector<json> active, passive;
};

Ends ends_of(const std::vector<json>& events, unsigned port) {
    Ends e;
    for (const json& j : events) {
        const json& c = j["connection"];
        if (event_port(c, "peer") == port && event_port(c, "local") != port) e.active.push_back(j);
        if (event_port(c, "local") == port && event_port(c, "peer") != 0) e.passive.push_back(j);
    }
    return e;
}

const json* find_event(const std::vector<json>& list, const std::string& event,
                       const std::string& cm_event = "") {
    for (const json& j : list)
        if (j["event"] == event && (cm_event.empty() || j.value("cm_event", "") == cm_event))
            return &j;
    return nullptr;
}

// One end of ibv_rc_pingpong as it printed it ("  local address:  LID 0x0000,
// QPN 0x000011, PSN 0x4d3c1b, GID ::ffff:10.9.0.2"): its QP number, the
// peer's, and the peer's GID's IPv4 address.
struct PingpongEnd {
    unsigned qpn = 0, remote_qpn = 0;
    std::string remote_address;
};

PingpongEnd pingpong_end(const std::string& log) {
    PingpongEnd end;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        auto qpn = line.find("QPN 0x");
        auto gid = line.find("GID ::ffff:");
        if (qpn == std::string::npos || gid == std::string::npos) continue;
        unsigned n = std::stoul(line.substr(qpn + 6, 6), nullptr, 16);
        if (line.find("local address") != std::string::npos) end.qpn = n;
        if (line.find("remote address") != std::string::npos) {
            end.remote_qpn = n;
            end.remote_address = line.substr(gid + 11);
        }
    }
    return end;
}

} // namespace

TEST_CASE("lab: -E from tracepoints: every line is versioned JSON from the tracepoints",
          "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    REQUIRE(events.size() > 20);
    for (const json& j : events) {
        CHECK(j["version"] == 3);
        CHECK(j["source"] == "tracepoints");
        CHECK(j["time"].is_string());
        CHECK(j["connection"].is_object());
    }
    // Ready, then nothing lost, nothing hidden: the tracer's stderr says
    // only that it is ready.
    CHECK(without_ready(ev.text("tp.err"), "-E").empty());
    // serve says its descriptor limit too; nothing is lost.
    CHECK(without_ready(ev.text("serve.err"), "serve: --events").find("lost") ==
          std::string::npos);
}

TEST_CASE("lab: -E from tracepoints sees both ends of a one-ping rping, with latency and "
          "lifetime",
          "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    for (auto [port, device, transport] :
         {std::tuple{7301u, "siw0", "iwarp"}, std::tuple{7302u, "siw0", "iwarp"},
          std::tuple{7303u, "rxe0", "roce"}, std::tuple{7304u, "rxe0", "roce"}}) {
        INFO("rping -C 1 to port " << port);
        Ends ends = ends_of(events, port);
        // Whichever end disconnects first, the other hears it.
        CHECK((find_event(ends.active, "cm_event", "DISCONNECTED") ||
               find_event(ends.passive, "cm_event", "DISCONNECTED")));
        for (const auto* end : {&ends.active, &ends.passive}) {
            bool active = end == &ends.active;
            INFO((active ? "active end" : "passive end"));
            REQUIRE(!end->empty());
            const json& c = end->front()["connection"];
            CHECK(c["device"] == device);
            CHECK(c["transport"] == transport);
            CHECK(c["port_space"] == "tcp");
            CHECK(c["owner"]["comm"] == "rping");
            CHECK(c["owner"]["pid"].get<int>() > 1);
            CHECK(c["owner"]["uid"] == 0);
            // The same id throughout.
            for (const json& j : *end)
                CHECK(j["connection"]["cm_id"] == c["cm_id"]);
            CHECK(find_event(*end, "cm_event", active ? "ADDR_RESOLVED" : "CONNECT_REQUEST"));
            // The kernel's last word on an active end of RoCE is the RTU
            // librdmacm has it send after CONNECT_RESPONSE: librdmacm makes
            // ESTABLISHED itself, in the process.
            bool rtu = active && std::string(transport) == "roce";
            const json* up =
                rtu ? find_event(*end, "rtu_sent") : find_event(*end, "cm_event", "ESTABLISHED");
            REQUIRE(up);
            if (rtu) {
                const json* response = find_event(*end, "cm_event", "CONNECT_RESPONSE");
                REQUIRE(response);
                CHECK(!response->contains("handshake_ms"));
                CHECK(!find_event(*end, "cm_event", "ESTABLISHED"));
            }
            if (active)
                CHECK((*up)["connect_ms"].get<double>() < (*up)["handshake_ms"].get<double>());
            CHECK((*up)["handshake_ms"].get<double>() > 0);
            CHECK((*up)["handshake_ms"].get<double>() < 5000);
            const json* closed = find_event(*end, "closed");
            REQUIRE(closed);
            CHECK((*closed)["lifetime_ms"].get<double>() > (*up)["handshake_ms"].get<double>());
            CHECK(!(*closed).contains("reason"));
        }
    }
}

TEST_CASE("lab: -E polling every second, unprivileged, misses what the tracepoints see",
          "[lab][events]") {
    auto traced = ev.json_lines("tp.jsonl");
    auto polled = ev.json_lines("poll.jsonl");
    REQUIRE(!polled.empty()); // it saw the sentinel listener at least
    for (const json& j : polled)
        CHECK(j["source"] == "polling");
    unsigned traced_seen = 0, polled_seen = 0;
    for (unsigned port : {7301u, 7302u, 7303u, 7304u}) {
        if (!ends_of(traced, port).active.empty()) ++traced_seen;
        if (!ends_of(polled, port).active.empty()) ++polled_seen;
    }
    CHECK(traced_seen == 4);
    CHECK(polled_seen < traced_seen);
    // Why it polls, said once.
    std::string err = ev.text("poll.err");
    CHECK(err.find("rdmastat: -E: tracepoints need root (or CAP_SYS_ADMIN); polling "
                   "every 1 s instead") == 0);
    // Nothing else, but the word on verbs peers, when a round caught the
    // ibv_rc_pingpong pair (as it does on 6.12), and, once, on a kernel
    // without RDMA netlink's monitor (6.1), that it sends no device events
    // (eventsedge judges when).
    for (const std::string& line : lines_starting(err, "")) {
        INFO(line);
        CHECK((line.starts_with("rdmastat: -E: tracepoints need root") ||
               line.starts_with("rdmastat: -E: this kernel sends no RDMA device events") ||
               line.starts_with("rdmastat: warning: verbs connections: NLDEV reports their "
                                "peers' QP numbers but not their addresses")));
    }
    CHECK(lines_starting(err, "rdmastat: -E: tracepoints need root").size() == 1);
    CHECK(lines_starting(err, "rdmastat: -E: this kernel sends no RDMA device events").size() <= 1);
}

TEST_CASE("lab: -E from tracepoints says why a connect to a closed port failed", "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    // rxe: the passive side's IB CM answers with a reject, reason 8.
    Ends rxe = ends_of(events, 7306);
    const json* rej = find_event(rxe.active, "cm_event", "REJECTED");
    REQUIRE(rej);
    CHECK((*rej)["status"] == 8);
    CHECK((*rej)["reason"] == "INVALID_SERVICE_ID");
    CHECK((*rej)["connection"]["device"] == "rxe0");
    CHECK(!find_event(rxe.active, "cm_event", "ESTABLISHED"));
    CHECK(rxe.passive.empty()); // no listener: no passive id at all
    // ... but ib_cm saw the request come, for a port nobody listens on, and
    // from whom.
    unsigned unheard = 0;
    for (const json& j : events) {
        if (j["event"] != "no_listener") continue;
        ++unheard;
        const json& c = j["connection"];
        CHECK(c["device"] == "rxe0");
        CHECK(c["transport"] == "roce");
        CHECK(c["port_space"] == "tcp");
        CHECK(c["local"]["port"] == 7306);
        CHECK(c["peer"]["address"] == "10.9.0.2");
    }
    CHECK(unheard == 1);
    // siw: the TCP connect is refused inside rdma_connect(): no event at all,
    // only the fexit program sees it.
    Ends siw = ends_of(events, 7305);
    const json* failed = find_event(siw.active, "connect_failed");
    REQUIRE(failed);
    CHECK((*failed)["status"] == -111);
    CHECK((*failed)["reason"] == "ECONNREFUSED");
    CHECK((*failed)["connection"]["device"] == "siw0");
    CHECK((*failed)["connection"]["owner"]["comm"] == "rping");
}

TEST_CASE("lab: -E from tracepoints shows a server's reject at both ends, decoded",
          "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    for (auto [port, device, status, reason] : {std::tuple{7307u, "rxe0", 28, "CONSUMER_DEFINED"},
                                                std::tuple{7308u, "siw0", -104, "ECONNRESET"}}) {
        INFO("rdmastat-reject on " << device << " port " << port);
        Ends ends = ends_of(events, port);
        const json* rej = find_event(ends.active, "cm_event", "REJECTED");
        REQUIRE(rej);
        CHECK((*rej)["status"] == status);
        CHECK((*rej)["reason"] == reason);
        CHECK((*rej)["connection"]["owner"]["comm"] == "rping");
        // The rejecting side: its connect request, its reject, then its close.
        const json* sent = find_event(ends.passive, "reject_sent");
        REQUIRE(sent);
        CHECK((*sent)["connection"]["device"] == device);
        CHECK((*sent)["connection"]["owner"]["comm"] == "rdmastat-reject");
        CHECK(find_event(ends.passive, "cm_event", "CONNECT_REQUEST"));
        CHECK(find_event(ends.passive, "closed"));

        // The listener's close agrees with `rdma res show cm_id` taken while it
        // listened: same device, number, port and owner.
        json nldev =
            json::parse(ev.text("cm_id-reject-" + std::to_string(port) + ".json"));
        const json* listener = nullptr;
        for (const json& id : nldev)
            if (id.value("state", "") == "LISTEN" &&
                id.value("src-addr", "").ends_with(":" + std::to_string(port)))
                listener = &id;
        REQUIRE(listener);
        bool agreed = false;
        for (const json& j : events) {
            const json& c = j["connection"];
            // (A verbs connection's end has no CM state.)
            if (j["event"] == "closed" && c.value("state", "") == "LISTEN" &&
                event_port(c, "local") == port) {
                CHECK(c["device"] == (*listener)["ifname"]);
                CHECK(c["cm_id"] == (*listener)["cm-idn"]);
                CHECK(c["owner"]["pid"] == (*listener)["pid"]);
                CHECK(c["owner"]["comm"] == (*listener)["comm"]);
                agreed = true;
            }
        }
        CHECK(agreed);
    }
}

TEST_CASE("lab: -E from tracepoints shows a wildcard listener's reject once, decoded",
          "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    Ends ends = ends_of(events, 7319);
    const json* rej = find_event(ends.active, "cm_event", "REJECTED");
    REQUIRE(rej);
    CHECK((*rej)["reason"] == "CONSUMER_DEFINED");
    // The request reached the server's per-device listener's child once; the
    // wildcard parent, never numbered, adds no line.
    unsigned requests = 0;
    for (const json& j : ends.passive)
        if (j.value("cm_event", "") == "CONNECT_REQUEST") ++requests;
    CHECK(requests == 1);
    for (const json& j : events)
        CHECK(j["connection"]["device"] != "");
}

TEST_CASE("lab: -E from tracepoints closed every id that rdma res show no longer lists",
          "[lab][events]") {
    auto events = ev.json_lines("tp.jsonl");
    // Every id NLDEV listed during the test (the rejecting servers' listeners)
    // was reported closed.
    for (unsigned port : {7307u, 7308u}) {
        json nldev =
            json::parse(ev.text("cm_id-reject-" + std::to_string(port) + ".json"));
        for (const json& id : nldev) {
            if (!id.value("src-addr", "").ends_with(":" + std::to_string(port))) continue;
            bool closed = false;
            for (const json& j : events)
                if (j["event"] == "closed" && j["connection"]["device"] == id["ifname"] &&
                    j["connection"].value("cm_id", -1) == id["cm-idn"])
                    closed = true;
            INFO(id.dump());
            CHECK(closed);
        }
    }
    json after = ev.json("cm_id-after.json");
    std::set<std::pair<std::string, unsigned>> listed;
    for (const json& id : after)
        listed.insert({id["ifname"].get<std::string>(), id["cm-idn"].get<unsigned>()});
    std::map<std::pair<std::string, unsigned>, bool> closed;
    for (const json& j : events) {
        const json& c = j["connection"];
        unsigned local = event_port(c, "local"), peer = event_port(c, "peer");
        bool ours = (local >= 7301 && local <= 7308) || (peer >= 7301 && peer <= 7308);
        // A request nobody listened for made no id: its cm_id 0 names none.
        if (!ours || c["device"] == "" || j["event"] == "no_listener") continue;
        auto key = std::pair{c["device"].get<std::string>(), c["cm_id"].get<unsigned>()};
        closed[key] = closed[key] || j["event"] == "closed";
    }
    REQUIRE(closed.size() >= 16);
    for (const auto& [key, was_closed] : closed) {
        INFO(key.first << "/" << key.second);
        CHECK(!listed.count(key));
        CHECK(was_closed);
    }
}

TEST_CASE("lab: life prints each connection once per end as it ends, with how it ended",
          "[lab][events]") {
    // JSON: the closed events of the connections, nothing else.
    auto lives = ev.json_lines("life.jsonl");
    std::map<unsigned, std::vector<json>> by_port; // the server's port
    for (const json& j : lives) {
        CHECK(j["event"] == "closed");
        CHECK(j["source"] == "tracepoints");
        const json& c = j["connection"];
        if (c["via"] == "verbs") continue; // judged with the QPs' lives below
        CHECK(c["state"] != "LISTEN");
        unsigned local = event_port(c, "local"), peer = event_port(c, "peer");
        REQUIRE(peer != 0);
        by_port[local >= 7301 && local <= 7308 ? local : peer].push_back(j);
    }
    for (unsigned port : {7301u, 7302u, 7303u, 7304u}) {
        INFO("rping -C 1 to port " << port);
        REQUIRE(by_port[port].size() == 2); // both ends, once each
        for (const json& j : by_port[port]) {
            CHECK(j["ending"] == "disconnected");
            CHECK(!j.contains("reason"));
            CHECK(j["handshake_ms"].get<double>() > 0);
            CHECK(j["lifetime_ms"].get<double>() > j["handshake_ms"].get<double>());
        }
    }
    auto ending_of = [&](unsigned port, const char* comm) {
        for (const json& j : by_port[port])
            if (j["connection"]["owner"]["comm"] == comm)
                return j.value("ending", "") + ":" + j.value("reason", "");
        return std::string("none");
    };
    CHECK(ending_of(7305, "rping") == "error:ECONNREFUSED");
    CHECK(ending_of(7306, "rping") == "rejected:INVALID_SERVICE_ID");
    CHECK(ending_of(7307, "rping") == "rejected:CONSUMER_DEFINED");
    CHECK(ending_of(7307, "rdmastat-reject") == "reject_sent:");
    CHECK(ending_of(7308, "rping") == "rejected:ECONNRESET");
    CHECK(ending_of(7308, "rdmastat-reject") == "reject_sent:");
    // No handshake for a connection that never came up.
    for (unsigned port : {7305u, 7306u, 7307u, 7308u})
        for (const json& j : by_port[port])
            CHECK(!j.contains("handshake_ms"));

    // The text view says the same, a line per connection end under a header.
    std::istringstream text(ev.text("life.txt"));
    std::string line;
    REQUIRE(std::getline(text, line));
    CHECK(line.rfind("TIME ", 0) == 0);
    CHECK(line.find("HANDSHAKE_MS LIFETIME_MS END") != std::string::npos);
    std::size_t rows = 0;
    bool consumer = false;
    while (std::getline(text, line)) {
        ++rows;
        if (line.find(":7307 ") != std::string::npos &&
            line.ends_with(" rejected:CONSUMER_DEFINED"))
            consumer = true;
    }
    CHECK(rows == lives.size());
    CHECK(consumer);
    CHECK(without_ready(ev.text("life.err"), "life").empty());
}

TEST_CASE("lab: -E says when it is ready, and misses nothing made right after", "[lab][events]") {
    const int rounds = std::stoi(ev.text("ready-rounds"));
    REQUIRE(rounds > 0);
    int whole = 0;
    std::string missed;
    for (int r = 1; r <= rounds; ++r) {
        const std::string n = std::to_string(r);
        INFO("round " << r);
        CHECK(without_ready(ev.text("ready-" + n + ".err"), "-E").empty());
        auto events = ev.json_lines("ready-" + n + ".jsonl");
        // The listener was made after the line, then a one-ping connection
        // to it: each end from its first event to its last.
        for (unsigned port : {7350u + r, 7360u + r}) {
            Ends ends = ends_of(events, port);
            const bool seen = find_event(ends.active, "cm_event", "ADDR_RESOLVED") &&
                              find_event(ends.active, "closed") &&
                              find_event(ends.passive, "cm_event", "CONNECT_REQUEST") &&
                              find_event(ends.passive, "closed");
            if (seen)
                ++whole;
            else
                missed += " " + std::to_string(port);
        }
    }
    INFO("connections seen whole: " << whole << " of " << 2 * rounds << "; missed:" << missed);
    CHECK(whole == 2 * rounds);
}

TEST_CASE("lab: -E loads second programs only where tracepoints are preemptible", "[lab][events]") {
    // Linux 7.0 runs tracepoints' programs under SRCU-fast with migration
    // disabled, where earlier kernels disabled preemption around them (their
    // include/linux/tracepoint.h): the fact the tool's probe must find.
    const std::string release = ev.text("kernel-release");
    const bool preemptible = std::stoi(release) >= 7;
    INFO("kernel " << release.substr(0, release.find('\n'))
                   << "; seconds from start to ready: " << ev.text("ready-seconds"));
    // The probe's verdict, as --stats gives it: -E's bounded run, and life's
    // (ended by SIGTERM).
    const std::string verdict = preemptible
                                    ? "stats: tracepoints run preemptibly: second programs loaded\n"
                                    : "stats: tracepoints run with preemption disabled: no second "
                                      "programs\n";
    CHECK(ev.text("bounded.txt").find("rdmastat: -E: " + verdict) != std::string::npos);
    CHECK(ev.text("life-j.err").find("rdmastat: life: " + verdict) != std::string::npos);
    // bpftool lists every program loaded; the tracer's are the only ones
    // while it runs (its probe's is gone). A second program's name is its
    // first's and "_again"; names are compared cut to the kernel's 15
    // characters, since bpftool reads them whole from BTF only where it can.
    const int pid = std::stoi(ev.text("ready-progs.pid"));
    auto cut = [](const std::string& name) { return name.substr(0, 15); };
    std::map<std::string, int> loaded;
    for (const json& prog : ev.json("ready-progs.json")) {
        bool other = false;
        for (const json& p : prog.value("pids", json::array()))
            other = other || p.value("pid", 0) != pid;
        if (!other) ++loaded[cut(prog.value("name", ""))];
    }
    // A program's and its second program's, however long the name.
    auto pair = [&](const std::string& first) {
        const std::string again = cut(first + "_again");
        return loaded[cut(first)] + (again == cut(first) ? 0 : loaded[again]);
    };
    const int expected = preemptible ? 2 : 1;
    for (const char* tp : {"cm_event_handler", "cm_qp_create", "cm_send_rej", "cm_send_rtu",
                           "cm_disconnect", "icm_no_listener_err", "cm_id_destroy"}) {
        INFO(tp);
        // BTF-typed programs where the kernel attaches them, else raw ones.
        CHECK(pair(std::string("btf_") + tp) + pair(std::string("raw_") + tp) == expected);
    }
    // Every kernel of the lab traces these functions (-E says nothing missing).
    for (const char* fn :
         {"connect_exit", "connect_entry", "reject_exit", "qp_create_user", "qp_create_kernel",
          "cm_init_qp_attr", "qp_modify", "qp_destroy", "qp_async_event"}) {
        INFO(fn);
        CHECK(pair(fn) == expected);
    }
}

TEST_CASE("lab: -E --duration ends by itself, having reported what came in its window",
          "[lab][events]") {
    CHECK(ev.text("bounded.rc") == "0\n");
    std::string text = ev.text("bounded.txt");
    CHECK(text.find(" ESTABLISHED rxe0/1 roce 10.9.0.2:7313 ") != std::string::npos);
    CHECK(text.find(" ending=disconnected") != std::string::npos);
}

TEST_CASE("lab: serve --events counts what -E saw: events, failures by reason, handshakes",
          "[lab][events]") {
    std::string text = ev.text("metrics.prom");
    auto value = [&](const std::string& series) { return prom_value(text, series); };
    CHECK(value("rdmastat_events_up") == 1);
    CHECK(value("rdmastat_events_lost_total{cause=\"ring_buffer_full\"}") == 0);
    CHECK(value("rdmastat_events_lost_total{cause=\"program_busy\"}") == 0);
    // Two servers said no on rxe: rdmastat-reject on 10.9.0.2 and on 0.0.0.0.
    CHECK(value("rdmastat_connect_failures_total{device=\"rxe0\",reason=\"CONSUMER_DEFINED\"}") ==
          2);
    CHECK(value("rdmastat_connect_failures_total{device=\"rxe0\",reason=\"INVALID_SERVICE_ID\"}") ==
          1);
    CHECK(value("rdmastat_connect_failures_total{device=\"siw0\",reason=\"ECONNREFUSED\"}") == 1);
    CHECK(value("rdmastat_connect_failures_total{device=\"rxe0\",reason=\"no_listener\"}") == 1);
    CHECK(value("rdmastat_connect_failures_total{device=\"siw0\",reason=\"ECONNRESET\"}") == 1);
    // Two rpings per device, both ends established; their handshakes in the
    // histogram (count and +Inf bucket agree).
    for (auto [device, transport] : {std::pair{"siw0", "iwarp"}, std::pair{"rxe0", "roce"}}) {
        INFO(device);
        std::string labels =
            std::string("device=\"") + device + "\",transport=\"" + transport + "\"";
        CHECK(value("rdmastat_connections_established_total{device=\"" + std::string(device) +
                    "\"}") == 4);
        CHECK(value("rdmastat_handshake_seconds_count{" + labels + "}") == 4);
        CHECK(value("rdmastat_handshake_seconds_bucket{" + labels + ",le=\"+Inf\"}") == 4);
        CHECK(value("rdmastat_handshake_seconds_sum{" + labels + "}") > 0);
        CHECK(value("rdmastat_cm_events_total{device=\"" + std::string(device) +
                    "\",event=\"CONNECT_REQUEST\"}") >= 3);
    }
    // Every connection end closed, counted from what the scenario made: per
    // device 4 rping ends, the refused or unanswered connect, the rejected
    // client and its rejecting server; rxe has the wildcard server's pair too.
    // The ibv_rc_pingpong pair's two ends on rxe too.
    CHECK(value("rdmastat_connections_closed_total{device=\"siw0\"}") == 7);
    CHECK(value("rdmastat_connections_closed_total{device=\"rxe0\"}") == 11);
    for (const char* state : {"INIT", "RTR", "RTS"})
        CHECK(value(std::string("rdmastat_qp_transitions_total{device=\"rxe0\",state=\"") + state +
                    "\"}") == 2);
}

TEST_CASE("lab: -E under churn of listening ids (up to 2,000/s a device, 20 s) loses none",
          "[lab][events]") {
    for (const char* dev : {"siw", "rxe"}) {
        INFO(dev);
        std::string made = ev.text(std::string("churn-") + dev);
        REQUIRE(made.rfind("created ", 0) == 0);
        long created = std::stol(made.substr(8));
        long closed = std::stol(ev.text(std::string("churn-closed-") + dev));
        INFO(created << " ids in 20 s: " << created / 20 << " per second");
        CHECK(created > 100);
        CHECK(created <= 2000 * 20 + 100); // paced (-r 2000), one batch of slack
        CHECK(closed == created);
    }
    CHECK(without_ready(ev.text("churn.err"), "-E").empty());
}

TEST_CASE("lab: -E under connection churn on both devices loses none, every program hit",
          "[lab][events]") {
    for (const char* dev : {"siw", "rxe"}) {
        INFO(dev);
        // "started S established E failed F skipped K seconds T"
        std::istringstream made(ev.text(std::string("cchurn-") + dev));
        std::string word;
        long started = 0, established = -1, failed = -1;
        while (made >> word) {
            if (word == "started") made >> started;
            if (word == "established") made >> established;
            if (word == "failed") made >> failed;
        }
        INFO(ev.text(std::string("cchurn-") + dev));
        CHECK(established > 25);
        CHECK(established == started);
        // The counts below are exact only for connections that all succeed.
        REQUIRE(failed == 0);
        // Both ends of each connection, and the listener at the end.
        CHECK(std::stol(ev.text(std::string("cchurn-closed-") + dev)) == 2 * established + 1);
        CHECK(std::stol(ev.text(std::string("cchurn-connect-ms-") + dev)) == established);
    }
    CHECK(without_ready(ev.text("cchurn.err"), "-E").empty());
}

TEST_CASE("lab: -E from tracepoints sees a raw-verbs QP's whole life, with its peer",
          "[lab][events][verbs]") {
    auto events = ev.json_lines("tp.jsonl");
    std::map<unsigned, std::vector<json>> by_qp;
    for (const json& j : events) {
        const json& c = j["connection"];
        if (c.value("via", "cm") != "verbs") continue;
        // rping's QPs are its ids', moved with rdma_cm's attributes: never
        // a verbs connection's line.
        CHECK(c["owner"]["comm"] == "ibv_rc_pingpong");
        by_qp[c["qp"]["number"].get<unsigned>()].push_back(j);
    }
    for (const char* log : {"rcpp-s.log", "rcpp-c.log"}) {
        PingpongEnd end = pingpong_end(ev.text(log));
        INFO(log << ": QPN " << end.qpn << ", peer's " << end.remote_qpn);
        REQUIRE(end.qpn != 0);
        REQUIRE(end.remote_qpn != 0);
        const auto& life = by_qp[end.qpn];
        std::vector<std::string> steps;
        for (const json& j : life)
            steps.push_back(j["event"].get<std::string>() + ":" +
                            j["connection"]["qp"].value("state", "-"));
        CHECK(steps == std::vector<std::string>{"qp_created:RESET", "changed:INIT", "changed:RTR",
                                                "changed:RTS", "closed:RTS"});
        REQUIRE(life.size() == 5);
        CHECK(life[2]["old_qp_state"] == "INIT");
        for (std::size_t i = 2; i < life.size(); ++i) {
            const json& c = life[i]["connection"];
            INFO(c.dump());
            CHECK(c["device"] == "rxe0");
            CHECK(c["transport"] == "roce");
            CHECK(c["qp"]["type"] == "RC");
            CHECK(c["qp"]["remote_number"] == end.remote_qpn);
            CHECK(c["peer"]["address"] == end.remote_address);
            CHECK(c["local"]["address"] == "10.9.0.2"); // both ends on rxe0
            CHECK(c["owner"]["pid"].get<unsigned>() > 0);
        }
        // Lived well under a second: the poll every second may not see it.
        CHECK(life[4]["lifetime_ms"].get<double>() > 0);
        CHECK(life[4]["ending"] == "closed");
    }

    // life prints each end once, as it ends.
    unsigned lives = 0;
    for (const json& j : ev.json_lines("life.jsonl")) {
        if (j["connection"].value("via", "cm") != "verbs") continue;
        ++lives;
        CHECK(j["connection"]["owner"]["comm"] == "ibv_rc_pingpong");
        CHECK(j["ending"] == "closed");
    }
    CHECK(lives == 2);
}
