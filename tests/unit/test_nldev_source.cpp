// SPDX-License-Identifier: MIT
// NldevSource over a replayed kernel: the dumps captured from the lab kernel,
// answered as the socket answers them, and failures placed where a device that
// vanishes mid-collection, or a device without counters, puts them. These are
// the fallbacks that otherwise run only in QEMU, or never.
#include "catch_compat.hpp"
#include "collect/counters.h"
#include "collect/netlink.h"
#include "collect/nldev.h"
#include "collect/nldev_parse.h"
#include "collect/stats_parse.h"
#include "model/names.h"
#include "support.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <map>
#include <rdma/rdma_netlink.h>
#include <unistd.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

// What the socket gives for a captured reply: its bytes, or the Failure of the
// kernel error it holds.
Result<Bytes> as_socket_gives(Bytes bytes) {
    auto walked =
        walk_messages(bytes.data(), bytes.size(), [](const nlmsghdr*) -> Status { return Ok{}; });
    if (!walked) return walked.failure();
    return bytes;
}

// The captured device dump without the device named gone: its messages split
// at their headers, that device's message left out.
Bytes devices_without(const std::string& gone) {
    const Bytes all = fixture_bytes("devices.bin");
    std::vector<Bytes> messages;
    for (std::size_t at = 0; at < all.size();) {
        const auto* h = reinterpret_cast<const nlmsghdr*>(all.data() + at);
        const std::size_t len = NLMSG_ALIGN(h->nlmsg_len);
        REQUIRE((len >= NLMSG_HDRLEN && at + len <= all.size()));
        messages.emplace_back(all.begin() + static_cast<long>(at),
                              all.begin() + static_cast<long>(at + len));
        at += len;
    }
    const Bytes& done = messages.back();
    REQUIRE(reinterpret_cast<const nlmsghdr*>(done.data())->nlmsg_type == NLMSG_DONE);
    Bytes out;
    for (const Bytes& msg : messages) {
        Bytes alone = msg;
        alone.insert(alone.end(), done.begin(), done.end());
        if (&msg != &done && parse_device_dump(alone).take().at(0).name == gone) continue;
        out.insert(out.end(), msg.begin(), msg.end());
    }
    return out;
}

// The lab kernel as the capture tool saved it; fail(request) may answer first.
struct Kernel {
    std::map<std::uint32_t, std::string> names;
    std::function<std::optional<Result<Bytes>>(const NldevRequest&)> fail;
    int device_dumps = 0;

    Kernel() {
        for (const Device& d : parse_device_dump(fixture_bytes("devices.bin")).take())
            names[d.index] = d.name;
    }

    Result<Bytes> answer(const NldevRequest& r) {
        if (r.command == RDMA_NLDEV_CMD_GET) ++device_dumps;
        if (fail)
            if (auto failed = fail(r)) return *failed;
        // The capture tool names each resource kind's file after the kind.
        static const std::map<unsigned, std::string> kinds = [] {
            std::map<unsigned, std::string> m = {{RDMA_NLDEV_CMD_PORT_GET, "ports"},
                                                 {RDMA_NLDEV_CMD_RES_CM_ID_GET, "cm_id"},
                                                 {RDMA_NLDEV_CMD_GET_CHARDEV, "chardev"}};
            for (const NldevResourceKind& k : nldev_resource_kinds())
                m[k.command] = name_of(k.kind);
            return m;
        }();
        if (r.command == RDMA_NLDEV_CMD_GET) return as_socket_gives(fixture_bytes("devices.bin"));
        const std::string& dev = names.at(r.device_index.value());
        if (r.command == RDMA_NLDEV_CMD_STAT_GET)
            return as_socket_gives(
                fixture_bytes(r.port ? "stat-" + dev + "-" + std::to_string(*r.port) + ".bin"
                                     : "qpcounters-" + dev + ".bin"));
        return as_socket_gives(fixture_bytes(kinds.at(r.command) + "-" + dev + ".bin"));
    }
    NldevSource source() {
        return NldevSource::replaying([this](const NldevRequest& r) { return answer(r); });
    }
};

Failure gone_error() {
    return Failure{std::strerror(ENODEV), ENODEV};
}

} // namespace

TEST_CASE("a replayed NLDEV collection is what the captured dumps hold", "[nldev][source]") {
    Kernel kernel;
    REQUIRE(kernel.names.size() == 2);
    auto source = kernel.source();
    NldevData data = source.collect().take();
    REQUIRE(data.devices.size() == 2);
    std::size_t ids = 0, qps = 0;
    for (const Device& d : data.devices) {
        ids += parse_cm_id_dump(fixture_bytes("cm_id-" + d.name + ".bin")).take().size();
        qps += parse_qp_dump(fixture_bytes("qp-" + d.name + ".bin")).take().size();
        CHECK(d.driver == parse_chardev_driver(fixture_bytes("chardev-" + d.name + ".bin")).take());
        CHECK_FALSE(d.ports.empty());
    }
    CHECK(data.cm_ids.size() == ids);
    CHECK(data.qps.size() == qps);
    CHECK(kernel.device_dumps == 1); // nothing failed: no second look
}

TEST_CASE("a device unregistered mid-collection is left out, not an error", "[nldev][source]") {
    Kernel kernel;
    bool gone = false;
    kernel.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_GET && gone) return devices_without("rxe0");
        if (r.device_index && kernel.names.at(*r.device_index) == "rxe0" &&
            r.command == RDMA_NLDEV_CMD_RES_CM_ID_GET) {
            gone = true; // from now on the kernel no longer lists it
            return gone_error();
        }
        return std::nullopt;
    };
    auto source = kernel.source();
    NldevData data = source.collect().take();
    REQUIRE(data.devices.size() == 1);
    CHECK(data.devices[0].name == "siw0");
    for (const CmIdRecord& id : data.cm_ids)
        CHECK(id.device_name == "siw0");
    CHECK(data.cm_ids.size() == parse_cm_id_dump(fixture_bytes("cm_id-siw0.bin")).take().size());
    CHECK(kernel.device_dumps == 2); // it looked again before leaving rxe0 out

    // The same for the other resources: rxe0's CQ dump fails once it is gone.
    Kernel later;
    bool unregistered = false;
    later.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_GET && unregistered) return devices_without("rxe0");
        if (r.command == RDMA_NLDEV_CMD_RES_CQ_GET && later.names.at(*r.device_index) == "rxe0") {
            unregistered = true;
            return gone_error();
        }
        return std::nullopt;
    };
    auto devices = parse_device_dump(fixture_bytes("devices.bin")).take();
    auto source2 = later.source();
    auto resources = source2.collect_resources(devices).take();
    REQUIRE_FALSE(resources.records.empty());
    CHECK(resources.unreported.empty());
    for (const ResourceRecord& r : resources.records)
        CHECK(r.device_name == "siw0");
}

TEST_CASE("a kind the kernel refuses to dump is left out and named, the rest kept",
          "[nldev][source]") {
    // What a kernel before 5.19 answers to an SRQ dump: EINVAL, as to any command
    // it does not know, while the device is still there.
    Kernel kernel;
    kernel.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == nldev_resource_kind(ResourceKind::srq).command)
            return Failure{std::strerror(EINVAL), EINVAL};
        return std::nullopt;
    };
    auto devices = parse_device_dump(fixture_bytes("devices.bin")).take();
    auto source = kernel.source();
    auto dump = source.collect_resources(devices).take();
    CHECK(dump.unreported == std::vector<ResourceKind>{ResourceKind::srq}); // once, not per device
    CHECK(kernel.device_dumps == 1); // asked whether the first device still exists, once
    std::size_t expected = 0;
    for (const NldevResourceKind& k : nldev_resource_kinds())
        for (const Device& d : devices)
            if (k.kind != ResourceKind::srq)
                expected += parse_resource_dump(
                                k.kind, fixture_bytes(name_of(k.kind) + "-" + d.name + ".bin"))
                                .take()
                                .size();
    CHECK(dump.records.size() == expected);
    for (const ResourceRecord& r : dump.records)
        CHECK(r.kind != ResourceKind::srq);

    // A device gone meanwhile gets EINVAL too: then it is the device that is
    // left out, and the kind is not named.
    Kernel vanishing;
    bool gone = false;
    vanishing.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_GET && gone) return devices_without("rxe0");
        if (r.command == nldev_resource_kind(ResourceKind::srq).command &&
            vanishing.names.at(*r.device_index) == "rxe0") {
            gone = true;
            return Failure{std::strerror(EINVAL), EINVAL};
        }
        return std::nullopt;
    };
    auto left = vanishing.source().collect_resources(devices).take();
    CHECK(left.unreported.empty());
    CHECK(vanishing.device_dumps == 1);
    REQUIRE_FALSE(left.records.empty());
    for (const ResourceRecord& r : left.records)
        CHECK(r.device_name == "siw0");

    // A kind every kernel dumps is an error when refused.
    Kernel strict;
    strict.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_RES_CQ_GET) return Failure{std::strerror(EINVAL), EINVAL};
        return std::nullopt;
    };
    auto refused = strict.source().collect_resources(devices);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error(), Catch::StartsWith("NLDEV cq dump of "));

    // Without the refusal, the same devices' SRQs are there.
    Kernel full;
    auto all = full.source().collect_resources(devices).take();
    CHECK(all.unreported.empty());
    CHECK(std::count_if(all.records.begin(), all.records.end(),
                        [](const ResourceRecord& r) { return r.kind == ResourceKind::srq; }) == 2);
}

TEST_CASE("a dump failing for a device that still exists is an error naming both",
          "[nldev][source]") {
    Kernel kernel;
    kernel.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_RES_QP_GET && kernel.names.at(*r.device_index) == "rxe0")
            return Failure{std::strerror(EPERM), EPERM};
        return std::nullopt;
    };
    auto source = kernel.source();
    auto data = source.collect();
    REQUIRE_FALSE(data.ok());
    CHECK(data.error_code() == EPERM);
    CHECK_THAT(data.error(), Catch::StartsWith("NLDEV qp dump of rxe0: "));
    auto devices = parse_device_dump(fixture_bytes("devices.bin")).take();
    auto resources = source.collect_resources(devices);
    REQUIRE_FALSE(resources.ok());
    CHECK_THAT(resources.error(), Catch::StartsWith("NLDEV qp dump of rxe0: "));
}

TEST_CASE("counters: NLDEV statistics, else sysfs hw_counters, else none", "[nldev][source]") {
    Kernel kernel;
    auto source = kernel.source();
    Snapshot snap;
    snap.devices = source.collect(false, false).take().devices;
    // A sysfs tree for siw0, whose NLDEV statistics the kernel refuses (captured).
    REQUIRE_FALSE(as_socket_gives(fixture_bytes("stat-siw0-1.bin")).ok());
    namespace fs = std::filesystem;
    const fs::path root =
        fs::temp_directory_path() / ("rdmastat-sysfs-" + std::to_string(getpid()));
    fs::create_directories(root / "siw0/ports/1/hw_counters");
    std::ofstream(root / "siw0/ports/1/hw_counters/retransmits") << "12\n";
    std::ofstream(root / "siw0/ports/1/hw_counters/duplicate_request") << "3\n";
    std::ofstream(root / "siw0/ports/1/hw_counters/lifespan_text") << "n/a\n"; // not a number

    REQUIRE(collect_counters(source, snap, root.string()).ok());
    CHECK(snap.counters_collected);
    std::size_t ports = 0;
    for (const Device& d : snap.devices)
        ports += d.ports.size();
    REQUIRE(snap.port_counters.size() == ports);
    for (const PortCounters& p : snap.port_counters) {
        INFO(p.device);
        if (p.device == "rxe0") {
            CHECK(p.source == CounterSource::nldev);
            CHECK(p.counters == parse_port_stat(fixture_bytes("stat-rxe0-1.bin")).take());
        } else {
            CHECK(p.source == CounterSource::sysfs);
            CHECK(p.counters ==
                  std::vector<Counter>{{"duplicate_request", 3}, {"retransmits", 12}});
        }
    }
    CHECK(snap.qp_counters == parse_qp_counter_dump(fixture_bytes("qpcounters-rxe0.bin")).take());

    // Without the sysfs files, siw0's port has no counters: absent, not zero.
    Snapshot bare;
    bare.devices = snap.devices;
    REQUIRE(collect_counters(source, bare, (root / "absent").string()).ok());
    for (const PortCounters& p : bare.port_counters)
        if (p.device == "siw0") {
            CHECK_FALSE(p.source);
            CHECK(p.counters.empty());
        }
    fs::remove_all(root);
}

TEST_CASE("counters: a statistics reply that does not parse is an error", "[nldev][source]") {
    Kernel kernel;
    kernel.fail = [&](const NldevRequest& r) -> std::optional<Result<Bytes>> {
        if (r.command == RDMA_NLDEV_CMD_STAT_GET && r.port)
            return fixture_bytes("cm_id-rxe0.bin"); // another command's reply
        return std::nullopt;
    };
    auto source = kernel.source();
    Snapshot snap;
    snap.devices = source.collect(false, false).take().devices;
    auto st = collect_counters(source, snap, "/nonexistent");
    REQUIRE_FALSE(st.ok());
    CHECK_FALSE(snap.counters_collected); // left as it was: nothing half read
    CHECK(snap.port_counters.empty());
    CHECK_THAT(st.error(), Catch::StartsWith("NLDEV statistics of "));
    CHECK_THAT(st.error(), Catch::Contains(" port 1: "));
}

TEST_CASE("each request goes out as the kernel expects it", "[nldev][source]") {
    struct Sent {
        std::uint16_t flags = 0;
        std::map<unsigned, std::string> attrs; ///< type → payload bytes
    };
    auto sent = [](const NldevRequest& r) {
        std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
        nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
        nlh->nlmsg_flags = NLM_F_REQUEST;
        fill_nldev_request(nlh, r);
        CHECK(nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, r.command));
        Sent out{nlh->nlmsg_flags, {}};
        AttrTable table = parse_attrs(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh),
                                      RDMA_NLDEV_ATTR_MAX - 1)
                              .take();
        for (unsigned type = 0; type < table.size(); ++type)
            if (const nlattr* a = table[type])
                out.attrs[type] = std::string(static_cast<const char*>(mnl_attr_get_payload(a)),
                                              mnl_attr_get_payload_len(a));
        return out;
    };
    auto u32 = [](std::uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };

    Sent dump = sent({RDMA_NLDEV_CMD_RES_CM_ID_GET, 3, std::nullopt});
    CHECK(dump.flags == (NLM_F_REQUEST | NLM_F_DUMP));
    CHECK(dump.attrs == std::map<unsigned, std::string>{{RDMA_NLDEV_ATTR_DEV_INDEX, u32(3)}});
    CHECK(sent({RDMA_NLDEV_CMD_GET, std::nullopt, std::nullopt}).attrs.empty());

    Sent chardev = sent({RDMA_NLDEV_CMD_GET_CHARDEV, 3, std::nullopt});
    CHECK(chardev.flags == (NLM_F_REQUEST | NLM_F_ACK));
    CHECK(chardev.attrs == std::map<unsigned, std::string>{
                               {RDMA_NLDEV_ATTR_DEV_INDEX, u32(3)},
                               {RDMA_NLDEV_ATTR_CHARDEV_TYPE, std::string("uverbs", 7)}});

    Sent stat = sent({RDMA_NLDEV_CMD_STAT_GET, 3, 1});
    CHECK(stat.flags == (NLM_F_REQUEST | NLM_F_ACK));
    CHECK(stat.attrs == std::map<unsigned, std::string>{{RDMA_NLDEV_ATTR_DEV_INDEX, u32(3)},
                                                        {RDMA_NLDEV_ATTR_PORT_INDEX, u32(1)}});

    Sent bound = sent({RDMA_NLDEV_CMD_STAT_GET, 3, std::nullopt});
    CHECK(bound.flags == (NLM_F_REQUEST | NLM_F_DUMP));
    CHECK(bound.attrs ==
          std::map<unsigned, std::string>{{RDMA_NLDEV_ATTR_DEV_INDEX, u32(3)},
                                          {RDMA_NLDEV_ATTR_STAT_RES, u32(RDMA_NLDEV_ATTR_RES_QP)}});
}
