// SPDX-License-Identifier: MIT
// The GID tables from sysfs (collect/gids.h): entries parsed as the kernel
// writes them, and a port's table read from a tree laid out as sysfs lays it,
// filled with what the lab's rxe0 and siw0 showed (tests/fixtures/verbs/sysfs-gids.txt).
#include "catch_compat.hpp"
#include "collect/gids.h"
#include "model/names.h"
#include "render/text.h"
#include "support.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

struct Entry {
    std::string device;
    std::uint32_t port = 0, index = 0;
    std::string gid, type, ndev; // "-" for an attribute the kernel refused
};

std::vector<Entry> lab_entries() {
    std::vector<Entry> out;
    std::istringstream in(fixture_text("verbs/sysfs-gids.txt"));
    for (Entry e; in >> e.device >> e.port >> e.index >> e.gid >> e.type >> e.ndev;)
        out.push_back(e);
    return out;
}

void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text << '\n';
}

} // namespace

TEST_CASE("GID entries: types by transport, addresses of RoCE GIDs", "[gids]") {
    auto parse = [](std::string gid, std::optional<std::string> type, Transport t) {
        return parse_gid_entry(GidFiles{5, std::move(gid), std::move(type), "veth1"}, t);
    };
    auto v2 = parse("0000:0000:0000:0000:0000:ffff:0a09:0002", "RoCE v2", Transport::roce).take();
    REQUIRE(v2);
    CHECK(v2->index == 5);
    CHECK(v2->type == GidType::roce_v2);
    CHECK(v2->gid.to_string() == "::ffff:10.9.0.2");
    CHECK(v2->address->to_string() == "10.9.0.2");
    CHECK(v2->netdev == "veth1");
    auto v1 =
        parse("fe80:0000:0000:0000:b01c:8dff:fe4f:bd69", "IB/RoCE v1", Transport::roce).take();
    CHECK(v1->type == GidType::roce_v1);
    CHECK(v1->address->to_string() == "fe80::b01c:8dff:fe4f:bd69");
    // On InfiniBand the same type text is IB's, and a GID is no IP address.
    auto ib = parse("fe80:0000:0000:0000:0002:c903:0000:1234", "IB/RoCE v1", Transport::infiniband)
                  .take();
    CHECK(ib->type == GidType::ib);
    CHECK_FALSE(ib->address);
    // iWARP: no type, no address.
    auto iw =
        parse("ac10:51ff:fefc:f03f:0000:0000:0000:0000", "IB/RoCE v1", Transport::iwarp).take();
    CHECK_FALSE(iw->type);
    CHECK_FALSE(iw->address);
    CHECK_FALSE(
        parse("0000:0000:0000:0000:0000:0000:0000:0000", std::nullopt, Transport::roce).take());
    CHECK_THAT(parse("10.9.0.2", "RoCE v2", Transport::roce).error(),
               Catch::Equals("gids/5: '10.9.0.2' is not a GID"));
    CHECK_THAT(parse("fe80::1", "RoCE v3", Transport::roce).error(),
               Catch::Equals("gid_attrs/types/5: unknown GID type 'RoCE v3'"));
    CHECK(parse_vlan_id("veth1.100  VID: 100\t REORDER_HDR: 1 dev->priv_flags: 1021\n") == 100);
    CHECK_FALSE(parse_vlan_id("no vlan here"));
}

TEST_CASE("GID tables read from a sysfs tree equal what the lab's sysfs showed", "[gids]") {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("rdmastat-gids-" + std::to_string(getpid()));
    fs::remove_all(root);
    const auto entries = lab_entries();
    REQUIRE(entries.size() >= 3);
    std::vector<Device> devices;
    for (const Entry& e : entries) {
        auto d = std::find_if(devices.begin(), devices.end(),
                              [&](const Device& x) { return x.name == e.device; });
        if (d == devices.end()) {
            Device nd;
            nd.name = e.device;
            nd.transport = e.device.starts_with("siw") ? Transport::iwarp : Transport::roce;
            Port port;
            port.index = e.port;
            nd.ports.push_back(port);
            devices.push_back(nd);
        }
        const fs::path port = root / e.device / "ports" / std::to_string(e.port);
        const std::string i = std::to_string(e.index);
        write(port / "gids" / i, e.gid);
        std::string type = e.type;
        std::replace(type.begin(), type.end(), '_', ' ');
        if (e.type != "-") write(port / "gid_attrs/types" / i, type);
        if (e.ndev != "-") write(port / "gid_attrs/ndevs" / i, e.ndev);
    }
    // Empty entries after the valid ones, as the kernel keeps its table.
    for (const Device& d : devices)
        for (int i = 0; i < 3; ++i)
            write(root / d.name / "ports/1/gids" / std::to_string(900 + i),
                  "0000:0000:0000:0000:0000:0000:0000:0000");
    write(root / "vlan" / "veth1", "veth1  VID: 7\tREORDER_HDR: 1\n");
    REQUIRE(collect_gid_tables(devices, root.string(), (root / "vlan").string()));

    std::size_t read = 0, mapped = 0;
    for (const Device& d : devices)
        for (const Port& p : d.ports) {
            REQUIRE(p.gids);
            for (const Gid& g : *p.gids) {
                ++read;
                auto e = std::find_if(entries.begin(), entries.end(), [&](const Entry& x) {
                    return x.device == d.name && x.port == p.index && x.index == g.index;
                });
                REQUIRE(e != entries.end());
                INFO(d.name << " gid " << g.index);
                CHECK(g.gid == *IpAddress::parse(e->gid));
                CHECK(g.netdev == (e->ndev == "-" ? std::nullopt : std::optional(e->ndev)));
                if (d.transport == Transport::iwarp) {
                    CHECK_FALSE(g.type);
                    CHECK_FALSE(g.address);
                    continue;
                }
                CHECK(g.type == (e->type == "RoCE_v2" ? GidType::roce_v2 : GidType::roce_v1));
                REQUIRE(g.address);
                if (g.address->family == AF_INET) {
                    ++mapped;
                    CHECK(e->gid.starts_with("0000:0000:0000:0000:0000:ffff:"));
                }
                CHECK(g.vlan ==
                      (g.netdev == "veth1" ? std::optional<std::uint16_t>(7) : std::nullopt));
            }
        }
    CHECK(read == entries.size());
    CHECK(mapped > 0); // rxe0's IPv4 address, as its IPv4-mapped GIDs
    fs::remove_all(root);

    // The text lists each entry once, after the ports.
    std::ostringstream out;
    render_devices(out, devices, TextOptions{});
    std::istringstream lines(out.str());
    std::size_t rows = 0;
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
        if (w.size() != 8 || w[0] == "Device") continue;
        ++rows;
        if (w[3] == "::ffff:10.9.0.2")
            CHECK(std::vector<std::string>(w.begin() + 4, w.end()) ==
                  std::vector<std::string>{"roce_v2", "veth1", "7", "10.9.0.2"});
        if (w[0] == "siw0") CHECK((w[4] == "-" && w[7] == "-"));
    }
    CHECK(rows == entries.size());
}
