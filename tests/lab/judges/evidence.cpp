// SPDX-License-Identifier: MIT
#include "evidence.h"

#include "catch_compat.hpp"
#include "collect/snapshot_file.h"
#include "ping/wire.h"
#include "support.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace rdmastat::test {

std::string Evidence::path(const std::string& name) const {
    const char* out = std::getenv("RDMASTAT_LAB_OUT");
    if (!out) FAIL("RDMASTAT_LAB_OUT is not set: run through tests/lab/check.sh");
    return std::string(out) + "/" + dir + "/" + name;
}

std::string Evidence::text(const std::string& name) const {
    return read_file(path(name));
}

bool Evidence::has(const std::string& name) const {
    return std::filesystem::exists(path(name));
}

int Evidence::rc(const std::string& name) const {
    return std::stoi(text(name + ".rc"));
}

nlohmann::json Evidence::json(const std::string& name) const {
    return nlohmann::json::parse(text(name));
}

std::vector<nlohmann::json> Evidence::json_lines(const std::string& name) const {
    std::vector<nlohmann::json> out;
    std::istringstream in(text(name));
    for (std::string line; std::getline(in, line);)
        out.push_back(nlohmann::json::parse(line));
    return out;
}

Snapshot Evidence::snapshot(const std::string& name) const {
    std::istringstream in(text(name));
    return parse_snapshot_json(in, name).take();
}

double prom_value(const std::string& exposition, const std::string& series) {
    std::istringstream in(exposition);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
    return -1.0;
}

std::string without_ready(const std::string& err, const std::string& context) {
    const std::string line =
        "rdmastat: " + context + ": ready: tracing; what happens from now on is reported\n";
    INFO(err);
    const auto at = err.find(line);
    CHECK(at != std::string::npos);
    if (at == std::string::npos) return err;
    CHECK(err.find(line, at + line.size()) == std::string::npos);
    std::string rest = err.substr(0, at) + err.substr(at + line.size());
    // A kernel without RDMA netlink's monitor: said once, before the ready line.
    const std::string no_devices =
        "rdmastat: " + context + ": this kernel sends no RDMA device events";
    if (const auto n = rest.find(no_devices); n != std::string::npos) {
        CHECK(n < at);
        const auto end = rest.find('\n', n);
        REQUIRE(end != std::string::npos);
        rest.erase(n, end + 1 - n);
        CHECK(rest.find(no_devices) == std::string::npos);
    }
    return rest;
}

unsigned event_port(const nlohmann::json& connection, const char* end) {
    return connection.contains(end) && connection[end].is_object()
               ? connection[end]["port"].get<unsigned>()
               : 0u;
}

bool rping_ended_ok(int rc, const std::string& said) {
    if (said.find("mismatch") != std::string::npos || said.find("failed") != std::string::npos)
        return false;
    return rc == 0 ||
           (rc == 255 && said.find("rdma_get_cm_event: Bad file descriptor") != std::string::npos);
}

std::string our_payload_text(std::uint32_t size, std::uint64_t seq) {
    std::vector<std::uint8_t> buf(size);
    ping::fill_rping_payload(buf, seq);
    return ping::printable_prefix(buf);
}

} // namespace rdmastat::test
