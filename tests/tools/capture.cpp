// SPDX-License-Identifier: MIT
// rdmastat-capture DIR: writes the raw bytes of every NLDEV dump rdmastat makes
// (devices.bin, then per device ports-DEV.bin, cm_id-DEV.bin, qp-DEV.bin) into DIR.
// rdmastat-capture --module DIR: writes the rdmastat module's RDMASTAT_CMD_CONN_GET
// dump as DIR/module-dump.bin (the module must be loaded).
// Run in the lab (tests/lab/scenarios/capture.sh, module.sh) to refresh tests/fixtures.
#include "collect/module.h"
#include "collect/nldev.h"
#include "collect/nldev_parse.h"

#include <fstream>
#include <iostream>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

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
    return 0;
}

int main(int argc, char** argv) {
    bool module = argc == 3 && std::string(argv[1]) == "--module";
    if (argc != 2 && !module) {
        std::cerr << "usage: rdmastat-capture [--module] DIR\n";
        return 2;
    }
    try {
        if (module) return capture_module(argv[2]);
        std::string dir = argv[1];
        auto source = NldevSource::open().take();
        if (!source) throw Error("RDMA netlink", "not available");
        Bytes devices = source->dump(RDMA_NLDEV_CMD_GET).take();
        save(dir + "/devices.bin", devices);
        for (const Device& d : parse_device_dump(devices).take()) {
            save(dir + "/ports-" + d.name + ".bin",
                 source->dump(RDMA_NLDEV_CMD_PORT_GET, d.index).take());
            save(dir + "/cm_id-" + d.name + ".bin",
                 source->dump(RDMA_NLDEV_CMD_RES_CM_ID_GET, d.index).take());
            if (auto reply = source->chardev(d.index))
                save(dir + "/chardev-" + d.name + ".bin", reply.value());
            save(dir + "/qp-" + d.name + ".bin",
                 source->dump(RDMA_NLDEV_CMD_RES_QP_GET, d.index).take());
        }
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
