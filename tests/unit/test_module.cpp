// SPDX-License-Identifier: MIT
// The rdmastat module's generic netlink dump: bytes captured in the lab with
// rdmastat.ko loaded (tests/lab/scenarios/module.sh: rdmastat-capture --module),
// judged against iproute2's `rdma -j` output captured at the same moment.
// Tests tagged [module] need those fixtures (module-dump.bin,
// module-rdma-cm_id.json, module-rdma-qp.json); the others run anywhere.
#include "analysis/join.h"
#include "analysis/qp_state.h"
#include "catch_compat.hpp"
#include "collect/genl.h"
#include "collect/module.h"
#include "collect/module_parse.h"
#include "collect/nldev_parse.h"
#include "model/names.h"
#include "support.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rdmastat.h>
#include <map>
#include <set>
#include <sys/socket.h>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

Bytes module_dump() {
    return fixture_bytes("module-dump.bin");
}

// Appends an attribute to the first message, whose attributes end it: a
// well-formed message the module could have sent with one more attribute.
Bytes with_attr_in_first(Bytes b, std::uint16_t type, const std::vector<std::uint8_t>& payload) {
    auto* nlh = reinterpret_cast<nlmsghdr*>(b.data());
    nlattr hdr{static_cast<std::uint16_t>(NLA_HDRLEN + payload.size()), type};
    // Built by appending: no memcpy into or from a possibly empty vector.
    auto* raw = reinterpret_cast<const std::uint8_t*>(&hdr);
    std::vector<std::uint8_t> extra(raw, raw + sizeof(hdr));
    extra.insert(extra.end(), payload.begin(), payload.end());
    extra.resize(NLA_ALIGN(hdr.nla_len), 0);
    std::size_t at = NLMSG_ALIGN(nlh->nlmsg_len);
    b.insert(b.begin() + static_cast<long>(at), extra.begin(), extra.end());
    nlh = reinterpret_cast<nlmsghdr*>(b.data());
    nlh->nlmsg_len = static_cast<std::uint32_t>(at + extra.size());
    return b;
}

// The header of the data message at position n (0-based) of a dump.
nlmsghdr* message(Bytes& b, std::size_t n) {
    std::size_t off = 0;
    for (std::size_t i = 0; i < n; ++i)
        off += NLMSG_ALIGN(reinterpret_cast<nlmsghdr*>(b.data() + off)->nlmsg_len);
    REQUIRE(off < b.size());
    return reinterpret_cast<nlmsghdr*>(b.data() + off);
}

std::size_t data_messages(const Bytes& b) {
    std::size_t n = 0;
    walk_messages(b.data(), b.size(), [&](const nlmsghdr*) -> Status {
        ++n;
        return Ok{};
    }).take();
    return n;
}

} // namespace

TEST_CASE("module dump describes the ids rdma res show cm_id lists", "[module]") {
    auto records = parse_module_dump(module_dump()).take();
    Snapshot snap = join_module(records, {}, {});
    CHECK(snap.source == SnapshotSource::module);
    auto diffs =
        compare_with_referee(snap.connections, json::parse(fixture_text("module-rdma-cm_id.json")),
                             json::parse(fixture_text("module-rdma-qp.json")));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
    CHECK_FALSE(snap.connections.empty());
}

TEST_CASE("module records carry what NLDEV cannot report", "[module]") {
    auto records = parse_module_dump(module_dump()).take();
    REQUIRE_FALSE(records.empty());
    std::set<std::uint32_t> namespaces;
    for (const auto& r : records) {
        INFO(r.device_name << " cm id " << r.cm_idn);
        CHECK(r.driver == (r.device_name == "siw0" ? "siw" : "rdma_rxe"));
        CHECK(r.transport ==
              (r.device_name == "siw0" ? RDMASTAT_TRANSPORT_IWARP : RDMASTAT_TRANSPORT_ROCE));
        REQUIRE(r.netns);
        namespaces.insert(*r.netns);
        // Captured as root: every process owner comes with its uid and comm.
        if (r.owner.pid) {
            CHECK(r.owner.uid);
            CHECK(r.owner.comm);
        }
        // Wire addresses only for iWARP; the lab runs no port mapper, so they
        // are the addresses the application sees.
        if (r.device_name != "siw0") {
            CHECK_FALSE(r.mapped_local);
            CHECK_FALSE(r.mapped_peer);
        }
        if (r.mapped_local) CHECK(r.mapped_local == r.local);
        CHECK_FALSE(r.mapped);
    }
    CHECK(namespaces.size() == 1); // the caller's namespace only
}

TEST_CASE("module dump: an id reported twice is kept once", "[module]") {
    Bytes bytes = module_dump();
    auto* first = message(bytes, 0);
    Bytes twice(bytes.begin(), bytes.begin() + NLMSG_ALIGN(first->nlmsg_len));
    twice.insert(twice.end(), bytes.begin(), bytes.end());
    CHECK(parse_module_dump(twice).take().size() == parse_module_dump(bytes).take().size());
}

TEST_CASE("module dump: unknown attributes are skipped", "[module]") {
    Bytes bytes = module_dump();
    auto expected = parse_module_dump(bytes).take();
    auto parsed = parse_module_dump(with_attr_in_first(bytes, RDMASTAT_A_MAX + 7, {1, 2, 3, 4, 5}));
    REQUIRE(parsed.ok());
    REQUIRE(parsed.value().size() == expected.size());
    CHECK(parsed.value().front().cm_idn == expected.front().cm_idn);
    CHECK(parsed.value().front().local == expected.front().local);
}

TEST_CASE("module dump: malformed attributes are errors naming them", "[module]") {
    Bytes bytes = module_dump();
    struct Case {
        std::uint16_t type;
        std::vector<std::uint8_t> payload;
        const char* message;
    };
    std::vector<std::uint8_t> short_inet(8, 0);
    short_inet[0] = AF_INET; // sa_family_t is host order
    for (const auto& c : std::vector<Case>{
             {RDMASTAT_A_CM_IDN, {7}, "cm id number: 1 bytes, expected 4"},
             {RDMASTAT_A_LOCAL, short_inet, "local address: 8 bytes, expected 16"},
             {RDMASTAT_A_DEV_NAME, {'s', 'i', 'w'}, "device name: string without terminator"},
             {RDMASTAT_A_QP | NLA_F_NESTED, {}, "qp: qp number: missing"},
         }) {
        INFO(c.message);
        auto parsed = parse_module_dump(with_attr_in_first(bytes, c.type, c.payload));
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(),
                   Catch::StartsWith("conn dump message 1: ") && Catch::Contains(c.message));
    }
}

TEST_CASE("module dump: a truncated attribute is an error with context", "[module]") {
    Bytes bytes = module_dump();
    auto* first = reinterpret_cast<nlattr*>(bytes.data() + NLMSG_HDRLEN + GENL_HDRLEN);
    first->nla_len = static_cast<std::uint16_t>(first->nla_len + 200);
    auto parsed = parse_module_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(),
               Catch::Contains("conn dump message 1") && Catch::Contains("truncated attribute"));
}

TEST_CASE("module dump: cut short is an error, never a partial answer", "[module]") {
    Bytes bytes = module_dump();
    require_cut_dumps_refused(bytes, [](const Bytes& b) { return parse_module_dump(b); });
}

TEST_CASE("module dump: other commands and mixed message types are rejected", "[module]") {
    Bytes bytes = module_dump();
    REQUIRE(data_messages(bytes) >= 2);
    Bytes other_cmd = bytes;
    reinterpret_cast<genlmsghdr*>(NLMSG_DATA(message(other_cmd, 0)))->cmd = 9;
    CHECK_THAT(parse_module_dump(other_cmd).error(),
               Catch::Equals("conn dump message 1: unexpected command 9"));
    Bytes mixed = bytes;
    message(mixed, 1)->nlmsg_type = static_cast<std::uint16_t>(message(mixed, 0)->nlmsg_type + 1);
    CHECK_THAT(parse_module_dump(mixed).error(),
               Catch::StartsWith("conn dump message 2: unexpected message type"));
}

TEST_CASE("module dump: a dump of no ids is an empty answer", "[module]") {
    Bytes bytes = module_dump();
    // Only the NLMSG_DONE that ends it.
    std::size_t n = data_messages(bytes);
    auto* done = message(bytes, n);
    REQUIRE(done->nlmsg_type == NLMSG_DONE);
    Bytes empty(reinterpret_cast<std::uint8_t*>(done), bytes.data() + bytes.size());
    CHECK(parse_module_dump(empty).take().empty());
}

TEST_CASE("NLDEV bytes are not a module dump", "[genl]") {
    // The first NLDEV attribute (an 8-byte device index) sits where the genl header belongs.
    auto parsed = parse_module_dump(fixture_bytes("cm_id-siw0.bin"));
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::StartsWith("conn dump message 1: "));
}

TEST_CASE("the genl controller resolves families over a real socket", "[genl]") {
    auto sock = NetlinkSocket::open(NETLINK_GENERIC).take();
    auto ctrl = resolve_genl_family(sock, "nlctrl").take();
    REQUIRE(ctrl);
    CHECK(ctrl->id == GENL_ID_CTRL);
    CHECK(ctrl->version > 0);
    // Family names are at most 15 characters (GENL_NAMSIZ - 1) or fail policy.
    CHECK_FALSE(resolve_genl_family(sock, "rdmastat-none").take());

    // The same exchanges as raw bytes through the pure parser.
    auto ask = [&](const char* name) {
        return sock
            .exchange([&](nlmsghdr* nlh) {
                nlh->nlmsg_type = GENL_ID_CTRL;
                nlh->nlmsg_flags |= NLM_F_ACK;
                put_genl_header(nlh, CTRL_CMD_GETFAMILY, 1);
                mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
            })
            .take();
    };
    CHECK(parse_genl_family(ask("nlctrl")).take().id == GENL_ID_CTRL);
    auto missing = parse_genl_family(ask("rdmastat-none"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error_code() == ENOENT);
}

TEST_CASE("without rdmastat.ko the module source is absent, not an error", "[genl]") {
    bool loaded = std::filesystem::exists("/sys/module/rdmastat");
    auto source = ModuleSource::open().take();
    CHECK(source.has_value() == loaded);
    if (source) CHECK(source->family().version == RDMASTAT_GENL_VERSION);
}

TEST_CASE("module dump: NLM_F_DUMP_INTR on any message marks the dump interrupted", "[module]") {
    Bytes bytes = module_dump();
    REQUIRE(data_messages(bytes) >= 2);
    CHECK_FALSE(dump_interrupted(bytes.data(), bytes.size()));
    // The kernel flags the message filled after its generation moved.
    message(bytes, data_messages(bytes) - 1)->nlmsg_flags |= NLM_F_DUMP_INTR;
    CHECK(dump_interrupted(bytes.data(), bytes.size()));
    // An interrupted dump still parses: the tool reports what it got and warns.
    CHECK(parse_module_dump(bytes).take().size() == parse_module_dump(module_dump()).take().size());
}

namespace {

// NLDEV's view of the QPs at the moment module-dump.bin was taken, from the
// referee's `rdma -j res show qp` captured with it.
std::vector<QpRecord> referee_qps(const std::vector<ModuleRecord>& records) {
    std::map<std::string, std::uint32_t> index_of;
    for (const auto& r : records)
        index_of[r.device_name] = r.device_index;
    std::vector<QpRecord> qps;
    for (const auto& j : json::parse(fixture_text("module-rdma-qp.json"))) {
        QpRecord q;
        q.device_name = j.at("ifname").get<std::string>();
        REQUIRE(index_of.count(q.device_name));
        q.device_index = index_of[q.device_name];
        q.number = j.at("lqpn").get<std::uint32_t>();
        for (std::uint8_t s = 0; s <= 6; ++s)
            if (name_of(static_cast<QpState>(s)) == j.at("state").get<std::string>()) q.state = s;
        REQUIRE(q.state);
        if (j.contains("pid")) q.owner.pid = j.at("pid").get<std::uint32_t>();
        if (j.contains("kernel")) q.owner.kernel = j.at("kernel").get<std::string>();
        qps.push_back(q);
    }
    return qps;
}

} // namespace

TEST_CASE("module QP states come from NLDEV for the QPs the module joined", "[module]") {
    const auto original = parse_module_dump(module_dump()).take();
    auto records = original;
    std::size_t with_state = 0;
    for (auto& r : records)
        if (r.qp && r.qp->state) {
            r.qp->state.reset(); // what the module now sends for user QPs
            ++with_state;
        }
    REQUIRE(with_state > 0);
    auto qps = referee_qps(records);
    CHECK(fill_module_qp_states(records, qps, {}) == with_state);
    for (std::size_t i = 0; i < records.size(); ++i)
        if (original[i].qp) CHECK(records[i].qp->state == original[i].qp->state);

    SECTION("a QP NLDEV names with another owner keeps no state") {
        for (auto& r : records)
            if (r.qp) r.qp->state.reset();
        for (auto& q : qps)
            if (q.owner.pid) *q.owner.pid += 100000;
        CHECK(fill_module_qp_states(records, qps, {}) == 0);
        // ...unless that pid is a thread of the id's process.
        OwnerMap owners;
        for (const auto& r : records)
            if (r.owner.pid)
                for (const auto& q : qps)
                    if (q.owner.pid && *q.owner.pid == *r.owner.pid + 100000)
                        owners[*q.owner.pid].pid = r.owner.pid;
        CHECK(fill_module_qp_states(records, qps, owners) == with_state);
    }
    SECTION("an id the module did not join (no type) gets no state") {
        for (auto& r : records)
            if (r.qp) {
                r.qp->state.reset();
                r.qp->type.reset();
            }
        CHECK(fill_module_qp_states(records, qps, {}) == 0);
    }
    SECTION("a kernel id takes the state of a QP of its own name or rdma_cm's") {
        auto it = std::find_if(records.begin(), records.end(),
                               [](const ModuleRecord& m) { return m.qp.has_value(); });
        REQUIRE(it != records.end());
        ModuleRecord& r = *it;
        r.qp->state.reset();
        r.owner = {};
        r.owner.kernel = "nvme_rdma";
        QpRecord q;
        q.device_index = r.device_index;
        q.number = r.qp->number;
        q.state = 3;
        q.owner.kernel = "rdma_cm";
        std::vector<ModuleRecord> one{r};
        CHECK(fill_module_qp_states(one, {q}, {}) == 1);
        CHECK(one.front().qp->state == std::optional<std::uint8_t>(3));
        one.front().qp->state.reset();
        q.owner.kernel = "rpcrdma";
        CHECK(fill_module_qp_states(one, {q}, {}) == 0);
        q.owner = {};
        q.owner.pid = 1;
        CHECK(fill_module_qp_states(one, {q}, {}) == 0);
    }
}

TEST_CASE("an extended ack's offset names the attribute it points at", "[genl]") {
    alignas(nlmsghdr) std::uint8_t buf[256] = {};
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = GENL_MIN_ID;
    auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN));
    genl->cmd = RDMASTAT_CMD_CONN_GET;
    mnl_attr_put_u32(nlh, RDMASTAT_A_DEV_INDEX, 7);
    std::size_t second = nlh->nlmsg_len;
    nlattr* nest = mnl_attr_nest_start(nlh, RDMASTAT_A_QP);
    mnl_attr_put_u32(nlh, RDMASTAT_QP_A_NUM, 1);
    std::size_t inner = nlh->nlmsg_len;
    mnl_attr_put_u8(nlh, RDMASTAT_QP_A_STATE, 3);
    mnl_attr_nest_end(nlh, nest);
    Bytes request(buf, buf + nlh->nlmsg_len);
    const std::size_t first = NLMSG_HDRLEN + GENL_HDRLEN;

    CHECK(attribute_at(request, GENL_HDRLEN, first) == std::to_string(RDMASTAT_A_DEV_INDEX));
    CHECK(attribute_at(request, GENL_HDRLEN, second) == std::to_string(RDMASTAT_A_QP));
    CHECK(attribute_at(request, GENL_HDRLEN, inner) ==
          std::to_string(RDMASTAT_A_QP) + "." + std::to_string(RDMASTAT_QP_A_STATE));
    // Inside an attribute's payload, the header, or past the end: nothing starts there.
    CHECK(attribute_at(request, GENL_HDRLEN, first + 2).empty());
    CHECK(attribute_at(request, GENL_HDRLEN, 0).empty());
    CHECK(attribute_at(request, GENL_HDRLEN, nlh->nlmsg_len + 4).empty());
}

namespace {

// One attribute's bytes (header, payload, padding): to build nests from.
std::vector<std::uint8_t> attr_bytes(std::uint16_t type, const std::vector<std::uint8_t>& payload) {
    nlattr hdr{static_cast<std::uint16_t>(NLA_HDRLEN + payload.size()), type};
    auto* raw = reinterpret_cast<const std::uint8_t*>(&hdr);
    std::vector<std::uint8_t> out(raw, raw + sizeof(hdr));
    out.insert(out.end(), payload.begin(), payload.end());
    out.resize(NLA_ALIGN(hdr.nla_len), 0);
    return out;
}

std::vector<std::uint8_t> u32_bytes(std::uint32_t v) {
    std::vector<std::uint8_t> out(4);
    std::memcpy(out.data(), &v, 4);
    return out;
}

std::vector<std::uint8_t> concat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST_CASE("module QP dump: paths of the lab's verbs connections", "[module]") {
    FOR_EACH_FIXTURE_KERNEL();
    if (!std::filesystem::exists(fixture_path("verbs/module-qp.bin"))) {
        WARN("no module QP dump capture for kernel " << fixture_kernel_);
        return;
    }
    Bytes bytes = fixture_bytes("verbs/module-qp.bin");
    auto records = parse_module_qp_dump(bytes).take();
    // One record per message, none of a type without a peer (the UD QPs of
    // the capture are not in it); the same QPs NLDEV lists as RC or UC.
    CHECK(records.size() == data_messages(bytes));
    auto nldev = parse_qp_dump(fixture_bytes("verbs/qp-rxe0.bin")).take();
    std::set<std::uint32_t> connected;
    for (const QpRecord& q : nldev)
        if (q.type && connected_type(static_cast<QpType>(*q.type))) connected.insert(q.number);
    std::set<std::uint32_t> dumped;
    for (const ModuleQpRecord& r : records) {
        dumped.insert(r.number);
        CHECK(r.netns);
        CHECK(r.owner.pid);
    }
    CHECK(dumped == connected);

    // A QP dump is not a conn dump (nor the reverse), and cut short it is refused.
    CHECK(parse_module_dump(bytes).error() ==
          "conn dump message 1: unexpected command " + std::to_string(RDMASTAT_CMD_QP_GET));
    require_cut_dumps_refused(bytes, [](const Bytes& b) { return parse_module_qp_dump(b); });

    // Malformed paths are errors naming the attribute (the QP nest sent
    // again, last, replaces the first).
    const auto num = attr_bytes(RDMASTAT_QP_A_NUM, u32_bytes(17));
    struct Case {
        std::vector<std::uint8_t> qp;
        const char* message;
    };
    for (const auto& c : std::vector<Case>{
             {{}, "qp: qp number: missing"},
             {concat(num, attr_bytes(RDMASTAT_QP_A_PATH_MTU, {9})), "9 is no enum ib_mtu"},
             {concat(num, attr_bytes(RDMASTAT_QP_A_AV | NLA_F_NESTED,
                                     attr_bytes(RDMASTAT_AV_A_DGID, {1, 2, 3, 4}))),
              "address vector: dgid: not 16 bytes"},
         }) {
        INFO(c.message);
        auto parsed =
            parse_module_qp_dump(with_attr_in_first(bytes, RDMASTAT_A_QP | NLA_F_NESTED, c.qp));
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(),
                   Catch::StartsWith("qp dump message 1: ") && Catch::Contains(c.message));
    }
    // A well-formed one: MTU 3 is 1024 bytes.
    auto mtu = parse_module_qp_dump(with_attr_in_first(
        bytes, RDMASTAT_A_QP | NLA_F_NESTED, concat(num, attr_bytes(RDMASTAT_QP_A_PATH_MTU, {3}))));
    REQUIRE(mtu.ok());
    CHECK(std::any_of(mtu.value().begin(), mtu.value().end(), [](const ModuleQpRecord& r) {
        return r.number == 17 && r.path && r.path->mtu == 1024u && !r.path->dgid;
    }));
}
