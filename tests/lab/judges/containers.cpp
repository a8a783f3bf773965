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

namespace {

// A cgroup's rdma.current or rdma.max as the kernel wrote it, read here on
// its own: device → {"hca_handle": value, "hca_object": value}, values as
// written ("max" included).
std::map<std::string, std::map<std::string, std::string>> rdmacg_file(const std::string& name) {
    std::map<std::string, std::map<std::string, std::string>> out;
    std::istringstream in(ev.text(name));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string device, kv;
        words >> device;
        while (words >> kv)
            out[device][kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    return out;
}

} // namespace

TEST_CASE("lab: a process at its rdma cgroup's limit: the cgroup, the limit and the owner",
          "[lab][containers]") {
    std::string path = ev.text("rdmacg-path");
    path.erase(path.find_last_not_of('\n') + 1);
    const std::string pid_text = ev.text("rdmacg-pid");
    const unsigned pid = static_cast<unsigned>(std::stoul(pid_text));
    // The kernel refused the process a QP: it is at its limit.
    const std::string said = ev.text("rdmacg-verbsqps.out");
    INFO(said);
    REQUIRE(said.find("refused QP") != std::string::npos);
    REQUIRE(said.find("ready ") != std::string::npos);
    const unsigned held = static_cast<unsigned>(std::stoul(said.substr(said.find("ready ") + 6)));
    auto current = rdmacg_file("rdmacg-current"), max = rdmacg_file("rdmacg-max");
    REQUIRE(current == rdmacg_file("rdmacg-current-after")); // steady while rdmastat looked
    REQUIRE(max.count("rxe0"));
    CHECK(max["rxe0"]["hca_object"] == "4"); // as the scenario set it
    CHECK(current["rxe0"]["hca_object"] == max["rxe0"]["hca_object"]);

    // The listing's rdma_cgroups hold the files' numbers, a limit only where set.
    REQUIRE(ev.rc("rdmacg.json") == 0);
    const json doc = ev.json("rdmacg.json");
    json cgroup;
    for (const json& c : doc["rdma_cgroups"])
        if (c["path"] == path) cgroup = c;
    INFO(doc["rdma_cgroups"].dump());
    REQUIRE(cgroup.is_object());
    REQUIRE(cgroup["devices"].size() == current.size());
    for (const json& d : cgroup["devices"]) {
        const std::string dev = d["device"];
        INFO(dev);
        for (const char* r : {"hca_handle", "hca_object"}) {
            CHECK(std::to_string(d[r].get<unsigned long>()) == current[dev][r]);
            const std::string key = std::string(r) + "_max";
            if (max[dev][r] == "max")
                CHECK_FALSE(d.contains(key));
            else
                CHECK(std::to_string(d.value(key, 0ul)) == max[dev][r]);
        }
    }
    // Its owner: the process's verbs connections, each of a QP it holds.
    unsigned rows = 0;
    for (const json& c : doc["connections"])
        if (c["owner"].value("pid", 0u) == pid) {
            CHECK(c["via"] == "verbs");
            CHECK(c["owner"]["cgroup"] == path);
            ++rows;
        }
    CHECK(rows == held);

    // -e: the cgroup's line, used/limit.
    const std::string text = ev.text("rdmacg.txt");
    const std::string objects = current["rxe0"]["hca_object"] + "/" + max["rxe0"]["hca_object"];
    const std::string handles = current["rxe0"]["hca_handle"] + "/" + max["rxe0"]["hca_handle"];
    bool line = false;
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);)
        line = line ||
               (l.starts_with(path + " ") && l.find(" rxe0 ") != std::string::npos &&
                l.find(" " + handles + " ") != std::string::npos && l.ends_with(" " + objects));
    INFO(text);
    CHECK(line);

    // lsof -p: the process in that cgroup, and the cgroup's accounting, in
    // text (the same line as -e's) and JSON.
    CHECK(ev.text("rdmacg-lsof.txt").find(path + " ") != std::string::npos);
    REQUIRE(ev.rc("rdmacg-lsof.json") == 0);
    const json lsof = ev.json("rdmacg-lsof.json");
    REQUIRE(lsof["processes"].size() == 1);
    CHECK(lsof["processes"][0]["cgroup"] == path);
    bool listed = false;
    for (const json& c : lsof["rdma_cgroups"])
        listed = listed || (c["path"] == path && c == cgroup);
    CHECK(listed);

    // export: usage and limit of each resource.
    const std::string prom = ev.text("rdmacg.prom");
    for (const char* r : {"hca_handle", "hca_object"}) {
        const std::string labels = "{cgroup=\"" + path +
                                   "\",runtime=\"\",container=\"\",pod=\"\",device=\"rxe0\","
                                   "resource=\"" +
                                   r + "\"}";
        INFO(labels);
        CHECK(prom_value(prom, "rdmastat_cgroup_rdma_usage" + labels) ==
              std::stod(current["rxe0"][r]));
        CHECK(prom_value(prom, "rdmastat_cgroup_rdma_limit" + labels) == std::stod(max["rxe0"][r]));
    }
}
