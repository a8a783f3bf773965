// SPDX-License-Identifier: MIT
// Cgroup paths as each runtime names them (collect/cgroup.h); the lab's
// [containers] tests check the same against real cgroups and processes.
#include "catch_compat.hpp"
#include "collect/cgroup.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace rdmastat;

namespace {

const std::string id_a(64, 'a');
const std::string id_b = "3f1d" + std::string(60, '9');
const std::string uid = "0b5ec1d2-3f4a-4b5c-8d6e-7f8091a2b3c4";
const std::string uid_ = "0b5ec1d2_3f4a_4b5c_8d6e_7f8091a2b3c4"; // as systemd escapes it

Workload of(const std::string& path) {
    INFO(path);
    return workload_of(path);
}

void container_is(const std::string& path, ContainerRuntime runtime, const std::string& id) {
    Workload w = of(path);
    INFO(path);
    REQUIRE(w.container);
    CHECK(w.container->runtime == runtime);
    CHECK(w.container->id == id);
}

} // namespace

TEST_CASE("cgroup: the v2 line of /proc/PID/cgroup", "[cgroup]") {
    CHECK(cgroup_v2_path("0::/user.slice/user-1000.slice/session-2.scope\n") ==
          "/user.slice/user-1000.slice/session-2.scope");
    // A hybrid host lists v1 hierarchies first.
    CHECK(cgroup_v2_path("9:name=systemd:/\n4:memory:/x\n0::/\n") == "/");
    CHECK(cgroup_v2_path("4:memory:/x\n1:cpu:/\n") == std::nullopt);
    CHECK(cgroup_v2_path("") == std::nullopt);
    CHECK(cgroup_v2_path("0::") == "");
}

TEST_CASE("cgroup: containers as docker, containerd, cri-o and podman name them", "[cgroup]") {
    using R = ContainerRuntime;
    container_is("/system.slice/docker-" + id_a + ".scope", R::docker, id_a);
    container_is("/docker/" + id_a, R::docker, id_a); // cgroupfs driver
    container_is("/system.slice/crio-" + id_b + ".scope", R::crio, id_b);
    container_is("/machine.slice/libpod-" + id_a + ".scope", R::podman, id_a);
    container_is("/machine.slice/libpod-" + id_a + ".scope/container", R::podman, id_a);
    // Rootless podman, in the user's own systemd.
    container_is("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + id_b +
                     ".scope",
                 R::podman, id_b);
    container_is("/libpod_parent/libpod-" + id_a, R::podman, id_a);
    // Docker in docker: the host's runtime's container is the outer one.
    container_is("/system.slice/docker-" + id_a + ".scope/docker/" + id_b, R::docker, id_a);
    // Not containers: monitors, services, near misses.
    for (const std::string& path : std::vector<std::string>{
             "/", "/system.slice/docker.service", "/system.slice/crio-conmon-" + id_a + ".scope",
             "/machine.slice/libpod-conmon-" + id_a + ".scope",
             "/system.slice/docker-" + id_a.substr(1) + ".scope",
             "/system.slice/docker-" + std::string(64, 'A') + ".scope", "/" + id_a,
             "/user.slice/user-1000.slice/session-2.scope"}) {
        INFO(path);
        CHECK_FALSE(of(path).container);
        CHECK_FALSE(of(path).pod);
    }
}

TEST_CASE("cgroup: kubelet's pods, their QoS class and their containers", "[cgroup]") {
    using R = ContainerRuntime;
    struct Case {
        std::string path;
        PodQos qos;
        std::optional<Container> container;
    };
    const std::string slice =
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + uid_ + ".slice";
    for (const Case& c : std::vector<Case>{
             // systemd driver: containerd (CRI) and cri-o
             {slice + "/cri-containerd-" + id_a + ".scope", PodQos::burstable,
              Container{R::containerd, id_a}},
             {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid_ +
                  ".slice/crio-" + id_b + ".scope",
              PodQos::besteffort, Container{R::crio, id_b}},
             {"/kubepods.slice/kubepods-pod" + uid_ + ".slice/cri-containerd-" + id_a + ".scope",
              PodQos::guaranteed, Container{R::containerd, id_a}},
             // the pod's own cgroup: a pod, no container
             {slice, PodQos::burstable, std::nullopt},
             // cgroupfs driver
             {"/kubepods/burstable/pod" + uid + "/" + id_a, PodQos::burstable,
              Container{R::containerd, id_a}},
             {"/kubepods/pod" + uid + "/crio-" + id_b, PodQos::guaranteed,
              Container{R::crio, id_b}},
             {"/kubepods/besteffort/pod" + uid + "/" + id_b, PodQos::besteffort,
              Container{R::containerd, id_b}},
         }) {
        Workload w = of(c.path);
        INFO(c.path);
        REQUIRE(w.pod);
        CHECK(w.pod->uid == uid);
        CHECK(w.pod->qos == c.qos);
        CHECK(w.container == c.container);
    }
    // kind's kubelet (--cgroup-root=/kubelet) prefixes its slices.
    Workload kind = of("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
                       "kubelet-kubepods-burstable-pod" +
                       uid_ + ".slice/cri-containerd-" + id_a + ".scope");
    REQUIRE(kind.pod);
    CHECK(kind.pod->uid == uid);
    CHECK(kind.pod->qos == PodQos::burstable);
    REQUIRE(kind.container);
    CHECK(kind.container->id == id_a);
    // A static pod's UID is a 32-digit hash.
    std::string hash(32, 'c');
    Workload w = of("/kubepods.slice/kubepods-pod" + hash + ".slice");
    REQUIRE(w.pod);
    CHECK(w.pod->uid == hash);
    // "pod..." outside kubepods, or without a UID, is no pod.
    CHECK_FALSE(of("/system.slice/pod" + uid).pod);
    CHECK_FALSE(of("/kubepods/burstable/podx").pod);
    CHECK_FALSE(of("/kubepods.slice/kubepods-burstable.slice").pod);
}

TEST_CASE("cgroup: resolve_cgroups reads each pid's file, skips the gone", "[cgroup]") {
    auto root =
        std::filesystem::temp_directory_path() / ("rdmastat-cgroup-" + std::to_string(getpid()));
    std::filesystem::create_directories(root / "10");
    std::filesystem::create_directories(root / "11");
    std::ofstream(root / "10" / "cgroup")
        << "1:cpu:/\n0::/system.slice/docker-" << id_a << ".scope\n";
    std::ofstream(root / "11" / "cgroup") << "4:memory:/\n"; // v1 only
    CgroupMap m = resolve_cgroups({10, 11, 12}, root.string());
    std::filesystem::remove_all(root);
    REQUIRE(m.size() == 1);
    CHECK(m.at(10).path == "/system.slice/docker-" + id_a + ".scope");
    REQUIRE(m.at(10).workload.container);
    CHECK(m.at(10).workload.container->id == id_a);

    Owner o;
    o.pid = 10;
    set_workload(o, m);
    CHECK(o.cgroup == m.at(10).path);
    REQUIRE(o.container);
    CHECK(o.container->id == id_a);
    Owner gone;
    gone.pid = 12;
    set_workload(gone, m);
    CHECK_FALSE(gone.cgroup);
    // This process's own file, from the real /proc: a path when the host has v2.
    CgroupMap self = resolve_cgroups({static_cast<std::uint32_t>(getpid())});
    if (!self.empty()) CHECK(self.begin()->second.path.starts_with("/"));
}

TEST_CASE("cgroup: CgroupCache reads a pid once until forget", "[cgroup]") {
    auto root =
        std::filesystem::temp_directory_path() / ("rdmastat-cgcache-" + std::to_string(getpid()));
    std::filesystem::create_directories(root / "20");
    auto write = [&](const std::string& path) {
        std::ofstream(root / "20" / "cgroup") << "0::" << path << "\n";
    };
    const std::string docker = "/system.slice/docker-" + id_a + ".scope";
    write(docker);
    CgroupCache cache(root.string());
    Owner first;
    first.pid = 20;
    cache.fill(first);
    CHECK(first.cgroup == docker);
    REQUIRE(first.container);
    CHECK(first.container->runtime == ContainerRuntime::docker);
    // The file changes (the pid now another process's): until forget, the
    // cache answers; an owner that has a cgroup is left as it is.
    write("/lab.slice/plain.scope");
    Owner second;
    second.pid = 20;
    cache.fill(second);
    CHECK(second.cgroup == docker);
    Owner known;
    known.pid = 20;
    known.cgroup = "/given";
    cache.fill(known);
    CHECK(known.cgroup == "/given");
    CHECK_FALSE(known.container);
    cache.forget();
    Owner third;
    third.pid = 20;
    cache.fill(third);
    CHECK(third.cgroup == "/lab.slice/plain.scope");
    CHECK_FALSE(third.container);
    // A pid without a file stays without, and so does a kernel owner.
    Owner gone;
    gone.pid = 21;
    cache.fill(gone);
    CHECK_FALSE(gone.cgroup);
    std::filesystem::create_directories(root / "21");
    std::ofstream(root / "21" / "cgroup") << "0::/late\n";
    cache.fill(gone);
    CHECK_FALSE(gone.cgroup); // remembered as unknown until forget
    cache.forget();
    cache.fill(gone);
    CHECK(gone.cgroup == "/late");
    Owner kernel;
    kernel.kernel = "nvme_rdma";
    cache.fill(kernel);
    CHECK_FALSE(kernel.cgroup);
    std::filesystem::remove_all(root);
}
