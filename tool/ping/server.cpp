// SPDX-License-Identifier: MIT
// The listener runs in the calling thread. Each accepted id moves to its own
// event channel (rdma_migrate_id) and, with -P, its own thread, so that one
// client's events, errors and teardown never touch another's.
#include "ping/connect.h"
#include "ping/session.h"

#include <atomic>
#include <list>
#include <thread>

namespace rdmastat::ping {
namespace {

constexpr int iwarp_settle_ms = 100;

struct Listener {
    rdma_event_channel* ch = nullptr;
    rdma_cm_id* id = nullptr;
    ~Listener() {
        if (id) rdma_destroy_id(id);
        if (ch) rdma_destroy_event_channel(ch);
    }
};

struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
};

std::string describe_peer(const PingResult& r) {
    return r.peer.address + " port " + std::to_string(r.peer.port);
}

Status accept_and_serve(Link& link, const Hello& hello, const PingOptions& o, const Hooks& hooks,
                        PingResult& r) {
    link.describe(r);
    if (r.mode != Mode::rping && (hello.size < 1 || hello.size > max_buffer)) {
        rdma_reject(link.id(), nullptr, 0);
        return Failure{"rejected: the client asks for a buffer of " + std::to_string(hello.size) +
                           " bytes (at most " + std::to_string(max_buffer) + ")",
                       EPROTO};
    }
    r.size = r.mode == Mode::rping ? effective_size(o) : hello.size;
    const std::uint32_t inline_want = inline_bytes(r.mode, r.size);
    if (auto st = link.setup(send_depth(r.mode, true, o.depth), 2, o.self_qp, inline_want); !st) {
        rdma_reject(link.id(), nullptr, 0);
        return st;
    }
    Session s{link, o, hooks, r};
    s.size = r.size;
    // rping -s -C N serves N pings and leaves; in lat and bw the client counts.
    if (r.mode == Mode::rping) s.count = o.count.value_or(0);
    if (auto st = prepare_session(s); !st) {
        rdma_reject(link.id(), nullptr, 0);
        return st;
    }
    link.describe(r);
    std::uint8_t hello_buf[hello_size];
    rdma_conn_param param = conn_param(Hello{r.mode, r.size}, hello_buf);
    if (link.self_created_qp()) {
        // -q: the QP is ready before the accept (iWARP's connection manager
        // moves it itself).
        if (!is_iwarp(link)) {
            Status st = link.move_qp(IBV_QPS_RTR);
            if (st) st = link.move_qp(IBV_QPS_RTS);
            if (!st) {
                rdma_reject(link.id(), nullptr, 0);
                return st;
            }
        }
        param.qp_num = link.qp()->qp_num;
    }
    if (rdma_accept(link.id(), &param)) return step_failure("rdma_accept");
    if (auto e = expect_event(link, RDMA_CM_EVENT_ESTABLISHED, "rdma_accept", o.timeout_ms); !e)
        return e.failure();
    if (hooks.note)
        hooks.note("accepted " + describe_peer(r) + " on " + r.device + " (" + mode_name(r.mode) +
                   " mode, QP " + std::to_string(r.qp.value_or(0)) + ")");
    // In lat and bw the server speaks first. siw's initiator refuses data that
    // arrives right behind the MPA reply (it fails the connection), so on
    // iWARP give the client's side a moment to finish establishing.
    if (r.mode != Mode::rping && is_iwarp(link))
        std::this_thread::sleep_for(std::chrono::milliseconds(iwarp_settle_ms));
    s.start = s.last_progress = Clock::now();
    Status st = run_session(s);
    r.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
    if (st) await_departure(s);
    link.disconnect();
    return st;
}

// One accepted connection, start to end; reports through hooks.finished.
bool serve(rdma_event_channel* ch, rdma_cm_id* id, const Hello& hello, const PingOptions& o,
           const Cancel& cancel, const Hooks& hooks) {
    PingResult r;
    r.server = true;
    r.mode = hello.mode;
    r.validate = false; // the client validates what comes back
    Status st = Ok{};
    {
        Link link(ch, id, cancel);
        st = accept_and_serve(link, hello, o, hooks, r);
    }
    if (!st) {
        if (st.error_code() == ended_by_signal)
            r.interrupted = true;
        else
            r.error = st.error();
    }
    if (hooks.finished) hooks.finished(r);
    return !r.error;
}

void reap(std::list<Worker>& workers, bool all) {
    for (auto it = workers.begin(); it != workers.end();) {
        if (all || it->done.load()) {
            it->thread.join();
            it = workers.erase(it);
        } else {
            ++it;
        }
    }
}

} // namespace

Result<std::uint64_t> run_server(const PingOptions& o, const Cancel& cancel, const Hooks& hooks) {
    const std::string host = o.address.empty() ? "0.0.0.0" : o.address;
    auto addr = resolve_host(host, o.port, "-a");
    if (!addr) return addr.failure();
    Listener l;
    auto ch = make_channel();
    if (!ch) return ch.failure();
    l.ch = ch.value();
    if (rdma_create_id(l.ch, &l.id, nullptr, RDMA_PS_TCP)) return step_failure("rdma_create_id");
    const std::string where = host + " port " + std::to_string(o.port);
    if (rdma_bind_addr(l.id, reinterpret_cast<sockaddr*>(&addr.value())))
        return step_failure("rdma_bind_addr " + where);
    if (rdma_listen(l.id, 64)) return step_failure("rdma_listen " + where);
    if (hooks.note) hooks.note("listening on " + where);

    std::list<Worker> workers;
    std::atomic<std::uint64_t> failed{0};
    std::optional<Failure> fatal;
    for (;;) {
        reap(workers, false);
        auto ev = wait_cm_event(l.ch, 1000, cancel);
        if (!ev) {
            if (ev.error_code() == ended_by_timeout) continue;
            if (ev.error_code() != ended_by_signal) fatal = ev.failure();
            break;
        }
        if (ev.value().type != RDMA_CM_EVENT_CONNECT_REQUEST) continue;
        rdma_cm_id* child = ev.value().id;
        auto hello = parse_hello(ev.value().private_data);
        Hello h{Mode::rping, 0};
        if (hello) {
            h = hello.value();
        } else if (hello.error_code() != ENOENT) {
            rdma_reject(child, nullptr, 0);
            rdma_destroy_id(child);
            if (hooks.note) hooks.note("rejected a connection request: " + hello.error());
            ++failed;
            if (!o.persistent) break;
            continue;
        }
        auto cch = make_channel();
        if (!cch || rdma_migrate_id(child, cch.value())) {
            Failure f = cch ? step_failure("rdma_migrate_id") : cch.failure();
            if (cch) rdma_destroy_event_channel(cch.value());
            rdma_reject(child, nullptr, 0);
            rdma_destroy_id(child);
            fatal = f;
            break;
        }
        if (!o.persistent) {
            if (!serve(cch.value(), child, h, o, cancel, hooks)) ++failed;
            break;
        }
        Worker& w = workers.emplace_back();
        w.thread = std::thread([&w, &failed, ch = cch.value(), child, h, &o, &cancel, &hooks] {
            if (!serve(ch, child, h, o, cancel, hooks)) ++failed;
            w.done.store(true);
        });
    }
    // Workers see the same cancel; on a fatal listener error they run to their end.
    reap(workers, true);
    if (fatal) return *fatal;
    return failed.load();
}

} // namespace rdmastat::ping
