// SPDX-License-Identifier: MIT
#include "support.h"

#include "catch_compat.hpp"
#include "cli/app.h"
#include "collect/nldev_parse.h"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "render/json.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace rdmastat::test {

Run run(std::vector<std::string> args) {
    std::ostringstream out, err;
    int rc = run_cli(args, out, err);
    return {rc, out.str(), err.str()};
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

namespace {
std::string fixture_kernel; // "" for tests/fixtures itself
}

std::string fixture_path(const std::string& name) {
    std::string dir = fixtures_dir();
    if (!fixture_kernel.empty()) dir += "/kernels/" + fixture_kernel;
    return dir + "/" + name;
}

std::string fixture_text(const std::string& name) {
    return read_file(fixture_path(name));
}

std::vector<std::string> fixture_kernels() {
    std::vector<std::string> kernels;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(fixtures_dir() + "/kernels", ec))
        if (e.is_directory()) kernels.push_back(e.path().filename().string());
    std::sort(kernels.begin(), kernels.end());
    kernels.insert(kernels.begin(), "");
    return kernels;
}

FixtureKernel::FixtureKernel(std::string kernel)
    : previous_(std::exchange(fixture_kernel, std::move(kernel))) {}

FixtureKernel::~FixtureKernel() {
    fixture_kernel = previous_;
}

Bytes fixture_bytes(const std::string& name) {
    std::string s = fixture_text(name);
    return Bytes(s.begin(), s.end());
}

NldevData fixture_nldev(const std::string& dir) {
    auto bytes = [&](const std::string& n) {
        if (dir.empty()) return fixture_bytes(n);
        std::string s = read_file(dir + "/" + n);
        return Bytes(s.begin(), s.end());
    };
    NldevData data;
    data.devices = parse_device_dump(bytes("devices.bin")).take();
    for (Device& d : data.devices) {
        d.ports = parse_port_dump(bytes("ports-" + d.name + ".bin")).take();
        d.driver = parse_chardev_driver(bytes("chardev-" + d.name + ".bin")).take();
        for (auto& c : parse_cm_id_dump(bytes("cm_id-" + d.name + ".bin")).take())
            data.cm_ids.push_back(c);
        for (auto& q : parse_qp_dump(bytes("qp-" + d.name + ".bin")).take())
            data.qps.push_back(q);
    }
    return data;
}

OwnerMap fixture_owners(const std::string& path) {
    OwnerMap owners;
    std::istringstream in(read_file(path));
    std::uint32_t pid, uid;
    std::string comm;
    while (in >> pid >> uid >> comm) {
        Owner o;
        o.pid = pid;
        o.comm = comm;
        o.uid = uid;
        owners[pid] = o;
    }
    return owners;
}

namespace {
// "10.9.0.1:7174", "fd00:9::1:7176", ":::0": the port follows the last colon.
void split_addr(const std::string& text, std::string& addr, std::uint32_t& port) {
    auto colon = text.rfind(':');
    addr = text.substr(0, colon);
    port = static_cast<std::uint32_t>(std::stoul(text.substr(colon + 1)));
}
} // namespace

std::vector<RefereeCmId> referee_cm_ids(const nlohmann::json& rdma) {
    std::vector<RefereeCmId> out;
    for (const auto& e : rdma) {
        RefereeCmId r;
        r.ifname = e.at("ifname");
        r.port = e.value("port", 0u);
        r.cm_idn = e.at("cm-idn");
        r.state = e.at("state");
        r.ps = e.value("ps", "");
        if (e.contains("pid")) r.pid = e.at("pid").get<std::uint32_t>();
        r.comm = e.value("comm", "");
        if (e.contains("lqpn")) r.lqpn = e.at("lqpn").get<std::uint32_t>();
        r.qp_type = e.value("qp-type", "");
        if (e.contains("src-addr")) split_addr(e.at("src-addr"), r.src_addr, r.src_port);
        if (e.contains("dst-addr")) split_addr(e.at("dst-addr"), r.dst_addr, r.dst_port);
        out.push_back(r);
    }
    return out;
}

std::vector<std::string> compare_with_referee(const std::vector<Connection>& all,
                                              const nlohmann::json& rdma_cm_id,
                                              const nlohmann::json& rdma_qp) {
    std::vector<std::string> diffs;
    std::vector<Connection> ours; // the cm ids: rdma's cm_id listing is their referee
    std::copy_if(all.begin(), all.end(), std::back_inserter(ours),
                 [](const Connection& c) { return c.via == Via::cm; });
    auto refs = referee_cm_ids(rdma_cm_id);
    if (refs.size() != ours.size())
        diffs.push_back("rdma lists " + std::to_string(refs.size()) + " cm_ids, rdmastat " +
                        std::to_string(ours.size()));
    std::set<std::pair<std::string, std::uint32_t>> seen;
    for (const auto& r : refs) {
        std::string id = r.ifname + "/" + std::to_string(r.cm_idn);
        seen.insert({r.ifname, r.cm_idn});
        const Connection* c = nullptr;
        for (const auto& o : ours)
            if (o.device == r.ifname && o.cm_id == r.cm_idn) c = &o;
        if (!c) {
            diffs.push_back(id + ": missing from rdmastat");
            continue;
        }
        auto check = [&](const char* what, const std::string& theirs, const std::string& mine) {
            if (theirs != mine)
                diffs.push_back(id + " " + what + ": rdma '" + theirs + "', rdmastat '" + mine +
                                "'");
        };
        auto ep_addr = [](const std::optional<Endpoint>& e) {
            return e ? e->address.to_string() : "";
        };
        auto ep_port = [](const std::optional<Endpoint>& e) {
            return e ? std::to_string(e->port) : "";
        };
        check("state", r.state, state_name(*c));
        check("port", std::to_string(r.port), c->port ? std::to_string(*c->port) : "0");
        std::string ps = r.ps;
        for (auto& ch : ps)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        check("port space", ps, c->port_space ? name_of(*c->port_space) : "");
        check("local address", r.src_addr, ep_addr(c->local));
        check("local port", std::to_string(r.src_port), ep_port(c->local));
        check("peer address", r.dst_addr, ep_addr(c->peer));
        check("peer port", std::to_string(r.dst_port), ep_port(c->peer));
        // The kernel names the creating task; rdmastat reports its process and keeps the thread as
        // tid.
        auto task = c->owner.tid ? c->owner.tid : c->owner.pid;
        check("pid", r.pid ? std::to_string(*r.pid) : "", task ? std::to_string(*task) : "");
        if (r.pid)
            check("comm", r.comm, c->owner.comm.value_or(""));
        else
            check("kernel owner", r.comm, c->owner.kernel.value_or(""));
        check("qp number", r.lqpn ? std::to_string(*r.lqpn) : "",
              c->qp ? std::to_string(c->qp->number) : "");
        auto type = c->qp && c->qp->type ? name_of(*c->qp->type) : "";
        if (r.lqpn && c->qp) check("qp type", r.qp_type, type);
        if (!c->qp) continue;
        // The QP's state and type as the referee's QP listing has them.
        bool found = false;
        for (const auto& q : rdma_qp) {
            if (q.at("ifname") != r.ifname || q.at("lqpn") != c->qp->number) continue;
            found = true;
            // Unknown only where rdma reads RESET: a driver that does not
            // report states (analysis/qp_state.h).
            check("qp state", q.at("state"),
                  c->qp->state ? name_of(*c->qp->state) : std::string("RESET"));
            check("qp type (qp listing)", q.at("type"), type);
        }
        if (!found)
            diffs.push_back(id + ": qp " + std::to_string(c->qp->number) +
                            " not in rdma's qp listing");
    }
    for (const auto& o : ours)
        if (!seen.count({o.device, o.cm_id.value_or(0)}))
            diffs.push_back(o.device + "/" + std::to_string(o.cm_id.value_or(0)) +
                            ": not listed by rdma");
    return diffs;
}

std::vector<std::string>
compare_verbs_with_referee(const std::vector<Connection>& ours, const nlohmann::json& rdma_qp,
                           const nlohmann::json& rdma_cm_id,
                           const std::set<std::pair<std::string, std::uint32_t>>& unstable) {
    using Key = std::pair<std::string, std::uint32_t>;
    std::set<Key> of_ids;
    for (const auto& r : referee_cm_ids(rdma_cm_id))
        if (r.lqpn) of_ids.insert({r.ifname, *r.lqpn});
    std::map<Key, const nlohmann::json*> expected;
    for (const auto& q : rdma_qp) {
        const std::string type = q.at("type"), state = q.at("state");
        Key key{q.at("ifname"), q.at("lqpn")};
        if (of_ids.count(key) || unstable.count(key)) continue;
        if (type != "RC" && type != "UC" && type != "UD" && type != "XRC_INI" && type != "XRC_TGT")
            continue;
        if (state == "RESET" || state == "INIT") continue;
        expected[key] = &q;
    }
    std::vector<std::string> diffs;
    std::set<Key> seen;
    for (const Connection& c : ours) {
        if (c.via != Via::verbs) continue;
        if (!c.qp) {
            diffs.push_back(c.device + ": a verbs connection without a QP");
            continue;
        }
        Key key{c.device, c.qp->number};
        if (unstable.count(key)) continue;
        const std::string id = c.device + " qp " + std::to_string(c.qp->number);
        if (!seen.insert(key).second) diffs.push_back(id + ": listed twice");
        auto it = expected.find(key);
        if (it == expected.end()) {
            diffs.push_back(id + ": not a connected QP without cm id in rdma's listing");
            continue;
        }
        const nlohmann::json& q = *it->second;
        auto check = [&](const char* what, const std::string& theirs, const std::string& mine) {
            if (theirs != mine)
                diffs.push_back(id + " " + what + ": rdma '" + theirs + "', rdmastat '" + mine +
                                "'");
        };
        const std::uint32_t rqpn = q.value("rqpn", 0u);
        check("rqpn", rqpn ? std::to_string(rqpn) : "",
              c.qp->remote_number ? std::to_string(*c.qp->remote_number) : "");
        check("type", q.at("type"), c.qp->type ? name_of(*c.qp->type) : "");
        check("state", q.at("state"), state_name(c));
        check("port", std::to_string(q.value("port", 0u)), std::to_string(c.port.value_or(0)));
        auto task = c.owner.tid ? c.owner.tid : c.owner.pid;
        check("pid", q.contains("pid") ? std::to_string(q.at("pid").get<std::uint32_t>()) : "",
              task ? std::to_string(*task) : "");
        if (q.contains("pid"))
            check("comm", q.value("comm", ""), c.owner.comm.value_or(""));
        else
            check("kernel owner", q.value("comm", ""), c.owner.kernel.value_or(""));
    }
    for (const auto& [key, q] : expected)
        if (!seen.count(key))
            diffs.push_back(key.first + " qp " + std::to_string(key.second) +
                            ": missing from rdmastat's verbs connections");
    return diffs;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
    return out;
}

Result<Snapshot> snapshot_from_text(const std::string& text) {
    std::istringstream in(text);
    return parse_snapshot_json(in, "test.json");
}

std::string snapshot_to_text(const Snapshot& s, bool pretty) {
    std::vector<const Connection*> all;
    for (const auto& c : s.connections)
        all.push_back(&c);
    std::ostringstream out;
    write_snapshot_json(out, s, all, pretty);
    return out.str();
}

std::string golden(const std::string& name, const std::string& actual) {
    std::string path = fixtures_dir() + "/../golden/" + name;
    if (const char* u = std::getenv("RDMASTAT_UPDATE_GOLDEN"); u && std::string(u) == "1") {
        std::ofstream(path, std::ios::binary) << actual;
        return actual;
    }
    return read_file(path);
}

} // namespace rdmastat::test
