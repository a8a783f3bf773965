// SPDX-License-Identifier: MIT
// [lab] tests of network namespaces: judge what tests/lab/scenarios/netns.sh
// wrote in the guest. A second namespace ns1 with its own siw1 and rxe1 (shared
// mode), then exclusive mode; each view (host or ns1, NLDEV or the module)
// against `rdma res show` run in the same namespace. Run by tests/lab/check.sh.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <set>
#include <string>
#include <utility>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"netns"};

using Ids = std::set<std::pair<std::string, std::uint32_t>>; // (device, cm id)

json view(const std::string& mode, const std::string& name) {
    INFO(mode << "/" << name << ": " << ev.text(mode + "/" + name + ".err"));
    REQUIRE(ev.rc(mode + "/" + name) == 0);
    return ev.json(mode + "/" + name);
}

// The inode of "net:[INODE]" as readlink /proc/self/ns/net printed it there.
std::uint64_t netns_of(const std::string& mode, const std::string& where) {
    std::string text = ev.text(mode + "/" + where + "-netns");
    auto open = text.find('[');
    REQUIRE(open != std::string::npos);
    return std::stoull(text.substr(open + 1));
}

Ids ids_of(const json& snapshot, std::optional<std::uint64_t> netns = {}) {
    Ids ids;
    for (const auto& c : snapshot.at("connections"))
        if (!netns || c.value("netns", std::uint64_t{0}) == *netns)
            ids.insert({c.at("device").get<std::string>(), c.at("cm_id").get<std::uint32_t>()});
    return ids;
}

Ids rdma_ids(const json& rdma) {
    Ids ids;
    for (const auto& c : rdma)
        ids.insert({c.at("ifname").get<std::string>(), c.at("cm-idn").get<std::uint32_t>()});
    return ids;
}

std::set<std::string> device_names(const json& snapshot) {
    std::set<std::string> names;
    for (const auto& d : snapshot.at("devices"))
        names.insert(d.at("name").get<std::string>());
    return names;
}

std::set<std::string> rdma_devices(const json& rdma) {
    std::set<std::string> names;
    for (const auto& d : rdma)
        names.insert(d.at("ifname").get<std::string>());
    return names;
}

} // namespace

TEST_CASE("lab: shared mode: NLDEV shows every namespace's ids, as rdma does", "[lab][netns]") {
    REQUIRE(ev.text("shared/rping-siw.rc") == "0\n");
    for (std::string where : {"host", "ns1"}) {
        INFO(where);
        json nldev = view("shared", where + "-nldev.json");
        json rdma = view("shared", where + "-rdma-cm_id.json");
        CHECK(ids_of(nldev) == rdma_ids(rdma));
        CHECK(device_names(nldev) == rdma_devices(view("shared", where + "-rdma-dev.json")));
        // ns1's own devices are visible from the host too: the mode is shared.
        CHECK(device_names(nldev).count("siw1") == 1);
    }
}

TEST_CASE("lab: shared mode: the module shows the caller's namespace's ids only", "[lab][netns]") {
    const std::uint64_t host = netns_of("shared", "host");
    const std::uint64_t ns1 = netns_of("shared", "ns1");
    REQUIRE(host != ns1);
    json from_host = view("shared", "host-module.json");
    json from_ns1 = view("shared", "ns1-module.json");
    Ids all = rdma_ids(view("shared", "host-rdma-cm_id.json"));
    Ids h = ids_of(from_host), n = ids_of(from_ns1);
    CHECK_FALSE(h.empty());
    CHECK_FALSE(n.empty());
    // Every id is in exactly one namespace: the two views split rdma's list.
    Ids both = h;
    both.insert(n.begin(), n.end());
    CHECK(both == all);
    CHECK(both.size() == h.size() + n.size());
    CHECK(ids_of(from_host, host) == h);
    CHECK(ids_of(from_ns1, ns1) == n);
    // ns1's rping ran on siw1: its ids are ns1's.
    for (const auto& id : n)
        CHECK(id.first.back() == '1');
    // The unprivileged user in ns1 sees the same ids.
    CHECK(ids_of(view("shared", "lab-ns1-module.json")) == n);
    // NLDEV lists them all, each user id with its process's namespace: the
    // netns key selects exactly what the module shows in that namespace.
    for (std::string where : {"host", "ns1"}) {
        json nldev = view("shared", where + "-nldev.json");
        CHECK(ids_of(nldev, ns1) == n);
        CHECK(ids_of(nldev, host) == h);
    }
}

TEST_CASE("lab: exclusive mode: ns1 sees no devices it was not given", "[lab][netns]") {
    CHECK(ev.text("exclusive/system").find("netns exclusive") != std::string::npos);
    // siw and rxe cannot move between namespaces (no disassociate_ucontext).
    CHECK(ev.rc("exclusive/dev-set-netns") != 0);
    CHECK(ev.text("exclusive/dev-set-netns.err").find("not supported") !=
          std::string::npos);
    for (std::string source : {"nldev", "module"}) {
        INFO(source);
        json in_ns1 = view("exclusive", "ns1-" + source + ".json");
        CHECK(in_ns1.at("devices").empty());
        CHECK(in_ns1.at("connections").empty());
        CHECK(ev.text("exclusive/ns1-" + source + ".json.err")
                  .find("no RDMA devices") != std::string::npos);
        CHECK(rdma_devices(view("exclusive", "ns1-rdma-dev.json")).empty());
        json on_host = view("exclusive", "host-" + source + ".json");
        CHECK(device_names(on_host) == rdma_devices(view("exclusive", "host-rdma-dev.json")));
        CHECK(ids_of(on_host) == rdma_ids(view("exclusive", "host-rdma-cm_id.json")));
        CHECK_FALSE(ids_of(on_host).empty());
    }
    CHECK(ev.text("exclusive/system-after").find("netns shared") !=
          std::string::npos);
    // Nothing of ns1 is left for the scenarios that follow.
    CHECK(rdma_devices(ev.json("exclusive/devices-after.json")) ==
          std::set<std::string>{"siw0", "rxe0"});
}

TEST_CASE("lab: a deleted namespace's ended kping run does not keep it alive", "[lab][netns]") {
    json in_ns1 = view("shared", "kping-ns1-show.json");
    REQUIRE(in_ns1["runs"].size() == 1);
    // It ran, and ended, in ns1 (no soft device carries a kernel connection
    // outside init_net on 6.1): an ended run, still listed until stopped.
    CHECK(in_ns1["runs"][0]["state"] == "failed");
    CHECK(in_ns1["runs"][0].contains("error"));
    // Runs are per namespace: the host does not list ns1's.
    CHECK(view("shared", "kping-host-show.json")["runs"].empty());
    // Deleting ns1 freed it (its siw1 went with its veth), and took the run.
    CHECK(ev.text("shared/ns1-after-delete") == "freed\n");
    CHECK(view("shared", "kping-host-after.json")["runs"].empty());
    CHECK(ev.text("rmmod-kping.rc") == "0\n");
    const std::string dmesg = ev.text("dmesg.txt");
    for (const char* bad : {"WARNING", "BUG", "Oops", "refcount", "still in use"})
        CHECK(dmesg.find(bad) == std::string::npos);
}
