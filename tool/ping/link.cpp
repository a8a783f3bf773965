// SPDX-License-Identifier: MIT
#include "ping/link.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace rdmastat::ping {
namespace {

Status set_nonblocking(int fd, const char* what) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return step_failure(std::string("fcntl ") + what);
    return Ok{};
}

// A failed completion's opcode is undefined (only wr_id and status are), so
// every work request carries its kind in wr_id.
enum WrKind : std::uint64_t { wr_recv = 1, wr_send, wr_read, wr_write };

const char* kind_name(std::uint64_t wr_id) {
    switch (wr_id) {
    case wr_recv:
        return "RECV";
    case wr_send:
        return "SEND";
    case wr_read:
        return "RDMA READ";
    case wr_write:
        return "RDMA WRITE";
    default:
        return "work request";
    }
}

} // namespace

Failure step_failure(const std::string& step) {
    int e = errno ? errno : EIO;
    return Failure{step + ": " + std::strerror(e), e};
}

Advertisement Buffer::advertise() const {
    return Advertisement{reinterpret_cast<std::uintptr_t>(data), mr->rkey, size};
}

Result<rdma_event_channel*> make_channel() {
    rdma_event_channel* ch = rdma_create_event_channel();
    if (!ch && (errno == ENODEV || errno == ENOENT))
        return Failure{"rdma_create_event_channel: no RDMA stack here (no RDMA device, or "
                       "/dev/infiniband/rdma_cm missing: is rdma_ucm loaded?)",
                       errno};
    if (!ch) return step_failure("rdma_create_event_channel");
    if (auto s = set_nonblocking(ch->fd, "cm channel"); !s) {
        rdma_destroy_event_channel(ch);
        return s.failure();
    }
    return ch;
}

const char* qp_state_text(ibv_qp_state state) {
    switch (state) {
    case IBV_QPS_INIT:
        return "INIT";
    case IBV_QPS_RTR:
        return "RTR";
    case IBV_QPS_RTS:
        return "RTS";
    default:
        return "another state";
    }
}

Result<CmEvent> wait_cm_event(rdma_event_channel* ch, int timeout_ms, const Cancel& cancel) {
    for (;;) {
        pollfd fds[2] = {{ch->fd, POLLIN, 0}, {cancel.fd(), POLLIN, 0}};
        int n = poll(fds, 2, timeout_ms);
        if (n < 0 && errno == EINTR) continue; // the handler also set the eventfd
        if (n < 0) return step_failure("poll");
        if (fds[1].revents) return Failure{"interrupted", ended_by_signal};
        if (n == 0)
            return Failure{"no rdma_cm event within " + std::to_string(timeout_ms) + " ms",
                           ended_by_timeout};
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(ch, &ev)) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return step_failure("rdma_get_cm_event");
        }
        CmEvent e{ev->event, ev->status, ev->id, {}};
        const auto* pd = static_cast<const std::uint8_t*>(ev->param.conn.private_data);
        if (pd &&
            (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST || ev->event == RDMA_CM_EVENT_ESTABLISHED ||
             ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE))
            e.private_data.assign(pd, pd + ev->param.conn.private_data_len);
        rdma_ack_cm_event(ev);
        return e;
    }
}

Endpoint endpoint_of(const sockaddr* sa) {
    Endpoint ep;
    char text[INET6_ADDRSTRLEN] = "";
    if (sa && sa->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
        inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        ep.port = ntohs(in->sin_port);
    } else if (sa && sa->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        ep.port = ntohs(in6->sin6_port);
    }
    ep.address = text;
    return ep;
}

Link::Link(rdma_event_channel* ch, rdma_cm_id* id, const Cancel& cancel)
    : ch_(ch), id_(id), cancel_(cancel) {}

Link::~Link() {
    // Reverse order of creation: QP before its CQ, MRs before their PD, the
    // id before its channel (every event was acknowledged when read).
    if (qp_) rdma_destroy_qp(id_);
    if (own_qp_) ibv_destroy_qp(own_qp_);
    for (auto& b : buffers_) {
        if (b->mr) ibv_dereg_mr(b->mr);
        std::free(b->data);
    }
    if (cq_) ibv_destroy_cq(cq_);
    if (comp_) ibv_destroy_comp_channel(comp_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (id_) rdma_destroy_id(id_);
    if (ch_) rdma_destroy_event_channel(ch_);
}

void Link::describe(PingResult& r) const {
    if (id_->verbs) r.device = ibv_get_device_name(id_->verbs->device);
    r.local = endpoint_of(rdma_get_local_addr(id_));
    r.peer = endpoint_of(rdma_get_peer_addr(id_));
    if (qp()) r.qp = qp()->qp_num;
}

Status Link::setup(std::uint32_t send_depth, std::uint32_t recv_depth, bool self_created,
                   std::uint32_t inline_bytes) {
    if (!id_->verbs) return Failure{"rdma_cm id has no device yet", EINVAL};
    if (!(pd_ = ibv_alloc_pd(id_->verbs))) return step_failure("ibv_alloc_pd");
    if (!(comp_ = ibv_create_comp_channel(id_->verbs)))
        return step_failure("ibv_create_comp_channel");
    if (auto s = set_nonblocking(comp_->fd, "completion channel"); !s) return s;
    int cqe = static_cast<int>(send_depth + recv_depth);
    if (!(cq_ = ibv_create_cq(id_->verbs, cqe, nullptr, comp_, 0)))
        return step_failure("ibv_create_cq");
    ibv_qp_init_attr attr{};
    attr.send_cq = attr.recv_cq = cq_;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = send_depth;
    attr.cap.max_recv_wr = recv_depth;
    attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
    // Devices differ in how much inline data they take: ask, and without any
    // when refused. Creation writes back what the QP got, which can be more
    // than asked (rxe gives 16 bytes for none): no more than asked is used.
    auto create = [&](std::uint32_t with_inline) {
        attr.cap.max_inline_data = with_inline;
        if (self_created) return (own_qp_ = ibv_create_qp(pd_, &attr)) != nullptr;
        return rdma_create_qp(id_, pd_, &attr) == 0;
    };
    if (!create(inline_bytes) && (inline_bytes == 0 || !create(0)))
        return step_failure(self_created ? "ibv_create_qp" : "rdma_create_qp");
    max_inline_ = std::min(attr.cap.max_inline_data, inline_bytes);
    if (self_created) return move_qp(IBV_QPS_INIT); // receives can be posted from INIT on
    qp_ = true;
    return Ok{};
}

bool is_iwarp(const Link& link) {
    return link.id()->verbs && link.id()->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

Status Link::move_qp(ibv_qp_state state) {
    if (!own_qp_) return Ok{};
    ibv_qp_attr attr{};
    int mask = 0;
    attr.qp_state = state;
    if (rdma_init_qp_attr(id_, &attr, &mask))
        return step_failure(std::string("rdma_init_qp_attr ") + qp_state_text(state));
    if (int e = ibv_modify_qp(own_qp_, &attr, mask)) {
        errno = e;
        return step_failure(std::string("ibv_modify_qp to ") + qp_state_text(state));
    }
    return Ok{};
}

Result<Buffer*> Link::add_buffer(std::uint32_t size, int access) {
    auto b = std::make_unique<Buffer>();
    void* p = nullptr;
    if (int e = posix_memalign(&p, 4096, size ? size : 1)) {
        errno = e;
        return step_failure("posix_memalign");
    }
    std::memset(p, 0, size);
    b->data = static_cast<std::uint8_t*>(p);
    b->size = size;
    b->mr = ibv_reg_mr(pd_, p, size, access);
    Buffer* raw = b.get();
    buffers_.push_back(std::move(b)); // freed by the destructor even when reg failed
    if (!raw->mr) return step_failure("ibv_reg_mr");
    return raw;
}

Status Link::post_recv(const Buffer& b, std::uint32_t length) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(b.data), length, b.mr->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = wr_recv;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (int e = ibv_post_recv(qp(), &wr, &bad)) {
        errno = e;
        return step_failure("ibv_post_recv");
    }
    return Ok{};
}

Status Link::post_send(const Buffer& b, std::uint32_t length) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(b.data), length, b.mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.wr_id = wr_send;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr* bad = nullptr;
    if (int e = ibv_post_send(qp(), &wr, &bad)) {
        errno = e;
        return step_failure("ibv_post_send SEND");
    }
    return Ok{};
}

Status Link::post_rdma(ibv_wr_opcode op, const Buffer& b, std::uint32_t length,
                       const Advertisement& remote, bool signaled) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(b.data), length, b.mr->lkey};
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.wr_id = op == IBV_WR_RDMA_READ ? wr_read : wr_write;
    wr.opcode = op;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    if (op == IBV_WR_RDMA_WRITE && length <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;
    wr.wr.rdma.remote_addr = remote.address;
    wr.wr.rdma.rkey = remote.rkey;
    ibv_send_wr* bad = nullptr;
    if (int e = ibv_post_send(qp(), &wr, &bad)) {
        errno = e;
        return step_failure(op == IBV_WR_RDMA_READ ? "ibv_post_send RDMA READ"
                                                   : "ibv_post_send RDMA WRITE");
    }
    return Ok{};
}

Status Link::completion_status(const ibv_wc& wc) {
    if (wc.status == IBV_WC_SUCCESS) return Ok{};
    // Flushed work means the QP went to error, normally because the peer left.
    if (wc.status == IBV_WC_WR_FLUSH_ERR || peer_gone_)
        return Failure{"the peer disconnected", ended_by_peer};
    // Work that fails as the peer leaves (siw: a local QP operation error
    // once its TCP connection is gone) can come before the DISCONNECTED
    // event: give that event a moment before calling the failure an error.
    for (int i = 0; i < 4 && !peer_gone_; ++i) {
        auto e = wait_cm_event(ch_, 50, cancel_);
        if (e)
            (void)handle_cm(e.value());
        else if (e.error_code() != ended_by_timeout)
            break;
    }
    if (peer_gone_) return Failure{"the peer disconnected", ended_by_peer};
    return Failure{
        std::string(kind_name(wc.wr_id)) + " completion: " + ibv_wc_status_str(wc.status), EIO};
}

Status Link::handle_cm(const CmEvent& e) {
    if (e.type == RDMA_CM_EVENT_DISCONNECTED || e.type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
        peer_gone_ = true;
        return Failure{"the peer disconnected", ended_by_peer};
    }
    if (e.type == RDMA_CM_EVENT_DEVICE_REMOVAL)
        return Failure{"the RDMA device was removed", ENODEV};
    return Ok{}; // e.g. ESTABLISHED seen late: nothing to do
}

Result<ibv_wc> Link::wait_completion(int timeout_ms) {
    for (;;) {
        ibv_wc wc{};
        int n = ibv_poll_cq(cq_, 1, &wc);
        if (n < 0) return Failure{"ibv_poll_cq failed", EIO};
        if (n == 1) {
            if (auto s = completion_status(wc); !s) return s.failure();
            return wc;
        }
        if (peer_gone_) return Failure{"the peer disconnected", ended_by_peer};
        // Arm, then look again: a completion between the poll and the arming
        // would otherwise raise no event.
        if (ibv_req_notify_cq(cq_, 0)) return step_failure("ibv_req_notify_cq");
        n = ibv_poll_cq(cq_, 1, &wc);
        if (n < 0) return Failure{"ibv_poll_cq failed", EIO};
        if (n == 1) {
            if (auto s = completion_status(wc); !s) return s.failure();
            return wc;
        }
        pollfd fds[3] = {{comp_->fd, POLLIN, 0}, {ch_->fd, POLLIN, 0}, {cancel_.fd(), POLLIN, 0}};
        int r = poll(fds, 3, timeout_ms);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return step_failure("poll");
        if (fds[2].revents) return Failure{"interrupted", ended_by_signal};
        if (r == 0)
            return Failure{"no completion within " + std::to_string(timeout_ms) + " ms",
                           ended_by_timeout};
        if (fds[1].revents) {
            auto e = wait_cm_event(ch_, 0, cancel_);
            if (e) {
                if (auto s = handle_cm(e.value()); !s) return s.failure();
            } else if (e.error_code() != ended_by_timeout) {
                return e.failure();
            }
        }
        if (fds[0].revents) {
            ibv_cq* cq = nullptr;
            void* ctx = nullptr;
            if (ibv_get_cq_event(comp_, &cq, &ctx) == 0) ibv_ack_cq_events(cq, 1);
        }
    }
}

Result<int> Link::poll_completions(ibv_wc* wc, int n) {
    int got = ibv_poll_cq(cq_, n, wc);
    if (got < 0) return Failure{"ibv_poll_cq failed", EIO};
    for (int i = 0; i < got; ++i)
        if (auto s = completion_status(wc[i]); !s) return s.failure();
    return got;
}

Status Link::check_alive() {
    if (cancel_.requested()) return Failure{"interrupted", ended_by_signal};
    if (peer_gone_) return Failure{"the peer disconnected", ended_by_peer};
    pollfd fd{ch_->fd, POLLIN, 0};
    if (poll(&fd, 1, 0) > 0) {
        auto e = wait_cm_event(ch_, 0, cancel_);
        if (e) return handle_cm(e.value());
        if (e.error_code() != ended_by_timeout) return e.failure();
    }
    return Ok{};
}

void Link::disconnect() {
    if (disconnected_) return;
    disconnected_ = true;
    rdma_disconnect(id_);
}

} // namespace rdmastat::ping
