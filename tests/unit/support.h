// SPDX-License-Identifier: MIT
#pragma once

// Test support: captured fixtures, the referee (iproute2 `rdma -j`), golden files.

#include "catch_compat.hpp"
#include "collect/netlink.h"
#include "common/error.h"
#include "fixtures_dir.h"
#include "model/records.h"
#include "render/output.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat::test {

/// tests/fixtures/NAME as bytes / text (bytes captured in the lab by rdmastat-capture),
/// or tests/fixtures/kernels/K/NAME while a FixtureKernel for K is alive.
Bytes fixture_bytes(const std::string& name);
std::string fixture_text(const std::string& name);
std::string fixture_path(const std::string& name);

/// The kernels whose captures tests/fixtures holds: "" for the top level
/// (Debian 12's 6.1, which every test reads) and the name of each
/// tests/fixtures/kernels/ directory (`make fixtures RDMASTAT_LAB_SUITE=...`).
std::vector<std::string> fixture_kernels();

/// While alive, fixture_text and fixture_bytes read kernel K's captures.
class FixtureKernel {
  public:
    explicit FixtureKernel(std::string kernel);
    ~FixtureKernel();
    FixtureKernel(const FixtureKernel&) = delete;
    FixtureKernel& operator=(const FixtureKernel&) = delete;

  private:
    std::string previous_;
};

/// In a TEST_CASE, before any fixture is read: the rest of the test runs once
/// per captured kernel (Catch2's GENERATE), its name in every failure.
#define FOR_EACH_FIXTURE_KERNEL()                                                                  \
    const std::string fixture_kernel_ = GENERATE(from_range(::rdmastat::test::fixture_kernels())); \
    const ::rdmastat::test::FixtureKernel fixture_kernel_use_(fixture_kernel_);                    \
    INFO("captures of kernel " << (fixture_kernel_.empty() ? "6.1 (top level)" : fixture_kernel_))
std::string read_file(const std::string& path);

/// The capture's whole NLDEV view: devices (with ports and drivers), cm_ids and QPs.
NldevData fixture_nldev(const std::string& dir = "");
/// owners.txt ("pid uid comm" per line, read from /proc in the guest at capture time).
OwnerMap fixture_owners(const std::string& path);

/// One entry of `rdma -j res show cm_id`, its "addr:port" strings split.
struct RefereeCmId {
    std::string ifname, state, ps, src_addr, dst_addr, comm, qp_type;
    std::uint32_t cm_idn = 0, port = 0, src_port = 0, dst_port = 0;
    std::optional<std::uint32_t> pid, lqpn;
};
std::vector<RefereeCmId> referee_cm_ids(const nlohmann::json& rdma);

/// Differences between our verbs connections and the referee's QP listing
/// (`rdma -j res show qp`), as readable lines: every RC, UC, UD or XRC QP in
/// RTR..ERR that no cm id of rdma_cm_id names must be exactly one verbs
/// connection with its device, number, peer's number (rqpn), type, state and
/// owner (pid or kernel name, comm), and no other verbs connection may exist.
/// QPs whose device and number are in unstable (changed while the views were
/// taken) are left out on both sides.
std::vector<std::string>
compare_verbs_with_referee(const std::vector<Connection>& ours, const nlohmann::json& rdma_qp,
                           const nlohmann::json& rdma_cm_id,
                           const std::set<std::pair<std::string, std::uint32_t>>& unstable = {});

/// Differences between our connections and the referee's cm_ids, as readable
/// lines; empty when both describe exactly the same ids.
std::vector<std::string> compare_with_referee(const std::vector<Connection>& ours,
                                              const nlohmann::json& rdma_cm_id,
                                              const nlohmann::json& rdma_qp);


/// Lines of text that start with prefix, without it.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix);

/// A snapshot from JSON text (named test.json in errors), and every connection
/// of a snapshot written back as JSON: the round trip --input relies on.
Result<Snapshot> snapshot_from_text(const std::string& text);
std::string snapshot_to_text(const Snapshot& s, bool pretty = false);

/// A ConnectionSink that keeps what it is given: how often it began, the
/// devices it began with, and a copy of each connection.
struct RecordingSink final : ConnectionSink {
    int begins = 0;
    std::size_t devices_at_begin = 0;
    std::vector<Connection> connections;
    void begin(const Snapshot& head) override {
        ++begins;
        devices_at_begin = head.devices.size();
        CHECK(head.connections.empty());
    }
    void connection(const Connection& c) override {
        CHECK(begins == 1);
        connections.push_back(c);
    }
};

/// A whole dump cut at the end, in the middle and inside the first header: parse
/// must refuse every cut (never answer from part of a dump).
template <typename Parse> void require_cut_dumps_refused(const Bytes& bytes, Parse parse) {
    for (std::size_t cut : {bytes.size() - 20, bytes.size() / 2, std::size_t{10}}) {
        Bytes part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
        auto parsed = parse(part);
        REQUIRE_FALSE(parsed.ok());
        CHECK_THAT(parsed.error(), Catch::Contains("malformed netlink message") ||
                                       Catch::Contains("without NLMSG_DONE"));
    }
}

/// run_cli with args, its exit code and both outputs.
struct Run {
    int rc;
    std::string out, err;
};
Run run(std::vector<std::string> args);

/// Compares text with tests/golden/NAME; RDMASTAT_UPDATE_GOLDEN=1 rewrites the file.
/// Returns the golden text (what the test then compares against).
std::string golden(const std::string& name, const std::string& actual);

/// The JSON Writer, as -j (and --pretty) choose it.
inline std::unique_ptr<Writer> json_writer(bool pretty = false) {
    return writer_for(Output{Format::json, pretty});
}

} // namespace rdmastat::test
