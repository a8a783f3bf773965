// SPDX-License-Identifier: MIT
// [lab] tests of rdmastat.ko: judge what tests/lab/scenarios/module.sh wrote in the
// guest (the module's dump against NLDEV's and rdma's, the unprivileged policy,
// churn and unloading while dumping). Run by tests/lab/check.sh.
#include "analysis/select.h"
#include "collect/snapshot_file.h"
#include "evidence.h"
#include "support.h"

#include "catch_compat.hpp"
#include <cstdlib>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"module"};

Snapshot snapshot(const std::string& name) {
    REQUIRE(ev.rc(name) == 0);
    return ev.snapshot(name);
}

} // namespace

TEST_CASE("lab: the module's dump describes the ids rdma and NLDEV report", "[lab][module]") {
    Snapshot mod = snapshot("module.json");
    Snapshot nldev = snapshot("nldev.json");
    auto diffs = compare_with_referee(mod.connections, ev.json("rdma-cm_id.json"),
                                      ev.json("rdma-qp.json"));
    INFO(Catch::Detail::stringify(diffs));
    CHECK(diffs.empty());
    // The same ids, field by field, as the NLDEV source joined them.
    REQUIRE(mod.connections.size() == nldev.connections.size());
    REQUIRE(mod.connections.size() >= 15);
    std::size_t iwarp_read = 0, iwarp_withheld = 0;
    for (std::size_t i = 0; i < mod.connections.size(); ++i) {
        const Connection& m = mod.connections[i];
        const Connection& n = nldev.connections[i];
        INFO(m.device << " cm_id " << m.cm_id.value_or(0));
        CHECK(m.device == n.device);
        CHECK(m.cm_id == n.cm_id);
        CHECK(m.state == n.state);
        CHECK(m.port == n.port);
        CHECK(m.port_space == n.port_space);
        CHECK(m.transport == n.transport);
        CHECK(m.local == n.local);
        CHECK(m.peer == n.peer);
        CHECK(m.qp == n.qp);
        CHECK(m.owner.pid == n.owner.pid);
        CHECK(m.owner.comm == n.owner.comm);
        CHECK(m.owner.uid == n.owner.uid);
        CHECK(m.netns);
        if (m.transport == Transport::iwarp && m.state == CmState::connect) {
            // No port mapper runs in the lab: the wire addresses are the ids' own.
            CHECK_FALSE(m.mapping_withheld);
            CHECK(m.mapped_local == m.local);
            CHECK(m.mapped_peer == m.peer);
            ++iwarp_read;
        } else if (m.transport == Transport::iwarp) {
            // A listener's iw_cm_id may be freed under no lock (a failing
            // rdma_listen()): its mapping is withheld, and said to be.
            CHECK(m.mapping_withheld);
            CHECK_FALSE(m.mapped_local);
            CHECK_FALSE(m.mapped_peer);
            CHECK_FALSE(m.mapped);
            ++iwarp_withheld;
        } else {
            CHECK_FALSE(m.mapping_withheld);
            CHECK_FALSE(m.mapped_local);
        }
    }
    // rping on siw: root's and the lab user's, each a listener and both ends.
    CHECK(iwarp_read >= 4);
    CHECK(iwarp_withheld >= 2);
}

TEST_CASE("lab: neither module is loaded by a family lookup, only by an admin",
          "[lab][module]") {
    CHECK(ev.text("autoload-before") == "no no\n");
    // The lab user's and root's lookups of both families, with the modules
    // installed where modprobe finds them: nothing loaded.
    CHECK(ev.text("autoload-after") == "no no\n");
    CHECK(ev.rc("autoload-lab.txt") == 2);
    CHECK(ev.text("autoload-lab.txt.err").find("is not registered") != std::string::npos);
    CHECK(ev.rc("autoload-lab-kping.txt") != 0);
    CHECK(ev.rc("autoload-root.txt") == 2);
    // The control: with an alias, the same unprivileged lookup loads it.
    CHECK(ev.text("autoload-control") == "yes\n");
    CHECK(ev.rc("autoload-control.txt") == 0);
    // An admin's modprobe does.
    CHECK(ev.rc("autoload-modprobe.txt") == 0);
    CHECK(ev.text("autoload-modprobe") == "yes\n");
}

TEST_CASE("lab: --source auto prefers the loaded module", "[lab][module]") {
    // (Read back, a snapshot's source is "file": look at what was written.)
    CHECK(ev.json("auto.json")["source"] == "module");
    CHECK(ev.json("nldev.json")["source"] == "nldev");
    CHECK(ev.json("module.json")["source"] == "module");
}

TEST_CASE("lab: an unprivileged user gets owner fields of their own ids only", "[lab][module]") {
    Snapshot root = snapshot("module.json");
    Snapshot user = snapshot("lab-module.json");
    auto lab_uid = static_cast<std::uint32_t>(std::stoul(ev.text("lab-uid")));
    REQUIRE(user.connections.size() == root.connections.size());
    std::size_t own = 0;
    for (std::size_t i = 0; i < user.connections.size(); ++i) {
        const Owner& seen = user.connections[i].owner;
        const Owner& real = root.connections[i].owner;
        INFO(user.connections[i].device << " cm_id " << user.connections[i].cm_id.value_or(0));
        CHECK(user.connections[i].cm_id == root.connections[i].cm_id);
        if (real.uid == lab_uid) {
            ++own;
            CHECK(seen.pid == real.pid);
            CHECK(seen.comm == real.comm);
            CHECK(seen.uid == lab_uid);
        } else {
            CHECK(seen == Owner{});
        }
    }
    CHECK(own == 3); // the lab user's rping: a listener and both ends
}

TEST_CASE("lab: churn while dumping and unloading while dumping stay clean", "[lab][module]") {
    std::istringstream created(ev.text("churn-created"));
    std::string word;
    long ids = 0;
    created >> word >> ids;
    CHECK(ids >= 1000);
    std::istringstream dumps(ev.text("churn-dumps"));
    long taken = 0, bad = 0;
    dumps >> taken >> bad;
    CHECK(taken >= 10);
    CHECK(bad == 0);

    std::istringstream cycles(ev.text("rmmod-cycles"));
    long done = 0;
    cycles >> done;
    CHECK(done == 20);
    CHECK(std::stoi(ev.text("loaded-after")) == 0);
    CHECK(ev.rc("gone.txt") == 2);
    CHECK(ev.text("gone.txt.err") ==
          "rdmastat: module source: the rdmastat generic netlink family "
          "is not registered (load it as root: modprobe rdmastat)\n");
    CHECK(ev.rc("gone-auto.txt") == 0);
    CHECK(ev.json("gone-auto.txt")["source"] == "nldev");
    REQUIRE(ev.rc("reloaded.json") == 0);
    CHECK(ev.json("reloaded.json")["source"] == "module");

    std::istringstream dmesg(ev.text("dmesg.txt"));
    std::string line;
    while (std::getline(dmesg, line)) {
        INFO(line);
        // (The kernel's taint notice names the first out-of-tree module: ours
        // on a kernel whose siw is in-tree, as the lab's debug kernel.)
        if (line.find("loading out-of-tree module taints kernel") != std::string::npos) continue;
        for (const char* bad_word : {"WARNING:", "BUG:", "Oops", "refcount_t", "general protection",
                                     "list_del corruption", "use-after-free", "rdmastat: "})
            CHECK(line.find(bad_word) == std::string::npos);
    }
}
