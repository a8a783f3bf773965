// SPDX-License-Identifier: MIT
// NLDEV CQ, MR, PD, context and SRQ dumps captured from the lab kernel
// (tests/lab/scenarios/capture.sh), judged against `rdma -j res show cq|mr|pd|ctx|srq`
// captured at the same moment; their conversion into model Resources.
#include "catch_compat.hpp"
#include "collect/nldev_parse.h"
#include "collect/resources.h"
#include "host_referee.h"
#include "model/names.h"
#include "support.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <set>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

std::vector<ResourceRecord> both_devices(const std::string& dir, ResourceKind kind) {
    auto siw = parse_resource_dump(kind, capture_bytes(dir, name_of(kind) + "-siw0.bin")).take();
    auto rxe = parse_resource_dump(kind, capture_bytes(dir, name_of(kind) + "-rxe0.bin")).take();
    siw.insert(siw.end(), rxe.begin(), rxe.end());
    return siw;
}

std::optional<std::string> detail(const ResourceRecord& r, const std::string& key) {
    for (const auto& [k, v] : r.details)
        if (k == key) return v;
    return std::nullopt;
}

std::vector<std::string> detail_keys(const ResourceRecord& r) {
    std::vector<std::string> keys;
    for (const auto& kv : r.details)
        keys.push_back(kv.first);
    return keys;
}

// Every entry of the referee's listing has a record of ours with the same device,
// number and owner, and as many records as entries; check judges the details.
template <typename Check>
void judge(const std::string& dir, ResourceKind kind, const char* number_key, Check check) {
    auto ours = both_devices(dir, kind);
    json ref = json::parse(capture_text(dir, "rdma-" + name_of(kind) + ".json"));
    REQUIRE(ref.size() > 0);
    REQUIRE(ours.size() == ref.size());
    for (const auto& e : ref) {
        INFO(name_of(kind) << " " << e.dump());
        auto it = std::find_if(ours.begin(), ours.end(), [&](const ResourceRecord& r) {
            return r.device_name == e.at("ifname").get<std::string>() &&
                   r.number == e.at(number_key);
        });
        REQUIRE(it != ours.end());
        CHECK(it->kind == kind);
        CHECK(it->device_index == e.at("ifindex"));
        if (e.contains("pid")) {
            CHECK(it->owner.pid == e.at("pid").get<std::uint32_t>());
            CHECK_FALSE(it->owner.kernel);
        } else {
            CHECK_FALSE(it->owner.pid);
            CHECK(it->owner.kernel == e.at("comm").get<std::string>());
        }
        check(*it, e);
    }
}

// rdma prints keys as bare hex ("5af7cb00"); rdmastat as "0x5af7cb00".
std::uint64_t hex_value(const std::string& text) {
    return std::stoull(text, nullptr, 16);
}

// The first message's resource list and first entry (the list nest follows the
// device attributes; the entry is the list's first attribute).
std::pair<std::size_t, std::size_t> first_list_and_entry(const Bytes& b, int list_type) {
    auto* nlh = reinterpret_cast<const nlmsghdr*>(b.data());
    for (std::size_t off = NLMSG_HDRLEN; off < nlh->nlmsg_len;) {
        auto* a = reinterpret_cast<const nlattr*>(b.data() + off);
        if ((a->nla_type & NLA_TYPE_MASK) == list_type) return {off, off + NLA_HDRLEN};
        off += NLA_ALIGN(a->nla_len);
    }
    FAIL("no resource list in the first message");
    return {0, 0};
}

void judge_cq(const std::string& dir) {
    judge(dir, ResourceKind::cq, "cqn", [](const ResourceRecord& r, const json& e) {
        CHECK(detail_keys(r) == std::vector<std::string>{"cqe"});
        CHECK(detail(r, "cqe") == std::to_string(e.at("cqe").get<std::uint32_t>()));
    });
}

void judge_mr(const std::string& dir) {
    judge(dir, ResourceKind::mr, "mrn", [](const ResourceRecord& r, const json& e) {
        CHECK(detail_keys(r) == std::vector<std::string>{"length", "lkey", "rkey"});
        CHECK(detail(r, "length") == std::to_string(e.at("mrlen").get<std::uint64_t>()));
        CHECK(hex_value(detail(r, "lkey").value()) == hex_value(e.at("lkey")));
        CHECK(hex_value(detail(r, "rkey").value()) == hex_value(e.at("rkey")));
        CHECK_THAT(detail(r, "lkey").value(), Catch::StartsWith("0x"));
    });
}

void judge_pd(const std::string& dir) {
    std::size_t kernel_owned = 0;
    judge(dir, ResourceKind::pd, "pdn", [&](const ResourceRecord& r, const json& e) {
        CHECK(detail_keys(r) == std::vector<std::string>{"users"});
        CHECK(detail(r, "users") == std::to_string(e.at("users").get<std::uint64_t>()));
        if (r.owner.kernel) ++kernel_owned;
    });
    CHECK(kernel_owned == 1); // rxe's PD of ib_core's MAD agent
}

void judge_ctx(const std::string& dir) {
    judge(dir, ResourceKind::ctx, "ctxn",
          [](const ResourceRecord& r, const json&) { CHECK(r.details.empty()); });
}

void judge_srq(const std::string& dir) {
    const auto servers = srq_servers(dir);
    REQUIRE(servers.size() == 2);
    std::set<std::string> seen;
    judge(dir, ResourceKind::srq, "srqn", [&](const ResourceRecord& r, const json& e) {
        // rdma's comm is not compared: Debian 12's prints the QP list there.
        CHECK(detail_keys(r) == std::vector<std::string>{"type", "lqpn", "pdn"});
        CHECK(detail(r, "type") == e.at("type").get<std::string>());
        CHECK(detail(r, "lqpn") == rdma_lqpn_text(e));
        CHECK(detail(r, "pdn") == std::to_string(e.at("pdn").get<std::uint32_t>()));
        // What the scenario made: on each device one BASIC SRQ (no CQ of its
        // own), the server's, shared by the 3 QPs it asked for (-q 3).
        CHECK(r.owner.pid == servers.at(r.device_name));
        CHECK(detail(r, "type") == "BASIC");
        CHECK(qp_numbers(detail(r, "lqpn").value()).size() == 3);
        CHECK(seen.insert(r.device_name).second);
    });
    CHECK(seen.size() == servers.size());
}

} // namespace

TEST_CASE("SRQ dumps match rdma res show srq: the servers' SRQs with their 3 QPs", "[resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_srq("");
}

// An SRQ dump as nldev.c builds it, for what the lab cannot make: several QP
// entries, an XRC SRQ with its CQ, a type rdmastat does not know, a bad entry.
Bytes srq_dump(std::uint8_t type, bool with_cq, bool bad_entry) {
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_SRQ_GET);
    nlh->nlmsg_flags = NLM_F_MULTI;
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
    mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
    nlattr* list = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SRQ);
    nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SRQN, 4);
    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, type);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 2);
    if (with_cq) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CQN, 9);
    nlattr* qps = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
    nlattr* one = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 5);
    mnl_attr_nest_end(nlh, one);
    nlattr* run = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
    mnl_attr_put_u32(nlh, bad_entry ? RDMA_NLDEV_ATTR_MAX_RANGE : RDMA_NLDEV_ATTR_MIN_RANGE, 7);
    if (!bad_entry) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX_RANGE, 9);
    mnl_attr_nest_end(nlh, run);
    mnl_attr_nest_end(nlh, qps);
    mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 1234);
    mnl_attr_nest_end(nlh, entry);
    mnl_attr_nest_end(nlh, list);
    nlmsghdr* done = mnl_nlmsg_put_header(buf.data() + nlh->nlmsg_len);
    done->nlmsg_type = NLMSG_DONE;
    done->nlmsg_flags = NLM_F_MULTI;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(buf.data());
    return Bytes(bytes, bytes + nlh->nlmsg_len + done->nlmsg_len);
}

TEST_CASE("SRQ entries the lab cannot make: QP lists, XRC, unknown types, bad entries",
          "[resources]") {
    auto basic = parse_resource_dump(ResourceKind::srq, srq_dump(0, false, false)).take();
    REQUIRE(basic.size() == 1);
    CHECK(basic[0].device_name == "mlx5_0");
    CHECK(basic[0].number == 4);
    CHECK(basic[0].owner.pid == 1234u);
    CHECK(basic[0].details == ResourceDetails{{"type", "BASIC"}, {"lqpn", "5,7-9"}, {"pdn", "2"}});
    CHECK(qp_numbers(detail(basic[0], "lqpn").value()) == std::set<std::uint32_t>{5, 7, 8, 9});

    auto xrc = parse_resource_dump(ResourceKind::srq, srq_dump(1, true, false)).take();
    CHECK(xrc.at(0).details ==
          ResourceDetails{{"type", "XRC"}, {"lqpn", "5,7-9"}, {"pdn", "2"}, {"cqn", "9"}});
    auto unknown = parse_resource_dump(ResourceKind::srq, srq_dump(7, false, false)).take();
    CHECK(detail(unknown.at(0), "type") == "7");

    auto bad = parse_resource_dump(ResourceKind::srq, srq_dump(0, false, true));
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error(), Catch::Contains("srq dump message 1") && Catch::Contains("entry 1") &&
                                Catch::Contains("srq qp number or range: missing"));
}

TEST_CASE("CQ dumps match rdma res show cq", "[resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_cq("");
}

TEST_CASE("MR dumps match rdma res show mr, keys included for root", "[resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_mr("");
}

TEST_CASE("PD dumps match rdma res show pd, with a kernel-owned PD", "[resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_pd("");
}

TEST_CASE("context dumps match rdma res show ctx", "[resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    judge_ctx("");
}

TEST_CASE("lab: fresh CQ, MR, PD, context and SRQ dumps agree with rdma", "[lab]") {
    std::string dir = lab_capture_dir();
    judge_cq(dir);
    judge_mr(dir);
    judge_pd(dir);
    judge_ctx(dir);
    judge_srq(dir);
}

TEST_CASE("QP records become resources of kind qp", "[resources]") {
    json ref = json::parse(fixture_text("rdma-qp.json"));
    for (const char* dev : {"siw0", "rxe0"}) {
        for (const QpRecord& q :
             parse_qp_dump(fixture_bytes(std::string("qp-") + dev + ".bin")).take()) {
            ResourceRecord r = resource_from_qp(q);
            INFO(dev << " qp " << q.number);
            CHECK(r.kind == ResourceKind::qp);
            CHECK(r.device_name == dev);
            CHECK(r.number == q.number);
            CHECK(r.owner.pid == q.owner.pid);
            CHECK(r.owner.kernel == q.owner.kernel);
            auto e = std::find_if(ref.begin(), ref.end(), [&](const json& j) {
                return j.at("ifname") == dev && j.at("lqpn") == q.number;
            });
            REQUIRE(e != ref.end());
            // rdma names the peer's QP only once it is set (rqpn 0 is none).
            const bool rqpn = e->contains("rqpn") && e->at("rqpn").get<std::uint32_t>() != 0;
            CHECK(detail_keys(r) == (rqpn ? std::vector<std::string>{"type", "state", "rqpn"}
                                          : std::vector<std::string>{"type", "state"}));
            CHECK(detail(r, "type") == e->at("type").get<std::string>());
            CHECK(detail(r, "state") == e->at("state").get<std::string>());
            if (rqpn)
                CHECK(detail(r, "rqpn") == std::to_string(e->at("rqpn").get<std::uint32_t>()));
        }
    }
}

TEST_CASE("resources get their owners as cm_ids do", "[resources]") {
    std::vector<ResourceRecord> records(4);
    records[0].kind = ResourceKind::pd;
    records[0].device_name = "rxe0";
    records[0].number = 1;
    records[0].owner.pid = 224;
    records[0].details = {{"users", "4"}};
    records[1].kind = ResourceKind::pd;
    records[1].owner.pid = 237; // a thread of 224 (rping's cm thread made this PD)
    records[2].kind = ResourceKind::cq;
    records[2].owner.kernel = "ib_core";
    records[3].kind = ResourceKind::mr;
    records[3].owner.pid = 999; // gone before /proc was read
    CHECK(resource_owner_pids(records) == std::set<std::uint32_t>{224, 237, 999});

    OwnerMap owners;
    owners[224] = Owner{224, std::nullopt, "rping", 0, "root", std::nullopt, {}, {}, {}};
    owners[237] = Owner{224, 237, "rping", 0, "root", std::nullopt, {}, {}, {}};
    auto res = to_resources(records, owners);
    REQUIRE(res.size() == 4);
    CHECK(res[0].kind == ResourceKind::pd);
    CHECK(res[0].device == "rxe0");
    CHECK(res[0].number == 1);
    CHECK(res[0].owner == owners[224]);
    CHECK(res[0].details == records[0].details);
    CHECK(res[1].owner.pid == 224u);
    CHECK(res[1].owner.tid == 237u);
    CHECK(res[2].owner ==
          Owner{std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "ib_core", {}, {}, {}});
    CHECK(res[3].owner ==
          Owner{999, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, {}, {}, {}});
}

TEST_CASE("an empty entry (a kernel-owned context) is skipped", "[resources]") {
    Bytes bytes = fixture_bytes("ctx-siw0.bin");
    auto all = parse_resource_dump(ResourceKind::ctx, bytes).take();
    REQUIRE(all.size() >= 2);
    // Shrink the first entry to an empty nest, as nldev.c sends one for a kernel
    // context: its former attributes now sit in the list beside the entries,
    // where attributes of other types are skipped.
    auto [list, entry] = first_list_and_entry(bytes, RDMA_NLDEV_ATTR_RES_CTX);
    (void)list;
    reinterpret_cast<nlattr*>(bytes.data() + entry)->nla_len = NLA_HDRLEN;
    auto parsed = parse_resource_dump(ResourceKind::ctx, bytes).take();
    REQUIRE(parsed.size() == all.size() - 1);
    CHECK(parsed.front().number == all[1].number);
}

TEST_CASE("an entry without its number is an error naming it", "[resources]") {
    Bytes bytes = fixture_bytes("mr-rxe0.bin");
    auto [list, entry] = first_list_and_entry(bytes, RDMA_NLDEV_ATTR_RES_MR);
    (void)list;
    auto* e = reinterpret_cast<const nlattr*>(bytes.data() + entry);
    bool found = false;
    for (std::size_t off = entry + NLA_HDRLEN; off < entry + e->nla_len;) {
        auto* a = reinterpret_cast<nlattr*>(bytes.data() + off);
        if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_RES_MRN) {
            a->nla_type = RDMA_NLDEV_ATTR_MAX + 5; // now an unknown attribute
            found = true;
        }
        off += NLA_ALIGN(a->nla_len);
    }
    REQUIRE(found);
    auto parsed = parse_resource_dump(ResourceKind::mr, bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("mr dump message 1") && Catch::Contains("entry 1") &&
                                   Catch::Contains("mr number: missing"));
}

TEST_CASE("a truncated resource attribute is an error with context", "[resources]") {
    Bytes bytes = fixture_bytes("cq-rxe0.bin");
    auto [list, entry] = first_list_and_entry(bytes, RDMA_NLDEV_ATTR_RES_CQ);
    (void)list;
    auto* first = reinterpret_cast<nlattr*>(bytes.data() + entry + NLA_HDRLEN);
    first->nla_len = static_cast<std::uint16_t>(first->nla_len + 200);
    auto parsed = parse_resource_dump(ResourceKind::cq, bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(),
               Catch::Contains("cq dump message 1") && Catch::Contains("truncated attribute"));
}

TEST_CASE("resource dumps cut short or of another kind are refused", "[resources]") {
    for (const NldevResourceKind& k : nldev_resource_kinds()) {
        INFO(name_of(k.kind));
        auto parse = [&](const Bytes& b) { return parse_resource_dump(k.kind, b); };
        Bytes bytes = fixture_bytes(name_of(k.kind) + "-siw0.bin");
        require_cut_dumps_refused(bytes, parse);
        auto wrong =
            parse(fixture_bytes(k.kind == ResourceKind::cq ? "pd-siw0.bin" : "cq-siw0.bin"));
        REQUIRE_FALSE(wrong.ok());
        CHECK_THAT(wrong.error(), Catch::Contains("unexpected message type"));
    }
}
