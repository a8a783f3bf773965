// SPDX-License-Identifier: MIT
// What the pipeline collects for lsof and check (host sockets, processes, resources),
// as rdmastat-capture --snapshot wrote it in the lab (snapshot-host.json as root,
// snapshot-host-user.json as user lab), judged against `ss -Htanpe`, `rdma -j res
// show cq|mr|pd|ctx` and the rping processes' fds captured at the same moment;
// and the JSON of these arrays, written and read back.
#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "host_referee.h"
#include "model/names.h"
#include "render/json.h"
#include "support.h"

#include <functional>
#include <map>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using json = nlohmann::ordered_json;

namespace {

Snapshot load(const std::string& name, const std::string& dir = "") {
    std::istringstream in(capture_text(dir, name));
    return parse_snapshot_json(in, name).take();
}

std::vector<std::string> keys_of(const json& j) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items())
        keys.push_back(k);
    return keys;
}

std::optional<std::string> detail(const Resource& r, const std::string& key) {
    for (const auto& [k, v] : r.details)
        if (k == key) return v;
    return std::nullopt;
}

} // namespace

TEST_CASE("a snapshot with host data round-trips", "[hostdata]") {
    Snapshot a = load("snapshot-host.json");
    CHECK(a.host_sockets_collected);
    CHECK(a.processes_collected);
    CHECK(a.resources_collected);
    REQUIRE(a.host_sockets.size() > 0);
    REQUIRE(a.processes.size() > 0);
    REQUIRE(a.resources.size() > 0);
    Snapshot b = snapshot_from_text(snapshot_to_text(a)).take();
    CHECK(b.host_sockets == a.host_sockets);
    CHECK(b.processes == a.processes);
    CHECK(b.resources == a.resources); // details keep their order
    CHECK(b.connections == a.connections);
    CHECK(snapshot_to_text(b) == snapshot_to_text(a));
}

TEST_CASE("host data is written only when collected", "[hostdata]") {
    Snapshot s = load("snapshot-host.json");
    s.host_sockets_collected = s.processes_collected = s.resources_collected = false;
    json j = json::parse(snapshot_to_text(s));
    CHECK(keys_of(j) == std::vector<std::string>{"version", "source", "devices", "connections"});
    // Collected but empty: an empty array, which says "none" rather than "not looked".
    Snapshot e;
    e.source = SnapshotSource::nldev;
    e.host_sockets_collected = e.processes_collected = e.resources_collected = true;
    j = json::parse(snapshot_to_text(e));
    CHECK(j.at("host_sockets") == json::array());
    CHECK(j.at("processes") == json::array());
    CHECK(j.at("resources") == json::array());
    Snapshot back = snapshot_from_text(j.dump()).take();
    CHECK(back.host_sockets_collected);
    CHECK(back.processes_collected);
    CHECK(back.resources_collected);
}

TEST_CASE("host data JSON keys", "[hostdata]") {
    Snapshot s;
    s.source = SnapshotSource::nldev;
    HostSocket h;
    h.state = TcpState::established;
    h.local = {*IpAddress::parse("10.9.0.1"), 7174};
    h.peer = {*IpAddress::parse("10.9.0.1"), 39170};
    h.inode = 11485;
    h.pid = 7;
    h.fd = 3;
    h.rdma_device = "siw0";
    h.rdma_cm_id = 2;
    s.host_sockets = {h};
    s.processes = {Process{7, "rping", 0, "root", true, {{3, "socket:[11485]", 11485}}}};
    s.resources = {Resource{ResourceKind::mr,
                            "siw0",
                            4,
                            Owner{7, std::nullopt, "rping", 0, "root", std::nullopt, {}, {}, {}},
                            {{"length", "16"}, {"lkey", "0x1"}, {"rkey", "0x1"}}}};
    s.host_sockets_collected = s.processes_collected = s.resources_collected = true;
    json j = json::parse(snapshot_to_text(s));
    CHECK(keys_of(j.at("host_sockets")[0]) ==
          std::vector<std::string>{"state", "local", "peer", "inode", "uid", "pid", "fd",
                                   "rdma_device", "rdma_cm_id"});
    CHECK(j.at("host_sockets")[0].at("local") == json{{"address", "10.9.0.1"}, {"port", 7174}});
    CHECK(keys_of(j.at("processes")[0]) ==
          std::vector<std::string>{"pid", "comm", "uid", "user", "inspected", "files"});
    CHECK(j.at("processes")[0].at("files")[0] ==
          json{{"fd", 3}, {"target", "socket:[11485]"}, {"inode", 11485}});
    CHECK(keys_of(j.at("resources")[0]) ==
          std::vector<std::string>{"kind", "device", "number", "owner", "details"});
    CHECK(keys_of(j.at("resources")[0].at("details")) ==
          std::vector<std::string>{"length", "lkey", "rkey"});
    CHECK(keys_of(j.at("resources")[0].at("owner")) ==
          std::vector<std::string>{"pid", "comm", "uid", "user"});
    CHECK(snapshot_from_text(j.dump()).take().host_sockets == s.host_sockets);
}

TEST_CASE("objects with too many keys are refused as they are read", "[hostdata]") {
    // Objects keep their key order (resource details), which costs a linear search
    // per key: a hostile object of many keys must not cost quadratic time.
    auto with_keys = [](std::size_t n) {
        json details = json::object();
        for (std::size_t i = 0; i < n; ++i)
            details["k" + std::to_string(i)] = "v";
        json d = {
            {"version", 1},
            {"resources",
             json::array(
                 {{{"kind", "cq"}, {"device", "siw0"}, {"number", 0}, {"details", details}}})}};
        return d.dump();
    };
    auto ok = snapshot_from_text(with_keys(max_snapshot_object_keys));
    REQUIRE(ok.ok());
    CHECK(ok.value().resources.at(0).details.size() == max_snapshot_object_keys);
    CHECK(ok.value().resources.at(0).details.back().first ==
          "k" + std::to_string(max_snapshot_object_keys - 1));
    auto refused = snapshot_from_text(with_keys(max_snapshot_object_keys + 1));
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error(),
               Catch::StartsWith("test.json: JSON object with more than 1000 keys at byte "));
}

TEST_CASE("bad host data is refused with the JSON path", "[hostdata]") {
    auto doc = json::parse(fixture_text("snapshot-host.json"));
    struct Case {
        std::function<void(json&)> edit;
        std::string message;
    };
    std::vector<Case> cases = {
        {[](json& d) { d["host_sockets"][0]["local"]["address"] = "10.1"; },
         "host_sockets[0].local.address: '10.1' is not an IP address"},
        {[](json& d) { d["host_sockets"][1].erase("peer"); }, "host_sockets[1].peer: missing"},
        {[](json& d) { d["host_sockets"][0]["inode"] = -1; }, "host_sockets[0].inode: expected"},
        {[](json& d) { d["processes"][0]["inspected"] = "yes"; },
         "processes[0].inspected: expected true or false"},
        {[](json& d) {
             d["processes"][0]["files"] = json::array({{{"fd", "x"}}});
         },
         "processes[0].files[0].fd: expected a number"},
        {[](json& d) { d["resources"][0]["details"] = json::array(); },
         "resources[0].details: expected an object"},
        {[](json& d) { d["resources"][0]["details"]["cqe"] = 5; },
         "resources[0].details.cqe: expected a string"},
        {[](json& d) { d["resources"] = json::object(); }, "resources: expected an array"},
    };
    for (const auto& c : cases) {
        auto d = doc;
        c.edit(d);
        auto parsed = snapshot_from_text(d.dump());
        INFO(c.message);
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(), Catch::Contains(c.message));
    }
}

namespace {

// Host sockets of a capture's snapshot against its ss output: nc's holders found, siw's none.
void judge_host_sockets(const std::string& dir) {
    Snapshot s = load("snapshot-host.json", dir);
    auto refs = ss_sockets(dir);
    REQUIRE(with_inode(s.host_sockets).size() == refs.size());
    std::size_t held = 0;
    for (const auto& r : refs) {
        INFO("ss: " << r.local_addr << ":" << r.local_port << " ino " << r.inode);
        auto it = std::find_if(s.host_sockets.begin(), s.host_sockets.end(),
                               [&](const HostSocket& h) { return h.inode == r.inode; });
        REQUIRE(it != s.host_sockets.end());
        CHECK(name_of(it->state) == r.state);
        CHECK(it->local.port == r.local_port);
        CHECK(same_address(r.local_addr, it->local.address));
        CHECK(it->pid == r.pid);
        CHECK(it->fd == r.fd);
        if (r.pid) ++held;
        CHECK_FALSE(it->rdma_device); // attribution is analysis's, not the pipeline's
    }
    CHECK(held == 3); // nc's listener and both ends of its connection
}

// Resources of a capture's snapshot against its rdma output, owners resolved.
void judge_resources(const std::string& dir) {
    Snapshot s = load("snapshot-host.json", dir);
    std::map<ResourceKind, std::size_t> counts;
    for (const auto& r : s.resources)
        ++counts[r.kind];
    for (ResourceKind kind :
         {ResourceKind::cq, ResourceKind::mr, ResourceKind::pd, ResourceKind::ctx}) {
        INFO(name_of(kind));
        json ref = json::parse(capture_text(dir, "rdma-" + name_of(kind) + ".json"));
        CHECK(counts[kind] == ref.size());
    }
    CHECK(counts[ResourceKind::qp] > 0);
    // The snapshot is taken before the scenario starts its SRQ holders
    // (rdma-srq.json is of that later moment): it has none.
    CHECK(counts[ResourceKind::srq] == 0);
    json pds = json::parse(capture_text(dir, "rdma-pd.json"));
    for (const auto& e : pds) {
        INFO(e.dump());
        auto it = std::find_if(s.resources.begin(), s.resources.end(), [&](const Resource& r) {
            return r.kind == ResourceKind::pd && r.device == e.at("ifname").get<std::string>() &&
                   r.number == e.at("pdn").get<std::uint32_t>();
        });
        REQUIRE(it != s.resources.end());
        if (!e.contains("pid")) {
            CHECK(it->owner.kernel == e.at("comm").get<std::string>());
            continue;
        }
        // The kernel names the creating task; a thread's PD belongs to its process.
        auto task = it->owner.tid ? it->owner.tid : it->owner.pid;
        CHECK(task == e.at("pid").get<std::uint32_t>());
        CHECK(it->owner.comm == "rping");
        CHECK(it->owner.user == "root");
        const Process* p = nullptr;
        for (const auto& proc : s.processes)
            if (proc.pid == it->owner.pid) p = &proc;
        REQUIRE(p); // the owner is a process the scan found
        CHECK(p->comm == "rping");
    }
}

// RDMA device fds of a capture's snapshot against /proc of its rping processes.
void judge_rping_fds(const std::string& dir) {
    Snapshot s = load("snapshot-host.json", dir);
    std::istringstream in(capture_text(dir, "rping-fds.txt"));
    std::uint32_t pid, fd;
    std::string target;
    std::map<std::uint32_t, std::vector<OpenFile>> expected;
    while (in >> pid >> fd >> target)
        if (target.starts_with("/dev/infiniband/"))
            expected[pid].push_back(OpenFile{fd, target, std::nullopt});
    REQUIRE(expected.size() == 8); // a server and a client per device and family
    for (const auto& [pid_, files] : expected) {
        const std::uint32_t p = pid_; // clang 14 cannot capture a structured binding
        INFO("pid " << p);
        auto it = std::find_if(s.processes.begin(), s.processes.end(),
                               [&](const Process& proc) { return proc.pid == p; });
        REQUIRE(it != s.processes.end());
        CHECK(it->inspected);
        CHECK(it->files == files); // rping holds no sockets: only these two
    }
}

// The snapshot user lab took: root's fds unreadable, no MR keys.
void judge_user_view(const std::string& dir) {
    Snapshot s = load("snapshot-host-user.json", dir);
    std::size_t root_procs = 0, own = 0;
    for (const auto& p : s.processes) {
        if (p.uid == 0u) {
            ++root_procs;
            CHECK_FALSE(p.inspected);
            CHECK(p.files.empty());
            CHECK(p.comm);
        } else {
            ++own;
            CHECK(p.user == "lab");
            CHECK(p.inspected);
        }
    }
    CHECK(root_procs > 0);
    CHECK(own >= 1); // rdmastat-capture itself
    for (const auto& h : s.host_sockets)
        CHECK_FALSE(h.pid); // every holder is root's
    std::size_t mrs = 0;
    for (const auto& r : s.resources) {
        if (r.kind != ResourceKind::mr) continue;
        ++mrs;
        CHECK(detail(r, "length"));
        CHECK_FALSE(detail(r, "lkey"));
        CHECK_FALSE(detail(r, "rkey"));
    }
    CHECK(mrs > 0);
}

} // namespace

TEST_CASE("acquired host sockets match ss, with nc's holders and siw's without", "[hostdata]") {
    judge_host_sockets("");
}

TEST_CASE("acquired resources match rdma res show, owners resolved", "[hostdata]") {
    judge_resources("");
}

TEST_CASE("acquired RDMA device fds match /proc of the rping processes", "[hostdata]") {
    judge_rping_fds("");
}

TEST_CASE("an unprivileged user's view: root's fds unreadable, no MR keys", "[hostdata]") {
    judge_user_view("");
}

TEST_CASE("lab: a fresh pipeline snapshot agrees with ss, rdma and /proc", "[lab]") {
    std::string dir = lab_capture_dir();
    judge_host_sockets(dir);
    judge_resources(dir);
    judge_rping_fds(dir);
    judge_user_view(dir);
}
