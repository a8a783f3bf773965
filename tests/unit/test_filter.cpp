// SPDX-License-Identifier: MIT
#include "analysis/filter.h"
#include "catch_compat.hpp"
#include "model/address.h"
#include "model/model.h"
#include "model/names.h"

#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace rdmastat;
using Catch::Contains;

namespace {

Endpoint ep(const char* address, std::uint16_t port) {
    auto a = IpAddress::parse(address);
    REQUIRE(a);
    return Endpoint{*a, port};
}

Connection make(const char* device, Transport transport, const char* state) {
    Connection c;
    c.device = device;
    c.transport = transport;
    c.state = enum_from_name<CmState>(state).value();
    return c;
}

/// siw0 listener on 0.0.0.0:7174, no peer, owned by rping (pid 100, root).
Connection listener() {
    Connection c = make("siw0", Transport::iwarp, "LISTEN");
    c.local = ep("0.0.0.0", 7174);
    c.owner = Owner{.pid = 100,
                    .tid = {},
                    .comm = "rping",
                    .uid = 0,
                    .user = "root",
                    .kernel = {},
                    .cgroup = "/system.slice/docker-" + std::string(64, 'a') + ".scope",
                    .container = Container{ContainerRuntime::docker, std::string(64, 'a')},
                    .pod = {}};
    return c;
}

/// rxe0 client 10.0.0.1:40000 -> 10.0.0.2:7174, owned by ib_send_bw (pid 200, alice).
Connection client() {
    Connection c = make("rxe0", Transport::roce, "CONNECT");
    c.local = ep("10.0.0.1", 40000);
    c.peer = ep("10.0.0.2", 7174);
    c.owner = Owner{.pid = 200,
                    .tid = {},
                    .comm = "ib_send_bw",
                    .uid = 1000,
                    .user = "alice",
                    .kernel = {},
                    .cgroup = "/kubepods.slice/kubepods-burstable.slice/"
                              "kubepods-burstable-pod0b5ec1d2_3f4a_4b5c_8d6e_7f8091a2b3c4.slice/"
                              "cri-containerd-" +
                              std::string(64, 'b') + ".scope",
                    .container = Container{ContainerRuntime::containerd, std::string(64, 'b')},
                    .pod = Pod{"0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4", PodQos::burstable}};
    return c;
}

/// siw1 kernel-owned IPv6 connection [fd00::1]:5000 -> [fe80::1234]:7174.
Connection v6() {
    Connection c = make("siw1", Transport::iwarp, "CONNECT");
    c.local = ep("fd00::1", 5000);
    c.peer = ep("fe80::1234", 7174);
    c.owner.kernel = "nvmet_rdma";
    return c;
}

/// An id with no endpoints and no owner process (freshly created, IDLE).
Connection bare() {
    return make("mlx5_0", Transport::infiniband, "IDLE");
}

std::vector<std::string> split(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

Filter parse_ok(const std::vector<std::string>& words) {
    auto r = Filter::parse(words);
    INFO("error: " << (r.ok() ? std::string("none") : r.error()));
    REQUIRE(r.ok());
    return std::move(r.value());
}

/// Parses `text` as separate words (split on spaces) and matches it against c.
bool m(const std::string& text, const Connection& c) {
    INFO("filter: " << text);
    return parse_ok(split(text)).matches(c);
}

/// Every filter in `filters` matches c (yes) or none does (no).
void yes(const Connection& c, std::initializer_list<std::string> filters) {
    for (const std::string& f : filters)
        CHECK(m(f, c));
}
void no(const Connection& c, std::initializer_list<std::string> filters) {
    for (const std::string& f : filters)
        CHECK_FALSE(m(f, c));
}

std::string error_of(const std::vector<std::string>& words) {
    auto r = Filter::parse(words);
    REQUIRE_FALSE(r.ok());
    return r.error();
}

} // namespace

TEST_CASE("empty filter matches everything", "[filter]") {
    Filter f = parse_ok({});
    CHECK(f.matches(listener()));
    CHECK(f.matches(bare()));
    CHECK_FALSE(f.mentions_state());
    CHECK(Filter().matches(client()));
    CHECK(parse_ok({"  ", "\t"}).matches(v6()));
}

TEST_CASE("state primary", "[filter]") {
    yes(listener(), {"state LISTEN", "state listen", "state Listen"});
    no(client(), {"state listen"});
    yes(client(), {"state connect"});
    Connection c = bare();
    c.state = CmState::addr_bound;
    yes(c, {"state addr-bound", "state ADDR_BOUND"});
    no(c, {"state addr_resolved"});
    c.state = CmState::device_removal;
    yes(c, {"state DEVICE-REMOVAL", "state device_removal"});
    no(c, {"state destroying"});
    // Every state the kernel names is a valid filter state.
    const auto& names = Names<CmState>::names;
    REQUIRE(names.size() == 11);
    for (std::size_t i = 0; i < names.size(); ++i) {
        c.state = static_cast<CmState>(i);
        CHECK(name_of(*c.state) == names[i]);
        CHECK(parse_ok({"state", std::string(names[i])}).matches(c));
    }
}

TEST_CASE("mentions_state", "[filter]") {
    CHECK(parse_ok(split("state listen")).mentions_state());
    CHECK(parse_ok(split("dev siw0 or not ( state listen )")).mentions_state());
    CHECK_FALSE(parse_ok(split("dev siw0 or sport 7174")).mentions_state());
    CHECK_FALSE(parse_ok(split("comm state")).mentions_state()); // "state" as a value
}

TEST_CASE("dev, pid, comm, user, transport primaries", "[filter]") {
    yes(listener(), {"dev siw0", "pid 100", "comm rping", "user 0", "user root", "transport iwarp",
                     "transport IW"});
    no(listener(), {"dev siw", "dev SIW0", "pid 200", "comm rpin", "comm Rping", "user 1000",
                    "transport roce"});
    yes(client(), {"user alice", "user 1000", "transport RoCE", "pid 200", "comm ib_send_bw"});
    no(client(), {"user root", "user alic", "user 0", "transport infiniband"});
    // A kernel owner has no pid, comm, uid or user.
    no(v6(), {"pid 0", "comm rping", "comm nvmet_rdma", "user 0", "user alice"});
    yes(bare(), {"transport ib", "transport infiniband"});
    yes(Connection{}, {"transport unknown"});
}

TEST_CASE("optional = and != before plain values", "[filter]") {
    yes(listener(), {"dev = siw0", "dev == siw0", "state = listen", "src = *"});
    no(listener(), {"dev != siw0", "dev = rxe0"});
    yes(client(), {"dev != siw0", "comm == ib_send_bw", "pid != 100"});
    Connection eq = bare();
    eq.device = "=";
    CHECK(m("dev =", eq)); // no value follows: "=" is the name
}

TEST_CASE("sport and dport with every operator spelling", "[filter]") {
    // Spelling, then whether it accepts port < value, port == value, port > value.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"eq", "010"}, {"==", "010"}, {"=", "010"},  {"ne", "101"}, {"!=", "101"},
        {"gt", "001"}, {">", "001"},  {"lt", "100"}, {"<", "100"},  {"ge", "011"},
        {">=", "011"}, {"le", "110"}, {"<=", "110"}};
    auto expect = [](const std::string& accepts, int port, int value) {
        return accepts[port < value ? 0 : port == value ? 1 : 2] == '1';
    };
    Connection c = client(); // sport 40000, dport 7174
    for (const auto& [op, accepts] : cases) {
        for (int value : {7173, 7174, 7175, 40000, 40001}) {
            for (const std::string& port : {std::to_string(value), ":" + std::to_string(value)}) {
                INFO("port " << op << " " << port);
                CHECK(parse_ok({"dport", op, port}).matches(c) == expect(accepts, 7174, value));
                CHECK(parse_ok({"sport", op, port}).matches(c) == expect(accepts, 40000, value));
                if (op[0] < 'a') // symbols may be glued to the port, as in ss
                    CHECK(parse_ok({"dport", op + port}).matches(c) ==
                          expect(accepts, 7174, value));
            }
        }
    }
    // Keywords and operator words in any case.
    yes(c, {"sport :40000", "sport 40000", "dport = :7174", "sport >= :1024", "sport ge 1024",
            "SPORT GE 1024", "dport <= 65535", "sport >:1024"});
    Connection zero = bare();
    zero.peer = ep("1.2.3.5", 0);
    CHECK(m("dport 0", zero));
}

TEST_CASE("absent endpoints never match a condition on them", "[filter]") {
    no(listener(), {"dport 0", "dport != 1", "dst *", "dst 0.0.0.0/0"});
    no(bare(), {"sport >= 0", "src *", "src 0.0.0.0/0", "src ::/0", "dst *:0"});
    yes(listener(), {"not dst *", "src *", "src *:7174"}); // negation of a false condition
    yes(client(), {"dst *"});
}

TEST_CASE("src and dst with IPv4 prefixes and ports", "[filter]") {
    // 10.0.0.1:40000 -> 10.0.0.2:7174; host bits of the network are ignored.
    yes(client(), {"src 10.0.0.1", "dst 10.0.0.2", "dst 10.0.0.2/32", "dst 10.0.0.3/30",
                   "dst 10.0.0.0/8", "dst 10.255.0.0/8", "dst 0.0.0.0/0", "dst 192.168.1.1/0",
                   "dst 10.0.0.2:7174", "dst 10.0.0.0/24:7174", "dst 10.0.0.2:*", "dst *:7174",
                   "src 10.0.0.1/32:40000", "dst 10.0.0.2/31"});
    no(client(),
       {"src 10.0.0.2", "dst 10.0.0.3/32", "dst 10.0.0.4/30", "dst 11.0.0.0/8", "dst 10.0.0.2:7175",
        "dst 10.0.1.0/24:7174", "dst *:7175", "src ::/0", "src 10.0.0.1:7174", "dst 10.0.0.4/31"});
    yes(listener(), {"src 0.0.0.0", "src 0.0.0.0/0"}); // the any address is an address too
    no(v6(), {"src 0.0.0.0/0", "dst 0.0.0.0/0"});      // family must match
}

TEST_CASE("src and dst with IPv6 prefixes and bracket forms", "[filter]") {
    // [fd00::1]:5000 -> [fe80::1234]:7174
    yes(v6(),
        {"src fd00::1", "src fd00::1/128", "src fd00::/8", "src fd00::/16", "src fd01::/15",
         "dst fe80::/10", "dst fe80::/64", "dst ::/0", "dst [fe80::1234]", "dst [fe80::1234]:7174",
         "dst [fe80::]/64:7174", "src [::]/0:5000", "src *:5000", "dst [FE80::1234]/128"});
    no(v6(), {"src fd00::2/128", "src fd01::/16", "dst [fe80::1234]:7175", "dst [fe80::]/128:7174",
              "src 0.0.0.0/0", "dst fe80::1235"});
    no(client(), {"dst ::ffff:10.0.0.2", "dst ::/0"}); // IPv4-mapped is still IPv6
}

TEST_CASE("and, or, not, parentheses and precedence", "[filter]") {
    yes(listener(), {"dev siw0 or dev rxe0", "dev siw0 && pid 100", "not dev rxe0",
                     "not not dev siw0", "NOT dev rxe0 AND pid 100", "! ! dev siw0"});
    no(listener(),
       {"dev siw0 and dev rxe0", "dev siw0 && pid 200", "! dev siw0", "not ( dev siw0 )"});
    yes(client(), {"dev siw0 or dev rxe0", "dev siw0 || dev rxe0", "dev siw0 , dev rxe0",
                   "( ( ( dev rxe0 ) ) )", "dev x or dev y or dev z or dev rxe0"});
    // and binds tighter than or
    yes(listener(), {"dev siw0 or dev rxe0 and pid 999", "pid 999 and dev rxe0 or dev siw0"});
    no(client(), {"dev siw0 or dev rxe0 and pid 999"});
    no(listener(),
       {"( dev siw0 or dev rxe0 ) and pid 999", "pid 999 and ( dev rxe0 or dev siw0 )"});
    // not binds tighter than and/or
    yes(client(), {"not dev siw0 and pid 200", "not ( dev rxe0 and pid 100 )",
                   "! ( dev siw0 ) or pid 1", "not dev rxe0 or pid 200"});
    no(client(), {"not ( dev rxe0 and pid 200 )", "not dev rxe0 and pid 200"});
}

TEST_CASE("juxtaposition means and", "[filter]") {
    CHECK(m("dev rxe0 pid 200", client()));
    CHECK_FALSE(m("dev rxe0 pid 100", client()));
    CHECK(m("state connect dport 7174 dev rxe0 or dev siw0", listener()));
    CHECK_FALSE(m("state connect dport 7174 dev siw1 or dev siw0", client()));
    CHECK(m("state connect ( dport 1 or dport 7174 )", client()));
}

TEST_CASE("glued parentheses and a whole filter in one word", "[filter]") {
    Connection l = listener(), c = client();
    Filter glued = parse_ok({"(state", "listen", "or", "dev", "rxe0)", "and", "!(pid", "999)"});
    CHECK(glued.matches(l));
    CHECK(glued.matches(c));
    CHECK_FALSE(glued.matches(v6()));
    Filter one = parse_ok({"state listen or (sport >= :1024 and dev rxe0)"});
    CHECK(one.matches(l));
    CHECK(one.matches(c));
    CHECK_FALSE(one.matches(v6()));
    Filter spaced = parse_ok({"  dev\tsiw1\n", "or((dev siw0))  "});
    CHECK(spaced.matches(v6()));
    CHECK(spaced.matches(l));
    CHECK_FALSE(spaced.matches(c));
    CHECK(parse_ok({"state listen and (sport = :7174 or dev siw0)"}).matches(l));
    CHECK(parse_ok({"state", "listen", "and", "(", "sport", "=", ":7174", "or", "dev", "siw0", ")"})
              .matches(l));
}

TEST_CASE("glued commas and a leading ! split like separate words", "[filter]") {
    Connection l = listener(), c = client();
    for (const auto& words : std::vector<std::vector<std::string>>{
             {"dev siw0,dev rxe0"}, {"dev", "siw0,dev", "rxe0"}, {"dev", "siw0,", "dev", "rxe0"}}) {
        Filter f = parse_ok(words);
        CHECK(f.matches(l));
        CHECK(f.matches(c));
        CHECK_FALSE(f.matches(v6()));
    }
    for (const auto& words : std::vector<std::vector<std::string>>{{"!state", "listen"},
                                                                   {"!state listen"},
                                                                   {"!(state", "listen)"},
                                                                   {"!!!state listen"}}) {
        Filter f = parse_ok(words);
        CHECK_FALSE(f.matches(l));
        CHECK(f.matches(c));
    }
    CHECK(parse_ok({"!!dev siw0"}).matches(l));
    CHECK(parse_ok({"dev siw0,!dev siw0"}).matches(c));
    // "!=" stays the operator, glued or not.
    CHECK_FALSE(parse_ok({"dev", "!=", "siw0"}).matches(l));
    CHECK_FALSE(parse_ok({"dport", "!=7174"}).matches(v6()));
    CHECK(parse_ok({"sport !=7174"}).matches(c));
    CHECK(parse_ok({"dst", "fe80::1234,dev", "rxe0"}).matches(v6()));
}

TEST_CASE("filters copy and move", "[filter]") {
    Filter a = parse_ok(split("dev siw0 or ( pid 200 and not state listen )"));
    Filter b = a;
    Filter c = std::move(a);
    CHECK(b.matches(listener()));
    CHECK(b.matches(client()));
    CHECK_FALSE(b.matches(v6()));
    CHECK(c.matches(client()));
    b = parse_ok(split("dev none"));
    CHECK_FALSE(b.matches(listener()));
    CHECK(c.matches(listener()));
}

TEST_CASE("malformed filters yield clear errors", "[filter]") {
    CHECK(error_of({"sport"}) == "filter: expected a port after 'sport', got end of filter");
    CHECK_THAT(error_of({"sport", ">="}), Contains("expected a port after '>=', got end"));
    CHECK_THAT(error_of({"dev", "x", "and", "foo"}),
               Contains("filter: unknown keyword 'foo' (word 4)"));
    CHECK_THAT(error_of({"dev", "x", ")"}), Contains("filter: unbalanced ')' (word 3)"));
    CHECK_THAT(error_of({"(dev", "x"}), Contains("unbalanced '('"));
    CHECK_THAT(error_of({"src", "300.1.1.1"}),
               Contains("filter: '300.1.1.1' is not an IP address"));
    CHECK_THAT(error_of({"dst", "10.0.0.0/40"}),
               Contains("filter: prefix 40 is too long for IPv4"));
    CHECK_THAT(error_of({"dst", "[::1]/129:1"}), Contains("prefix 129 is too long for IPv6"));
    CHECK_THAT(error_of({"src", "10.0.0.1/x"}), Contains("bad prefix length 'x'"));
    CHECK_THAT(error_of({"src", "[fe80::1"}), Contains("'[fe80::1' lacks a closing ']'"));
    CHECK_THAT(error_of({"src", "[fe80::1]x"}), Contains("'[fe80::1]x' is not an address"));
    CHECK_THAT(error_of({"src", "fe80::1/64:80"}), Contains("write [IPV6]:PORT"));
    CHECK_THAT(error_of({"src", "10.0.0.1:99999"}), Contains("'99999' is not a port"));
    CHECK_THAT(error_of({"src", "*/8"}), Contains("bad prefix length '8'"));
    CHECK_THAT(error_of({"src"}), Contains("expected an address after 'src', got end of filter"));
    CHECK_THAT(error_of({"state", "bogus"}), Contains("unknown state 'bogus' (word 2)"));
    CHECK_THAT(error_of({"state", "bogus"}), Contains("LISTEN") && Contains("DESTROYING"));
    CHECK_THAT(error_of({"state", "listen,"}),
               Contains("expected a condition after ',', got end of filter"));
    CHECK_THAT(error_of({"dev", "x,,dev", "y"}), Contains("got ','"));
    CHECK_THAT(error_of({"transport", "ethernet"}), Contains("unknown transport 'ethernet'"));
    CHECK_THAT(error_of({"sport", "70000"}), Contains("'70000' is not a port"));
    CHECK_THAT(error_of({"sport", "=>5"}), Contains("unknown operator in '=>5'"));
    CHECK_THAT(error_of({"dport", "eq", "x1"}), Contains("'x1' is not a port (word 3)"));
    CHECK_THAT(error_of({"pid", "abc"}), Contains("'abc' is not a pid"));
    CHECK_THAT(error_of({"pid", "-1"}), Contains("'-1' is not a pid"));
    CHECK_THAT(error_of({"user", "99999999999"}), Contains("'99999999999' is not a uid"));
    CHECK_THAT(error_of({"dev"}), Contains("expected a device name after 'dev', got end"));
    CHECK_THAT(error_of({"dev", ")"}), Contains("expected a device name after 'dev', got ')'"));
    CHECK_THAT(error_of({"dev", "x", "and"}),
               Contains("expected a condition after 'and', got end of filter"));
    CHECK_THAT(error_of({"or", "dev", "x"}), Contains("expected a condition, got 'or' (word 1)"));
    CHECK_THAT(error_of({"()"}), Contains("expected a condition after '(', got ')' (word 2)"));
    CHECK_THAT(error_of({"not"}), Contains("expected a condition after 'not', got end"));
    CHECK_THAT(error_of({"dev", "x", "or", "or", "dev", "y"}),
               Contains("expected a condition after 'or', got 'or' (word 4)"));
}

TEST_CASE("nesting is capped without exhausting the stack", "[filter]") {
    auto nested = [](int depth, const char* open) {
        std::vector<std::string> w(depth, open);
        w.push_back("dev");
        w.push_back("rxe0");
        if (std::string(open) == "(") w.insert(w.end(), depth, ")");
        return w;
    };
    CHECK(parse_ok(nested(Filter::max_depth, "(")).matches(client()));
    CHECK(parse_ok(nested(Filter::max_depth, "not")).matches(client()));
    CHECK_FALSE(parse_ok(nested(Filter::max_depth - 1, "!")).matches(client()));
    CHECK_THAT(error_of(nested(Filter::max_depth + 1, "(")),
               Contains("nesting deeper than 256 levels"));
    CHECK_THAT(error_of(nested(100000, "(")), Contains("nesting deeper"));
    CHECK_THAT(error_of(nested(100000, "!")), Contains("nesting deeper"));
    CHECK_THAT(error_of({std::string(100000, '(')}), Contains("nesting deeper"));
    CHECK_THAT(error_of({std::string(100000, ')')}), Contains("got ')'"));
    // A long flat chain is not nesting and must parse.
    std::vector<std::string> chain;
    for (int i = 0; i < 20000; ++i)
        chain.insert(chain.end(), {"dev", "d" + std::to_string(i), "or"});
    chain.insert(chain.end(), {"dev", "rxe0"});
    CHECK(parse_ok(chain).matches(client()));
}

TEST_CASE("random token soup never crashes", "[filter]") {
    const std::vector<std::string> vocab = {
        "(",    ")",    "and",   "or",  "not",         "!",     "&&",   "||",    ",",  "state",
        "idle", "src",  "dst",   "pid", "sport",       "dport", "dev",  "comm",  "=",  "user",
        ">=",   "ne",   ":7174", "1",   "*",           "10/8",  "::/0", "[::1]", "iw", "transport",
        "!=:5", "(dev", "x)",    "",    "99999999999", "[",     "]",    "/",     ":",  "*:1"};
    std::mt19937 rng(12345);
    const Connection conns[] = {listener(), client(), v6(), bare()};
    int parsed = 0;
    for (int round = 0; round < 20000; ++round) {
        std::vector<std::string> w(rng() % 12);
        for (auto& t : w)
            t = vocab[rng() % vocab.size()];
        auto r = Filter::parse(w);
        if (r.ok()) {
            ++parsed;
            for (const Connection& c : conns)
                (void)r.value().matches(c);
        } else {
            CHECK(r.error().rfind("filter: ", 0) == 0);
        }
    }
    CHECK(parsed > 0);
}

TEST_CASE("netns primary: the id's network namespace inode", "[filter]") {
    Connection in_ns = client();
    in_ns.netns = 4026532140u;
    CHECK(parse_ok(split("netns 4026532140")).matches(in_ns));
    CHECK_FALSE(parse_ok(split("netns 4026531840")).matches(in_ns));
    CHECK(parse_ok(split("not netns 4026531840")).matches(in_ns));
    // An id whose namespace is unknown (a kernel owner's, with NLDEV) matches no inode.
    CHECK_FALSE(parse_ok(split("netns 4026532140")).matches(client()));
    CHECK_THAT(Filter::parse(split("netns host")).error(),
               Catch::Contains("'host' is not a network namespace inode"));
}

TEST_CASE("container, pod and cgroup primaries: what the owner's cgroup names", "[filter]") {
    // container: an id prefix, or a runtime's name.
    yes(listener(), {"container aaaa", "container " + std::string(64, 'a'), "container docker"});
    no(listener(), {"container b", "container podman", "container " + std::string(65, 'a')});
    yes(client(), {"container bbb", "container containerd", "not container docker"});
    // pod: a UID prefix, or a QoS class; the listener is in no pod.
    yes(client(), {"pod 0b5ec1d2", "pod 0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4", "pod burstable"});
    no(client(), {"pod besteffort", "pod 1", "pod guaranteed"});
    no(listener(), {"pod 0", "pod burstable"});
    yes(listener(), {"not pod 0"});
    // cgroup: the path, or a cgroup above it.
    yes(listener(),
        {"cgroup /", "cgroup /system.slice", "cgroup /system.slice/", "cgroup /system.slice//",
         "cgroup /system.slice/docker-" + std::string(64, 'a') + ".scope"});
    no(listener(), {"cgroup /system", "cgroup /kubepods.slice", "cgroup system.slice"});
    yes(client(), {"cgroup /kubepods.slice/kubepods-burstable.slice"});
    // Kernel-owned ids have no cgroup.
    no(v6(), {"cgroup /", "container docker", "pod burstable"});
}

TEST_CASE("via, qpn, rqpn and QP states select verbs connections", "[filter]") {
    Connection v;
    v.device = "rxe0";
    v.via = Via::verbs;
    v.qp = Qp{17, QpType::rc, QpState::rts, 18, std::nullopt};
    Connection cm = v6();
    cm.qp = Qp{5, QpType::rc, QpState::rts, 6, std::nullopt};
    yes(v, {"via verbs", "via VERBS", "qpn 17", "rqpn 18", "qpn = 17", "rqpn != 17", "state rts",
            "state RTS", "not via cm", "via verbs and qpn 17 and dev rxe0"});
    no(v, {"via cm", "qpn 18", "rqpn 17", "state rtr", "state connect", "state listen"});
    yes(cm, {"via cm", "qpn 5", "rqpn 6"});
    // A cm id is judged by its CM state, not its QP's.
    no(cm, {"via verbs", "state rts"});
    Connection ud = v;
    ud.qp = Qp{19, QpType::ud, QpState::rts, std::nullopt, std::nullopt};
    no(ud, {"rqpn 0", "rqpn 18"});
    CHECK(parse_ok(split("state rts")).mentions_state());
    CHECK_THAT(error_of(split("via carrier")),
               Catch::Contains("unknown connection kind 'carrier'") &&
                   Catch::Contains("expected cm or verbs"));
    CHECK_THAT(error_of(split("qpn x")), Catch::Contains("'x' is not a QP number"));
    CHECK_THAT(error_of(split("state bogus")), Catch::Contains("LISTEN") && Catch::Contains("RTS"));
}

TEST_CASE("gid, src and dst select a verbs connection by its path", "[filter]") {
    Connection v;
    v.device = "rxe0";
    v.via = Via::verbs;
    QpPath path;
    path.sgid = IpAddress::parse("::ffff:10.9.0.1");
    path.dgid = IpAddress::parse("fe80::5054:ff:fe12:3456");
    path.sgid_index = 1;
    v.qp = Qp{17, QpType::rc, QpState::rts, 18, path};
    // As add_verbs_paths() sets them: the GIDs' addresses, port 0.
    v.local = Endpoint{unmapped(*path.sgid), 0};
    v.peer = Endpoint{*path.dgid, 0};
    yes(v, {"gid ::ffff:10.9.0.1", "gid 10.9.0.1", "gid 0000:0000:0000:0000:0000:ffff:0a09:0001",
            "gid fe80::5054:ff:fe12:3456", "src 10.9.0.1", "src 10.9.0.0/24", "dst fe80::/64",
            "gid 10.9.0.1 and rqpn 18"});
    no(v, {"gid 10.9.0.2", "gid ::1", "dst 10.9.0.1", "src 10.9.0.1:7174", "src 10.9.0.1:0",
           "sport 0", "dport lt 1024", "sport ge 0"});
    Connection unknown = v;
    unknown.qp->path.reset();
    unknown.local.reset();
    unknown.peer.reset();
    no(unknown, {"gid 10.9.0.1", "src 10.9.0.1", "dst *"});
    CHECK_THAT(error_of(split("gid 10.9.0.1.2")), Catch::Contains("is not a GID"));
    CHECK_THAT(error_of(split("gid")), Catch::Contains("expected a GID"));
}
