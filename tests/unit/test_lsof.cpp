// SPDX-License-Identifier: MIT
// `rdmastat lsof`: selector parsing, lsof's selection semantics, output and exit
// status, on the lab capture and on hand-built snapshots.
#include "analysis/attribution.h"
#include "analysis/lsof.h"
#include "catch_compat.hpp"
#include "cli/app.h"
#include "cli/commands.h"
#include "hand_built.h"
#include "render/lsof.h"
#include "render/output.h"
#include "support.h"

#include <set>
#include <sstream>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

const std::string fixtures = fixtures_dir();
const std::string host_fixture = fixtures + "/snapshot-host.json";

CliRun lsof(std::vector<std::string> args, const std::string& input = host_fixture) {
    args.insert(args.begin(), {"lsof", "--input", input});
    return run_args(args);
}

std::string failure(const Status& s) {
    return s ? std::string("ok") : s.error();
}

std::string inet_failure(const std::string& spec) {
    auto r = parse_inet_spec(spec);
    return r ? std::string("ok") : r.error();
}

/// Selects with the lsof words given (parsed as the CLI parses them).
LsofResult select(const Snapshot& snap, const std::vector<std::string>& words) {
    return select_lsof(snap, parse_lsof_args(words).take().selectors);
}

/// "pid:TYPE:NAME" of every selected row ("-" for no pid), for compact comparisons.
std::vector<std::string> rows(const LsofResult& r) {
    std::vector<std::string> out;
    for (const LsofHolder& h : r.holders)
        for (const LsofFile& f : h.files)
            out.push_back((h.pid      ? std::to_string(*h.pid)
                           : h.kernel ? *h.kernel
                                      : "-") +
                          ":" + lsof_type(f) + ":" + lsof_name(f));
    return out;
}

std::set<std::string> holders(const LsofResult& r) {
    std::set<std::string> out;
    for (const LsofHolder& h : r.holders)
        out.insert(h.pid ? std::to_string(*h.pid) : h.kernel ? *h.kernel : "-");
    return out;
}

HostSocket sock(const char* state, Endpoint local, Endpoint peer, std::optional<std::uint32_t> pid,
                std::optional<std::uint32_t> fd = std::nullopt) {
    return host_socket(state, local, peer, pid, fd);
}

/// The lab cannot produce this: hand-built. Processes 10 rping (root, one rdma_cm
/// fd), 20 ib_write_bw (alice, two rdma_cm fds), 30 nginx (www, a TCP socket on
/// 4567), 40 (not inspectable, owns a cm_id), 50 (not inspectable); a kernel
/// owner's id; a RoCE id in the udp port space; a socket no process holds.
Snapshot hand_built() {
    Snapshot s;
    s.source = SnapshotSource::file;
    s.devices = {device("siw0", Transport::iwarp, "siw"), device("rxe0", Transport::roce, "rxe")};
    s.connections = {
        cm("siw0", Transport::iwarp, 1, "LISTEN", ep("0.0.0.0", 4567), ep("0.0.0.0", 0), 10),
        cm("siw0", Transport::iwarp, 2, "CONNECT", ep("10.0.0.1", 4567), ep("10.0.0.2", 5000), 10),
        cm("rxe0", Transport::roce, 1, "LISTEN", ep("fd00::1", 4567), ep("::", 0), 20),
        cm("rxe0", Transport::roce, 2, "CONNECT", ep("10.0.1.1", 1500), ep("10.0.1.2", 4567), 20,
           "udp"),
        cm("rxe0", Transport::roce, 3, "LISTEN", ep("10.0.1.1", 4420), ep("0.0.0.0", 0), 40),
        cm("rxe0", Transport::roce, 4, "LISTEN", ep("10.0.1.1", 4421), ep("0.0.0.0", 0), 0)};
    s.connections[5].owner = Owner{};
    s.connections[5].owner.kernel = "nvme_rdma";
    Resource qp{
        ResourceKind::qp, "siw0", 7, s.connections[1].owner, {{"type", "RC"}, {"state", "RTS"}}};
    Resource mr{ResourceKind::mr,
                "rxe0",
                5,
                Owner{20, {}, "ib_write_bw", 1000, "alice", {}, {}, {}, {}},
                {{"length", "4096"}, {"lkey", "0x1"}, {"rkey", "0x2"}}};
    Resource cq{ResourceKind::cq, "siw0", 3, s.connections[1].owner, {{"cqe", "256"}}};
    s.resources = {mr, qp, cq};
    s.processes = {
        process(10, "rping", 0, "root",
                {{3, "/dev/infiniband/rdma_cm", {}}, {4, "/dev/infiniband/uverbs0", {}}}),
        process(20, "ib_write_bw", 1000, "alice",
                {{5, "/dev/infiniband/rdma_cm", {}}, {6, "/dev/infiniband/rdma_cm", {}}}),
        process(30, "nginx", 33, "www", {{7, "socket:[11567]", 11567}}),
        process(40, "nvmet", 0, "root", {}, false), process(50, "other", 1000, "alice", {}, false)};
    s.host_sockets = {sock("LISTEN", ep("10.0.0.9", 4567), ep("0.0.0.0", 0), 30, 7),
                      sock("ESTAB", ep("10.0.0.9", 22), ep("10.0.0.7", 4567), std::nullopt)};
    s.host_sockets_collected = s.processes_collected = s.resources_collected = true;
    return s;
}

} // namespace

TEST_CASE("lsof -i specs parse as lsof's", "[lsof]") {
    auto spec = [](const std::string& s) { return parse_inet_spec(s).take(); };
    CHECK(spec("") == InetSpec{});
    CHECK(spec("4").family == AF_INET);
    CHECK(spec("6").family == AF_INET6);
    CHECK(spec(":7174").ports == std::vector<PortRange>{{7174, 7174}});
    CHECK(spec(":1-1024,7174").ports == std::vector<PortRange>{{1, 1024}, {7174, 7174}});
    CHECK(spec("@10.0.0.1").address == IpAddress::parse("10.0.0.1"));
    InetSpec v6 = spec("6@[fd00::1]:80-81");
    CHECK(v6.family == AF_INET6);
    CHECK(v6.address == IpAddress::parse("fd00::1"));
    CHECK(v6.ports == std::vector<PortRange>{{80, 81}});
    InetSpec tcp = spec("4TCP@10.0.0.1:22");
    CHECK(tcp.protocol == "tcp");
    CHECK(tcp.family == AF_INET);
    CHECK(spec("udp").protocol == "udp");
}

TEST_CASE("bad -i specs name the item and the reason", "[lsof]") {
    CHECK(inet_failure(":70000") == "lsof: -i: '70000' is not a port");
    CHECK(inet_failure(":0") == "lsof: -i: '0' is not a port");
    CHECK(inet_failure(":http") == "lsof: -i: 'http' is not a port");
    CHECK(inet_failure(":80,,81") == "lsof: -i: '' is not a port");
    CHECK(inet_failure(":^80") == "lsof: -i: '^80' is not a port");
    CHECK(inet_failure(":9-1") == "lsof: -i: '9-1' is not a port range");
    CHECK(inet_failure(":1-70000") == "lsof: -i: '1-70000' is not a port range");
    CHECK(inet_failure(":") == "lsof: -i: ':' has no port after ':'");
    CHECK(inet_failure("@example.com:80") ==
          "lsof: -i: 'example.com' is not a numeric address (rdmastat resolves no host names)");
    CHECK(inet_failure("@::1") == "lsof: -i: '::1' needs brackets: IPv6 is written [ADDR]");
    CHECK(inet_failure("@[10.0.0.1]") == "lsof: -i: '[10.0.0.1]' is IPv4: brackets are for IPv6");
    CHECK(inet_failure("4@[::1]") ==
          "lsof: -i: '4@[::1]' names an address of the other IP version");
    CHECK(inet_failure("sctp:80") ==
          "lsof: -i: 'sctp:80' is not [4|6][tcp|udp][@ADDR][:PORT[,PORT|-PORT]...]");
    CHECK(inet_failure("@10.0.0.1x") ==
          "lsof: -i: '10.0.0.1x' is not a numeric address (rdmastat resolves no host names)");
}

TEST_CASE("-p, -u and -c lists with ^ exclusions", "[lsof]") {
    LsofSelectors sel;
    CHECK(failure(add_pid_list(sel, "1,2,^3")) == "ok");
    CHECK(sel.pids == std::vector<std::uint32_t>{1, 2});
    CHECK(sel.excluded_pids == std::vector<std::uint32_t>{3});
    CHECK(failure(add_pid_list(sel, "x")) == "lsof: -p: 'x' is not a PID");
    CHECK(failure(add_pid_list(sel, "0")) == "lsof: -p: '0' is not a PID");
    CHECK(failure(add_pid_list(sel, "-1")) == "lsof: -p: '-1' is not a PID");
    CHECK(failure(add_pid_list(sel, "1,,2")) == "lsof: -p: '' is not a PID");
    CHECK(failure(add_pid_list(sel, "99999999999")) == "lsof: -p: '99999999999' is not a PID");
    CHECK(failure(add_pid_list(sel, "")) == "lsof: -p: '' is empty");
    CHECK(failure(add_user_list(sel, "root,^1000,bob")) == "ok");
    CHECK(sel.users == std::vector<UserSpec>{{{}, "root"}, {{}, "bob"}});
    CHECK(sel.excluded_users == std::vector<UserSpec>{{1000u, ""}});
    CHECK(failure(add_user_list(sel, "root,")) == "lsof: -u: '' is not a user");
    CHECK(failure(add_user_list(sel, "99999999999")) == "lsof: -u: '99999999999' is not a uid");
    CHECK(failure(add_command(sel, "rp")) == "ok");
    CHECK(failure(add_command(sel, "^ib_")) == "ok");
    CHECK(sel.comms == std::vector<std::string>{"rp"});
    CHECK(sel.excluded_comms == std::vector<std::string>{"ib_"});
    CHECK(failure(add_command(sel, "^")) == "lsof: -c: '' is not a command name");
    CHECK(failure(add_command(sel, "/rp.*/")) ==
          "lsof: -c: '/rp.*/' is a regular expression, which rdmastat does not support");
}

TEST_CASE("lsof's command line: grouped flags, glued values, -i's optional value", "[lsof]") {
    LsofArgs a = parse_lsof_args({"-at", "-p1,2", "-p", "3", "-c", "x", "-cy", "-u", "root", "-i",
                                  "-i", ":80", "-i4", "-nj", "--input=f", "--source", "nldev"})
                     .take();
    CHECK(a.selectors.all_of);
    CHECK(a.terse);
    CHECK(a.selectors.pids == std::vector<std::uint32_t>{1, 2, 3});
    CHECK(a.selectors.comms == std::vector<std::string>{"x", "y"});
    REQUIRE(a.selectors.inets.size() == 3);
    CHECK(a.selectors.inets[0] == InetSpec{});
    CHECK(a.selectors.inets[1].ports == std::vector<PortRange>{{80, 80}});
    CHECK(a.selectors.inets[2].family == AF_INET);
    CHECK(a.common.numeric);
    CHECK(a.common.json);
    CHECK(a.common.input == "f");
    CHECK(a.common.source == SourceChoice::nldev);
    // -i before another option takes no value.
    LsofArgs b = parse_lsof_args({"-i", "-p", "5"}).take();
    CHECK(b.selectors.inets.size() == 1);
    CHECK(b.selectors.pids == std::vector<std::uint32_t>{5});
    auto error = [](std::vector<std::string> args) {
        auto r = parse_lsof_args(args);
        return r ? std::string("ok") : r.error();
    };
    CHECK(error({"-x"}) == "lsof: unknown option '-x'");
    CHECK(error({"--bogus"}) == "lsof: unknown option '--bogus'");
    CHECK(error({"--json=1"}) == "lsof: --json takes no value");
    CHECK(error({"-p"}) == "lsof: -p needs a value");
    CHECK(error({"--input"}) == "lsof: --input needs a value");
    CHECK(error({"--source", "verbs"}) == "lsof: --source: 'verbs' is not auto, nldev or module");
    CHECK(
        error({"/dev/infiniband/rdma_cm"}) ==
        "lsof: unexpected argument '/dev/infiniband/rdma_cm' (rdmastat lsof takes no file names)");
    CHECK(error({"-i", ":70000"}) == "lsof: -i: '70000' is not a port");
}

TEST_CASE("lsof selection: OR by default, AND with -a, exclusions always", "[lsof]") {
    // The lab cannot produce this: hand-built (several users, kernel owners, udp ids).
    Snapshot s = with_attribution(hand_built());
    CHECK(holders(select(s, {})) == std::set<std::string>{"10", "20", "40", "nvme_rdma"});
    CHECK(holders(select(s, {"-p", "10"})) == std::set<std::string>{"10"});
    CHECK(holders(select(s, {"-p", "^10"})) == std::set<std::string>{"20", "40", "nvme_rdma"});
    CHECK(holders(select(s, {"-c", "ib"})) == std::set<std::string>{"20"});
    CHECK(holders(select(s, {"-c", "rp", "-c", "ib"})) == std::set<std::string>{"10", "20"});
    CHECK(holders(select(s, {"-c", "^rp"})) == std::set<std::string>{"20", "40", "nvme_rdma"});
    CHECK(holders(select(s, {"-c", "nvme_"})) == std::set<std::string>{"nvme_rdma"});
    CHECK(holders(select(s, {"-u", "alice"})) == std::set<std::string>{"20"});
    CHECK(holders(select(s, {"-u", "1000"})) == std::set<std::string>{"20"});
    CHECK(holders(select(s, {"-u", "^root"})) == std::set<std::string>{"20", "nvme_rdma"});
    CHECK(holders(select(s, {"-p", "10", "-u", "alice"})) == std::set<std::string>{"10", "20"});
    CHECK(select(s, {"-a", "-p", "10", "-u", "alice"}).empty());
    CHECK(holders(select(s, {"-a", "-p", "10,20", "-u", "alice"})) == std::set<std::string>{"20"});

    // -i :4567: every holder of the port, in every port space, sockets included.
    CHECK(rows(select(s, {"-i", ":4567"})) ==
          std::vector<std::string>{
              "10:RDMA_CM:*:4567 (LISTEN)", "10:RDMA_CM:10.0.0.1:4567->10.0.0.2:5000 (CONNECT)",
              "20:RDMA_CM:[fd00::1]:4567 (LISTEN)",
              "20:RDMA_CM:10.0.1.1:1500->10.0.1.2:4567 (CONNECT)", "30:IPv4:10.0.0.9:4567 (LISTEN)",
              "-:IPv4:10.0.0.9:22->10.0.0.7:4567 (ESTAB)"});
    CHECK(holders(select(s, {"-i", "6:4567"})) == std::set<std::string>{"20"});
    CHECK(holders(select(s, {"-i", "udp:4567"})) == std::set<std::string>{"20"});
    CHECK(rows(select(s, {"-i", "tcp@10.0.0.1"})) ==
          std::vector<std::string>{"10:RDMA_CM:*:4567 (LISTEN)", // the wildcard covers it
                                   "10:RDMA_CM:10.0.0.1:4567->10.0.0.2:5000 (CONNECT)"});
    CHECK(holders(select(s, {"-i", ":4420-4421"})) == std::set<std::string>{"40", "nvme_rdma"});
    CHECK(holders(select(s, {"-i", ":4567", "-p", "^30"})) ==
          std::set<std::string>{"10", "20", "-"});
    // -a with -i: the process's internet files only.
    CHECK(rows(select(s, {"-a", "-p", "30", "-i"})) ==
          std::vector<std::string>{"30:IPv4:10.0.0.9:4567 (LISTEN)"});
    CHECK(rows(select(s, {"-a", "-p", "10", "-i", ":5000"})) ==
          std::vector<std::string>{"10:RDMA_CM:10.0.0.1:4567->10.0.0.2:5000 (CONNECT)"});
    // OR: all of 10's files (sockets too, as -i was given) and every file on :22.
    CHECK(rows(select(s, {"-p", "10", "-i", ":22"})).size() == 7);
}

TEST_CASE("lsof fds: the one rdma_cm fd for cm_ids, the one uverbs fd for resources", "[lsof]") {
    // The lab cannot produce this: hand-built (two rdma_cm fds in one process).
    Snapshot s = hand_built();
    LsofResult r = select(s, {});
    std::vector<std::string> seen;
    for (const LsofHolder& h : r.holders)
        for (const LsofFile& f : h.files)
            seen.push_back(std::to_string(h.pid.value_or(0)) + " " + lsof_type(f) + " " +
                           (f.fd ? std::to_string(*f.fd) : "-"));
    CHECK(seen == std::vector<std::string>{"10 RDMA_CM 3", "10 RDMA_CM 3", "10 QP 4", "10 CQ 4",
                                           "10 CHR 3", "10 CHR 4", "20 RDMA_CM -", "20 RDMA_CM -",
                                           "20 MR -", "20 CHR 5", "20 CHR 6", "40 RDMA_CM -",
                                           "0 RDMA_CM -"});
}

TEST_CASE("processes lsof could not inspect are reported, not skipped", "[lsof]") {
    // The lab cannot produce this: hand-built.
    Snapshot s = with_attribution(hand_built());
    LsofResult all = select(s, {});
    REQUIRE(all.uninspected.size() == 1); // 40 has a listed row; 50 has none
    CHECK(all.uninspected[0]->pid == 40u);
    CHECK(all.other_uninspected == 0); // no socket without a process is listed
    LsofResult by_user = select(s, {"-u", "alice"});
    REQUIRE(by_user.uninspected.size() == 1); // 50 is alice's: asked for, unreadable
    CHECK(by_user.uninspected[0]->pid == 50u);
    LsofResult port = select(s, {"-i", ":22"});
    CHECK(port.uninspected.empty());
    CHECK(port.other_uninspected == 2); // the socket without a process may be theirs
    CHECK(select(s, {"-p", "^40"}).uninspected.empty());

    CHECK(lsof({"-u", "alice"}, fixtures + "/snapshot-host-user.json").rc == 1); // no alice
    CliRun user = lsof({}, fixtures + "/snapshot-host-user.json");
    CHECK(user.rc == 0);
    // The lab's rping processes, unreadable to the unprivileged user: once each.
    CHECK_THAT(user.err, Catch::Contains("rdmastat: lsof: cannot read /proc/224/fd: permission "
                                         "denied\n"));
    std::size_t lines = std::count(user.err.begin(), user.err.end(), '\n');
    CHECK(lines == 8);
    CliRun terse = lsof({"-t"}, fixtures + "/snapshot-host-user.json");
    CHECK(terse.err.empty()); // -t is quiet, as lsof -t
}

TEST_CASE("lsof output on the lab capture", "[lsof]") {
    struct Case {
        std::vector<std::string> args;
        const char* golden_file;
    };
    for (const auto& [args, file] : std::vector<Case>{
             {{"-p", "224"}, "lsof-p.txt"},
             {{"-i", ":7174"}, "lsof-i-port.txt"},
             {{"-i", "-n"}, "lsof-i.txt"},
             {{"-j", "--pretty", "-i", ":7174"}, "lsof-i-port.json"},
             {{"-j", "-p", "224,231"}, "lsof-p.json"},
         }) {
        INFO(file);
        CliRun r = lsof(args);
        CHECK(r.rc == 0);
        CHECK(r.err.empty());
        CHECK(r.out == golden(file, r.out));
    }
    CliRun t = lsof({"-t", "-i", ":7174"});
    CHECK(t.rc == 0);
    CHECK(t.out == "224\n231\n");
}

TEST_CASE("lsof NAME and TYPE columns", "[lsof]") {
    // The lab cannot produce this: hand-built (port mapper, internal ids).
    Connection c =
        cm("cxgb0", Transport::iwarp, 3, "CONNECT", ep("10.0.0.1", 4567), ep("fd00::2", 5000), 1);
    c.peer = ep("10.0.0.2", 5000);
    c.mapped_local = ep("10.0.0.1", 20001);
    c.mapped_peer = c.peer;
    LsofFile f;
    f.connection = &c;
    CHECK(lsof_name(f) == "10.0.0.1:4567(10.0.0.1:20001)->10.0.0.2:5000 (CONNECT)");
    c.internal = true;
    c.local = ep("::", 7174);
    c.peer.reset();
    c.mapped_local.reset();
    CHECK(lsof_name(f) == "*:7174 (CONNECT) [internal]");
    c.local.reset();
    CHECK(lsof_name(f) == "*:* (CONNECT) [internal]");
    Resource pd{ResourceKind::pd, "rxe0", 2, {}, {{"users", "4"}}};
    LsofFile rf;
    rf.kind = LsofKind::resource;
    rf.resource = &pd;
    CHECK(lsof_type(rf) == "PD");
    CHECK(lsof_name(rf) == "pdn 2 users 4");
    HostSocket v6 = sock("ESTAB", ep("fd00::1", 7174), ep("fd00::2", 1), std::nullopt);
    LsofFile sf;
    sf.kind = LsofKind::socket;
    sf.socket = &v6;
    CHECK(lsof_type(sf) == "IPv6");
    CHECK(lsof_name(sf) == "[fd00::1]:7174->[fd00::2]:1 (ESTAB)");
}

TEST_CASE("lsof exit status and usage errors", "[lsof][cli]") {
    CHECK(lsof({"-p", "224"}).rc == 0);
    CliRun none = lsof({"-p", "99999"});
    CHECK(none.rc == 1);
    CHECK(none.out.empty());
    CHECK(none.err.empty());
    CliRun none_json = lsof({"-j", "-p", "99999"});
    CHECK(none_json.rc == 1);
    CHECK(nlohmann::json::parse(none_json.out)["processes"].empty());
    CHECK(lsof({"-t", "-p", "99999"}).rc == 1);
    auto usage = [](std::vector<std::string> args, const std::string& message) {
        INFO(Catch::Detail::stringify(args));
        CliRun r = lsof(args);
        CHECK(r.rc == 2);
        CHECK(r.out.empty());
        CHECK(r.err ==
              "rdmastat: " + message + "\nTry 'rdmastat lsof --help' for more information.\n");
    };
    usage({"-i", ":70000"}, "lsof: -i: '70000' is not a port");
    usage({"-p", "x"}, "lsof: -p: 'x' is not a PID");
    usage({"-Z"}, "lsof: unknown option '-Z'");
    usage({"-t", "-j"}, "lsof: -t and -j exclude each other");
    usage({"--pretty"}, "--pretty needs -j");
    // Listing options and filters before the word do not apply.
    CliRun before = run_args({"-l", "lsof", "--input", host_fixture});
    CHECK(before.rc == 2);
    CHECK_THAT(before.err, Catch::StartsWith("rdmastat: --listening does not apply to lsof\n"));
    // Output options before the word do.
    CliRun j = run_args({"-j", "--input", host_fixture, "lsof", "-p", "224"});
    CHECK(j.rc == 0);
    CHECK(nlohmann::json::parse(j.out)["processes"].size() == 1);
    CliRun missing = lsof({}, "/nonexistent.json");
    CHECK(missing.rc == 2);
    CHECK(missing.err == "rdmastat: /nonexistent.json: No such file or directory\n");
    CliRun help = run_args({"lsof", "--help"});
    CHECK(help.rc == 0);
    CHECK_THAT(help.out, Catch::Contains("-i [SPEC]"));
    CHECK(run_args({"lsof", "-h"}).out == help.out);
}

TEST_CASE("lsof warns when the snapshot lacks what it needs", "[lsof][cli]") {
    // The lab's listing capture holds neither processes nor sockets.
    CliRun r = lsof({"-i", ":7174"}, fixtures + "/snapshot.json");
    CHECK(r.rc == 0); // the cm_ids still match
    CHECK_THAT(r.err, Catch::Contains("rdmastat: lsof: processes were not looked up") &&
                          Catch::Contains("rdmastat: lsof: host TCP sockets were not read"));
}

TEST_CASE("-i @ADDR does not match a listener's placeholder peer", "[lsof]") {
    // The lab snapshot's listeners carry the kernel's 0.0.0.0:0 / [::]:0 as peer.
    for (const char* any : {"6@[::]", "4@0.0.0.0"}) {
        std::ostringstream o, e;
        int rc = rdmastat::run_cli({"lsof", "--input", host_fixture, "-i", any}, o, e);
        INFO(any << ": " << o.str());
        CHECK(rc != 2);
        // The rdma_cm listeners are bound to specific addresses; only their peer
        // placeholder is the any address. (A host socket bound to the any address
        // may match: a wildcard local address covers every address.)
        CHECK(o.str().find("RDMA_CM") == std::string::npos);
    }
}

TEST_CASE("lsof -j: a process's cgroup, container and pod, from its ids or its resources",
          "[lsof]") {
    // rping (10) owns ids in a pod's containerd container; ib_write_bw (20)
    // owns only an MR in a docker container (its ids removed here); nginx
    // (30) holds only a socket: nothing says its cgroup.
    Snapshot s = hand_built();
    const std::string pod_uid = "5f0c9a7e-8b1d-4c2e-9f3a-0d4b6c8e1a27";
    for (Connection& c : s.connections)
        if (c.owner.pid == 10u) {
            c.owner.cgroup = "/kubepods.slice/x";
            c.owner.container = Container{ContainerRuntime::containerd, std::string(64, 'c')};
            c.owner.pod = Pod{pod_uid, PodQos::burstable};
        }
    std::erase_if(s.connections, [](const Connection& c) { return c.owner.pid == 20u; });
    for (Resource& r : s.resources)
        if (r.owner.pid == 20u) {
            r.owner.cgroup = "/system.slice/docker-" + std::string(64, 'd') + ".scope";
            r.owner.container = Container{ContainerRuntime::docker, std::string(64, 'd')};
        }
    std::ostringstream out;
    json_writer()->lsof(out, s, select(s, {"-i", "-p", "20"}), {});
    nlohmann::json j = nlohmann::json::parse(out.str());
    std::map<std::uint32_t, nlohmann::json> by_pid;
    for (const auto& p : j["processes"])
        if (p.contains("pid")) by_pid[p["pid"].get<std::uint32_t>()] = p;
    REQUIRE(by_pid.count(10));
    CHECK(by_pid[10]["cgroup"] == "/kubepods.slice/x");
    CHECK(by_pid[10]["container"] ==
          nlohmann::json{{"runtime", "containerd"}, {"id", std::string(64, 'c')}});
    CHECK(by_pid[10]["pod"] == nlohmann::json{{"uid", pod_uid}, {"qos", "burstable"}});
    REQUIRE(by_pid.count(20));
    CHECK(by_pid[20]["container"]["runtime"] == "docker");
    CHECK_FALSE(by_pid[20].contains("pod"));
    REQUIRE(by_pid.count(30));
    CHECK_FALSE(by_pid[30].contains("cgroup"));
    CHECK_FALSE(by_pid[30].contains("container"));
    // Keys in the owner's order, before the files.
    CHECK_THAT(out.str(), Catch::Contains("\"user\":\"root\",\"cgroup\":\"/kubepods.slice/x\","
                                          "\"container\":") &&
                              Catch::Contains("\"qos\":\"burstable\"},\"files\":["));
}
