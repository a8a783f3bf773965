// SPDX-License-Identifier: MIT
// [lab] tests of NFS over RDMA, the kernel's own server (nfsd, svcrdma) and
// client (nfsv4, xprtrdma): judge what tests/lab/scenarios/nfs.sh wrote in the
// guest. NFS mounts over siw (NFSv4.1) and rxe (NFSv4.2), lists and unmounts in
// a loop while root and the lab user dump rdmastat.ko; one snapshot while
// mounted, with `rdma res show cm_id` and `rdma res show qp` as referees.
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"nfs"};

constexpr unsigned nfs_port = 20049;
// Server and client are both in rpcrdma.ko (net/sunrpc/xprtrdma): their
// rdma_create_id() records that module's name as the ids' kernel owner.
const char* const nfs_kern_name = "rpcrdma";
// Their QPs come from rdma_create_qp(), which calls ib_create_qp() in
// rdma_cm's own code: NLDEV names rdma_cm as the QPs' owner.
const char* const qp_kern_name = "rdma_cm";

const struct {
    const char* name;
    const char* device;
} devices[] = {{"siw", "siw0"}, {"rxe", "rxe0"}};

unsigned port_of(const json& c, const char* end) {
    return c.contains(end) ? c[end].value("port", 0u) : 0u;
}
bool nfs_owned(const json& c) {
    return c["owner"].value("kernel", "") == nfs_kern_name;
}

// "dumps failures caught" from dumps-NAME.
struct Dumps {
    long n = -1, bad = -1, caught = -1;
};
Dumps dumps_of(const std::string& name) {
    Dumps d;
    std::istringstream in(ev.text("dumps-" + name));
    in >> d.n >> d.bad >> d.caught;
    return d;
}

} // namespace

TEST_CASE("lab: NFS mounts over RDMA, lists and unmounts in a loop, on siw and rxe", "[lab][nfs]") {
    INFO(ev.text("cycles.err"));
    std::istringstream devs(ev.text("devices"));
    std::vector<std::string> up;
    for (std::string d; devs >> d;)
        up.push_back(d);
    CHECK(up == std::vector<std::string>{"siw", "rxe"});
    for (const auto& dev : devices) {
        INFO(dev.name << ": " << ev.text(std::string("first-mount-") + dev.name + ".out"));
        CHECK(ev.text(std::string("first-mount-") + dev.name + ".rc") == "0\n");
        CHECK(ev.rc(std::string("first-ls-") + dev.name + ".txt") == 0);
        // The exported tmpfs' file, read over NFS.
        CHECK_THAT(ev.text(std::string("first-ls-") + dev.name + ".txt"),
                   Catch::Contains("hello over rdma"));
        CHECK_THAT(ev.text("mounts.txt"),
                   Catch::Contains(std::string("/mnt/nfs-") + dev.name + " nfs4 "));
    }
    CHECK_THAT(ev.text("mounts.txt"), Catch::Contains("proto=rdma,port=20049"));
    // round, device, mount, ls, umount status, seconds.
    std::map<std::string, int> cycles, failed;
    std::istringstream tsv(ev.text("cycles.tsv"));
    for (std::string line; std::getline(tsv, line);) {
        std::istringstream f(line);
        int round = 0, m = -1, l = -1, u = -1;
        std::string dev;
        f >> round >> dev >> m >> l >> u;
        ++cycles[dev];
        if (m != 0 || l != 0 || u != 0) {
            ++failed[dev];
            UNSCOPED_INFO("failed cycle: " << line);
        }
    }
    for (const auto& dev : devices) {
        INFO(dev.name << ": " << cycles[dev.name] << " cycles, " << failed[dev.name] << " failed");
        CHECK(cycles[dev.name] >= 3);
        CHECK(failed[dev.name] == 0);
    }
    // Nothing left mounted once the loop is over.
    CHECK(ev.text("left-mounts.txt").empty());
}

TEST_CASE("lab: root and the lab user dump rdmastat.ko through NFS mount cycles", "[lab][nfs]") {
    for (const std::string who : {"root", "lab"}) {
        INFO(who << ": " << ev.text("dumps-" + who));
        const Dumps d = dumps_of(who);
        CHECK(ev.text(who + "-loop.rc") == "0\n");
        CHECK(d.n >= 5);
        CHECK(d.bad == 0);
        CHECK(d.caught >= 0);
    }
    if (dumps_of("root").bad != 0) FAIL_CHECK(ev.text("dumps-root.err"));
    if (dumps_of("lab").bad != 0) FAIL_CHECK(ev.text("dumps-lab.err"));
    // Every dump that caught a mount (a connection to the server's port) is a
    // whole document, and every id on the NFS port is rpcrdma's.
    const char* out = std::getenv("RDMASTAT_LAB_OUT");
    REQUIRE(out != nullptr);
    long files = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::string(out) + "/nfs/caught")) {
        INFO(e.path().string());
        const auto doc = json::parse(read_file(e.path().string()));
        ++files;
        long nfs = 0;
        for (const auto& c : doc["connections"]) {
            if (port_of(c, "local") != nfs_port && port_of(c, "peer") != nfs_port) continue;
            INFO(c.dump());
            CHECK(nfs_owned(c));
            ++nfs;
        }
        CHECK(nfs >= 1);
    }
    CHECK(files == dumps_of("root").caught + dumps_of("lab").caught);
}

TEST_CASE("lab: mounted, the NFS server's and client's ids are rpcrdma's, as NLDEV says",
          "[lab][nfs]") {
    REQUIRE(ev.rc("mounted-rdma-cm_id.json") == 0);
    const auto referee = referee_cm_ids(ev.json("mounted-rdma-cm_id.json"));
    // The referee's text names the kernel owner in brackets.
    CHECK_THAT(ev.text("mounted-rdma-cm_id.txt"), Catch::Contains("comm [rpcrdma]"));
    for (const std::string view : {"mounted-root.json", "mounted-lab.json"}) {
        INFO(view << ": " << ev.text(view + ".err"));
        REQUIRE(ev.rc(view) == 0);
        const auto doc = ev.json(view);
        for (const auto& dev : devices) {
            INFO(dev.device);
            int listeners = 0, clients = 0, servers = 0;
            unsigned client_port = 0, server_peer = 0;
            for (const auto& c : doc["connections"]) {
                if (c["device"] != dev.device) continue;
                const unsigned local = port_of(c, "local"), peer = port_of(c, "peer");
                if (local != nfs_port && peer != nfs_port) continue;
                INFO(c.dump());
                CHECK(nfs_owned(c));
                CHECK_FALSE(c["owner"].contains("pid"));
                if (c["state"] == "LISTEN" && local == nfs_port) {
                    ++listeners; // IPv4 and IPv6 wildcard, per device
                } else if (c["state"] == "CONNECT" && peer == nfs_port) {
                    ++clients; // xprtrdma's
                    client_port = local;
                    CHECK(c["local"]["address"] == c["peer"]["address"]);
                } else if (c["state"] == "CONNECT" && local == nfs_port) {
                    ++servers; // svcrdma's, accepted on the listener
                    server_peer = peer;
                }
                // The same id in NLDEV's listing, with the same owner.
                bool found = false;
                for (const auto& r : referee) {
                    if (r.ifname != dev.device || r.cm_idn != c["cm_id"].get<std::uint32_t>())
                        continue;
                    found = true;
                    CHECK(r.comm == nfs_kern_name);
                    CHECK_FALSE(r.pid.has_value());
                    CHECK(r.state == c["state"].get<std::string>());
                    CHECK(r.src_port == local);
                    if (c["state"] == "CONNECT") CHECK(r.dst_port == peer);
                }
                CHECK(found);
            }
            CHECK(listeners == 2);
            CHECK(clients == 1);
            CHECK(servers == 1);
            // Both ends of one connection.
            CHECK(client_port == server_peer);
        }
        // NLDEV lists no rpcrdma id rdmastat.ko did not.
        long ours = 0, theirs = 0;
        for (const auto& c : doc["connections"])
            if (nfs_owned(c)) ++ours;
        for (const auto& r : referee)
            if (r.comm == nfs_kern_name) ++theirs;
        CHECK(ours == theirs);
    }
}

TEST_CASE("lab: an NFS id shows a QP only when NLDEV has that QP on that device", "[lab][nfs]") {
    REQUIRE(ev.rc("mounted-rdma-qp.json") == 0);
    REQUIRE(ev.rc("mounted-rdma-qp-after.json") == 0);
    const auto referee = referee_cm_ids(ev.json("mounted-rdma-cm_id.json"));
    for (const std::string view : {"mounted-root.json", "mounted-lab.json"}) {
        INFO(view);
        const auto doc = ev.json(view);
        long joined = 0;
        for (const auto& c : doc["connections"]) {
            if (!nfs_owned(c)) continue;
            INFO(c.dump());
            if (c["qp"].is_null()) {
                // Listeners have none; every connected id has its QP.
                CHECK(c["state"] == "LISTEN");
                continue;
            }
            ++joined;
            const long qpn = c["qp"]["number"];
            CHECK(c["qp"]["type"] == "RC");
            // NLDEV has that QP on that device, before and after the dumps.
            for (const std::string qps : {"mounted-rdma-qp.json", "mounted-rdma-qp-after.json"}) {
                INFO(qps);
                int matches = 0;
                for (const auto& q : ev.json(qps)) {
                    if (q["ifname"] != c["device"] || q["lqpn"] != qpn) continue;
                    ++matches;
                    CHECK(q["type"] == "RC");
                    CHECK(q["comm"] == qp_kern_name);
                    CHECK_FALSE(q.contains("pid"));
                }
                CHECK(matches == 1);
            }
            // And NLDEV's cm_id names the same QP number.
            for (const auto& r : referee)
                if (r.ifname == c["device"].get<std::string>() &&
                    r.cm_idn == c["cm_id"].get<std::uint32_t>())
                    CHECK(r.lqpn == std::optional<std::uint32_t>(static_cast<std::uint32_t>(qpn)));
        }
        // Client and server end on siw and on rxe.
        CHECK(joined == 4);
    }
}

TEST_CASE("lab: once nfsd stops and nothing is mounted, no rpcrdma id is left", "[lab][nfs]") {
    REQUIRE(ev.rc("stopped-root.json") == 0);
    const auto doc = ev.json("stopped-root.json");
    for (const auto& c : doc["connections"]) {
        INFO(c.dump());
        CHECK_FALSE(nfs_owned(c));
    }
    CHECK(ev.text("stopped-rdma-cm_id.txt").find("rpcrdma") == std::string::npos);
}

TEST_CASE("lab: the NFS scenario leaves dmesg clean", "[lab][nfs]") {
    const std::string dmesg = ev.text("dmesg.txt");
    // nfsd started, over RDMA: the log is this scenario's.
    CHECK_THAT(dmesg, Catch::Contains("RPC: Registered rdma transport module."));
    static const std::regex bad(R"(BUG:|WARNING:|Oops|KASAN|general protection|refcount_t)");
    std::smatch m;
    INFO(dmesg);
    CHECK_FALSE(std::regex_search(dmesg, m, bad));
}
