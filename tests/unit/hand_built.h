// SPDX-License-Identifier: MIT
#pragma once

// Builders for hand-built snapshots: only for cases the lab cannot produce
// (iWARP RNICs, port mappers, other users' processes), each test says so.
// Also the CLI runner and saved-snapshot files the lsof and check tests share.

#include "model/model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat::test {

/// "10.0.0.1" or "fd00::1" and a port; the address must parse.
Endpoint ep(const char* address, std::uint16_t port);

Device device(const char* name, Transport t, std::optional<std::string> driver);

/// A cm_id on device dev with owner pid (none when nullopt), port space ps.
Connection cm(const char* dev, Transport t, std::uint32_t id, const char* state, Endpoint local,
              Endpoint peer, std::optional<std::uint32_t> pid, const char* ps = "tcp");

HostSocket host_socket(const char* state, Endpoint local, Endpoint peer,
                       std::optional<std::uint32_t> pid = std::nullopt,
                       std::optional<std::uint32_t> fd = std::nullopt);

Process process(std::uint32_t pid, const char* comm, std::uint32_t uid, const char* user,
                std::vector<OpenFile> files = {}, bool inspected = true);

/// tests/fixtures/NAME read as --input reads it.
Snapshot fixture_snapshot(const std::string& name);

struct CliRun {
    int rc;
    std::string out, err;
};
/// run_cli(args) with its output captured.
CliRun run_args(const std::vector<std::string>& args);

/// A snapshot saved as rdmastat -j saves it, in a temporary file removed at destruction.
class SavedSnapshot {
  public:
    explicit SavedSnapshot(const Snapshot& s);
    ~SavedSnapshot();
    SavedSnapshot(const SavedSnapshot&) = delete;
    SavedSnapshot& operator=(const SavedSnapshot&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

} // namespace rdmastat::test
