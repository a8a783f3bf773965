// SPDX-License-Identifier: MIT
// SRQs in lsof: the ib_send_bw servers of the lab's capture scenario each hold
// one SRQ shared by their QPs. The rows are judged against `rdma -j res show
// srq` taken at the same moment, and (in the lab) against the QP and PD rows
// of the same process.
#include "analysis/lsof.h"
#include "catch_compat.hpp"
#include "collect/nldev_parse.h"
#include "collect/resources.h"
#include "host_referee.h"
#include "render/lsof.h"
#include "support.h"

#include <algorithm>
#include <set>
#include <sstream>

using namespace rdmastat;
using namespace rdmastat::test;
using nlohmann::json;

namespace {

// "srqn 0 BASIC lqpn 6-8 pdn 13": the NAME lsof shows, from rdma's entry.
std::string expected_name(const json& e) {
    return "srqn " + std::to_string(e.at("srqn").get<std::uint32_t>()) + " " +
           e.at("type").get<std::string>() + " lqpn " + rdma_lqpn_text(e) + " pdn " +
           std::to_string(e.at("pdn").get<std::uint32_t>());
}

} // namespace

TEST_CASE("lsof lists each server's SRQ as rdma does", "[lsof][resources]") {
    FOR_EACH_FIXTURE_KERNEL();
    std::vector<ResourceRecord> records;
    for (const char* dev : {"siw0", "rxe0"})
        for (auto& r : parse_resource_dump(ResourceKind::srq,
                                           fixture_bytes(std::string("srq-") + dev + ".bin"))
                           .take())
            records.push_back(std::move(r));
    Snapshot snap;
    snap.resources = to_resources(records, {});
    snap.resources_collected = true;
    LsofResult result = select_lsof(snap, LsofSelectors{});

    const auto servers = srq_servers();
    json ref = json::parse(fixture_text("rdma-srq.json"));
    REQUIRE(ref.size() == 2);
    REQUIRE(result.holders.size() == 2); // one server per device
    for (const json& e : ref) {
        const std::string device = e.at("ifname");
        INFO(e.dump());
        auto holder =
            std::find_if(result.holders.begin(), result.holders.end(),
                         [&](const LsofHolder& h) { return h.pid == servers.at(device); });
        REQUIRE(holder != result.holders.end());
        REQUIRE(holder->files.size() == 1);
        const LsofFile& f = holder->files[0];
        CHECK(lsof_type(f) == "SRQ");
        CHECK(f.resource->device == device);
        CHECK(lsof_name(f) == expected_name(e));
    }
    std::ostringstream text;
    render_lsof(text, result, LsofTextOptions{});
    CHECK_THAT(text.str(), Catch::Contains(" SRQ ") && Catch::Contains(expected_name(ref[0])));
}

TEST_CASE("lab: each server's lsof has its SRQ, the QPs on it and its PD", "[lab]") {
    const std::string dir = lab_capture_dir();
    json ref = json::parse(capture_text(dir, "rdma-srq.json"));
    std::size_t judged = 0;
    for (const auto& server : srq_servers(dir)) {
        const std::string& dev = server.first; // named, not bound: lambdas capture them
        const std::uint32_t pid = server.second;
        ++judged;
        INFO(dev << " server " << pid);
        json doc = json::parse(capture_text(dir, "srq-lsof-" + dev + ".json"));
        REQUIRE(doc.at("processes").size() == 1);
        const json& p = doc.at("processes")[0];
        CHECK(p.at("pid") == pid);
        CHECK(p.at("comm") == "ib_send_bw");
        std::vector<json> srqs;
        std::set<std::uint32_t> qps, pds;
        for (const json& f : p.at("files")) {
            if (f.value("device", "") != dev) continue;
            if (f.at("type") == "SRQ") srqs.push_back(f);
            if (f.at("type") == "QP") qps.insert(f.at("number").get<std::uint32_t>());
            if (f.at("type") == "PD") pds.insert(f.at("number").get<std::uint32_t>());
        }
        REQUIRE(srqs.size() == 1);
        const json& srq = srqs[0];
        auto e = std::find_if(ref.begin(), ref.end(), [&](const json& x) {
            return x.at("ifname") == dev && x.at("pid") == pid;
        });
        REQUIRE(e != ref.end());
        CHECK(srq.at("number") == e->at("srqn"));
        CHECK(srq.at("name") == expected_name(*e));
        // Its QPs and its PD are the process's own, listed beside it.
        const auto on_srq = qp_numbers(srq.at("details").at("lqpn"));
        CHECK(on_srq.size() == 3);
        for (std::uint32_t qpn : on_srq)
            CHECK(qps.count(qpn) == 1);
        CHECK(pds.count(static_cast<std::uint32_t>(
                  std::stoul(srq.at("details").at("pdn").get<std::string>()))) == 1);
    }
    CHECK(judged == 2);
}
