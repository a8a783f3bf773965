// SPDX-License-Identifier: MIT
#include "hand_built.h"

#include "cli/app.h"
#include "collect/snapshot_file.h"
#include "model/names.h"
#include "render/json.h"
#include "support.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace rdmastat::test {

Endpoint ep(const char* address, std::uint16_t port) {
    return Endpoint{IpAddress::parse(address).value(), port};
}

Device device(const char* name, Transport t, std::optional<std::string> driver) {
    Device d;
    d.name = name;
    d.transport = t;
    d.driver = std::move(driver);
    return d;
}

Connection cm(const char* dev, Transport t, std::uint32_t id, const char* state, Endpoint local,
              Endpoint peer, std::optional<std::uint32_t> pid, const char* ps) {
    Connection c;
    c.device = dev;
    c.port = 1;
    c.transport = t;
    if (ps) c.port_space = enum_from_name<PortSpace>(ps).value();
    c.cm_id = id;
    c.state = enum_from_name<CmState>(state).value();
    c.local = local;
    c.peer = peer;
    c.owner.pid = pid;
    return c;
}

HostSocket host_socket(const char* state, Endpoint local, Endpoint peer,
                       std::optional<std::uint32_t> pid, std::optional<std::uint32_t> fd) {
    HostSocket s;
    s.state = enum_from_name<TcpState>(state).value();
    s.local = local;
    s.peer = peer;
    s.inode = 7000 + local.port;
    s.pid = pid;
    s.fd = fd;
    return s;
}

Process process(std::uint32_t pid, const char* comm, std::uint32_t uid, const char* user,
                std::vector<OpenFile> files, bool inspected) {
    return Process{pid, comm, uid, user, inspected, std::move(files)};
}

Snapshot fixture_snapshot(const std::string& name) {
    std::istringstream in(fixture_text(name));
    return parse_snapshot_json(in, name).take();
}

CliRun run_args(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    int rc = run_cli(args, out, err);
    return {rc, out.str(), err.str()};
}

SavedSnapshot::SavedSnapshot(const Snapshot& s) {
    static std::atomic<int> serial{0};
    path_ = std::filesystem::temp_directory_path() / ("rdmastat-test-" + std::to_string(getpid()) +
                                                      "-" + std::to_string(serial++) + ".json");
    std::vector<const Connection*> all;
    for (const Connection& c : s.connections)
        all.push_back(&c);
    std::ofstream out(path_);
    write_snapshot_json(out, s, all, false);
}

SavedSnapshot::~SavedSnapshot() {
    std::filesystem::remove(path_);
}

} // namespace rdmastat::test
