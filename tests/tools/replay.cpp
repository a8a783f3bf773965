// SPDX-License-Identifier: MIT
// rdmastat-replay DIR [-j]: what a listing does between receiving the kernel's
// dumps and writing, on the host: parses rdmastat-capture's NLDEV dumps of DIR
// (devices, ports, chardev, cm_id and qp of every device), joins them and writes
// the listing (-a -e, or -a -j) to standard output. No owner is looked up: the
// pids belong to the machine that captured. For a profile (callgrind) of the
// per-row work of the scale benchmark's listing, which the lab runs under TCG.
#include "analysis/join.h"
#include "collect/nldev_parse.h"
#include "render/output.h"

#include <fstream>
#include <iostream>
#include <string>

using namespace rdmastat;

static Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const auto size = in.tellg();
    if (!in || size < 0) throw Error(path, "cannot open");
    Bytes bytes(static_cast<std::size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
        throw Error(path, "cannot read");
    return bytes;
}

int main(int argc, char** argv) {
    const bool json = argc == 3 && std::string(argv[2]) == "-j";
    if (argc != 2 && !json) {
        std::cerr << "usage: rdmastat-replay DIR [-j]\n";
        return 2;
    }
    try {
        const std::string dir = argv[1];
        auto file = [&](const std::string& name) { return read_bytes(dir + "/" + name); };
        NldevData data;
        data.devices = parse_device_dump(file("devices.bin")).take();
        for (Device& d : data.devices) {
            d.ports = parse_port_dump(file("ports-" + d.name + ".bin")).take();
            // Captured only when the kernel answered; without it, no driver.
            const std::string chardev = dir + "/chardev-" + d.name + ".bin";
            if (std::ifstream(chardev)) d.driver = parse_chardev_driver(read_bytes(chardev)).take();
            for (CmIdRecord& c : parse_cm_id_dump(file("cm_id-" + d.name + ".bin")).take())
                data.cm_ids.push_back(std::move(c));
            for (QpRecord& q : parse_qp_dump(file("qp-" + d.name + ".bin")).take())
                data.qps.push_back(std::move(q));
        }
        Snapshot snap = join(data, {});
        const Output output{json ? Format::json : Format::text, false};
        auto writer = writer_for(output)->listing(std::cout, TextOptions{true, true, true, true});
        Snapshot head = snap;
        head.connections.clear();
        writer->begin(head);
        for (const Connection& c : snap.connections)
            writer->connection(c);
        writer->finish(head);
        return 0;
    } catch (const Error& e) {
        std::cerr << "rdmastat-replay: " << e.what() << '\n';
        return 1;
    }
}
