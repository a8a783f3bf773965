// SPDX-License-Identifier: MIT
// Monitoring: NLDEV statistics replies captured in the lab, snapshot diffs,
// counter rates, the Prometheus metrics (golden) and the -w/-E/export CLI.
#include "analysis/diff.h"
#include "analysis/metrics.h"
#include "analysis/select.h"
#include "catch_compat.hpp"
#include "cli/app.h"
#include "collect/snapshot_file.h"
#include "collect/stats_parse.h"
#include "render/monitor.h"
#include "render/output.h"
#include "render/prometheus.h"
#include "support.h"

#include <map>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

Snapshot fixture_snapshot(const std::string& name) {
    std::istringstream in(fixture_text(name));
    return parse_snapshot_json(in, name).take();
}

// The referee's counters of DEV/PORT from `rdma -j statistic show`.
std::map<std::string, std::uint64_t> referee_counters(const std::string& dev, unsigned port) {
    std::map<std::string, std::uint64_t> out;
    for (const json& link : json::parse(fixture_text("rdma-stat.json"))) {
        if (link.value("ifname", "") != dev || link.value("port", 0u) != port) continue;
        for (const auto& [key, value] : link.items())
            if (value.is_number_unsigned() && key != "port") out[key] = value.get<std::uint64_t>();
    }
    return out;
}

std::map<std::string, std::uint64_t> as_map(const std::vector<Counter>& counters) {
    std::map<std::string, std::uint64_t> out;
    for (const Counter& c : counters)
        out[c.name] = c.value;
    return out;
}

// The lab snapshot with port counters: rxe0's from the statistics reply of the
// capture scenario (a later boot than the snapshot's), siw0 without any.
Snapshot snapshot_with_counters() {
    Snapshot s = fixture_snapshot("snapshot-host.json");
    s.counters_collected = true;
    s.port_counters.push_back(PortCounters{
        "rxe0", 1, CounterSource::nldev, parse_port_stat(fixture_bytes("stat-rxe0-1.bin")).take()});
    s.port_counters.push_back(PortCounters{"siw0", 1, std::nullopt, {}});
    s.qp_counters = parse_qp_counter_dump(fixture_bytes("qpcounters-rxe0.bin")).take();
    return s;
}

} // namespace

TEST_CASE("NLDEV port statistics of rxe match rdma statistic show", "[monitor]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto counters = parse_port_stat(fixture_bytes("stat-rxe0-1.bin"));
    REQUIRE(counters.ok());
    auto referee = referee_counters("rxe0", 1);
    REQUIRE(referee.size() > 5);
    CHECK(as_map(counters.value()) == referee);
    CHECK(std::is_sorted(counters.value().begin(), counters.value().end(),
                         [](const Counter& a, const Counter& b) { return a.name < b.name; }));
    require_cut_dumps_refused(fixture_bytes("stat-rxe0-1.bin"), parse_port_stat);
}

TEST_CASE("siw has no port statistics: the kernel refuses, rdma shows none", "[monitor]") {
    FOR_EACH_FIXTURE_KERNEL();
    CHECK_FALSE(parse_port_stat(fixture_bytes("stat-siw0-1.bin")).ok());
    CHECK(referee_counters("siw0", 1).empty());
    // No device of the lab binds counters to QPs: the dumps parse, empty.
    for (const char* dev : {"qpcounters-rxe0.bin", "qpcounters-siw0.bin"}) {
        auto qps = parse_qp_counter_dump(fixture_bytes(dev));
        REQUIRE(qps.ok());
        CHECK(qps.value().empty());
    }
}

TEST_CASE("counter rates between two lab readings", "[monitor]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto before = parse_port_stat(fixture_bytes("stat-rxe0-1.bin")).take();
    auto after = parse_port_stat(fixture_bytes("stat-rxe0-1-later.bin")).take();
    auto old_values = as_map(before);
    auto rates = counter_rates(before, after, 2.0);
    REQUIRE(rates.size() == after.size());
    bool some_moved = false;
    for (const CounterRate& r : rates) {
        INFO(r.name);
        REQUIRE(r.per_second);
        CHECK(*r.per_second == Approx(double(r.value - old_values.at(r.name)) / 2.0));
        some_moved |= *r.per_second > 0;
    }
    CHECK(some_moved); // rping ran between the readings
    // A counter that went down (reset) or appeared has no rate; no time, no rates.
    auto reset = counter_rates(after, before, 1.0);
    for (const CounterRate& r : reset)
        if (old_values.at(r.name) < as_map(after).at(r.name)) CHECK_FALSE(r.per_second);
    CHECK_FALSE(counter_rates({}, after, 1.0).front().per_second);
    CHECK_FALSE(counter_rates(before, after, 0).front().per_second);
}

TEST_CASE("diff of snapshots: appeared, changed, closed", "[monitor]") {
    Snapshot before = fixture_snapshot("snapshot.json");
    Snapshot after = before;
    // Every rxe0 id closes, one siw0 listener becomes something else, and an
    // rxe0 id of before comes back under a new number.
    std::erase_if(after.connections, [](const Connection& c) { return c.device == "rxe0"; });
    auto listener = std::find_if(after.connections.begin(), after.connections.end(),
                                 [](const Connection& c) { return c.state == CmState::listen; });
    REQUIRE(listener != after.connections.end());
    listener->state = CmState::destroying;
    Connection reborn = *std::find_if(before.connections.begin(), before.connections.end(),
                                      [](const Connection& c) { return c.device == "rxe0"; });
    reborn.cm_id = 1000;
    after.connections.push_back(reborn);

    auto events = diff_connections(before.connections, after.connections);
    std::size_t rxe = std::count_if(before.connections.begin(), before.connections.end(),
                                    [](const Connection& c) { return c.device == "rxe0"; });
    REQUIRE(events.size() == rxe + 2);
    for (std::size_t i = 0; i < rxe; ++i) {
        CHECK(events[i].kind == EventKind::closed);
        CHECK(events[i].connection.device == "rxe0");
    }
    CHECK(events[rxe].kind == EventKind::changed);
    CHECK(events[rxe].old_state == CmState::listen);
    CHECK(events[rxe].connection.state == CmState::destroying);
    CHECK(events[rxe + 1].kind == EventKind::appeared);
    CHECK(events[rxe + 1].connection.cm_id == 1000);
    CHECK(diff_connections(before.connections, before.connections).empty());
}

TEST_CASE("counters survive the snapshot round trip; old files have none", "[monitor][snapshot]") {
    Snapshot a = snapshot_with_counters();
    Snapshot b = snapshot_from_text(snapshot_to_text(a)).take();
    CHECK(b.counters_collected);
    CHECK(b.port_counters == a.port_counters);
    CHECK(b.qp_counters == a.qp_counters);
    CHECK_FALSE(fixture_snapshot("snapshot.json").counters_collected);
}

TEST_CASE("Prometheus exposition of the lab snapshot (golden)", "[monitor][render]") {
    ScrapeStats stats{0.0125, {{"counters", 2}}};
    std::ostringstream out;
    write_prometheus(out,
                     build_metrics(snapshot_with_counters(), MetricsOptions{true, true, false}));
    write_prometheus(out, scrape_metrics(stats));
    CHECK(out.str() == golden("metrics.prom", out.str()));
}

TEST_CASE("rdmastat_connections counts every id -a lists", "[monitor]") {
    Snapshot s = fixture_snapshot("snapshot-host.json");
    std::map<std::string, double> expected; // device/state → ids, from the JSON itself
    json doc = json::parse(fixture_text("snapshot-host.json"));
    for (const json& c : doc["connections"])
        expected[c["device"].get<std::string>() + "/" + c["state"].get<std::string>()] += 1;
    std::map<std::string, double> got;
    for (const MetricFamily& f : build_metrics(s))
        if (f.name == "rdmastat_connections")
            for (const Sample& x : f.samples) {
                std::map<std::string, std::string> l(x.labels.begin(), x.labels.end());
                got[l["device"] + "/" + l["state"]] += x.value;
            }
    CHECK(got == expected);
}

TEST_CASE("label values and help are escaped", "[monitor][render]") {
    MetricFamily f{"rdmastat_test",
                   "a \\ help\nline",
                   MetricType::gauge,
                   {Sample{{{"comm", "a\"b\\c\nd"}}, 1.5}, Sample{{}, 3}}};
    std::ostringstream out;
    write_prometheus(out, {f});
    CHECK(out.str() == "# HELP rdmastat_test a \\\\ help\\nline\n# TYPE rdmastat_test gauge\n"
                       "rdmastat_test{comm=\"a\\\"b\\\\c\\nd\"} 1.5\nrdmastat_test 3\n");
    // Prometheus drops a scrape that is not UTF-8: a name any process can
    // choose reaches it as text, escape sequences included.
    f.samples = {Sample{{{"comm", "r\xff\x1b[2Jx\n\xc3\xa9"}}, 1}};
    out.str("");
    write_prometheus(out, {f});
    CHECK_THAT(out.str(),
               Catch::Contains("rdmastat_test{comm=\"r\\\\xff\\\\x1b[2Jx\\n\xc3\xa9\"} 1\n"));
}

TEST_CASE("-w and -E on a snapshot file", "[monitor][cli]") {
    std::string snap = fixtures_dir() + "/snapshot.json";
    Run w = run({"--input", snap, "-w", "0.05", "--count", "2", "-p"});
    INFO(w.err);
    REQUIRE(w.rc == 0);
    // Two blocks, nothing appeared or closed in an unchanged file, no counters in it.
    CHECK(std::count(w.out.begin(), w.out.end(), '\n') > 20);
    CHECK_THAT(w.out, Catch::Contains("0 appeared, 0 closed"));
    CHECK_THAT(w.out, Catch::Contains("n/a (no port counters were read)"));
    Run e = run({"--input", snap, "-E", "-j", "--interval", "0.05", "--count", "3"});
    CHECK(e.rc == 0);
    CHECK(e.out.empty());
}

TEST_CASE("monitoring usage errors exit 2", "[monitor][cli]") {
    std::string snap = fixtures_dir() + "/snapshot.json";
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"-w", "soon"},
             {"-w", "1", "-E"},
             {"-w", "1", "-j"},
             {"-w", "1", "-s"},
             {"-E", "--interval", "0"},
             {"export", "-j"},
             {"serve"},
             {"serve", "--listen", "nowhere"},
             {"serve", "--listen", "127.0.0.1:99999"},
             {"devices", "-w", "1"},
         }) {
        std::vector<std::string> with_input = args;
        with_input.insert(with_input.end(), {"--input", snap});
        Run r = run(with_input);
        INFO(Catch::Detail::stringify(args) << "\n" << r.err);
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Catch::StartsWith("rdmastat: "));
    }
}

TEST_CASE("export of a snapshot file", "[monitor][cli]") {
    Run r = run({"export", "--input", fixtures_dir() + "/snapshot-host.json"});
    REQUIRE(r.rc == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out,
               Catch::Contains("rdmastat_connections{device=\"siw0\",port=\"1\","
                               "transport=\"iwarp\",port_space=\"tcp\",state=\"LISTEN\"} 2"));
    CHECK_THAT(r.out, Catch::Contains("rdmastat_scrape_errors_total{source=\"connections\"} 0"));
    Run missing = run({"export", "--input", "/nonexistent.json"});
    CHECK(missing.rc == 2);
    CHECK_THAT(missing.out,
               Catch::Contains("rdmastat_scrape_errors_total{source=\"connections\"} 1"));
    CHECK_THAT(missing.err, Catch::StartsWith("rdmastat: export: /nonexistent.json: "));
}

TEST_CASE("a -w round and -E lines (golden)", "[monitor][render]") {
    // Between two rounds: the rxe0 counters of the second lab reading, the
    // passive end of the IPv4 rxe0 rping closed, the siw0 IPv4 listener changed
    // state and a new id appeared on siw0.
    Snapshot before = snapshot_with_counters();
    Snapshot after = before;
    after.port_counters[0].counters =
        parse_port_stat(fixture_bytes("stat-rxe0-1-later.bin")).take();
    std::erase_if(after.connections, [](const Connection& c) {
        return c.device == "rxe0" && c.local && c.local->port == 7175 &&
               c.state == CmState::connect;
    });
    for (Connection& c : after.connections)
        if (c.device == "siw0" && c.state == CmState::listen && c.local && c.local->port == 7174)
            c.state = CmState::destroying;
    Connection fresh = after.connections.front();
    fresh.cm_id = 99;
    fresh.local->port = 40000;
    after.connections.push_back(fresh);

    WallTime t{std::chrono::milliseconds(1795300874123)};
    auto events = diff_connections(before.connections, after.connections);
    REQUIRE(events.size() == 3);
    std::ostringstream text, lines;
    render_events(text, events, t);
    json_writer()->events(lines, events, t, EventSource::polling);
    CHECK(text.str() == golden("events.txt", text.str()));
    CHECK(lines.str() == golden("events.jsonl", lines.str()));
    // Polled events say so, in the versioned schema, and carry no tracepoint
    // fields.
    std::istringstream each(lines.str());
    std::string line;
    while (std::getline(each, line)) {
        json j = json::parse(line);
        CHECK(j["version"] == 3);
        CHECK(j["source"] == "polling");
        CHECK(!j.contains("cm_event"));
        CHECK(!j.contains("handshake_ms"));
    }

    WatchRound r;
    r.time = t;
    r.interval = 2;
    const auto now = select(after, Selection{Scope::all, std::nullopt}, Filter());
    r.rows = mark_rows(now, events);
    // Every id listed now, then the one closed; the new id alone marked "+".
    REQUIRE(r.rows.size() == now.size() + 1);
    CHECK(r.rows.back().mark == RowMark::closed);
    CHECK(r.rows.back().connection->cm_id == events.front().connection.cm_id);
    CHECK(std::count_if(r.rows.begin(), r.rows.end(), [](const MarkedConnection& m) {
              return m.mark == RowMark::appeared;
          }) == 1);
    CHECK(std::find_if(r.rows.begin(), r.rows.end(), [](const MarkedConnection& m) {
              return m.mark == RowMark::appeared;
          })->connection->cm_id == 99);
    r.ports = after.port_counters;
    r.qp_counters = after.qp_counters;
    r.previous = &before;
    r.elapsed = 2;
    std::ostringstream round;
    render_watch_round(round, r, TextOptions{true, false, true, false});
    CHECK(round.str() == golden("watch-round.txt", round.str()));
}

TEST_CASE("rdmastat_container_connections: only when asked, one series per container or pod",
          "[monitor]") {
    Snapshot s = fixture_snapshot("snapshot-host.json");
    REQUIRE(s.connections.size() >= 3);
    const std::string a(64, 'a'), b(64, 'b');
    s.connections[0].owner.container = Container{ContainerRuntime::docker, a};
    s.connections[1].owner.container = Container{ContainerRuntime::docker, a};
    s.connections[2].owner.container = Container{ContainerRuntime::containerd, b};
    s.connections[2].owner.pod = Pod{"0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4", PodQos::burstable};
    auto family = [&](bool on) -> const MetricFamily* {
        static std::vector<MetricFamily> all;
        all = build_metrics(s, MetricsOptions{false, on, false});
        for (const MetricFamily& f : all)
            if (f.name == "rdmastat_container_connections") return &f;
        return nullptr;
    };
    CHECK(family(false) == nullptr); // opt-in: pod labels only when enabled
    const MetricFamily* f = family(true);
    REQUIRE(f);
    std::map<std::string, double> got; // container → ids
    for (const Sample& x : f->samples) {
        std::map<std::string, std::string> l(x.labels.begin(), x.labels.end());
        got[l["runtime"] + "/" + l["container"] + "/" + l["pod"] + "/" + l["qos"]] = x.value;
    }
    CHECK(got == std::map<std::string, double>{
                     {"docker/" + a + "//", 2},
                     {"containerd/" + b + "/0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4/burstable", 1}});
}

TEST_CASE("diff of verbs connections: keyed by QP number, changed by QP state", "[monitor]") {
    Connection a;
    a.device = "rxe0";
    a.via = Via::verbs;
    a.qp = Qp{17, QpType::rc, QpState::rts, 18, std::nullopt};
    Connection id = a; // a cm id numbered as the QP: another connection
    id.via = Via::cm;
    id.cm_id = 17;
    id.state = CmState::connect;
    Connection broken = a;
    broken.qp->state = QpState::err;
    auto events = diff_connections({a, id}, {broken, id});
    REQUIRE(events.size() == 1);
    CHECK(events[0].kind == EventKind::changed);
    CHECK(events[0].old_qp_state == QpState::rts);
    CHECK_FALSE(events[0].old_state);
    CHECK(events[0].connection.qp->state == QpState::err);
    // The polled line shows the QP states, no cm id.
    std::ostringstream out;
    render_events(out, events, std::chrono::system_clock::time_point{});
    CHECK_THAT(out.str(), Catch::Contains(" RTS->ERR qpn=17 ") && !Catch::Contains("cm_id="));
    Connection other = a;
    other.qp->number = 20;
    events = diff_connections({a}, {other});
    REQUIRE(events.size() == 2);
    CHECK(events[0].kind == EventKind::closed);
    CHECK(events[1].kind == EventKind::appeared);
}
