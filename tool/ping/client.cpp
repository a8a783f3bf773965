// SPDX-License-Identifier: MIT
#include "ping/connect.h"
#include "ping/session.h"

namespace rdmastat::ping {
namespace {

Status connect_and_run(const PingOptions& o, const Hooks& hooks, Link& link, PingResult& r,
                       sockaddr_storage& dst, std::optional<sockaddr_storage>& src) {
    const std::string where = o.address + " port " + std::to_string(o.port);
    // -d: each step, as rping -d says them (the server always notes its own).
    auto step = [&](const std::string& what) {
        if (o.debug && hooks.note) hooks.note(what);
    };
    auto* src_sa = src ? reinterpret_cast<sockaddr*>(&*src) : nullptr;
    if (rdma_resolve_addr(link.id(), src_sa, reinterpret_cast<sockaddr*>(&dst), o.timeout_ms))
        return step_failure("rdma_resolve_addr " + where);
    if (auto e = expect_event(link, RDMA_CM_EVENT_ADDR_RESOLVED, "rdma_resolve_addr " + where,
                              o.timeout_ms + 1000);
        !e)
        return e.failure();
    step("address resolved: " + where);
    if (rdma_resolve_route(link.id(), o.timeout_ms))
        return step_failure("rdma_resolve_route " + where);
    if (auto e = expect_event(link, RDMA_CM_EVENT_ROUTE_RESOLVED, "rdma_resolve_route " + where,
                              o.timeout_ms + 1000);
        !e)
        return e.failure();

    step("route resolved: " + where);
    const std::uint32_t inline_want = inline_bytes(o.mode, r.size);
    if (auto st = link.setup(send_depth(o.mode, false, o.depth), 2, o.self_qp, inline_want); !st)
        return st;
    step(std::string(o.self_qp ? "created QP with verbs" : "created QP with rdma_create_qp"));
    Session s{link, o, hooks, r};
    s.size = r.size;
    s.count = effective_count(o);
    if (auto st = prepare_session(s); !st) return st;
    link.describe(r);

    std::uint8_t hello_buf[hello_size];
    rdma_conn_param param = conn_param(Hello{o.mode, r.size}, hello_buf);
    if (link.self_created_qp()) param.qp_num = link.qp()->qp_num;
    if (rdma_connect(link.id(), &param)) return step_failure("rdma_connect " + where);
    // With a QP of its own (-q) on InfiniBand or RoCE, the client hears the
    // server's reply, moves its QP to RTR and RTS and establishes itself; on
    // iWARP the connection manager moves it and reports ESTABLISHED.
    const bool self_moves = link.self_created_qp() && !is_iwarp(link);
    auto est =
        expect_event(link, self_moves ? RDMA_CM_EVENT_CONNECT_RESPONSE : RDMA_CM_EVENT_ESTABLISHED,
                     "rdma_connect " + where, o.timeout_ms);
    if (!est) return est.failure();
    step("connect event: " + std::string(rdma_event_str(est.value().type)));
    if (self_moves) {
        // INIT again first: before the connection the QP got no remote
        // access; the connection manager's attributes now grant it.
        if (auto st = link.move_qp(IBV_QPS_INIT); !st) return st;
        if (auto st = link.move_qp(IBV_QPS_RTR); !st) return st;
        if (auto st = link.move_qp(IBV_QPS_RTS); !st) return st;
        if (rdma_establish(link.id())) return step_failure("rdma_establish " + where);
    }
    link.describe(r);
    step("connected: QP " + std::to_string(r.qp.value_or(0)) + " on " + r.device);
    if (o.mode != Mode::rping) {
        auto hello = parse_hello(est.value().private_data);
        if (!hello || hello.value().mode != o.mode) {
            link.disconnect();
            return Failure{"the server at " + where + " does not run rdmastat's " +
                               mode_name(o.mode) + " mode (rping speaks only the plain mode)",
                           EPROTO};
        }
    }
    s.start = s.last_progress = Clock::now();
    if (o.duration)
        s.deadline = s.start + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(*o.duration));
    Status st = run_session(s);
    session_progress(s, true);
    link.disconnect();
    return st;
}

} // namespace

PingResult run_client(const PingOptions& o, const Cancel& cancel, const Hooks& hooks) {
    PingResult r;
    r.mode = o.mode;
    r.size = effective_size(o);
    r.validate = o.validate && o.mode != Mode::bw;
    if (o.mode == Mode::bw) r.depth = o.depth;
    Status st = Ok{};
    // Names first: a typo is reported as such, not as a missing RDMA stack.
    auto dst = resolve_host(o.address, o.port, "-a");
    std::optional<sockaddr_storage> src;
    if (dst && !o.source.empty()) {
        auto s = resolve_host(o.source, 0, "-I");
        if (s)
            src = s.value();
        else
            st = s.failure();
    }
    if (!dst) st = dst.failure();
    if (st) {
        auto link = make_link(cancel);
        st = link ? connect_and_run(o, hooks, *link.value(), r, dst.value(), src)
                  : Status{link.failure()};
    }
    if (!st) {
        if (st.error_code() == ended_by_signal)
            r.interrupted = true;
        else
            r.error = st.error();
    }
    if (r.error) r.validate = false; // nothing proven once a ping failed
    return r;
}

} // namespace rdmastat::ping
