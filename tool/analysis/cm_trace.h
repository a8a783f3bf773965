// SPDX-License-Identifier: MIT
#pragma once

/// The tracepoints' events in the context of each id's history: which events
/// a TraceEvent becomes, its status decoded, handshake latency and lifetime
/// (from the id's first numbered record: address resolved, a connect request,
/// a QP; a listener's lifetime is unknown).

#include "analysis/diff.h"
#include "model/cm_event.h"
#include "model/model.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// A record's time (the kernel's CLOCK_MONOTONIC, ns) as wall time; offset is
/// the wall clock's lead on the monotonic one.
std::chrono::system_clock::time_point trace_wall_time(std::uint64_t ns,
                                                      std::chrono::system_clock::duration offset);

/// A status as the kernel means it for this event and transport: for a
/// REJECTED on InfiniBand or RoCE, a positive status is an IB CM reject reason
/// ("CONSUMER_DEFINED"); a negative one is an errno ("ECONNREFUSED"); 0 is none.
std::optional<std::string> cm_status_reason(const TraceEvent& e, Transport transport);

/// Follows ids through their tracepoint events. Ids are known by device and cm
/// id number, the identity NLDEV and diff_connections use; an id's records
/// before it binds to a device carry neither and are reported without history.
class CmTracker {
  public:
    /// fill_owner, when given, completes a process owner the records name (a
    /// pid, a comm, a uid) with what the records cannot carry (its cgroup,
    /// container and pod): asked for a record with a pid when its id's owner
    /// is new or another process, or has no cgroup yet, and for each record
    /// of an id not yet numbered. The ids of the seed have theirs.
    explicit CmTracker(std::function<void(Owner&)> fill_owner = {})
        : fill_owner_(std::move(fill_owner)) {}
    /// The ids and devices that exist when tracing starts (one NLDEV dump): their
    /// owners fill in records that lack one, and the devices' transports tell
    /// RoCE from InfiniBand.
    void seed(const Snapshot& snapshot);
    /// Whether a record of device needs a fresh device list: the device came
    /// after the seed (a RoCE one is otherwise taken for InfiniBand). Asked
    /// once per name: learn() records it even if the list lacks it.
    bool new_device(const std::string& device) const;
    /// The device's transport as the device lists tell it (RoCE apart from
    /// InfiniBand), else fallback (the record's, from its node type).
    Transport transport_of(const std::string& device, Transport fallback) const;
    /// A fresh device list, after new_device(asked).
    void learn(const Snapshot& devices, const std::string& asked);
    /// The event e becomes (kind, connection, time, decoded status, handshake,
    /// lifetime), or nullopt for a record of an id the kernel never numbered
    /// (no device yet, or a wildcard listener) that reports no failure. offset turns the kernel's
    /// CLOCK_MONOTONIC time into wall time.
    std::optional<ConnectionEvent> add(const TraceEvent& e,
                                       std::chrono::system_clock::duration offset);
    /// Ids followed now (forgotten when destroyed).
    std::size_t live() const { return lives_.size(); }

  private:
    struct Life {
        /// The time of its first record, when that was its birth: its address
        /// resolved (or failed to), or its connect request. Otherwise (a
        /// listener, an id older than the run) its lifetime is unknown.
        std::optional<std::uint64_t> born_ns;
        bool heard = false; ///< a record came (not only the seed)
        std::optional<std::uint64_t> handshake_start_ns;
        std::optional<std::chrono::nanoseconds> handshake;
        std::optional<std::uint64_t> connect_start_ns; ///< rdma_connect() was called
        std::optional<std::chrono::nanoseconds> connect;
        std::optional<Ending> ending;
        std::optional<std::string> reason; ///< the status behind ending
        Owner owner;
    };
    using Key = std::pair<std::string, std::uint32_t>;
    std::map<Key, Life> lives_;
    std::map<std::string, Transport> transports_;
    std::set<std::string> asked_; ///< names learn() was asked about
    std::function<void(Owner&)> fill_owner_;
};

} // namespace rdmastat
