// SPDX-License-Identifier: MIT
// [lab] tests of tests/lab/scenarios/containers.sh: rping servers in real
// cgroups named as docker, containerd, cri-o and podman name them, and what
// rdmastat says of their owners. What each server was made as comes from the
// scenario's own record (made), not from rdmastat.
#include "catch_compat.hpp"
#include "support.h"

#include <map>
#include <set>
#include <sstream>

using namespace rdmastat::test;
using nlohmann::json;

namespace {

// One line of made: "port address cgroup runtime id pod qos" ("-": none).
struct Made {
    unsigned port = 0;
    std::string address, cgroup, runtime, id, pod, qos;
};

std::vector<Made> made() {
    std::vector<Made> out;
    std::istringstream in(lab_evidence("containers", "made"));
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
    REQUIRE(lab_rc("containers", file) == 0);
    json doc = json::parse(lab_evidence("containers", file));
    std::set<unsigned> out;
    for (const Made& m : made())
        if (!listener(doc, m.port).is_null()) out.insert(m.port);
    return out;
}

} // namespace

TEST_CASE("lab: each server's cgroup, container and pod, from every source", "[lab][containers]") {
    for (const char* file : {"all.json", "module.json", "nldev.json"}) {
        INFO(file);
        REQUIRE(lab_rc("containers", file) == 0);
        json doc = json::parse(lab_evidence("containers", file));
        for (const Made& m : made()) {
            INFO("port " << m.port << " in " << m.cgroup);
            // The kernel put the server where the scenario asked.
            CHECK(lab_evidence("containers", "cgroup-" + std::to_string(m.port))
                      .find("0::" + m.cgroup + "\n") != std::string::npos);
            json c = listener(doc, m.port);
            REQUIRE_FALSE(c.is_null());
            const json& o = c["owner"];
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
    }
}

TEST_CASE("lab: -e shows each server's container and pod", "[lab][containers]") {
    std::istringstream in(lab_evidence("containers", "listing.txt"));
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
    std::string on = lab_evidence("containers", "metrics.prom");
    std::string off = lab_evidence("containers", "metrics-off.prom");
    REQUIRE(lab_rc("containers", "metrics.prom") == 0);
    REQUIRE(lab_rc("containers", "metrics-off.prom") == 0);
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
