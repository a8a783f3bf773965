// SPDX-License-Identifier: MIT
// The rdma cgroup controller: rdma.current and rdma.max as the lab's kernels
// wrote them (tests/fixtures/rdmacg), the cgroups rdmastat reads for a set
// of owners, and how the listing, a snapshot file and the metrics carry them.
#include "analysis/metrics.h"
#include "catch_compat.hpp"
#include "collect/rdma_cgroup.h"
#include "render/text.h"
#include "support.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace rdmastat;
using namespace rdmastat::test;

namespace {

const std::string current = fixture_text("rdmacg/rdma.current");
const std::string max = fixture_text("rdmacg/rdma.max");

// A cgroup v2 tree in a temporary directory: each path gets the fixture's
// files, or "siw0" and "rxe0" unlimited and unused.
struct Tree {
    std::filesystem::path root;
    Tree() {
        char name[] = "/tmp/rdmastat-cgroup-XXXXXX";
        REQUIRE(mkdtemp(name));
        root = name;
    }
    ~Tree() { std::filesystem::remove_all(root); }
    void add(const std::string& path, const std::string& cur, const std::string& lim) {
        std::filesystem::create_directories(root.string() + path);
        std::ofstream(root.string() + path + "/rdma.current") << cur;
        std::ofstream(root.string() + path + "/rdma.max") << lim;
    }
    void add_idle(const std::string& path) {
        add(path, "siw0 hca_handle=0 hca_object=0 \nrxe0 hca_handle=0 hca_object=0 \n",
            "siw0 hca_handle=max hca_object=max \nrxe0 hca_handle=max hca_object=max \n");
    }
};

} // namespace

TEST_CASE("rdma cgroup: the kernel's files, a line per device", "[cgroup]") {
    auto devices = parse_rdma_cgroup(current, max);
    REQUIRE(devices);
    REQUIRE(devices.value().size() == 2);
    const CgroupRdmaDevice& siw = devices.value()[0];
    const CgroupRdmaDevice& rxe = devices.value()[1];
    CHECK(siw == CgroupRdmaDevice{"siw0", 0, 0, std::nullopt, std::nullopt}); // "max": no limit
    CHECK(rxe == CgroupRdmaDevice{"rxe0", 1, 4, 2, 4});
    // The same numbers, read here from the text on their own.
    CHECK(current.find("rxe0 hca_handle=1 hca_object=4") != std::string::npos);
    CHECK(max.find("rxe0 hca_handle=2 hca_object=4") != std::string::npos);

    CHECK(parse_rdma_cgroup("rxe0 hca_handle=x\n", "").error() ==
          "rdma.current: 'hca_handle=x' is not a count");
    CHECK(parse_rdma_cgroup("rxe0 hca_handle\n", "").error() ==
          "rdma.current: 'hca_handle' has no '='");
    CHECK(parse_rdma_cgroup(current, "rxe0 hca_object=-1\n").error() ==
          "rdma.max: 'hca_object=-1' is not a count");
    // A device registered between the two reads is in one file only.
    auto late = parse_rdma_cgroup("rxe0 hca_handle=0 hca_object=0\n", max);
    REQUIRE(late);
    CHECK(late.value().size() == 1);
}

TEST_CASE("rdma cgroup: an owner's cgroup and the ancestors that limit it", "[cgroup]") {
    Tree t;
    t.add("/lab.slice/limited.scope", current, max);
    // An ancestor that limits siw0 only: read, as its limit binds its children.
    t.add("/lab.slice", "siw0 hca_handle=0 hca_object=0 \nrxe0 hca_handle=1 hca_object=4 \n",
          "siw0 hca_handle=1 hca_object=max \nrxe0 hca_handle=max hca_object=max \n");
    t.add_idle("/idle.slice");
    t.add_idle("/idle.slice/owner.scope");
    // A pod's cgroup, with a limit, over a container of its; a QoS slice without.
    const std::string pod = "/kubepods.slice/kubepods-besteffort.slice/"
                            "kubepods-besteffort-pod5f0c9a7e_8b1d_4c2e_9f3a_0d4b6c8e1a27.slice";
    const std::string ctr = pod + "/cri-containerd-" + std::string(64, 'c') + ".scope";
    t.add_idle("/kubepods.slice");
    t.add_idle("/kubepods.slice/kubepods-besteffort.slice");
    t.add(pod, "rxe0 hca_handle=1 hca_object=2 \n", "rxe0 hca_handle=max hca_object=10 \n");
    t.add(ctr, "rxe0 hca_handle=1 hca_object=2 \n", "rxe0 hca_handle=max hca_object=max \n");

    std::vector<CgroupRdma> got = read_rdma_cgroups(
        {"/lab.slice/limited.scope", ctr, "/gone.scope", "/idle.slice/owner.scope"},
        t.root.string());
    std::vector<std::string> paths;
    for (const CgroupRdma& c : got)
        paths.push_back(c.path);
    // The owners' own cgroups (an idle one too), the pod's and the limiting
    // slice's, by path; not the slices that limit nothing, nor a cgroup
    // without the files.
    CHECK(paths == std::vector<std::string>{"/idle.slice/owner.scope", pod, ctr, "/lab.slice",
                                            "/lab.slice/limited.scope"});
    got.erase(got.begin()); // the idle owner's
    CHECK(got[2].devices.at(0).hca_handle_max == 1u);
    CHECK(got[0].pod);
    CHECK_FALSE(got[0].container);
    CHECK(got[0].devices.at(0).hca_object_max == 10u);
    CHECK(got[1].container);
    CHECK(got[1].pod);
    CHECK(got[3].accounted());
    CHECK(got[3].devices.at(1) == CgroupRdmaDevice{"rxe0", 1, 4, 2, 4});
    // No cgroup v2 mount there: nothing.
    CHECK(read_rdma_cgroups({"/lab.slice/limited.scope"}, "/nonexistent").empty());

    // In a private cgroup namespace the container's own cgroup is "/", and
    // others' lie outside it ("/../x"): the root's files are read, nothing
    // above it.
    Tree ns;
    ns.add("/", current, max);
    ns.add_idle("/sub");
    std::vector<CgroupRdma> inside = read_rdma_cgroups({"/sub", "/../../other"}, ns.root.string());
    REQUIRE(inside.size() == 2);
    CHECK(inside[0].path == "/");
    CHECK(inside[0].devices.at(1).hca_object_max == 4u);
    CHECK(inside[1].path == "/sub");
}

TEST_CASE("rdma cgroup: listing, snapshot file and metrics", "[cgroup]") {
    Snapshot s;
    s.rdma_cgroups_collected = true;
    s.rdma_cgroups.push_back(CgroupRdma{"/lab.slice/limited.scope", std::nullopt, std::nullopt,
                                        parse_rdma_cgroup(current, max).take()});
    s.rdma_cgroups.push_back(CgroupRdma{"/idle.scope", std::nullopt, std::nullopt,
                                        {CgroupRdmaDevice{"rxe0", 0, 0, {}, {}}}});

    // -e's block: the rows that hold or limit something, used/limit.
    std::ostringstream text;
    render_rdma_cgroups(text, s.rdma_cgroups, true);
    CHECK(text.str() == "\nRDMA Cgroup               Container  Pod  Device  HCA-Handles  "
                        "HCA-Objects\n/lab.slice/limited.scope  -          -    rxe0    1/2   "
                        "       4/4\n");
    std::ostringstream none;
    render_rdma_cgroups(none, {s.rdma_cgroups[1]}, true);
    CHECK(none.str().empty());

    // A snapshot file keeps them, and a file without them has none collected.
    auto back = snapshot_from_text(snapshot_to_text(s, false));
    REQUIRE(back);
    CHECK(back.value().rdma_cgroups_collected);
    CHECK(back.value().rdma_cgroups == s.rdma_cgroups);
    CHECK_FALSE(snapshot_from_text(R"({"version":1,"devices":[],"connections":[]})")
                    .value()
                    .rdma_cgroups_collected);

    // Metrics: usage of each resource, a limit only where one is set; the
    // cgroups that set none only with --per-container.
    s.rdma_cgroups.push_back(CgroupRdma{
        "/busy.scope", std::nullopt, std::nullopt, {CgroupRdmaDevice{"rxe0", 1, 9, {}, {}}}});
    const auto samples = [&](bool per_container, const std::string& name) {
        MetricsOptions o;
        o.per_container = per_container;
        std::vector<Sample> out;
        for (const MetricFamily& f : build_metrics(s, o))
            if (f.name == name) out = f.samples;
        return out;
    };
    const auto usage = samples(false, "rdmastat_cgroup_rdma_usage");
    const auto limit = samples(false, "rdmastat_cgroup_rdma_limit");
    CHECK(usage.size() == 2); // rxe0's handles and objects; siw0 neither used nor limited
    CHECK(limit.size() == 2);
    for (const Sample& l : limit) {
        CHECK(l.labels.at(0).second == "/lab.slice/limited.scope");
        CHECK(l.labels.at(4).second == "rxe0");
        CHECK(l.value == (l.labels.at(5).second == "hca_object" ? 4 : 2));
    }
    const auto every = samples(true, "rdmastat_cgroup_rdma_usage");
    CHECK(every.size() == 4); // and the busy cgroup's, without a limit
    CHECK(samples(true, "rdmastat_cgroup_rdma_limit").size() == 2);
    // Not collected: no family at all.
    Snapshot bare;
    for (const MetricFamily& f : build_metrics(bare))
        CHECK(f.name.find("cgroup_rdma") == std::string::npos);
}
