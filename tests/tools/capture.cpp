// SPDX-License-Identifier: MIT
// rdmastat-capture DIR: writes the raw bytes of every NLDEV dump rdmastat makes
// (devices.bin, then per device ports-DEV.bin, cm_id-DEV.bin and, per resource
// kind, qp-DEV.bin, cq-DEV.bin, mr-DEV.bin, pd-DEV.bin, ctx-DEV.bin) and of the
// sock_diag TCP dumps (sockdiag-ipv4.bin, sockdiag-ipv6.bin) into DIR.
// rdmastat-capture --module DIR: writes the rdmastat module's RDMASTAT_CMD_CONN_GET
// dump as DIR/module-dump.bin, and to root its RDMASTAT_CMD_QP_GET dump as
// DIR/module-qp.bin (the module must be loaded).
// Per device port also stat-DEV-PORT.bin (NLDEV statistics reply, or the
// kernel's refusal) and per device qpcounters-DEV.bin (QP-bound counters).
// rdmastat-capture --stats DIR: only those statistics files.
// rdmastat-capture --kping DIR: writes rdmastat_kping's RDMASTAT_KPING_CMD_GET
// dump as DIR/kping-dump.bin (rdmastat_kping.ko must be loaded).
// rdmastat-capture --snapshot FILE: writes what the pipeline collects with every
// need (host sockets, processes, resources) as snapshot JSON ("-": stdout).
// rdmastat-capture --monitor DIR: writes the NLDEV sys get reply as DIR/sys.bin
// once it has joined RDMA netlink's monitor group, then appends each datagram
// the kernel sends the group to DIR/monitor.bin until it is killed.
// Run in the lab (tests/lab/scenarios/capture.sh, module.sh) to refresh tests/fixtures.
#include "collect/counters.h"
#include "collect/kping.h"
#include "collect/module.h"
#include "collect/nldev.h"
#include "collect/nldev_monitor.h"
#include "collect/nldev_parse.h"
#include "collect/sockdiag.h"
#include "model/names.h"
#include "pipeline/pipeline.h"
#include "render/json.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <libmnl/libmnl.h>
#include <poll.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

using namespace rdmastat;

static void save(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error(path, "write failed");
    std::cout << path << ": " << bytes.size() << " bytes\n";
}

static int capture_module(const std::string& dir) {
    auto source = ModuleSource::open().take();
    if (!source)
        throw Error("module source", "the rdmastat generic netlink family is not registered");
    save(dir + "/module-dump.bin", source->dump().take());
    // The QP dump answers only CAP_NET_ADMIN callers.
    if (auto qps = source->dump_qps())
        save(dir + "/module-qp.bin", qps.value());
    else
        std::cerr << "rdmastat-capture: module qp dump: " << qps.error() << "\n";
    return 0;
}

static int capture_kping(const std::string& dir) {
    auto source = KpingSource::open().take();
    if (!source) throw Error("kping source", "rdmastat_kping.ko is not loaded");
    save(dir + "/kping-dump.bin", source->dump().take());
    return 0;
}

static int capture_snapshot(const std::string& path) {
    Collection a =
        run_pipeline(Request{std::nullopt, SourceChoice::automatic, Needs{true, true, true}});
    require_all(a);
    std::vector<const Connection*> all;
    for (const Connection& c : a.snapshot.connections)
        all.push_back(&c);
    if (path == "-") {
        write_snapshot_json(std::cout, a.snapshot, all, true);
        return 0;
    }
    std::ofstream out(path);
    write_snapshot_json(out, a.snapshot, all, true);
    if (!out) throw Error(path, "write failed");
    return 0;
}

// NLDEV statistics of every port and the QP-bound counters of every device; a
// refusal is saved as the kernel's error reply (siw has no counters).
static void capture_stats(NldevSource& source, const std::string& dir, const Device& d) {
    for (const Port& p : d.ports) {
        std::uint32_t index = d.index, port = p.index;
        save(dir + "/stat-" + d.name + "-" + std::to_string(port) + ".bin",
             source.socket()
                 .exchange([&](nlmsghdr* nlh) {
                     nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
                     nlh->nlmsg_flags |= NLM_F_ACK;
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
                 })
                 .take());
    }
    save(dir + "/qpcounters-" + d.name + ".bin", source.qp_counters(d.index).take());
}

static int capture_stats_only(const std::string& dir) {
    auto source = NldevSource::open().take();
    if (!source) throw Error("RDMA netlink", "not available");
    for (const Device& d : source->collect(false).take().devices)
        capture_stats(*source, dir, d);
    return 0;
}

static int capture_monitor(const std::string& dir) {
    NldevMonitor monitor = NldevMonitor::open().take();
    auto source = NldevSource::open().take();
    if (!source) throw Error("RDMA netlink", "not available");
    save(dir + "/sys.bin", source->system().take());
    std::ofstream out(dir + "/monitor.bin", std::ios::binary);
    for (;;) {
        pollfd p{monitor.fd(), POLLIN, 0};
        if (::poll(&p, 1, -1) < 0 && errno != EINTR) throw Error("poll", std::strerror(errno));
        monitor
            .read_datagrams([&](const std::uint8_t* data, std::size_t n) {
                out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
                out.flush();
                std::cout << "monitor.bin: " << n << " bytes more" << std::endl;
            })
            .take();
        if (!out) throw Error(dir + "/monitor.bin", "write failed");
        // A referee that missed messages is no referee.
        if (monitor.overruns())
            throw Error("monitor", "the kernel dropped messages the capture had not read");
    }
}

int main(int argc, char** argv) {
    std::string mode = argc >= 2 ? argv[1] : "";
    if (argc != 3) mode.clear();
    if (argc != 2 && mode != "--module" && mode != "--kping" && mode != "--snapshot" &&
        mode != "--stats" && mode != "--monitor") {
        std::cerr << "usage: rdmastat-capture [--module | --kping | --stats | --monitor] DIR\n"
                     "       rdmastat-capture --snapshot FILE\n";
        return 2;
    }
    try {
        if (mode == "--module") return capture_module(argv[2]);
        if (mode == "--kping") return capture_kping(argv[2]);
        if (mode == "--snapshot") return capture_snapshot(argv[2]);
        if (mode == "--stats") return capture_stats_only(argv[2]);
        if (mode == "--monitor") return capture_monitor(argv[2]);
        std::string dir = argv[1];
        auto source = NldevSource::open().take();
        if (!source) throw Error("RDMA netlink", "not available");
        Bytes devices = source->dump(RDMA_NLDEV_CMD_GET).take();
        save(dir + "/devices.bin", devices);
        for (const Device& d : source->collect(false).take().devices)
            capture_stats(*source, dir, d);
        for (const Device& d : parse_device_dump(devices).take()) {
            save(dir + "/ports-" + d.name + ".bin",
                 source->dump(RDMA_NLDEV_CMD_PORT_GET, d.index).take());
            save(dir + "/cm_id-" + d.name + ".bin",
                 source->dump(RDMA_NLDEV_CMD_RES_CM_ID_GET, d.index).take());
            if (auto reply = source->chardev(d.index))
                save(dir + "/chardev-" + d.name + ".bin", reply.value());
            for (const NldevResourceKind& k : nldev_resource_kinds())
                save(dir + "/" + name_of(k.kind) + "-" + d.name + ".bin",
                     source->dump(k.command, d.index).take());
        }
        auto sockets = SockDiagSource::open().take();
        save(dir + "/sockdiag-ipv4.bin", sockets.dump(AF_INET).take());
        save(dir + "/sockdiag-ipv6.bin", sockets.dump(AF_INET6).take());
        // A request the kernel rejects by policy (a 1-byte device index): its
        // error reply carries the extended-ack text rdmastat must show.
        save(dir + "/error-extack.bin",
             source->socket()
                 .exchange([](nlmsghdr* nlh) {
                     nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET);
                     mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
                 })
                 .take());
        return 0;
    } catch (const Error& e) {
        std::cerr << "rdmastat-capture: " << e.what() << '\n';
        return 2;
    }
}
