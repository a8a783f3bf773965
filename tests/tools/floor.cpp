// SPDX-License-Identifier: MIT
// rdmastat-floor: the scale benchmark's floor (bench/lab.sh). It receives the
// device dump and every device's cm_id and QP dumps, discards them and prints
// the bytes received: what any tool that lists rdma_cm ids must at least do.
// It links only the collect layer, with --as-needed, as rdmastat links only
// what a listing uses: a floor that loaded more libraries than rdmastat would
// start slower and flatter every ratio against it.
#include "collect/nldev.h"
#include "collect/nldev_parse.h"

#include <iostream>
#include <rdma/rdma_netlink.h>

using namespace rdmastat;

int main(int argc, char**) {
    if (argc != 1) {
        std::cerr << "usage: rdmastat-floor\n";
        return 2;
    }
    try {
        auto source = NldevSource::open().take();
        if (!source) throw Error("RDMA netlink", "not available");
        Bytes devices = source->dump(RDMA_NLDEV_CMD_GET).take();
        std::size_t total = devices.size();
        for (const Device& d : parse_device_dump(devices).take()) {
            total += source->dump(RDMA_NLDEV_CMD_RES_CM_ID_GET, d.index).take().size();
            total += source->dump(RDMA_NLDEV_CMD_RES_QP_GET, d.index).take().size();
        }
        std::cout << total << " bytes\n";
        return 0;
    } catch (const Error& e) {
        std::cerr << "rdmastat-floor: " << e.what() << '\n';
        return 2;
    }
}
