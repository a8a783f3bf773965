// SPDX-License-Identifier: MIT
// `rdmastat check`: port-sharing verdicts on the lab capture (siw and rxe) and on
// hand-built snapshots for what the lab cannot produce (iWARP RNICs, port mappers).
#include "analysis/check.h"
#include "catch_compat.hpp"
#include "hand_built.h"
#include "render/check.h"
#include "render/output.h"
#include "support.h"

#include <array>
#include <set>
#include <sstream>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

const std::string host_fixture = fixtures_dir() + "/snapshot-host.json";

/// An RNIC (cxgb0), siw, RoCE and InfiniBand devices; host sockets and processes
/// collected, none yet.
Snapshot devices_only() {
    Snapshot s;
    s.source = SnapshotSource::file;
    s.devices = {device("cxgb0", Transport::iwarp, "cxgb4"),
                 device("siw0", Transport::iwarp, "siw"), device("rxe0", Transport::roce, "rxe"),
                 device("mlx0", Transport::infiniband, "mlx5")};
    s.host_sockets_collected = s.processes_collected = true;
    return s;
}

/// An id of process 500 + id, "app".
Connection id(const char* dev, Transport t, std::uint32_t n, const char* state, Endpoint local,
              Endpoint peer = ep("0.0.0.0", 0)) {
    Connection c = cm(dev, t, n, state, local, peer, 500 + n);
    c.owner.comm = "app";
    return c;
}

/// An RNIC's id as the rdmastat module reports it: mapping known (not mapped).
Connection rnic(std::uint32_t n, const char* state, Endpoint local,
                Endpoint peer = ep("0.0.0.0", 0)) {
    Connection c = id("cxgb0", Transport::iwarp, n, state, local, peer);
    c.mapped_local = local;
    c.mapped_peer = peer;
    c.mapped = false;
    c.netns = 4026531840u;
    return c;
}

HostSocket sock(const char* state, Endpoint local, std::optional<std::uint32_t> pid = 77) {
    HostSocket s =
        host_socket(state, local, ep(local.address.family == AF_INET6 ? "::" : "0.0.0.0", 0), pid);
    s.inode = 9000 + local.port;
    if (pid) s.fd = 5;
    return s;
}

Process proc(std::uint32_t pid, const char* comm, bool inspected = true) {
    return process(pid, comm, 0, "root", {}, inspected);
}

PortCheck only(const CheckReport& r) {
    REQUIRE(r.checks.size() == 1);
    return r.checks[0];
}

Verdict verdict_of(const Snapshot& s) {
    return only(check_ports(s)).verdict;
}

} // namespace

TEST_CASE("the lab's siw and rxe ports are OK: siw names its kernel socket", "[check]") {
    CheckReport r = check_ports(fixture_snapshot("snapshot-host.json"));
    REQUIRE(r.checks.size() == 8);
    CHECK(r.count(Verdict::ok) == 8);
    CHECK_FALSE(r.found_problem());
    CHECK(r.missing.empty());
    for (const PortCheck& c : r.checks) {
        if (c.device == "siw0") {
            REQUIRE(c.host_socket);
            CHECK(c.host_socket->rdma_device == "siw0");
            CHECK_THAT(c.reason, Catch::Contains("inode " + std::to_string(c.host_socket->inode)));
        } else {
            CHECK(c.transport == Transport::roce);
            CHECK_FALSE(c.host_socket);
            CHECK_THAT(c.reason, Catch::StartsWith("RoCE: "));
        }
    }
    // The listener and the connection it accepted share 10.9.0.1:7174: one line.
    const PortCheck& listen = r.checks[4];
    CHECK(listen.local == ep("10.9.0.1", 7174));
    CHECK(listen.cm_ids == std::vector<std::uint32_t>{0, 2});
    CHECK(listen.host_socket->state == TcpState::listen);
}

TEST_CASE("check golden output on the lab capture", "[check]") {
    CliRun text = run_args({"check", "--input", host_fixture});
    CHECK(text.rc == 0);
    CHECK(text.err.empty());
    CHECK(text.out == golden("check-lab.txt", text.out));
    CliRun json = run_args({"check", "-j", "--pretty", "--input", host_fixture});
    CHECK(json.rc == 0);
    CHECK(json.out == golden("check-lab.json", json.out));
}

TEST_CASE("a host socket on a RoCE or InfiniBand port is INFO, never a conflict", "[check]") {
    // The lab's rxe listener with a host TCP program on its port number (the lab's
    // portshare scenario does this; here added by hand to the capture).
    Snapshot s = fixture_snapshot("snapshot-host.json");
    s.host_sockets.push_back(sock("LISTEN", ep("0.0.0.0", 7175), 317));
    CheckReport r = check_ports(s);
    CHECK(r.count(Verdict::info) == 1);
    CHECK_FALSE(r.found_problem());
    for (const PortCheck& c : r.checks)
        if (c.verdict == Verdict::info) {
            CHECK(c.local == ep("10.9.0.2", 7175));
            CHECK_THAT(c.reason, Catch::Contains("0.0.0.0:7175 (LISTEN) held by 317/") &&
                                     Catch::Contains("does not clash"));
        }
    // The lab cannot produce this: hand-built (InfiniBand).
    Snapshot ib = devices_only();
    ib.connections = {id("mlx0", Transport::infiniband, 1, "LISTEN", ep("10.1.0.1", 4567))};
    CHECK(verdict_of(ib) == Verdict::ok);
    ib.host_sockets = {sock("LISTEN", ep("10.1.0.1", 4567))};
    CHECK(verdict_of(ib) == Verdict::info);
    CHECK_THAT(only(check_ports(ib)).reason, Catch::StartsWith("InfiniBand: "));
}

TEST_CASE("iWARP RNIC without a port mapper: CONFLICT or UNRESERVED", "[check]") {
    // The lab cannot produce this: hand-built (no RNIC in the lab).
    Snapshot s = devices_only();
    s.processes = {proc(77, "nginx")};
    s.connections = {rnic(1, "LISTEN", ep("10.0.0.1", 4567))};
    SECTION("no host socket: UNRESERVED") {
        PortCheck c = only(check_ports(s));
        CHECK(c.verdict == Verdict::unreserved);
        CHECK_FALSE(c.host_socket);
        CHECK(c.sockets_known);
        CHECK_THAT(c.reason, Catch::Contains("cxgb4") && Catch::Contains("can bind it"));
    }
    SECTION("a host socket on the same address and port: CONFLICT naming it") {
        s.host_sockets = {sock("LISTEN", ep("10.0.0.1", 4567))};
        PortCheck c = only(check_ports(s));
        CHECK(c.verdict == Verdict::conflict);
        REQUIRE(c.host_socket);
        CHECK(c.host_socket_comm == "nginx");
        CHECK_THAT(c.reason, Catch::Contains("10.0.0.1:4567 (LISTEN) held by 77/nginx"));
    }
    SECTION("wildcards overlap on either side, IPv6 any covers IPv4") {
        for (const char* a : {"0.0.0.0", "::"}) {
            s.host_sockets = {sock("LISTEN", ep(a, 4567))};
            CHECK(verdict_of(s) == Verdict::conflict);
        }
        s.connections = {rnic(1, "LISTEN", ep("0.0.0.0", 4567))};
        s.host_sockets = {sock("ESTAB", ep("10.0.0.3", 4567))};
        CHECK(verdict_of(s) == Verdict::conflict);
    }
    SECTION("another address or port does not overlap") {
        s.host_sockets = {sock("LISTEN", ep("10.0.0.2", 4567)),
                          sock("LISTEN", ep("10.0.0.1", 4568)),
                          sock("LISTEN", ep("fd00::1", 4567))};
        CHECK(verdict_of(s) == Verdict::unreserved);
    }
    SECTION("IPv6 ids") {
        s.connections = {rnic(1, "LISTEN", ep("fd00::1", 4567))};
        s.host_sockets = {sock("LISTEN", ep("fd00::2", 4567))};
        CHECK(verdict_of(s) == Verdict::unreserved);
        s.host_sockets.push_back(sock("LISTEN", ep("fd00::1", 4567)));
        CHECK(verdict_of(s) == Verdict::conflict);
        s.host_sockets = {sock("LISTEN", ep("0.0.0.0", 4567))};
        CHECK(verdict_of(s) == Verdict::unreserved);
    }
    SECTION("an active side's local port counts too") {
        s.connections = {rnic(1, "CONNECT", ep("10.0.0.1", 40000), ep("10.0.0.2", 4567))};
        s.host_sockets = {sock("ESTAB", ep("10.0.0.1", 40000))};
        CHECK(verdict_of(s) == Verdict::conflict);
    }
    SECTION("mapped with the port unchanged is no mapping") {
        s.connections[0].mapped = true;
        CHECK(verdict_of(s) == Verdict::unreserved);
    }
    SECTION("a socket no inspected process holds is named as such") {
        s.host_sockets = {sock("LISTEN", ep("10.0.0.1", 4567), std::nullopt)};
        CHECK_THAT(only(check_ports(s)).reason, Catch::Contains("held by no process (a kernel"));
        s.processes.push_back(proc(88, "secret", false));
        CheckReport r = check_ports(s);
        CHECK(only(r).verdict == Verdict::conflict); // whoever holds it, it clashes
        CHECK_THAT(only(r).reason, Catch::Contains("no process rdmastat could inspect"));
        REQUIRE(r.missing.size() == 1);
        CHECK_THAT(r.missing[0], Catch::StartsWith("1 process could not be inspected") &&
                                     Catch::Contains(": 88)"));
    }
}

TEST_CASE("iWARP RNIC with a port mapper in effect is OK on its wire port", "[check]") {
    // The lab cannot produce this: hand-built (iwpmd and an RNIC).
    Snapshot s = devices_only();
    Connection c = rnic(1, "LISTEN", ep("10.0.0.1", 4567));
    c.mapped = true;
    c.mapped_local = ep("10.0.0.1", 20001);
    s.connections = {c};
    s.host_sockets = {sock("LISTEN", ep("10.0.0.1", 4567))}; // the host app may have it
    PortCheck pc = only(check_ports(s));
    CHECK(pc.verdict == Verdict::ok);
    CHECK(pc.wire == ep("10.0.0.1", 20001));
    CHECK_THAT(pc.reason, Catch::Contains("on the wire as 10.0.0.1:20001"));
}

TEST_CASE("mapping unknown: UNKNOWN from NLDEV, INFO for an id not on the wire", "[check]") {
    // The lab cannot produce this: hand-built (an RNIC seen through NLDEV).
    Snapshot s = devices_only();
    s.connections = {id("cxgb0", Transport::iwarp, 1, "LISTEN", ep("10.0.0.1", 4567))};
    CHECK(verdict_of(s) == Verdict::unknown);
    CHECK_THAT(only(check_ports(s)).reason, Catch::Contains("known only with rdmastat.ko loaded"));
    s.host_sockets = {sock("LISTEN", ep("0.0.0.0", 4567))};
    CHECK_THAT(only(check_ports(s)).reason, Catch::Contains("CONFLICT unless mapped"));
    // The module reported the id but sent no mapping: it has no iWARP CM id yet.
    s.connections[0].netns = 4026531840u;
    s.connections[0].state = CmState::addr_bound;
    CHECK(verdict_of(s) == Verdict::info);
    // A listener: the module withheld its mapping, and says so; still UNKNOWN.
    s.source = SnapshotSource::module;
    s.connections[0].state = CmState::listen;
    s.connections[0].mapping_withheld = true;
    CHECK(verdict_of(s) == Verdict::unknown);
    CHECK_THAT(only(check_ports(s)).reason,
               Catch::Contains("rdmastat.ko cannot read a LISTEN id's mapping safely"));
    s.connections[0].mapping_withheld = false;
    CHECK(verdict_of(s) == Verdict::info);
}

TEST_CASE("what check cannot know makes UNKNOWN, with the reason", "[check]") {
    // The lab cannot produce this: hand-built.
    Snapshot s = devices_only();
    s.connections = {rnic(1, "LISTEN", ep("10.0.0.1", 4567))};
    s.host_sockets_collected = false;
    CheckReport r = check_ports(s);
    CHECK(only(r).verdict == Verdict::unknown);
    CHECK_FALSE(only(r).sockets_known);
    CHECK_THAT(only(r).reason, Catch::Contains("host TCP sockets were not read"));
    CHECK(r.missing == std::vector<std::string>{"host TCP sockets were not read"});
    // siw and RoCE do not need the host sockets for their verdict.
    s.connections = {id("siw0", Transport::iwarp, 1, "LISTEN", ep("10.0.0.1", 4567)),
                     id("rxe0", Transport::roce, 2, "LISTEN", ep("10.0.0.2", 4567))};
    r = check_ports(s);
    CHECK(r.count(Verdict::ok) == 2);
    // An unknown driver or transport.
    s = devices_only();
    s.devices[0].driver.reset();
    s.connections = {rnic(1, "LISTEN", ep("10.0.0.1", 4567))};
    CHECK(verdict_of(s) == Verdict::unknown);
    CHECK_THAT(only(check_ports(s)).reason, Catch::Contains("driver of cxgb0 is unknown"));
    s.connections = {id("nodev", Transport::unknown, 1, "LISTEN", ep("10.0.0.1", 4567))};
    CHECK(verdict_of(s) == Verdict::unknown);
}

TEST_CASE("siw without a kernel socket is still OK; ids without a port are skipped", "[check]") {
    // The lab cannot produce this: hand-built (a bound siw id).
    Snapshot s = devices_only();
    s.connections = {id("siw0", Transport::iwarp, 1, "ADDR_BOUND", ep("10.0.0.1", 4567)),
                     id("siw0", Transport::iwarp, 2, "IDLE", ep("0.0.0.0", 0))};
    s.connections[1].local.reset();
    PortCheck c = only(check_ports(s));
    CHECK(c.verdict == Verdict::ok);
    CHECK_THAT(c.reason, Catch::Contains("no kernel socket carries this id (state ADDR_BOUND)"));
}

TEST_CASE("ids sharing a port share a line with the gravest verdict", "[check]") {
    // The lab cannot produce this: hand-built.
    Snapshot s = devices_only();
    Connection mapped = rnic(1, "LISTEN", ep("10.0.0.1", 4567));
    mapped.mapped = true;
    mapped.mapped_local = ep("10.0.0.1", 20001);
    s.connections = {mapped, rnic(2, "CONNECT", ep("10.0.0.1", 4567), ep("10.0.0.2", 999))};
    PortCheck c = only(check_ports(s));
    CHECK(c.verdict == Verdict::unreserved);
    CHECK(c.cm_ids == std::vector<std::uint32_t>{1, 2});
    CHECK(c.owner.pid == 502u);
    // The metrics' count, which builds no PortCheck, groups them alike, in
    // either order of the ids.
    CHECK(count_port_verdicts(s) == std::array<std::size_t, verdict_count>{0, 0, 0, 1, 0});
    std::swap(s.connections[0], s.connections[1]);
    CHECK(only(check_ports(s)).verdict == Verdict::unreserved);
    CHECK(count_port_verdicts(s) == std::array<std::size_t, verdict_count>{0, 0, 0, 1, 0});
}

TEST_CASE("check output: every verdict in text and JSON", "[check]") {
    // The lab cannot produce this: hand-built.
    Snapshot s = devices_only();
    s.processes = {proc(77, "nginx"), proc(78, "sshd")};
    Connection mapped = rnic(3, "LISTEN", ep("10.0.0.1", 5000));
    mapped.mapped = true;
    mapped.mapped_local = ep("10.0.0.1", 20001);
    s.connections = {rnic(1, "LISTEN", ep("0.0.0.0", 4567)),
                     rnic(2, "LISTEN", ep("fd00::1", 4791)),
                     mapped,
                     id("cxgb0", Transport::iwarp, 4, "LISTEN", ep("10.0.0.1", 6000)),
                     id("rxe0", Transport::roce, 1, "LISTEN", ep("10.0.0.2", 22)),
                     id("siw0", Transport::iwarp, 1, "LISTEN", ep("10.0.0.3", 7174))};
    s.connections[3].owner = Owner{};
    s.connections[3].owner.kernel = "nvme_rdma";
    s.host_sockets = {sock("LISTEN", ep("10.0.0.1", 4567), 77), sock("LISTEN", ep("::", 22), 78),
                      sock("LISTEN", ep("10.0.0.3", 7174), std::nullopt)};
    CheckReport r = check_ports(s);
    // The metrics' count agrees with the report, verdict by verdict.
    const auto counts = count_port_verdicts(s);
    CHECK(counts == std::array<std::size_t, verdict_count>{2, 1, 1, 1, 1});
    for (std::size_t v = 0; v < verdict_count; ++v)
        CHECK(counts[v] == r.count(static_cast<Verdict>(v)));
    std::ostringstream text, json;
    render_check(text, r, true);
    json_writer(true)->check(json, s, r, true);
    CHECK(text.str() == golden("check-verdicts.txt", text.str()));
    CHECK(json.str() == golden("check-verdicts.json", json.str()));

    auto doc = nlohmann::json::parse(json.str());
    std::set<std::string> keys;
    for (auto& [k, v] : doc.items())
        keys.insert(k);
    CHECK(keys == std::set<std::string>{"version", "source", "checks", "summary", "missing"});
    for (const auto& c : doc["checks"]) {
        for (auto& [k, v] : c.items())
            CHECK(std::set<std::string>{"verdict", "device", "transport", "driver", "address",
                                        "port", "port_space", "wire", "cm_ids", "owner",
                                        "host_socket", "reason"}
                      .count(k));
        CHECK(c.contains("host_socket"));
    }
    CHECK(doc["summary"] == nlohmann::json::parse(R"({"ok": 2, "info": 1, "unknown": 1,
                                                    "unreserved": 1, "conflict": 1})"));
}

TEST_CASE("check exit status: 0 clean, 1 found, 2 could not decide or error", "[check][cli]") {
    CliRun lab = run_args({"check", "--input", host_fixture});
    CHECK(lab.rc == 0);
    // The lab cannot produce the rest: hand-built.
    Snapshot s = devices_only();
    s.connections = {rnic(1, "LISTEN", ep("10.0.0.1", 4567))};
    {
        SavedSnapshot f(s);
        CliRun r = run_args({"check", "--input", f.path()});
        CHECK(r.rc == 1);
        CHECK_THAT(r.out, Catch::Contains("UNRESERVED"));
        CHECK(run_args({"--input", f.path(), "check", "-j"}).rc == 1);
    }
    s.host_sockets = {sock("LISTEN", ep("10.0.0.1", 4567))};
    CHECK(run_args({"check", "--input", SavedSnapshot(s).path()}).rc == 1);
    s.connections = {id("cxgb0", Transport::iwarp, 1, "LISTEN", ep("10.0.0.1", 4567))};
    {
        SavedSnapshot f(s);
        CliRun r = run_args({"check", "--input", f.path()});
        CHECK(r.rc == 2);
        CHECK_THAT(r.err, Catch::Contains("rdmastat: check: 1 port could not be judged"));
        CliRun j = run_args({"check", "-j", "--input", f.path()});
        CHECK(j.rc == 2);
        CHECK(j.err.empty());
        CHECK(nlohmann::json::parse(j.out)["summary"]["unknown"] == 1);
    }
    // A conflict found outweighs an undecided port.
    s.connections.push_back(rnic(2, "LISTEN", ep("10.0.0.1", 4600)));
    CHECK(run_args({"check", "--input", SavedSnapshot(s).path()}).rc == 1);
    // Nothing uses a port.
    s.connections.clear();
    CliRun none = run_args({"check", "--input", SavedSnapshot(s).path()});
    CHECK(none.rc == 0);
    CHECK(none.out == "no RDMA ports in use\n");
    // Errors.
    CliRun missing = run_args({"check", "--input", "/nonexistent.json"});
    CHECK(missing.rc == 2);
    CHECK(missing.err == "rdmastat: /nonexistent.json: No such file or directory\n");
    CliRun pretty = run_args({"check", "--pretty", "--input", host_fixture});
    CHECK(pretty.rc == 2);
    CHECK_THAT(pretty.err, Catch::StartsWith("rdmastat: --pretty needs -j\n"));
    CliRun filter = run_args({"state", "listen", "check", "--input", host_fixture});
    CHECK(filter.rc == 2);
    CHECK_THAT(filter.err, Catch::StartsWith("rdmastat: the check command takes no FILTER\n"));
    CHECK(run_args({"-l", "check", "--input", host_fixture}).rc == 2);
}

TEST_CASE("check reports what it could not read on stderr", "[check][cli]") {
    // An old snapshot without host sockets (the lab's listing capture).
    CliRun r = run_args({"check", "--input", fixtures_dir() + "/snapshot.json"});
    CHECK(r.rc == 0); // siw and rxe verdicts do not depend on them
    CHECK_THAT(r.err, Catch::Contains("rdmastat: check: host TCP sockets were not read\n"));
    // The lab's capture as an unprivileged user: other processes' fds unreadable.
    CliRun user =
        run_args({"check", "--input", fixtures_dir() + "/snapshot-host-user.json"});
    CHECK(user.rc == 0);
    CHECK_THAT(user.err, Catch::Contains("could not be inspected"));
}
