// SPDX-License-Identifier: MIT
// The fabric view: both ends of each connection joined across hosts, from the
// lab's snapshot (rping over siw and rxe, IPv4 and IPv6, both ends on one
// host) split between hosts as a fabric would see them, and the
// Prometheus form those ends travel in.
#include "analysis/fabric.h"
#include "analysis/join.h"
#include "analysis/metrics.h"
#include "catch_compat.hpp"
#include "collect/http_client.h"
#include "collect/module_parse.h"
#include "collect/nldev_parse.h"
#include "collect/prometheus_api.h"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "model/schema_labels.h"
#include "render/fabric.h"
#include "render/output.h"
#include "support.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

Snapshot lab_snapshot() {
    auto s = load_snapshot_file(fixture_path("snapshot-host.json"));
    REQUIRE(s);
    return s.take();
}

// The listeners' (device, port): an end bound to one of them is the accepting side.
std::set<std::pair<std::string, std::uint16_t>> listener_ports(const Snapshot& s) {
    std::set<std::pair<std::string, std::uint16_t>> out;
    for (const Connection& c : s.connections)
        if (c.state == CmState::listen) out.emplace(c.device, c.local->port);
    return out;
}

bool accepting(const Snapshot& s, const Connection& c) {
    return listener_ports(s).count({c.device, c.local->port}) > 0;
}

std::size_t count_state(const Snapshot& s, CmState state) {
    return static_cast<std::size_t>(
        std::count_if(s.connections.begin(), s.connections.end(),
                      [&](const Connection& c) { return c.state == state; }));
}

// Host "server" has the listeners and accepted ends; host "client" the
// connecting ends: the lab's loopback connections as two hosts would hold them.
FabricInput split(const Snapshot& s) {
    FabricInput in;
    in.hosts = {FabricHost{"client", {}, {}}, FabricHost{"server", {}, {}}};
    for (const Connection& c : s.connections)
        in.hosts[c.state == CmState::listen || accepting(s, c) ? 1 : 0].connections.push_back(c);
    return in;
}

} // namespace

TEST_CASE("fabric: the lab's connections join end to end, accepting side first", "[fabric]") {
    const Snapshot s = lab_snapshot();
    const std::size_t ends = count_state(s, CmState::connect);
    REQUIRE(ends >= 8); // rping on siw and rxe, over IPv4 and IPv6

    FabricInput one{FabricOrigin::files, {FabricHost{"lab", s.connections, {}}}, {}};
    FabricView view = join_fabric(one);
    CHECK(view.rows.size() == ends / 2);
    CHECK(view.of(FabricStatus::established) == ends / 2);
    for (const FabricRow& r : view.rows) {
        REQUIRE(r.ends.size() == 2);
        const Connection& a = *r.ends[0].connection;
        const Connection& b = *r.ends[1].connection;
        CHECK(accepting(s, a));
        CHECK_FALSE(accepting(s, b));
        CHECK(a.local == b.peer);
        CHECK(a.peer == b.local);
        CHECK(a.device == b.device);
    }

    FabricInput two = split(s);
    view = join_fabric(two);
    CHECK(view.of(FabricStatus::established) == ends / 2);
    for (const FabricRow& r : view.rows) {
        REQUIRE(r.ends.size() == 2);
        CHECK(r.ends[0].host->name == "server");
        CHECK(r.ends[1].host->name == "client");
    }
    // Listeners only when asked for, or when a port is.
    CHECK(join_fabric(two, FabricQuery{true, std::nullopt}).of(FabricStatus::listening) ==
          count_state(s, CmState::listen));
}

TEST_CASE("fabric: a lost end is half-open; a peer outside the view is unobserved", "[fabric]") {
    const Snapshot s = lab_snapshot();
    FabricInput in = split(s);
    // The client of the first rxe connection is gone (killed, its host down).
    auto& clients = in.hosts[0].connections;
    auto gone = std::find_if(clients.begin(), clients.end(), [](const Connection& c) {
        return c.device == "rxe0" && c.state == CmState::connect;
    });
    REQUIRE(gone != clients.end());
    const Endpoint lost = *gone->local;
    clients.erase(gone);

    FabricView view = join_fabric(in);
    REQUIRE(view.of(FabricStatus::half_open) == 1);
    const FabricRow& r = view.rows.front(); // problems first
    CHECK(r.status == FabricStatus::half_open);
    REQUIRE(r.ends.size() == 1);
    CHECK(*r.ends[0].connection->peer == lost);
    CHECK(r.ends[0].host->name == "server");
    REQUIRE(r.peer_host);

    // The client's host is not in the view, and nothing else holds its address.
    FabricInput alone{FabricOrigin::files, {in.hosts[1]}, {}};
    for (Connection& c : alone.hosts[0].connections)
        if (c.peer && !c.peer->address.is_any()) c.peer->address = *IpAddress::parse("192.0.2.7");
    view = join_fabric(alone);
    CHECK(view.of(FabricStatus::unobserved) == count_state(s, CmState::connect) / 2);
    CHECK(view.of(FabricStatus::half_open) == 0);
    // ...unless a port of a host in the view answers on it.
    alone.hosts[0].addresses = {*IpAddress::parse("192.0.2.7")};
    CHECK(join_fabric(alone).of(FabricStatus::half_open) == count_state(s, CmState::connect) / 2);
}

TEST_CASE("fabric: ends whose states disagree, and a port's holders", "[fabric]") {
    const Snapshot s = lab_snapshot();
    FabricInput in = split(s);
    Connection& client = *std::find_if(
        in.hosts[0].connections.begin(), in.hosts[0].connections.end(),
        [](const Connection& c) { return c.device == "siw0" && c.state == CmState::connect; });
    client.state = CmState::disconnect;
    const std::uint16_t port = client.peer->port;
    FabricView view = join_fabric(in);
    CHECK(view.of(FabricStatus::disagree) == 1);
    CHECK(view.rows.front().status == FabricStatus::disagree);
    // A QP in error disagrees too; siw's RESET (its QPs' state while connected) does not.
    client.state = CmState::connect;
    REQUIRE(client.qp);
    client.qp->state = QpState::err;
    CHECK(join_fabric(in).of(FabricStatus::disagree) == 1);
    client.qp->state = QpState::reset;
    CHECK(join_fabric(in).of(FabricStatus::disagree) == 0);

    view = join_fabric(in, FabricQuery{false, port});
    REQUIRE(view.rows.size() == 2); // the listener and the one connection on it
    CHECK(view.of(FabricStatus::listening) == 1);
    CHECK(view.of(FabricStatus::established) == 1);
    for (const FabricRow& r : view.rows)
        CHECK(r.ends[0].connection->local->port == port);
}

TEST_CASE("fabric: a connection's labels read back as the connection", "[fabric]") {
    const Snapshot s = lab_snapshot();
    for (const Connection& c : s.connections) {
        schema::LabelMap labels = schema::to_labels(c);
        CHECK(labels.at("device") == c.device);
        CHECK(labels.at("state") == name_of(*c.state));
        CHECK(labels.at("local_address") == c.local->address.to_string());
        CHECK(labels.at("local_port") == std::to_string(c.local->port));
        CHECK(labels.count("qp_number") == (c.qp ? 1u : 0u));
        CHECK(labels.at("owner_pid") == std::to_string(*c.owner.pid));
        for (const auto& [name, value] : labels)
            CHECK(std::all_of(name.begin(), name.end(),
                              [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }));
        labels["instance"] = "10.9.0.1:9464"; // Prometheus's own labels are ignored
        std::string why;
        auto back = schema::from_labels<Connection>(labels, &why);
        INFO(why);
        REQUIRE(back);
        CHECK(*back == c);
    }
    schema::LabelMap bad = schema::to_labels(s.connections.front());
    bad["local_port"] = "70000";
    std::string why;
    CHECK_FALSE(schema::from_labels<Connection>(bad, &why));
    CHECK(why == "local_port: '70000' is not a number in range");
    bad.erase("device");
    CHECK_FALSE(schema::from_labels<Connection>(bad, &why));
    CHECK(why == "no label device");
}

TEST_CASE("fabric: from the Prometheus API's answer, as export writes the series", "[fabric]") {
    Snapshot s = lab_snapshot();
    for (Device& d : s.devices)
        for (Port& p : d.ports)
            p.addresses = std::vector<IpAddress>{*IpAddress::parse("10.9.0.1")};
    // What /api/v1/query returns for the metrics of two hosts.
    auto answer = [&](const std::string& family, const char* instance) {
        nlohmann::json result = nlohmann::json::array();
        for (const MetricFamily& f : build_metrics(s, MetricsOptions{false, false, true}))
            if (f.name == family)
                for (const Sample& smp : f.samples) {
                    nlohmann::json metric = {
                        {"__name__", family}, {"instance", instance}, {"job", "rdmastat"}};
                    for (const auto& [k, v] : smp.labels)
                        metric[k] = v;
                    result.push_back({{"metric", metric}, {"value", {1.7e9, "1"}}});
                }
        return nlohmann::json{{"status", "success"},
                              {"data", {{"resultType", "vector"}, {"result", result}}}}
            .dump();
    };
    auto conns = parse_query_response(answer("rdmastat_connection_info", "a:9464"));
    auto addrs = parse_query_response(answer("rdmastat_port_address_info", "a:9464"));
    REQUIRE(conns);
    REQUIRE(addrs);
    std::size_t internal =
        static_cast<std::size_t>(std::count_if(s.connections.begin(), s.connections.end(),
                                               [](const Connection& c) { return c.internal; }));
    CHECK(conns.value().size() == s.connections.size() - internal);
    FabricInput in = fabric_from_series(conns.value(), addrs.value());
    CHECK(in.warnings.empty());
    REQUIRE(in.hosts.size() == 1);
    CHECK(in.hosts[0].name == "a:9464");
    CHECK(in.hosts[0].addresses == std::vector<IpAddress>{*IpAddress::parse("10.9.0.1")});
    CHECK(join_fabric(in).of(FabricStatus::established) == count_state(s, CmState::connect) / 2);

    // A series a newer or broken exporter wrote is left out, with a warning.
    std::vector<PromSeries> odd = conns.value();
    odd.front().labels["state"] = "WEIRD";
    in = fabric_from_series(odd, {});
    REQUIRE(in.warnings.size() == 1);
    CHECK_THAT(in.warnings[0], Catch::Contains("1 series could not be read") &&
                                   Catch::Contains("unknown CM state 'WEIRD'"));

    auto refused = parse_query_response(
        R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})");
    REQUIRE_FALSE(refused);
    CHECK(refused.error() == "bad_data: parse error at char 3");
    CHECK_FALSE(parse_query_response("<html>"));
    CHECK_FALSE(parse_query_response(R"({"status":"success","data":{"resultType":"matrix"}})"));
}

TEST_CASE("fabric: base URLs", "[fabric]") {
    auto u = check_base_url("http://[::1]:9090/prom/");
    REQUIRE(u);
    CHECK(u.value() == "http://[::1]:9090/prom");
    u = check_base_url("https://prometheus.example//");
    REQUIRE(u);
    CHECK(u.value() == "https://prometheus.example");
    CHECK(check_base_url("ftp://x:9090").error() ==
          "'ftp://x:9090' is not an http:// or https:// URL");
    CHECK_FALSE(check_base_url("http://x:99999"));
    CHECK_FALSE(check_base_url("http://:9090"));
    CHECK_FALSE(check_base_url("https://"));
    CHECK_FALSE(check_base_url("x:9090"));
    // A password on the command line is in every user's ps.
    auto secret = check_base_url("https://u:p@x:9090");
    REQUIRE_FALSE(secret);
    CHECK(secret.error().find("--http.config.file") != std::string::npos);
}

TEST_CASE("fabric: text and JSON say the same", "[fabric]") {
    const Snapshot s = lab_snapshot();
    FabricInput in = split(s);
    in.hosts[0].connections.erase(
        std::find_if(in.hosts[0].connections.begin(), in.hosts[0].connections.end(),
                     [](const Connection& c) { return c.state == CmState::connect; }));
    const FabricView view = join_fabric(in);

    std::ostringstream text;
    render_fabric(text, view, FabricTextOptions{});
    std::istringstream lines(text.str());
    std::string line;
    std::getline(lines, line);
    CHECK_THAT(line, Catch::StartsWith("Status") && Catch::Contains("Peer Host") &&
                         !Catch::Contains("Container"));
    std::size_t n = 0;
    std::string first;
    while (std::getline(lines, line))
        if (n++ == 0) first = line;
    CHECK(n == view.rows.size());
    CHECK_THAT(first, Catch::StartsWith("half_open") && Catch::Contains("server"));

    std::ostringstream js;
    json_writer()->fabric(js, in, view, {});
    auto j = nlohmann::json::parse(js.str());
    CHECK(j["source"] == "files");
    CHECK(j["hosts"].size() == 2);
    CHECK(j["connections"].size() == view.rows.size());
    CHECK(j["summary"]["half_open"] == 1);
    CHECK(j["summary"]["established"] == view.of(FabricStatus::established));
    CHECK(j["connections"][0]["status"] == "half_open");
    CHECK(j["connections"][0].contains("peer_host"));
    CHECK(j["connections"][0]["ends"].size() == 1);
    CHECK(j["connections"].back()["ends"].size() == 2);
    CHECK(j["connections"].back()["ends"][0]["connection"]["local"]["port"].is_number());
}

TEST_CASE("fabric: loopback stays on its host, mapped IPv4 is IPv4, resolving is connecting",
          "[fabric]") {
    const Snapshot s = lab_snapshot();
    const Connection server =
        *std::find_if(s.connections.begin(), s.connections.end(), [&](const Connection& c) {
            return c.device == "siw0" && c.state == CmState::connect && accepting(s, c) &&
                   c.local->address.family == AF_INET;
        });
    Connection client = server;
    std::swap(client.local, client.peer);

    // siw on lo: 127.0.0.1 on both hosts, each end's partner gone.
    Connection a = server, b = client;
    a.local->address = a.peer->address = *IpAddress::parse("127.0.0.1");
    b.local->address = b.peer->address = *IpAddress::parse("127.0.0.1");
    FabricInput lo{FabricOrigin::files, {FabricHost{"a", {a}, {}}, FabricHost{"b", {b}, {}}}, {}};
    FabricView view = join_fabric(lo);
    CHECK(view.of(FabricStatus::established) == 0);
    REQUIRE(view.of(FabricStatus::half_open) == 2);
    for (const FabricRow& r : view.rows)
        CHECK(r.peer_host == r.ends[0].host); // 127.0.0.1 is each host's own
    // On one host, the same two ends are one connection.
    lo.hosts = {FabricHost{"a", {a, b}, {}}};
    CHECK(join_fabric(lo).of(FabricStatus::established) == 1);

    // A dual-stack socket's ::ffff:10.9.0.1 is the 10.9.0.1 the other end sees.
    Connection mapped = server;
    mapped.local->address = *IpAddress::parse("::ffff:" + server.local->address.to_string());
    mapped.peer->address = *IpAddress::parse("::ffff:" + server.peer->address.to_string());
    FabricInput dual{
        FabricOrigin::files, {FabricHost{"a", {mapped}, {}}, FabricHost{"b", {client}, {}}}, {}};
    CHECK(join_fabric(dual).of(FabricStatus::established) == 1);

    // A client still resolving its route has no other end yet.
    Connection resolving = client;
    resolving.state = CmState::route_resolved;
    resolving.qp.reset();
    FabricInput early{FabricOrigin::files, {FabricHost{"b", {resolving}, {}}}, {}};
    view = join_fabric(early);
    CHECK(view.of(FabricStatus::connecting) == 1);
    CHECK(view.of(FabricStatus::half_open) == 0);
}

TEST_CASE("fabric: a hostile server's answer is refused, not trusted", "[fabric]") {
    // Members of the wrong type.
    for (const char* body :
         {R"({"status":1})", R"({"status":"error","error":[]})",
          R"({"status":"success","data":{"resultType":7,"result":[]}})",
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1}}]}})",
          R"({"status":"success","data":{"resultType":"vector","result":[7]}})"}) {
        INFO(body);
        CHECK_FALSE(parse_query_response(body));
    }
    // Nothing that would end or change the request line.
    for (const char* url : {"http://h:9090/a b", "http://h:9090/?x", "http://h:9090/#x",
                            "http://h:9090/\r\nX: y", "http://h:80:80"})
        CHECK_FALSE(check_base_url(url));
}

namespace {

// The lab's raw-verbs capture (tests/fixtures/verbs) as root sees it with the
// module: each connected pair's lower QP number on host "a", the other on "b"
// (with a GID of its own).
struct VerbsFabric {
    Snapshot snap;
    FabricInput in;
    std::size_t pairs = 0;
};

VerbsFabric verbs_fabric() {
    NldevData data;
    data.devices = parse_device_dump(fixture_bytes("verbs/devices.bin")).take();
    data.qps = parse_qp_dump(fixture_bytes("verbs/qp-rxe0.bin")).take();
    VerbsFabric v;
    v.snap = join(data, {});
    add_verbs_paths(v.snap, parse_module_qp_dump(fixture_bytes("verbs/module-qp.bin")).take());
    v.in.hosts = {FabricHost{"a", {}, {}}, FabricHost{"b", {}, {}}};
    for (const Connection& c : v.snap.connections) {
        if (!connected_type(*c.qp->type)) {
            v.in.hosts[0].connections.push_back(c); // UD: not an end
            continue;
        }
        // Both ends were on rxe0, GID 10.9.0.2: host b's ends get 10.9.0.3.
        const bool lower = c.qp->number < *c.qp->remote_number;
        v.pairs += lower;
        Connection moved = c;
        const IpAddress b = *IpAddress::parse("::ffff:10.9.0.3");
        if (lower) {
            moved.peer = Endpoint{unmapped(b), 0};
            moved.qp->path->dgid = b;
        } else {
            moved.local = Endpoint{unmapped(b), 0};
            moved.qp->path->sgid = b;
        }
        v.in.hosts[lower ? 0 : 1].connections.push_back(moved);
    }
    return v;
}

std::size_t probable_rows(const FabricView& view) {
    return static_cast<std::size_t>(std::count_if(view.rows.begin(), view.rows.end(),
                                                  [](const FabricRow& r) { return r.probable; }));
}

} // namespace

TEST_CASE("fabric: verbs ends join by GID and QP number, or probably by numbers alone",
          "[fabric]") {
    VerbsFabric v = verbs_fabric();
    REQUIRE(v.pairs == 6); // RC: perftest, pingpong, UCX; UC: the lab user
    FabricView view = join_fabric(v.in);
    REQUIRE(view.rows.size() == v.pairs);
    for (const FabricRow& r : view.rows) {
        REQUIRE(r.ends.size() == 2);
        const Connection& a = *r.ends[0].connection;
        const Connection& b = *r.ends[1].connection;
        INFO("qp " << a.qp->number);
        CHECK(a.via == Via::verbs);
        CHECK(a.qp->remote_number == b.qp->number);
        CHECK(b.qp->remote_number == a.qp->number);
        CHECK(a.peer == b.local);
        CHECK(r.ends[0].host != r.ends[1].host);
        CHECK_FALSE(r.probable);
        // perftest's passive end stays in RTR: up, as RTS is.
        const bool up = a.qp->state >= QpState::rtr && a.qp->state <= QpState::sqd &&
                        b.qp->state >= QpState::rtr && b.qp->state <= QpState::sqd;
        CHECK(r.status == (up ? FabricStatus::established : FabricStatus::disagree));
    }
    // A port query selects cm ids by port: verbs ends bind none.
    CHECK(join_fabric(v.in, FabricQuery{false, 7174}).rows.empty());

    // An end in ERR disagrees with its partner.
    VerbsFabric broken = verbs_fabric();
    Connection& failed = broken.in.hosts[1].connections.front();
    failed.qp->state = QpState::err;
    FabricView with_err = join_fabric(broken.in);
    CHECK(with_err.of(FabricStatus::disagree) == view.of(FabricStatus::disagree) + 1);
    for (const FabricRow& r : with_err.rows)
        if (r.ends.size() == 2 && r.ends[1].connection == &failed)
            CHECK(r.status == FabricStatus::disagree);

    // Without the module's paths: the same pairs by numbers, each probable.
    VerbsFabric bare = verbs_fabric();
    for (FabricHost& h : bare.in.hosts)
        for (Connection& c : h.connections) {
            c.local.reset();
            c.peer.reset();
            c.qp->path.reset();
        }
    FabricView by_numbers = join_fabric(bare.in);
    CHECK(by_numbers.rows.size() == v.pairs);
    CHECK(probable_rows(by_numbers) == v.pairs);
    std::ostringstream text;
    render_fabric(text, by_numbers, FabricTextOptions{});
    CHECK_THAT(text.str(), Catch::Contains("established?"));
    // A third host with the same numbers makes each pair ambiguous: no join.
    bare.in.hosts.push_back(FabricHost{"c", bare.in.hosts[1].connections, {}});
    FabricView ambiguous = join_fabric(bare.in);
    CHECK(probable_rows(ambiguous) == 0);
    CHECK(ambiguous.of(FabricStatus::unobserved) == ambiguous.rows.size());
    CHECK(ambiguous.rows.size() == 3 * v.pairs);
}

TEST_CASE("fabric: a verbs end whose partner is gone is half-open where its GID's host is seen",
          "[fabric]") {
    VerbsFabric v = verbs_fabric();
    // Host b's processes are gone; its port still has rxe0's address.
    const IpAddress address = v.in.hosts[1].connections.front().local->address;
    v.in.hosts[1].connections.clear();
    v.in.hosts[1].addresses = {address};
    FabricView view = join_fabric(v.in);
    REQUIRE(view.rows.size() == v.pairs);
    for (const FabricRow& r : view.rows) {
        CHECK(r.status == FabricStatus::half_open);
        REQUIRE(r.peer_host);
        CHECK(r.peer_host->name == "b");
        REQUIRE(r.ends.size() == 1);
    }
    std::ostringstream text;
    render_fabric(text, view, FabricTextOptions{});
    CHECK_THAT(text.str(), Catch::Contains(address.to_string() + ":qp"));
    // A host of the view that holds no such address: unobserved.
    v.in.hosts[1].addresses.clear();
    CHECK(join_fabric(v.in).of(FabricStatus::unobserved) == v.pairs);

    // The paths travel through Prometheus labels and read back whole.
    VerbsFabric whole = verbs_fabric();
    for (const Connection& c : whole.in.hosts[0].connections) {
        std::string why;
        auto back = schema::from_labels<Connection>(schema::to_labels(c), &why);
        INFO(why);
        REQUIRE(back);
        CHECK(*back == c);
    }
}

TEST_CASE("fabric: a self-connected QP, link-local GIDs and an ambiguous end", "[fabric]") {
    auto verbs = [](const char* local, std::uint32_t qpn, const char* peer, std::uint32_t rqpn) {
        Connection c;
        c.device = "mlx5_0";
        c.transport = Transport::roce;
        c.via = Via::verbs;
        c.qp = Qp{qpn, QpType::rc, QpState::rts, rqpn, std::nullopt};
        if (local) c.local = Endpoint{*IpAddress::parse(local), 0};
        if (peer) c.peer = Endpoint{*IpAddress::parse(peer), 0};
        return c;
    };
    // A QP whose peer is itself: one row, established, its own host its peer.
    FabricInput self{
        FabricOrigin::files, {FabricHost{"a", {verbs("10.0.0.1", 7, "10.0.0.1", 7)}, {}}}, {}};
    FabricView one = join_fabric(self);
    REQUIRE(one.rows.size() == 1);
    CHECK(one.rows[0].status == FabricStatus::established);
    CHECK(one.rows[0].ends.size() == 1);
    CHECK(one.rows[0].peer_host == &self.hosts[0]);

    // Link-local GIDs (RoCE v1 or InfiniBand) pair across hosts, and a lone
    // end finds the host of its peer's GID among the port addresses.
    FabricInput ll{FabricOrigin::files,
                   {FabricHost{"a", {verbs("fe80::1", 17, "fe80::2", 40)}, {}},
                    FabricHost{"b", {verbs("fe80::2", 40, "fe80::1", 17)}, {}}},
                   {}};
    FabricView pair = join_fabric(ll);
    REQUIRE(pair.rows.size() == 1);
    CHECK(pair.rows[0].status == FabricStatus::established);
    CHECK_FALSE(pair.rows[0].probable);
    ll.hosts[1].connections.clear();
    ll.hosts[1].addresses = {*IpAddress::parse("fe80::2")};
    FabricView lone = join_fabric(ll);
    REQUIRE(lone.rows.size() == 1);
    CHECK(lone.rows[0].status == FabricStatus::half_open);
    CHECK(lone.rows[0].peer_host == &ll.hosts[1]);

    // An end with a path, and two hosts without the module whose QPs both
    // cross its numbers: no partner, and no claim that its peer is gone.
    FabricInput amb{
        FabricOrigin::files,
        {FabricHost{"a", {verbs("10.0.0.1", 17, "10.0.0.2", 40)}, {}},
         FabricHost{"b", {verbs(nullptr, 40, nullptr, 17)}, {*IpAddress::parse("10.0.0.2")}},
         FabricHost{"c", {verbs(nullptr, 40, nullptr, 17)}, {}}},
        {}};
    FabricView ambiguous = join_fabric(amb);
    CHECK(ambiguous.rows.size() == 3);
    CHECK(ambiguous.of(FabricStatus::unobserved) == 3);
    CHECK(ambiguous.of(FabricStatus::half_open) == 0);
    // With one of them gone, the other is its probable partner.
    amb.hosts.pop_back();
    FabricView probable = join_fabric(amb);
    REQUIRE(probable.rows.size() == 1);
    CHECK(probable.rows[0].probable);
    CHECK(probable.rows[0].status == FabricStatus::established);
}
