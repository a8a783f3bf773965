// SPDX-License-Identifier: MIT
#pragma once

/// The kernel's rdma_cma tracepoints through BPF (libbpf, CO-RE): the
/// programs of trace/bpf/rdma_cm.bpf.c attached to cm_event_handler,
/// cm_qp_create, cm_send_rej, cm_send_rtu, cm_disconnect and cm_id_destroy
/// (and ib_cma's icm_no_listener_err),
/// to the entry and exit of rdma_connect_locked() and the exit of
/// rdma_reject(), and (trace/bpf/qp.bpf.c) to the functions every QP's
/// creation, state change and destruction pass through; their records read
/// from a ring buffer.

#include "common/error.h"
#include "model/cm_event.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rdmastat {

/// Why the tracepoints cannot be used on this system, checked without loading
/// anything: no privilege (root, or CAP_SYS_ADMIN: libbpf needs it to read
/// rdma_cm's module BTF, which CAP_BPF and CAP_PERFMON do not allow), no kernel BTF
/// (/sys/kernel/btf/vmlinux), or rdma_cm not loaded (/sys/kernel/btf/rdma_cm).
/// nullopt when an attempt is worth making.
std::optional<std::string> tracepoints_unavailable();

class Tracer {
  public:
    /// buffer_bytes: the ring buffer's size, a power of two of at least a page.
    struct Options {
        std::size_t buffer_bytes = std::size_t(1) << 20;
    };
    using Sink = std::function<void(const void* record, std::size_t size)>;

    /// Loads and attaches the programs: BTF-typed (tp_btf) where the kernel
    /// allows, raw (raw_tp) otherwise. Each program's second program (which
    /// records the hits the kernel skips while the first is preempted on
    /// that CPU) only where tracepoints_preemptible() (trace/preempt_probe.h,
    /// which makes a thread) says tracepoints' programs run preemptibly, or
    /// cannot tell. A Failure names the cause, with libbpf's last message.
    static Result<std::unique_ptr<Tracer>> open(const Options& options);
    ~Tracer();
    Tracer(const Tracer&) = delete;
    Tracer& operator=(const Tracer&) = delete;

    /// How often to poll. The programs do not wake the reader for each
    /// record (where tracepoints are preemptible, as on 7.x, that wakeup
    /// would make the kernel skip hits), only when the buffer is half full:
    /// a record waits up to this long for a poll that is not woken.
    static constexpr int poll_ms = 10;

    /// Waits up to timeout_ms for records and hands each to sink, in order;
    /// returns how many, or a Failure (a signal's EINTR is 0 records).
    Result<int> poll(int timeout_ms, const Sink& sink);
    /// Records lost since open.
    using Lost = TraceLost;
    Lost lost() const;
    /// lost() as read at most lost_read_ms ago: reading it walks every
    /// program's counters, so a loop that polls asks this each round.
    Lost lost_recently();
    static constexpr int lost_read_ms = 200;
    /// The programs' time in the kernel: the rdma_cm programs' (cm) and the QP
    /// programs' (qp), each the runs that may write a record and the
    /// nanoseconds of all the group's programs, since they were loaded.
    /// nullopt unless the kernel counts it (sysctl kernel.bpf_stats_enabled=1).
    struct Cost {
        std::uint64_t runs = 0, ns = 0;
    };
    struct Costs {
        Cost cm, qp;
    };
    std::optional<Costs> costs() const;
    /// What this kernel does not let the tracer see, and why, or empty: where
    /// the fentry and fexit programs do not load or attach, connects that fail
    /// before any event, iWARP rejects and connect_ms go unreported; where
    /// the QP programs do not, verbs QPs' lives.
    const std::string& missing() const;
    /// What the probe found and what was loaded for it, for --stats:
    /// "tracepoints run preemptibly: second programs loaded", "tracepoints run
    /// with preemption disabled: no second programs", or "cannot tell whether
    /// tracepoints run preemptibly (WHY): second programs loaded".
    const std::string& preemption() const;

  private:
    struct State;
    explicit Tracer(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

} // namespace rdmastat
