// SPDX-License-Identifier: MIT
#pragma once

/// The QP programs' records (trace/bpf/qp.bpf.c) as the life of each verbs
/// connection: made, each state it is moved to (the move to RTR with its
/// peer), the driver's asynchronous events, destroyed. A QP an rdma_cm id
/// owns is that id's, whose life CmTracker tells: it makes no line here.

#include "analysis/diff.h"
#include "model/cm_event.h"
#include "model/model.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// Follows QPs, known by device and QP number (the kernel allocates numbers
/// cyclically, so a new QP gets a new number), through their records.
///
/// Which QPs are rdma_cm's: a QP first moved with rdma_init_qp_attr()'s
/// attributes (librdmacm moves every QP of an id with them, from INIT on), a
/// QP an id named in the seed or before its first move (claim()), and a QP
/// the kernel made in rdma_cm's name. Until its first move, a new QP is
/// nobody's: its qp_created line waits for that move (a QP moved with
/// rdma_cm's attributes first, or never moved, makes no line). A closed
/// line's ending is error after a fatal asynchronous event (QP_FATAL,
/// QP_REQ_ERR, QP_ACCESS_ERR, PATH_MIG_ERR), whose name is the reason; a
/// move to ERR is the application's own (a flush before destroy).
class QpTracker {
  public:
    /// fill_owner as CmTracker's: completes a new process owner's cgroup,
    /// container and pod.
    explicit QpTracker(std::function<void(Owner&)> fill_owner = {})
        : fill_owner_(std::move(fill_owner)) {}
    /// The connections that exist when tracing starts, as read from seed_ns
    /// on (CLOCK_MONOTONIC): verbs ones are followed from their state then
    /// (records from before are not news), cm ones' QPs are claimed.
    void seed(const Snapshot& snapshot, std::uint64_t seed_ns = 0);
    /// A cm record named this QP (an id's qp_num): a QP made during the run
    /// and not yet moved is that id's. (Once moved without rdma_cm's
    /// attributes it stays followed; a number no QP here has is not kept,
    /// which bounds the claims by the QPs alive.)
    void claim(const std::string& device, std::uint32_t qp);
    /// The events a QP record becomes, in order (none, or qp_created before
    /// the first changed), each timed with offset (CLOCK_MONOTONIC to wall
    /// time). transport is the device's, as the caller knows it.
    std::vector<ConnectionEvent> add(const TraceEvent& e, Transport transport,
                                     std::chrono::system_clock::duration offset);
    /// QPs followed now (forgotten when destroyed or claimed).
    std::size_t live() const { return lives_.size(); }

  private:
    struct Life {
        Connection connection;                ///< as last reported
        std::optional<std::uint64_t> born_ns; ///< made during the run
        bool shown = false;                   ///< it made a line (or was in the seed)
        std::uint64_t known_ns = 0;           ///< the seed's time, for a seeded QP
        std::optional<std::string> failure;   ///< the fatal async event it had
    };
    using Key = std::pair<std::string, std::uint32_t>;
    std::map<Key, Life> lives_;
    std::set<Key> claimed_;
    /// QPs whose destruction began, until their number is made again (the
    /// last few thousand): iw_cm moves an id's QP to ERR from the kernel
    /// while siw's destroy waits for it, after the destroy's record.
    std::set<Key> destroyed_;
    std::deque<Key> destroyed_order_;
    static constexpr std::size_t destroyed_kept = 4096;
    std::function<void(Owner&)> fill_owner_;
};

} // namespace rdmastat
