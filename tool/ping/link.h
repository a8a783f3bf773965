// SPDX-License-Identifier: MIT
#pragma once

/// One rdma_cm connection and everything hung on it (PD, completion channel,
/// CQ, QP, registered buffers), owned by one object so that every way out of a
/// run (end, error, signal, peer gone) tears it down in the right order. Every
/// wait polls the CM channel, the completion channel and the Cancel fd with a
/// timeout; failures name the verbs or rdma_cm step that failed.

#include "common/error.h"
#include "ping/cancel.h"
#include "ping/stats.h"
#include "ping/wire.h"

#include <cstdint>
#include <memory>
#include <rdma/rdma_cma.h>
#include <span>
#include <vector>

namespace rdmastat::ping {

/// errno-style codes a wait's Failure carries besides the step's own errno.
inline constexpr int ended_by_peer = ECONNRESET; ///< DISCONNECTED (or flushed work)
inline constexpr int ended_by_signal = EINTR;    ///< Cancel fired
inline constexpr int ended_by_timeout = ETIMEDOUT;

/// A registered buffer, page aligned.
struct Buffer {
    std::uint8_t* data = nullptr;
    std::uint32_t size = 0;
    ibv_mr* mr = nullptr;
    std::span<std::uint8_t> bytes() const { return {data, size}; }
    /// This buffer as the peer must address it.
    Advertisement advertise() const;
};

/// A CM event, copied out and acknowledged.
struct CmEvent {
    rdma_cm_event_type type{};
    int status = 0;
    rdma_cm_id* id = nullptr;
    std::vector<std::uint8_t> private_data;
};

/// A Failure "STEP: strerror(errno)" with errno as its code.
Failure step_failure(const std::string& step);

/// An owned event channel whose fd is non-blocking.
Result<rdma_event_channel*> make_channel();

/// Waits up to timeout_ms (-1: no limit) for the next event on ch, also waking
/// on cancel. Failures: ended_by_signal, ended_by_timeout, or the step's errno.
Result<CmEvent> wait_cm_event(rdma_event_channel* ch, int timeout_ms, const Cancel& cancel);

/// "INIT", "RTR", "RTS" for the states a self-created QP goes through.
const char* qp_state_text(ibv_qp_state state);

/// "ADDRESS" and port of a sockaddr (IPv6 without brackets).
Endpoint endpoint_of(const sockaddr* sa);

class Link;
/// Whether the link's device speaks iWARP (its connection manager moves QPs).
bool is_iwarp(const Link& link);

class Link {
  public:
    /// Takes ownership of ch and id (id must be on ch).
    Link(rdma_event_channel* ch, rdma_cm_id* id, const Cancel& cancel);
    ~Link();
    Link(const Link&) = delete;
    Link& operator=(const Link&) = delete;

    rdma_cm_id* id() const { return id_; }
    rdma_event_channel* channel() const { return ch_; }
    const Cancel& cancel() const { return cancel_; }
    /// Device name, local and peer endpoints and QP number, as far as known.
    void describe(PingResult& r) const;

    /// PD, completion channel, CQ and an RC QP with these queue depths: made
    /// by rdma_cm (rdma_create_qp, which also moves it through its states), or
    /// when self_created (rping -q) with ibv_create_qp and moved to INIT here;
    /// then move_qp() takes it on, as the connection's steps come. The QP is
    /// asked to take inline_bytes of data in a work request (as ib_write_lat's
    /// is); a device that refuses gets a QP without inline data instead.
    Status setup(std::uint32_t send_depth, std::uint32_t recv_depth, bool self_created = false,
                 std::uint32_t inline_bytes = 0);
    /// A self-created QP to state, with the attributes rdma_cm gives for the
    /// id (rdma_init_qp_attr). No-op for a QP rdma_cm created.
    Status move_qp(ibv_qp_state state);
    /// The connection's QP (rdma_cm's or our own); null before setup.
    ibv_qp* qp() const { return own_qp_ ? own_qp_ : id_->qp; }
    bool self_created_qp() const { return own_qp_ != nullptr; }
    /// A buffer of size bytes registered with exactly `access`.
    Result<Buffer*> add_buffer(std::uint32_t size, int access);

    Status post_recv(const Buffer& b, std::uint32_t length);
    Status post_send(const Buffer& b, std::uint32_t length);
    /// RDMA READ or WRITE of length bytes between b and the peer's advertised
    /// buffer. A WRITE the QP can carry inline is posted inline: the device
    /// then reads no local memory for it.
    Status post_rdma(ibv_wr_opcode op, const Buffer& b, std::uint32_t length,
                     const Advertisement& remote, bool signaled = true);

    /// The next completion, sleeping on the completion channel. Ends early (as a
    /// Failure) on cancel, on the peer's disconnect, after timeout_ms (-1: no
    /// limit), or on a completion error, named by its opcode and status.
    Result<ibv_wc> wait_completion(int timeout_ms);
    /// Up to n completions without sleeping (busy polling); a completion error
    /// is a Failure as in wait_completion.
    Result<int> poll_completions(ibv_wc* wc, int n);
    /// Non-blocking look at the CM channel and the cancel flag: a Failure when
    /// the peer disconnected or the run was cancelled.
    Status check_alive();

    /// rdma_disconnect once (idempotent); the peer sees DISCONNECTED.
    void disconnect();

  private:
    Status handle_cm(const CmEvent& e);
    Status completion_status(const ibv_wc& wc);

    rdma_event_channel* ch_;
    rdma_cm_id* id_;
    const Cancel& cancel_;
    ibv_pd* pd_ = nullptr;
    ibv_comp_channel* comp_ = nullptr;
    ibv_cq* cq_ = nullptr;
    bool qp_ = false, disconnected_ = false, peer_gone_ = false;
    ibv_qp* own_qp_ = nullptr;     ///< rping -q: ours, not rdma_cm's
    std::uint32_t max_inline_ = 0; ///< inline data the QP takes per work request
    std::vector<std::unique_ptr<Buffer>> buffers_;
};

} // namespace rdmastat::ping
