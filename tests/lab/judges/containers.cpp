// SPDX-License-Identifier: MIT
// [lab] tests of tests/lab/scenarios/containers.sh: rping servers in real
// cgroups named as docker, containerd, cri-o and podman name them, and what
// rdmastat says of their owners. What each server was made as comes from the
// scenario's own record (made), not from rdmastat.
#include "catch_compat.hpp"
#include "evidence.h"
#include "support.h"

#include <map>
#include <set>
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

const Evidence ev{"containers"};

// One line of made: "port address cgroup runtime id pod qos" ("-": none).
struct Made {
    unsigned port = 0;
    std::string address, cgroup, runtime, id, pod, qos;
};

std::vector<Made> made() {
    std::vector<Made> out;
    std::istringstream in(ev.text("made"));
    Made m;
    while (in >> m.port >> m.address >> m.cgroup >> m.runtime >> m.id >> m.pod >> m.qos)
        out.push_back(m);
    REQUIRE(out.size() == 5);
    return out;
}

// The rping listener on port in a JSON listing, or null.
json listener(const json& doc, unsigned port) {
    for (const json& c : doc["connections"])
        if (c["state"] == "LISTEN" && c.contains("local") && c["local"]["port"] == port &&
            c["owner"].value("comm", "") == "rping")
            return c;
    return nullptr;
}

// Ports of the made servers a filtered listing holds.
std::set<unsigned> ports_in(const std::string& file) {
    REQUIRE(ev.rc(file) == 0);
    json doc = ev.json(file);
    std::set<unsigned> out;
    for (const Made& m : made())
        if (!listener(doc, m.port).is_null()) out.insert(m.port);
    return out;
}

// An owner (of an id, or an lsof process) made in m's cgroup, as rdmastat
// wrote it.
void check_owner(const json& o, const Made& m) {
    CHECK(o["cgroup"] == m.cgroup);
    if (m.runtime == "-") {
        CHECK_FALSE(o.contains("container"));
    } else {
        REQUIRE(o.contains("container"));
        CHECK(o["container"]["runtime"] == m.runtime);
        CHECK(o["container"]["id"] == m.id);
    }
    if (m.pod == "-") {
        CHECK_FALSE(o.contains("pod"));
    } else {
        REQUIRE(o.contains("pod"));
        CHECK(o["pod"]["uid"] == m.pod);
        CHECK(o["pod"]["qos"] == m.qos);
    }
}

const Made& made_on(unsigned port) {
    static const std::vector<Made> all = made();
    for (const Made& m : all)
        if (m.port == port) return m;
    FAIL("nothing made on " << port);
    return all.front();
}

} // namespace

TEST_CASE("lab: each server's cgroup, container and pod, from every source", "[lab][containers]") {
    for (const char* file : {"all.json", "module.json", "nldev.json"}) {
        INFO(file);
        REQUIRE(ev.rc(file) == 0);
        json doc = ev.json(file);
        for (const Made& m : made()) {
            INFO("port " << m.port << " in " << m.cgroup);
            // The kernel put the server where the scenario asked.
            CHECK(ev.text("cgroup-" + std::to_string(m.port))
                      .find("0::" + m.cgroup + "\n") != std::string::npos);
            json c = listener(doc, m.port);
            REQUIRE_FALSE(c.is_null());
            check_owner(c["owner"], m);
        }
    }
}

TEST_CASE("lab: -e shows each server's container and pod", "[lab][containers]") {
    std::istringstream in(ev.text("listing.txt"));
    std::map<unsigned, std::string> line_of; // port → its LISTEN line
    for (std::string line; std::getline(in, line);)
        for (const Made& m : made())
            if (line.find(m.address + ":" + std::to_string(m.port) + " ") != std::string::npos &&
                line.find(" LISTEN ") != std::string::npos)
                line_of[m.port] = line;
    for (const Made& m : made()) {
        INFO(m.port);
        REQUIRE(line_of.count(m.port));
        const std::string& line = line_of[m.port];
        if (m.runtime != "-")
            CHECK(line.find(" " + m.runtime + ":" + m.id.substr(0, 12) + " ") != std::string::npos);
        if (m.pod != "-") CHECK(line.find(" " + m.pod) != std::string::npos); // the last column
        if (m.runtime == "-" && m.pod == "-") // Container and Pod both "-"
            for (const char* runtime : {"docker:", "containerd:", "crio:", "podman:"})
                CHECK(line.find(runtime) == std::string::npos);
    }
}

TEST_CASE("lab: container, pod and cgroup filters select the servers made so",
          "[lab][containers]") {
    std::map<std::string, std::set<unsigned>> expected;
    for (const Made& m : made()) {
        if (m.runtime == "docker") expected["f-docker.json"].insert(m.port);
        if (m.runtime == "containerd") expected["f-prefix.json"].insert(m.port);
        if (m.qos == "besteffort") expected["f-besteffort.json"].insert(m.port);
        if (m.cgroup.rfind("/kubepods.slice/", 0) == 0) expected["f-kubepods.json"].insert(m.port);
        if (m.cgroup.rfind("/kubepods", 0) != 0) expected["f-not.json"].insert(m.port);
    }
    REQUIRE(expected.size() == 5);
    for (const auto& [file, ports] : expected) {
        INFO(file);
        CHECK(ports_in(file) == ports);
    }
}

TEST_CASE("lab: export labels containers and pods only with --per-container", "[lab][containers]") {
    std::string on = ev.text("metrics.prom");
    std::string off = ev.text("metrics-off.prom");
    REQUIRE(ev.rc("metrics.prom") == 0);
    REQUIRE(ev.rc("metrics-off.prom") == 0);
    CHECK(off.find("rdmastat_container_connections") == std::string::npos);
    for (const Made& m : made()) {
        if (m.runtime == "-" && m.pod == "-") continue;
        INFO(m.port);
        auto dash = [](const std::string& s) { return s == "-" ? std::string() : s; };
        std::string series = "rdmastat_container_connections{runtime=\"" + dash(m.runtime) +
                             "\",container=\"" + dash(m.id) + "\",pod=\"" + dash(m.pod) +
                             "\",qos=\"" + dash(m.qos) + "\"}";
        CHECK(prom_value(on, series) == 1); // one rping listener in each
    }
    // The plain cgroup's server is in no series.
    CHECK(on.find("/lab.slice") == std::string::npos);
}

TEST_CASE("lab: lsof -j names each server's process's cgroup, container and pod",
          "[lab][containers]") {
    REQUIRE(ev.rc("lsof.json") == 0);
    const json doc = ev.json("lsof.json");
    for (const Made& m : made()) {
        INFO(m.port);
        unsigned found = 0;
        for (const json& p : doc["processes"])
            for (const json& f : p["files"])
                if (f["type"] == "RDMA_CM" && f["state"] == "LISTEN" &&
                    f["local"]["port"] == m.port) {
                    check_owner(p, m);
                    ++found;
                }
        CHECK(found == 1);
    }
}

TEST_CASE("lab: -E gives ids born while it traces their owners' containers and pods",
          "[lab][containers]") {
    // A client in the docker container connected to the server there (7340),
    // one in the plain cgroup to the cri-o pod's server (7342): each end's
    // owner is where its process was, the passive ends born during the trace
    // included.
    CHECK(ev.rc("events-all") == 0);
    std::map<std::string, unsigned> seen;
    for (const json& e : ev.json_lines("events-all.jsonl")) {
        const json& c = e["connection"];
        const unsigned local = event_port(c, "local"), peer = event_port(c, "peer");
        if (c["owner"].value("comm", "") != "rping") continue;
        INFO(e.dump());
        if (local == 7340 || peer == 7340) {
            check_owner(c["owner"], made_on(7340)); // both ends in the container
            ++seen[local == 7340 ? "7340 server" : "7340 client"];
        } else if (local == 7342) {
            check_owner(c["owner"], made_on(7342));
            if (c["state"] != "LISTEN") ++seen["7342 server"];
        } else if (peer == 7342) {
            check_owner(c["owner"], made_on(7344)); // the plain cgroup's
            ++seen["7342 client"];
        }
    }
    for (const char* end : {"7340 server", "7340 client", "7342 server", "7342 client"}) {
        INFO(end);
        CHECK(seen[end] > 0);
    }
    // The filter "pod besteffort" sees the pod's new passive end, not its
    // client in the plain cgroup.
    CHECK(ev.rc("events-pod") == 0);
    unsigned pod_ends = 0;
    for (const json& e : ev.json_lines("events-pod.jsonl")) {
        const json& c = e["connection"];
        const unsigned local = event_port(c, "local");
        INFO(e.dump());
        REQUIRE(c["owner"].contains("pod"));
        CHECK(c["owner"]["pod"]["qos"] == "besteffort");
        CHECK(event_port(c, "peer") != 7342);
        if (local == 7342 && c["state"] != "LISTEN") ++pod_ends;
    }
    CHECK(pod_ends > 0);
}
