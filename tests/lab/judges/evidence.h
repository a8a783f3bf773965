// SPDX-License-Identifier: MIT
#pragma once

// What the lab's judges share: a scenario's evidence, read from the folder
// tests/lab/check.sh points RDMASTAT_LAB_OUT at, and the verdicts on peers'
// output that more than one judge gives. Every test case of a judge is [lab].

#include "model/model.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmastat::test {

/// The files one scenario wrote: $RDMASTAT_LAB_OUT/DIR/NAME. Reading one FAILs
/// when the variable is unset ([lab] tests run through tests/lab/check.sh).
struct Evidence {
    std::string dir;

    /// $RDMASTAT_LAB_OUT/DIR/NAME.
    std::string path(const std::string& name) const;
    /// The file NAME as text.
    std::string text(const std::string& name) const;
    /// Whether the scenario wrote NAME (for files it writes only in some cases).
    bool has(const std::string& name) const;
    /// The exit status lab_capture recorded for NAME (NAME.rc).
    int rc(const std::string& name) const;
    /// The file NAME as one JSON document.
    nlohmann::json json(const std::string& name) const;
    /// The file NAME as JSON lines (-E -j's output), one value per line.
    std::vector<nlohmann::json> json_lines(const std::string& name) const;
    /// The file NAME as an rdmastat snapshot (-j's output), parsed by the tool's reader.
    Snapshot snapshot(const std::string& name) const;
};

/// The value of series (name{labels} as written) in a Prometheus exposition;
/// -1 when it has none.
double prom_value(const std::string& exposition, const std::string& series);
/// The port of an event's connection's "local" or "peer" end; 0 when absent.
unsigned event_port(const nlohmann::json& connection, const char* end);

/// A tracer's stderr less the one line that says it is ready ("rdmastat:
/// CONTEXT: ready: ..."; -E, life and serve --events write it once every
/// program is attached); CHECKs that the line is there, once. Also less the
/// line before it, once at most, that says the kernel sends no device events
/// (eventsedge judges when it must be there).
std::string without_ready(const std::string& err, const std::string& context);

/// rping's verdict from its exit status and what it said. Its -V makes it fail
/// on a mismatch ("data mismatch", "rping client failed"). Debian's rping
/// (rdma-core 44) also races its CM thread against the channel's destruction at
/// exit ("rdma_get_cm_event: Bad file descriptor", status 255) after its run is
/// over: that alone is not a failure of its peer.
bool rping_ended_ok(int rc, const std::string& said);

/// The text rping -v prints for ping seq of size bytes, made by our generator.
std::string our_payload_text(std::uint32_t size, std::uint64_t seq);

} // namespace rdmastat::test
