// SPDX-License-Identifier: MIT
// [lab][verbs]: judges what tests/lab/scenarios/verbs.sh wrote: connections
// made with raw verbs by ibv_rc_pingpong, ib_write_bw, ib_send_bw -q 2,
// ibv_ud_pingpong, UCX's ucx_perftest over rc_verbs and an unprivileged
// user's ibv_uc_pingpong on rxe0, against `rdma res show qp` taken beside them.
#include "analysis/filter.h"
#include "analysis/join.h"
#include "analysis/select.h"
#include "catch_compat.hpp"
#include "evidence.h"
#include "model/names.h"
#include "support.h"

#include <iterator>
#include <linux/rdmastat.h>
#include <map>
#include <set>
#include <sstream>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"verbs"};
using Key = std::pair<std::string, std::uint32_t>;

// QPs whose state or peer changed between the two referee listings.
std::set<Key> unstable() {
    std::map<Key, json> before;
    for (const auto& q : ev.json("rdma-qp.json"))
        before[{q.at("ifname"), q.at("lqpn")}] = q;
    std::set<Key> out;
    std::set<Key> after_keys;
    for (const auto& q : ev.json("rdma-qp-after.json")) {
        Key k{q.at("ifname"), q.at("lqpn")};
        after_keys.insert(k);
        auto it = before.find(k);
        if (it == before.end() || it->second.at("state") != q.at("state") ||
            it->second.value("rqpn", 0u) != q.value("rqpn", 0u))
            out.insert(k);
    }
    for (const auto& [k, q] : before)
        if (!after_keys.count(k)) out.insert(k);
    return out;
}

// The programs the scenario ran (other scenarios of the boot may leave QPs).
const std::set<std::string> programs = {"ibv_rc_pingpong", "ib_write_bw", "ib_send_bw",
                                        "ibv_ud_pingpong"};

// The words of the listing's row whose local address (fourth column) is local.
std::vector<std::string> row_of(const std::string& listing, const std::string& local) {
    std::istringstream lines(listing);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
        if (w.size() > 3 && w[3] == local) return w;
    }
    return {};
}

std::vector<const Connection*> verbs_of(const Snapshot& s) {
    std::vector<const Connection*> out;
    for (const Connection& c : s.connections)
        if (c.via == Via::verbs && programs.count(c.owner.comm.value_or(""))) out.push_back(&c);
    return out;
}

} // namespace

TEST_CASE("lab: verbs connections are rdma's QPs without cm ids, as root and as a user",
          "[lab][verbs]") {
    const json qps = ev.json("rdma-qp.json"), ids = ev.json("rdma-cm_id.json");
    const std::set<Key> moving = unstable();
    for (const char* file : {"nldev.json", "nldev-lab.json", "module.json"}) {
        INFO(file);
        REQUIRE(ev.rc(file) == 0);
        Snapshot s = ev.snapshot(file);
        auto diffs = compare_verbs_with_referee(s.connections, qps, ids, moving);
        INFO(Catch::Detail::stringify(diffs));
        CHECK(diffs.empty());
        // What the scenario made: four RC pairs (ib_send_bw's two) and two UD QPs.
        std::map<std::string, std::size_t> rc_by_comm;
        std::size_t ud = 0;
        for (const Connection* c : verbs_of(s)) {
            CHECK_FALSE(c->cm_id);
            CHECK_FALSE(c->state);
            // NLDEV reports no address of a verbs QP; the module tells root
            // those of connected ones (judged below).
            if (std::string(file) != "module.json" || c->qp->type == QpType::ud) {
                CHECK_FALSE(c->local);
                CHECK_FALSE(c->peer);
                CHECK_FALSE(c->qp->path);
            }
            CHECK(c->transport == Transport::roce);
            if (c->qp->type == QpType::rc) ++rc_by_comm[c->owner.comm.value_or("?")];
            if (c->qp->type == QpType::ud) {
                ++ud;
                CHECK_FALSE(c->qp->remote_number);
                CHECK(is_listening(*c));
                CHECK_FALSE(has_peer(*c));
            }
        }
        CHECK(rc_by_comm["ibv_rc_pingpong"] == 2);
        CHECK(rc_by_comm["ib_write_bw"] == 2);
        CHECK(rc_by_comm["ib_send_bw"] == 4);
        CHECK(ud == 2);
    }
}

TEST_CASE("lab: each verbs pair's QP numbers cross, and its ends are two processes",
          "[lab][verbs]") {
    Snapshot s = ev.snapshot("nldev.json");
    std::map<Key, const Connection*> by_qpn;
    for (const Connection* c : verbs_of(s))
        by_qpn[{c->device, c->qp->number}] = c;
    std::size_t pairs = 0;
    for (const Connection* c : verbs_of(s)) {
        if (c->qp->type != QpType::rc) continue;
        INFO(c->device << " qp " << c->qp->number);
        REQUIRE(c->qp->remote_number);
        CHECK(has_peer(*c));
        auto other = by_qpn.find({c->device, *c->qp->remote_number});
        REQUIRE(other != by_qpn.end());
        CHECK(other->second->qp->remote_number == c->qp->number);
        // Server and client are separate processes of the same program.
        CHECK(other->second->owner.pid != c->owner.pid);
        CHECK(other->second->owner.comm == c->owner.comm);
        ++pairs;
    }
    CHECK(pairs == 8);
}

TEST_CASE("lab: UCX's rc_verbs endpoints are a verbs connection, as rdma lists them",
          "[lab][verbs]") {
    // ucx_perftest -x rc_verbs: UCX connects its RC QPs itself, by address.
    Snapshot s = ev.snapshot("nldev.json");
    std::map<std::uint32_t, const Connection*> ucx;
    for (const Connection& c : s.connections)
        if (c.via == Via::verbs && c.owner.comm == "ucx_perftest" && c.qp->type == QpType::rc)
            ucx[c.qp->number] = &c;
    REQUIRE(ucx.size() == 2);
    for (const auto& [qpn, c] : ucx) {
        INFO("qp " << qpn);
        REQUIRE(c->qp->remote_number);
        REQUIRE(ucx.count(*c->qp->remote_number));
        const Connection* other = ucx.at(*c->qp->remote_number);
        CHECK(other->qp->remote_number == qpn);
        CHECK(other->owner.pid != c->owner.pid);
        CHECK(c->qp->state == QpState::rts);
        // As the referee has it.
        bool found = false;
        for (const auto& q : ev.json("rdma-qp.json"))
            if (q.at("lqpn") == qpn) {
                found = true;
                CHECK(q.at("rqpn") == *c->qp->remote_number);
                CHECK(q.at("comm") == "ucx_perftest");
                CHECK(q.at("pid") == *c->owner.pid);
            }
        CHECK(found);
    }
}

TEST_CASE("lab: the listing, filters, lsof and metrics show the verbs connections",
          "[lab][verbs]") {
    Snapshot s = ev.snapshot("nldev.json");
    const auto verbs = verbs_of(s);
    REQUIRE(verbs.size() == 10);

    const std::string listing = ev.text("listing.txt");
    for (const Connection* c : verbs) {
        std::string local = "*:qp" + std::to_string(c->qp->number);
        std::string peer = c->qp->remote_number ? "*:qp" + std::to_string(*c->qp->remote_number)
                                                : std::string("*:*");
        INFO(local);
        // Local, peer, state, user, via, no cm id, no port space, the QP number.
        const auto row = row_of(listing, local);
        REQUIRE(row.size() > 10);
        CHECK(row[4] == peer);
        CHECK(row[5] == state_name(*c));
        CHECK(std::vector<std::string>(row.begin() + 7, row.begin() + 11) ==
              std::vector<std::string>{"verbs", "-", "-", std::to_string(c->qp->number)});
    }
    // Without -a: the connected ones; -l: the UD ones.
    auto rows = [](const std::string& text) {
        std::size_t n = 0;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
            for (const std::string& p : programs)
                n += line.find("*:qp") != std::string::npos && line.ends_with("/" + p);
        return n;
    };
    CHECK(rows(ev.text("default.txt")) == 8);
    CHECK(rows(ev.text("listeners.txt")) == 2);

    Snapshot via_verbs = ev.snapshot("via-verbs.json");
    CHECK(verbs_of(via_verbs).size() == verbs.size());
    for (const Connection& c : via_verbs.connections)
        CHECK(c.via == Via::verbs);
    for (const Connection& c : ev.snapshot("via-cm.json").connections)
        CHECK(c.via == Via::cm);
    std::size_t rts = 0;
    for (const Connection* c : verbs)
        rts += c->qp->state == QpState::rts;
    Snapshot state_rts = ev.snapshot("state-rts.json");
    CHECK(verbs_of(state_rts).size() == rts);
    for (const Connection& c : state_rts.connections)
        CHECK((c.via == Via::verbs && c.qp->state == QpState::rts));

    // lsof: each ibv_rc_pingpong's QP with its peer's number.
    const std::string lsof = ev.text("lsof.txt");
    for (const Connection* c : verbs)
        if (c->owner.comm == "ibv_rc_pingpong")
            CHECK_THAT(lsof, Catch::Contains("qpn " + std::to_string(c->qp->number) + " RC " +
                                             state_name(*c) + " rqpn " +
                                             std::to_string(*c->qp->remote_number)));

    // The metric counts them (and UCX's and the lab user's) by type and state.
    std::map<std::pair<std::string, std::string>, double> expected;
    for (const Connection& c : s.connections)
        if (c.via == Via::verbs) ++expected[{name_of(*c.qp->type), name_of(*c.qp->state)}];
    const std::string prom = ev.text("export.prom");
    for (const auto& [labels, n] : expected)
        CHECK(prom_value(prom, "rdmastat_verbs_connections{device=\"rxe0\",port=\"1\",transport="
                               "\"roce\",type=\"" +
                                   labels.first + "\",state=\"" + labels.second + "\"}") == n);
}

TEST_CASE("lab: verbs connections end with their processes", "[lab][verbs]") {
    Snapshot before = ev.snapshot("nldev.json");
    std::set<std::uint32_t> pids;
    for (const Connection* c : verbs_of(before))
        pids.insert(*c->owner.pid);
    REQUIRE(ev.rc("after.json") == 0);
    Snapshot after = ev.snapshot("after.json");
    for (const Connection& c : after.connections)
        CHECK_FALSE(pids.count(c.owner.pid.value_or(0)));
    // And the referee agrees on what is left (nothing of the scenario's).
    auto diffs = compare_verbs_with_referee(after.connections, ev.json("rdma-qp-end.json"),
                                            ev.json("rdma-cm_id.json"));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
}

TEST_CASE("lab: rdmastat devices lists the GID tables sysfs has, on siw and rxe",
          "[lab][verbs][gids]") {
    REQUIRE(ev.rc("devices.json") == 0);
    Snapshot s = ev.snapshot("devices.json");
    std::istringstream in(ev.text("sysfs-gids.txt"));
    std::size_t entries = 0, v4 = 0;
    std::set<std::string> devices;
    for (std::string dev, gid, type, ndev; in >> dev;) {
        std::uint32_t port = 0, index = 0;
        in >> port >> index >> gid >> type >> ndev;
        ++entries;
        devices.insert(dev);
        INFO(dev << " port " << port << " gid " << index);
        const Device* d = nullptr;
        for (const Device& x : s.devices)
            if (x.name == dev) d = &x;
        REQUIRE(d);
        const Port* p = nullptr;
        for (const Port& x : d->ports)
            if (x.index == port) p = &x;
        REQUIRE((p && p->gids));
        const Gid* g = nullptr;
        for (const Gid& x : *p->gids)
            if (x.index == index) g = &x;
        REQUIRE(g);
        CHECK(g->gid == *IpAddress::parse(gid));
        CHECK(g->netdev.value_or("-") == ndev);
        if (d->transport == Transport::iwarp) {
            CHECK_FALSE(g->type);
            continue;
        }
        CHECK(g->type == (type == "RoCE_v2" ? GidType::roce_v2 : GidType::roce_v1));
        // An IPv4-mapped GID is the IPv4 address of its netdev.
        if (gid.starts_with("0000:0000:0000:0000:0000:ffff:")) {
            ++v4;
            REQUIRE(g->address);
            CHECK(g->address->family == AF_INET);
            CHECK(g->address->to_string() == "10.9.0.2");
            CHECK_THAT(ev.text("devices.txt"),
                       Catch::Contains("::ffff:10.9.0.2") && Catch::Contains(" 10.9.0.2"));
        }
    }
    CHECK(devices == std::set<std::string>{"rxe0", "siw0"});
    CHECK(v4 >= 1);
    std::size_t listed = 0;
    for (const Device& d : s.devices)
        for (const Port& p : d.ports)
            listed += p.gids ? p.gids->size() : 0;
    CHECK(listed == entries);
}

namespace {

// rxe0's GID at index 1 (every program ran with -g 1 or -x 1), from sysfs.
IpAddress rxe0_gid1() {
    std::istringstream in(ev.text("sysfs-gids.txt"));
    for (std::string dev, port, index, gid, type, ndev;
         in >> dev >> port >> index >> gid >> type >> ndev;)
        if (dev == "rxe0" && port == "1" && index == "1") return *IpAddress::parse(gid);
    FAIL("rxe0 has no GID 1 in sysfs-gids.txt");
    return {};
}

} // namespace

TEST_CASE("lab: as root, the module names each verbs connection's peer: the other end's GID",
          "[lab][verbs]") {
    REQUIRE(ev.rc("module.json") == 0);
    Snapshot s = ev.snapshot("module.json");
    const IpAddress gid = rxe0_gid1();
    // RoCE v2's IPv4-mapped GID is the IPv4 address, shown as one.
    const IpAddress address = unmapped(gid);
    CHECK(address.family == AF_INET);
    std::map<Key, const Connection*> by_qpn;
    for (const Connection& c : s.connections)
        if (c.via == Via::verbs) by_qpn[{c.device, c.qp->number}] = &c;
    std::size_t connected = 0, uc = 0, ucx = 0;
    const std::string listing = ev.text("module.txt");
    for (const auto& [key, c] : by_qpn) {
        if (!connected_type(*c->qp->type)) continue;
        INFO(c->device << " qp " << c->qp->number << " " << c->owner.comm.value_or("?"));
        ++connected;
        uc += c->qp->type == QpType::uc;
        ucx += c->owner.comm == "ucx_perftest";
        REQUIRE(c->qp->path);
        const QpPath& path = *c->qp->path;
        CHECK(path.dgid == gid);
        CHECK(path.sgid == gid);
        CHECK(path.sgid_index == 1u);
        CHECK(path.port == 1u);
        CHECK_FALSE(path.dlid); // RoCE: no LID
        REQUIRE(path.mtu);
        CHECK((*path.mtu >= 256 && *path.mtu <= 4096 && (*path.mtu & (*path.mtu - 1)) == 0));
        REQUIRE(c->peer);
        REQUIRE(c->local);
        CHECK(c->peer->address == address);
        CHECK(c->local->address == address);
        // The other end, by the peer QP number: its local address is this peer.
        REQUIRE(c->qp->remote_number);
        auto other = by_qpn.find({c->device, *c->qp->remote_number});
        REQUIRE(other != by_qpn.end());
        CHECK(other->second->qp->remote_number == c->qp->number);
        CHECK(other->second->local == c->peer);
        const std::string local = address.to_string() + ":qp" + std::to_string(c->qp->number);
        const auto row = row_of(listing, local);
        REQUIRE(row.size() > 4);
        CHECK(row[4] == address.to_string() + ":qp" + std::to_string(*c->qp->remote_number));
    }
    // Four RC pairs of perftest and ibv_rc_pingpong, UCX's RC pair, and the
    // lab user's UC pair.
    CHECK(connected == 12);
    CHECK(uc == 2);
    CHECK(ucx == 2);

    // gid and dst select by the path: every connected one here has rxe0's GID.
    REQUIRE(ev.rc("gid.json") == 0);
    Snapshot by_gid = ev.snapshot("gid.json");
    CHECK(by_gid.connections.size() == connected);
    for (const Connection& c : by_gid.connections)
        CHECK((c.qp && c.qp->path && c.qp->path->dgid == gid));
    REQUIRE(ev.rc("dst.json") == 0);
    Snapshot by_dst = ev.snapshot("dst.json");
    CHECK(by_dst.connections.size() >= connected);
    for (const Connection& c : by_dst.connections)
        CHECK((c.peer && c.peer->address == address));
}

TEST_CASE("lab: without the module's QP dump the peer is absent, and the user is told why",
          "[lab][verbs]") {
    // The lab user, with the module loaded: their UC pair, without paths.
    REQUIRE(ev.rc("module-lab.json") == 0);
    Snapshot user = ev.snapshot("module-lab.json");
    std::size_t own = 0;
    for (const Connection& c : user.connections) {
        if (c.via != Via::verbs) continue;
        INFO("qp " << c.qp->number);
        CHECK(c.owner.comm == "ibv_uc_pingpong");
        CHECK_FALSE(c.peer);
        CHECK_FALSE(c.local);
        CHECK_FALSE(c.qp->path);
        CHECK(c.qp->remote_number);
        ++own;
    }
    CHECK(own == 2);
    CHECK_THAT(ev.text("module-lab.json.err"),
               Catch::Contains("NLDEV reports their peers' QP numbers but not their addresses") &&
                   Catch::Contains("only to CAP_NET_ADMIN"));
    CHECK_THAT(ev.text("nldev-stderr.txt.err"),
               Catch::Contains("NLDEV reports their peers' QP numbers but not their addresses") &&
                   Catch::Contains("--source module"));
    // Root with the module is told nothing.
    CHECK(ev.text("module.json.err").empty());

    // The kernel refuses the QP dump to the unprivileged before anything else,
    // and its policy refuses every attribute to root, naming it.
    const auto user_lines = lines_starting(ev.text("qp-probe-lab.txt"), "");
    REQUIRE(user_lines.size() == 20 + 3);
    for (int t = 1; t <= 20; ++t)
        CHECK(user_lines[static_cast<std::size_t>(t - 1)] ==
              "attr " + std::to_string(t) + ": error: Operation not permitted");
    const auto root_lines = lines_starting(ev.text("qp-probe.txt"), "");
    REQUIRE(root_lines.size() == 20 + 3);
    for (int t = 1; t <= 20; ++t) {
        const std::string& line = root_lines[static_cast<std::size_t>(t - 1)];
        INFO(line);
        CHECK(line.rfind("attr " + std::to_string(t) + ": error: Invalid argument: ", 0) == 0);
        CHECK(line.ends_with("(attribute " + std::to_string(t) + ")"));
        if (t <= RDMASTAT_A_MAX)
            CHECK(line.find("RDMASTAT_CMD_QP_GET takes no attributes") != std::string::npos);
    }
    CHECK(root_lines[20] == "doit: error: Operation not supported");
}

TEST_CASE("lab: the views judged were taken while this run's programs lived", "[lab][verbs]") {
    // verbs.sh starts every program again, once, on ports 50 higher, when one
    // ended while the views were taken, and records which and what it printed
    // (a second ending fails the scenario).
    const std::string repeats = ev.text("repeats.txt");
    INFO(repeats);
    std::size_t attempts = 0;
    std::istringstream lines(repeats);
    for (std::string line; std::getline(lines, line);)
        attempts += line.starts_with("attempt ");
    // Every program of the run judged owns QPs in both referee listings, the
    // one before rdmastat's views and the one after, and ran on its attempt's
    // ports.
    const std::set<unsigned> ports = {18515, 18600, 18601, 18516, 18530, 18517};
    auto owners = [](const json& qps) {
        std::map<unsigned, std::string> out;
        for (const auto& q : qps)
            if (q.contains("pid")) out[q.at("pid").get<unsigned>()] = q.value("comm", "");
        return out;
    };
    const auto before = owners(ev.json("rdma-qp.json")),
               after = owners(ev.json("rdma-qp-after.json"));
    std::istringstream started(ev.text("programs/verbs-started"));
    std::size_t programs_started = 0;
    for (std::string line; std::getline(started, line); ++programs_started) {
        INFO(line);
        std::istringstream words(line);
        unsigned pid = 0;
        words >> pid;
        std::vector<std::string> argv{std::istream_iterator<std::string>(words), {}};
        REQUIRE(argv.size() > 2);
        // su lab -c "exec PROGRAM ...": su and sh exec, so the pid is PROGRAM's.
        auto program =
            argv[0] == "su" ? std::find(argv.begin(), argv.end(), "exec") + 1 : argv.begin();
        REQUIRE(program < argv.end());
        auto port = std::find(argv.begin(), argv.end(), "-p");
        REQUIRE(port + 1 < argv.end());
        CHECK(ports.count(static_cast<unsigned>(std::stoul(port[1])) - 50 * attempts));
        CHECK(before.count(pid));
        CHECK(after.count(pid));
        if (before.count(pid)) CHECK(before.at(pid) == *program);
    }
    CHECK(programs_started == 12);
    WARN(attempts << " of 1 runs repeated because a program ended while rdmastat read");
}
