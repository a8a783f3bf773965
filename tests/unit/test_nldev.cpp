// SPDX-License-Identifier: MIT
// NLDEV parsing of bytes captured from the lab kernel (tests/lab/scenarios/capture.sh),
// judged against iproute2's `rdma -j` output captured at the same moment.
#include "catch_compat.hpp"
#include "collect/attrs.h"
#include "collect/nldev_parse.h"
#include "model/names.h"
#include "support.h"

#include <arpa/inet.h>
#include <cstring>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

std::vector<CmIdRecord> all_cm_ids() {
    auto siw = parse_cm_id_dump(fixture_bytes("cm_id-siw0.bin")).take();
    auto rxe = parse_cm_id_dump(fixture_bytes("cm_id-rxe0.bin")).take();
    siw.insert(siw.end(), rxe.begin(), rxe.end());
    return siw;
}

// Offsets of the first message's header, its resource list nest and that
// list's last entry nest: the places whose lengths change when bytes are added.
struct Layout {
    std::size_t msg = 0, list = 0, last_entry = 0;
};

Layout layout_of_first(const Bytes& b) {
    Layout l;
    auto* nlh = reinterpret_cast<const nlmsghdr*>(b.data());
    std::size_t off = NLMSG_HDRLEN, end = nlh->nlmsg_len;
    while (off < end) {
        auto* a = reinterpret_cast<const nlattr*>(b.data() + off);
        if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_RES_CM_ID) {
            l.list = off;
            std::size_t e = off + NLA_HDRLEN;
            while (e < off + a->nla_len) {
                l.last_entry = e;
                e += NLA_ALIGN(reinterpret_cast<const nlattr*>(b.data() + e)->nla_len);
            }
        }
        off += NLA_ALIGN(a->nla_len);
    }
    return l;
}

// Inserts attr at the end of the first message's last cm_id entry (which ends
// the message), growing the three enclosing lengths: a well-formed message the
// kernel could have sent with one more attribute.
Bytes with_extra_attr_in_last_entry(Bytes b, std::uint16_t type,
                                    const std::vector<std::uint8_t>& payload) {
    Layout l = layout_of_first(b);
    auto* nlh = reinterpret_cast<nlmsghdr*>(b.data());
    REQUIRE(NLMSG_ALIGN(nlh->nlmsg_len) ==
            l.list + NLA_ALIGN(reinterpret_cast<nlattr*>(b.data() + l.list)->nla_len));
    nlattr hdr{static_cast<std::uint16_t>(NLA_HDRLEN + payload.size()), type};
    // Built by appending: GCC's -Wnull-dereference flags memcpy into a vector it
    // cannot prove non-empty.
    auto* raw = reinterpret_cast<const std::uint8_t*>(&hdr);
    std::vector<std::uint8_t> extra(raw, raw + sizeof(hdr));
    extra.resize(NLA_HDRLEN, 0);
    extra.insert(extra.end(), payload.begin(), payload.end());
    extra.resize(NLA_ALIGN(hdr.nla_len), 0);
    std::size_t at = NLMSG_ALIGN(nlh->nlmsg_len);
    b.insert(b.begin() + static_cast<long>(at), extra.begin(), extra.end());
    nlh = reinterpret_cast<nlmsghdr*>(b.data());
    nlh->nlmsg_len = static_cast<std::uint32_t>(at + extra.size());
    reinterpret_cast<nlattr*>(b.data() + l.list)->nla_len +=
        static_cast<std::uint16_t>(extra.size());
    reinterpret_cast<nlattr*>(b.data() + l.last_entry)->nla_len +=
        static_cast<std::uint16_t>(extra.size());
    return b;
}

} // namespace

TEST_CASE("device dumps of each captured kernel match rdma dev", "[nldev]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto devices = parse_device_dump(fixture_bytes("devices.bin")).take();
    json ref = json::parse(fixture_text("rdma-dev.json"));
    REQUIRE(devices.size() == ref.size());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        CHECK(devices[i].name == ref[i].at("ifname").get<std::string>());
        CHECK(devices[i].index == ref[i].at("ifindex"));
        CHECK(name_of(devices[i].node_type.value()) == ref[i].at("node_type").get<std::string>());
        char guid[24];
        std::uint64_t g = devices[i].node_guid.value().value;
        std::snprintf(guid, sizeof guid, "%04x:%04x:%04x:%04x", unsigned(g >> 48 & 0xffff),
                      unsigned(g >> 32 & 0xffff), unsigned(g >> 16 & 0xffff), unsigned(g & 0xffff));
        CHECK(guid == ref[i].at("node_guid").get<std::string>());
    }
    CHECK(devices[0].transport == Transport::iwarp);
    CHECK(devices[1].transport == Transport::roce);
}

TEST_CASE("port dumps match rdma link", "[nldev]") {
    FOR_EACH_FIXTURE_KERNEL();
    json ref = json::parse(fixture_text("rdma-link.json"));
    for (const auto& link : ref) {
        auto ports =
            parse_port_dump(fixture_bytes("ports-" + link.at("ifname").get<std::string>() + ".bin"))
                .take();
        REQUIRE(ports.size() == 1);
        CHECK(ports[0].index == link.at("port"));
        CHECK(name_of(ports[0].state.value()) == link.at("state").get<std::string>());
        CHECK(name_of(ports[0].phys_state.value()) == link.at("physical_state").get<std::string>());
        CHECK(ports[0].netdev == link.at("netdev").get<std::string>());
        CHECK(ports[0].netdev_index == link.at("netdev_index").get<std::uint32_t>());
    }
}

TEST_CASE("uverbs chardev replies name the driver", "[nldev]") {
    FOR_EACH_FIXTURE_KERNEL();
    CHECK(parse_chardev_driver(fixture_bytes("chardev-siw0.bin")).take() == "siw");
    CHECK(parse_chardev_driver(fixture_bytes("chardev-rxe0.bin")).take() == "rxe");
}

TEST_CASE("cm_id dumps match rdma res show cm_id, IPv4 and IPv6", "[nldev]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto ours = all_cm_ids();
    auto refs = referee_cm_ids(json::parse(fixture_text("rdma-cm_id.json")));
    REQUIRE(ours.size() == refs.size());
    std::size_t v6 = 0;
    for (const auto& r : refs) {
        INFO(r.ifname << " cm-idn " << r.cm_idn);
        auto it = std::find_if(ours.begin(), ours.end(), [&](const CmIdRecord& c) {
            return c.device_name == r.ifname && c.cm_idn == r.cm_idn;
        });
        REQUIRE(it != ours.end());
        CHECK(name_of(static_cast<CmState>(it->state)) == r.state);
        CHECK(it->port == r.port);
        CHECK(it->owner.pid == r.pid);
        CHECK(it->qp_number == r.lqpn);
        REQUIRE(it->src);
        CHECK(it->src->address.to_string() == r.src_addr);
        CHECK(it->src->port == r.src_port);
        REQUIRE(it->dst);
        CHECK(it->dst->address.to_string() == r.dst_addr);
        CHECK(it->dst->port == r.dst_port);
        if (it->src->address.family == AF_INET6) ++v6;
    }
    CHECK(v6 >= 6); // two rping pairs over IPv6: listener and both ends each
}

TEST_CASE("QP dumps match rdma res show qp, with a kernel-owned QP", "[nldev]") {
    FOR_EACH_FIXTURE_KERNEL();
    auto siw = parse_qp_dump(fixture_bytes("qp-siw0.bin")).take();
    auto rxe = parse_qp_dump(fixture_bytes("qp-rxe0.bin")).take();
    json ref = json::parse(fixture_text("rdma-qp.json"));
    REQUIRE(siw.size() + rxe.size() == ref.size());
    std::size_t kernel_owned = 0;
    for (const auto& q : ref) {
        const auto& list = q.at("ifname") == "siw0" ? siw : rxe;
        auto it = std::find_if(list.begin(), list.end(),
                               [&](const QpRecord& r) { return r.number == q.at("lqpn"); });
        REQUIRE(it != list.end());
        CHECK(name_of(static_cast<QpState>(it->state.value())) == q.at("state").get<std::string>());
        CHECK(name_of(static_cast<QpType>(it->type.value())) == q.at("type").get<std::string>());
        if (q.contains("pid")) {
            CHECK(it->owner.pid == q.at("pid").get<std::uint32_t>());
            CHECK_FALSE(it->owner.kernel);
        } else {
            ++kernel_owned;
            CHECK_FALSE(it->owner.pid);
            CHECK(it->owner.kernel == q.at("comm").get<std::string>());
        }
    }
    CHECK(kernel_owned == 1); // rxe's GSI QP1, held by ib_core
}

TEST_CASE("a cm_id dump spanning several messages is reassembled", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-many-siw0.bin");
    std::size_t data_messages = 0;
    walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        CHECK((nlh->nlmsg_flags & NLM_F_MULTI));
        ++data_messages;
        return Ok{};
    }).take();
    CHECK(data_messages > 1);
    auto ours = parse_cm_id_dump(bytes).take();
    auto refs = referee_cm_ids(json::parse(fixture_text("rdma-cm_id-many.json")));
    REQUIRE(ours.size() == refs.size());
    for (std::size_t i = 0; i < refs.size(); ++i) {
        CHECK(ours[i].cm_idn == refs[i].cm_idn);
        CHECK(ours[i].src->port == refs[i].src_port);
    }
}

TEST_CASE("an id reported twice in a dump is kept once, as last reported", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-siw0.bin");
    // The same dump with the state of the first message's last entry changed: the
    // id as it looked at another moment.
    Bytes changed = bytes;
    Layout l = layout_of_first(changed);
    auto* entry = reinterpret_cast<const nlattr*>(changed.data() + l.last_entry);
    bool found = false;
    for (std::size_t off = l.last_entry + NLA_HDRLEN; off < l.last_entry + entry->nla_len;) {
        auto* a = reinterpret_cast<const nlattr*>(changed.data() + off);
        if ((a->nla_type & NLA_TYPE_MASK) == RDMA_NLDEV_ATTR_RES_STATE) {
            changed[off + NLA_HDRLEN] ^= 0x40; // no rdma_cm_state: names itself by number
            found = true;
        }
        off += NLA_ALIGN(a->nla_len);
    }
    REQUIRE(found);
    // One copy's first data message again, before the whole other copy: what a
    // dump resumed at an earlier position after a concurrent change looks like.
    auto twice = [](const Bytes& earlier, const Bytes& later) {
        auto* nlh = reinterpret_cast<const nlmsghdr*>(earlier.data());
        Bytes out(earlier.begin(), earlier.begin() + NLMSG_ALIGN(nlh->nlmsg_len));
        out.insert(out.end(), later.begin(), later.end());
        return out;
    };
    auto states = [](const std::vector<CmIdRecord>& records) {
        std::vector<std::pair<std::uint32_t, std::uint8_t>> out;
        for (const auto& r : records)
            out.emplace_back(r.cm_idn, r.state);
        return out;
    };
    auto once = states(parse_cm_id_dump(bytes).take());
    auto once_changed = states(parse_cm_id_dump(changed).take());
    REQUIRE(once != once_changed);
    CHECK(states(parse_cm_id_dump(twice(changed, bytes)).take()) == once);
    CHECK(states(parse_cm_id_dump(twice(bytes, changed)).take()) == once_changed);
}

TEST_CASE("unknown attributes are skipped", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-siw0.bin");
    auto expected = parse_cm_id_dump(bytes).take();
    Bytes extended = with_extra_attr_in_last_entry(bytes, RDMA_NLDEV_ATTR_MAX + 7, {1, 2, 3, 4, 5});
    auto parsed = parse_cm_id_dump(extended);
    REQUIRE(parsed.ok());
    REQUIRE(parsed.value().size() == expected.size());
    CHECK(parsed.value().back().cm_idn == expected.back().cm_idn);
    CHECK(parsed.value().back().src == expected.back().src);
}

TEST_CASE("a truncated attribute is an error with context", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-siw0.bin");
    Layout l = layout_of_first(bytes);
    // The last entry's first attribute claims more bytes than the entry holds.
    auto* first = reinterpret_cast<nlattr*>(bytes.data() + l.last_entry + NLA_HDRLEN);
    first->nla_len = static_cast<std::uint16_t>(first->nla_len + 200);
    auto parsed = parse_cm_id_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("cm_id dump message 1") &&
                                   Catch::Contains("entry") &&
                                   Catch::Contains("truncated attribute"));
}

TEST_CASE("a wrong-sized attribute is an error naming it", "[nldev]") {
    // A u8 state where a u32 cm id number belongs: a 1-byte payload in its place.
    Bytes bytes = with_extra_attr_in_last_entry(fixture_bytes("cm_id-siw0.bin"),
                                                RDMA_NLDEV_ATTR_RES_CM_IDN, {7});
    auto parsed = parse_cm_id_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("cm id number: 1 bytes, expected 4"));
}

TEST_CASE("a dump cut short is an error, never a partial answer", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-many-siw0.bin");
    require_cut_dumps_refused(bytes, [](const Bytes& b) { return parse_cm_id_dump(b); });
}

TEST_CASE("the kernel's extended ack reaches the message", "[nldev]") {
    // Captured reply to a GET whose device index had the wrong size.
    Bytes bytes = fixture_bytes("error-extack.bin");
    auto walked =
        walk_messages(bytes.data(), bytes.size(), [](const nlmsghdr*) -> Status { return Ok{}; });
    REQUIRE_FALSE(walked.ok());
    CHECK(walked.error_code() == EINVAL);
    CHECK(walked.error() ==
          std::string(std::strerror(EINVAL)) + ": Attribute failed policy validation");
    CHECK_FALSE(parse_device_dump(bytes).ok());
}

TEST_CASE("a reply of the wrong command is rejected", "[nldev]") {
    auto parsed = parse_qp_dump(fixture_bytes("cm_id-siw0.bin"));
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("unexpected message type"));
}

TEST_CASE("declared lengths past the data are errors, not reads", "[nldev]") {
    // libmnl compares lengths through int: 2 GiB and more would pass its checks.
    for (std::uint32_t bogus : {0xFFFFFFF0u, 0x80000000u, 0x7FFFFFFFu, 0u, 8u}) {
        for (std::uint16_t type :
             {std::uint16_t{NLMSG_ERROR}, std::uint16_t{NLMSG_DONE},
              std::uint16_t{RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_CM_ID_GET)}}) {
            Bytes bytes = fixture_bytes("cm_id-siw0.bin");
            auto* nlh = reinterpret_cast<nlmsghdr*>(bytes.data());
            nlh->nlmsg_len = bogus;
            nlh->nlmsg_type = type;
            INFO("nlmsg_len " << bogus << " type " << type);
            auto parsed = parse_cm_id_dump(bytes);
            REQUIRE_FALSE(parsed.ok());
            CHECK_THAT(parsed.error(), Catch::Contains("malformed netlink message"));
        }
    }
}

TEST_CASE("an attribute shorter than its own header is an error", "[nldev]") {
    Bytes bytes = fixture_bytes("cm_id-siw0.bin");
    Layout l = layout_of_first(bytes);
    reinterpret_cast<nlattr*>(bytes.data() + l.last_entry + NLA_HDRLEN)->nla_len = 2;
    auto parsed = parse_cm_id_dump(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error(), Catch::Contains("truncated attribute"));
}

TEST_CASE("records reported again keep their first place and their last value", "[nldev]") {
    // key, value: keys out of order, one reported three times.
    using R = std::pair<int, char>;
    auto key = [](const R& r) { return r.first; };
    std::vector<R> in = {{3, 'a'}, {1, 'b'}, {3, 'c'}, {2, 'd'}, {1, 'e'}, {3, 'f'}};
    CHECK(unique_by(in, key) == std::vector<R>{{3, 'f'}, {1, 'e'}, {2, 'd'}});
    std::vector<R> rising = {{1, 'a'}, {2, 'b'}, {5, 'c'}};
    CHECK(unique_by(rising, key) == rising);
    // Rising, then one repeat at the end.
    std::vector<R> tail = {{1, 'a'}, {2, 'b'}, {5, 'c'}, {2, 'x'}};
    CHECK(unique_by(tail, key) == std::vector<R>{{1, 'a'}, {2, 'x'}, {5, 'c'}});
    CHECK(unique_by(std::vector<R>{}, key).empty());
    // Rising but for stragglers (rxe's GSI QP, dumped last): kept as they are,
    // unless one repeats a key, rising or straggling.
    std::vector<R> straggler = {{17, 'a'}, {18, 'b'}, {19, 'c'}, {1, 'd'}, {0, 'e'}};
    CHECK(unique_by(straggler, key) == straggler);
    std::vector<R> again = {{17, 'a'}, {18, 'b'}, {1, 'c'}, {19, 'd'}, {1, 'e'}};
    CHECK(unique_by(again, key) == std::vector<R>{{17, 'a'}, {18, 'b'}, {1, 'e'}, {19, 'd'}});
    std::vector<R> middle = {{17, 'a'}, {18, 'b'}, {19, 'c'}, {1, 'd'}, {18, 'x'}};
    CHECK(unique_by(middle, key) == std::vector<R>{{17, 'a'}, {18, 'x'}, {19, 'c'}, {1, 'd'}});
    // More stragglers than the fast path takes: the sort still finds the repeat.
    std::vector<R> many;
    for (int i = 40; i > 0; --i)
        many.push_back({i, 'a'});
    many.push_back({20, 'z'});
    auto deduped = unique_by(many, key);
    REQUIRE(deduped.size() == 40);
    CHECK(deduped[20] == R{20, 'z'});
}
