// SPDX-License-Identifier: MIT
// Modes between two rdmastat ends. lat: RDMA WRITE ping-pong, each side
// watching the last byte of its buffer for the round's marker, as ib_write_lat
// does. bw: the client keeps `depth` RDMA WRITEs outstanding into the server's
// buffer, as ib_write_bw does; the server only advertises and waits.
#include "ping/session.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <sched.h>

namespace rdmastat::ping {
namespace {

// reap_until: polls the CQ on every spin.
constexpr int spins_before_yield = 64;
constexpr int polls_between_checks = 1024;
// await_marker: reads the marker on every spin; polls the CQ at the first spin,
// every 4096 spins and at each yield; may yield every 16 spins; checks the
// connection every 4096 spins and every 64 yields.
constexpr int spins_between_polls = 4096;
constexpr int spins_between_yields = 16;
constexpr int yields_between_checks = 64;
// await_marker: a marker seen within this many yields came because of them.
constexpr int yields_that_help = 8;
// bw: one write in depth / this asks for a completion (ib_write_bw signals one
// in 100 of its 128).
constexpr int bw_signal_divisor = 4;

std::uint8_t marker(std::uint64_t round) {
    return static_cast<std::uint8_t>(round % 255 + 1); // never 0, the initial content
}

std::uint8_t load(const std::uint8_t* p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

std::uint64_t ns_since(Clock::time_point t0) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

// The write completions among n: the advertisement's SEND completes on the
// same CQ and is not one of the writes a loop counts as outstanding.
int writes_done(const ibv_wc* wc, int n) {
    return static_cast<int>(
        std::count_if(wc, wc + n, [](const ibv_wc& c) { return c.opcode == IBV_WC_RDMA_WRITE; }));
}

// The peer's buffer: it must take `need` bytes.
Result<Advertisement> peer_buffer(Session& s, std::uint32_t need) {
    auto adv = receive_advertisement(s, max_buffer, s.o.timeout_ms);
    if (!adv) return Failure{"waiting for the peer's buffer: " + adv.error(), adv.error_code()};
    if (adv.value().length < need)
        return Failure{"the peer's buffer of " + std::to_string(adv.value().length) +
                           " bytes is smaller than " + std::to_string(need),
                       EPROTO};
    return adv;
}

// Spins on the last byte of b until it is m, as ib_write_lat does. Completions
// are reaped (an error ends the wait) only every few thousand spins and at each
// yield: a CQ poll costs dozens of spins, and a marker that lands during one is
// seen only when it returns (polling every 16 spins, most of the spin went to
// polls, and p50 was 1-2% slower).
//
// Past the session's spin budget the CPU is yielded as well. A wait whose
// marker came within the first few yields shows that a yield let the peer or
// the device's kernel work run: the budget halves, down to 64 (spinning on
// there made a 1-vCPU round trip 8x slower). Any other wait doubles it: with a
// CPU of its own each end spins as perftest does. Counting yields keeps a few
// slow waits (siw's p99 is five times its p50) from driving the budget below
// the usual wait for good: where a wait yields many times, the marker did not
// need the yields, and the budget grows back (halving after every wait that
// yielded left siw's p50 8-11% slower).
Status await_marker(Session& s, const Buffer& b, std::uint8_t m, int& outstanding) {
    const std::uint8_t* last = b.data + b.size - 1;
    long yields = 0;
    for (long spins = 0; load(last) != m; ++spins) {
        const bool yield = spins >= s.spin_budget && spins % spins_between_yields == 0;
        if (spins % spins_between_polls != 0 && !yield) continue;
        ibv_wc wc[8];
        auto n = s.link.poll_completions(wc, 8);
        if (!n) return n.failure();
        outstanding -= writes_done(wc, n.value());
        if (spins % spins_between_polls == 0 && spins > 0)
            if (auto alive = s.link.check_alive(); !alive) return alive;
        if (yield) {
            sched_yield();
            if (++yields % yields_between_checks == 0)
                if (auto alive = s.link.check_alive(); !alive) return alive;
        }
    }
    const bool yield_helped = yields > 0 && yields <= yields_that_help;
    s.spin_budget = yield_helped ? std::max(s.spin_budget / 2, min_spin_budget)
                                 : std::min(s.spin_budget * 2, max_spin_budget);
    return Ok{};
}

// Reaps completions until at most `limit` writes are outstanding.
Status reap_until(Session& s, int& outstanding, int limit) {
    for (long spins = 0; outstanding > limit; ++spins) {
        ibv_wc wc[32];
        auto n = s.link.poll_completions(wc, 32);
        if (!n) return n.failure();
        outstanding -= writes_done(wc, n.value());
        if (n.value() == 0 && spins % polls_between_checks == polls_between_checks - 1)
            if (auto alive = s.link.check_alive(); !alive) return alive;
        if (n.value() == 0 && spins >= spins_before_yield) sched_yield();
    }
    return Ok{};
}

// Whether sink holds what local sent, once the echo has all landed. A device
// may place one write's bytes in any order (rxe's copy can store the last
// byte, the marker, first), so a difference is looked at again for up to
// echo_settle before it is a mismatch.
constexpr auto echo_settle = std::chrono::milliseconds(100);

bool echo_matches(const Buffer& local, const Buffer& sink, std::uint32_t size) {
    const auto deadline = Clock::now() + echo_settle;
    while (std::memcmp(local.data, sink.data, size) != 0) {
        if (Clock::now() > deadline) return false;
        sched_yield();
    }
    return true;
}

// One round's write from the client. Validating, the payload goes first and
// the marker in a write of its own: the server, which echoes its buffer once
// the marker is there, then never echoes a payload still landing, since a
// device places a QP's writes in order.
Status post_round(Session& s, const Advertisement& peer, int& outstanding) {
    if (s.o.validate && s.size > 1) {
        if (auto st = s.link.post_rdma(IBV_WR_RDMA_WRITE, *s.local, s.size - 1, peer, false); !st)
            return st;
        const Buffer last{s.local->data + s.size - 1, 1, s.local->mr};
        Advertisement at = peer;
        at.address += s.size - 1;
        at.length = 1;
        if (auto st = s.link.post_rdma(IBV_WR_RDMA_WRITE, last, 1, at); !st) return st;
    } else if (auto st = s.link.post_rdma(IBV_WR_RDMA_WRITE, *s.local, s.size, peer); !st) {
        return st;
    }
    ++outstanding; // the signaled write; its completion retires the one before
    return Ok{};
}

} // namespace

Status prepare_lat(Session& s) {
    // The server's one buffer takes the client's write and sends the echo; the
    // client writes from a buffer nobody else touches into a sink the server writes.
    constexpr int written = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    return s.r.server ? register_buffers(s, written) : register_buffers(s, 0, written);
}

Status run_lat_client(Session& s) {
    auto peer = peer_buffer(s, s.size);
    if (!peer) return peer.failure();
    if (auto st = send_advertisement(s, *s.sink); !st) return st;
    int outstanding = 0;
    for (std::uint64_t round = 0; !session_over(s, round); ++round) {
        const std::uint8_t m = marker(round);
        if (s.o.validate) fill_rping_payload(s.local->bytes(), round);
        s.local->data[s.size - 1] = m;
        // A validated round posts two writes: half as many rounds in the
        // send queue (16 entries).
        if (auto st = reap_until(s, outstanding, s.o.validate ? 4 : 8); !st) return st;
        auto t0 = Clock::now();
        if (auto st = post_round(s, peer.value(), outstanding); !st) return st;
        if (auto st = await_marker(s, *s.sink, m, outstanding); !st)
            return Failure{"round " + std::to_string(round) + ": " + st.error(), st.error_code()};
        s.latency.add(ns_since(t0));
        s.r.completed = round + 1;
        s.r.bytes += 2ull * s.size;
        if (s.o.validate && !echo_matches(*s.local, *s.sink, s.size))
            return Failure{"round " + std::to_string(round) + ": data mismatch", EBADMSG};
        session_progress(s, false);
        if (s.link.cancel().requested()) return Failure{"interrupted", ended_by_signal};
    }
    return reap_until(s, outstanding, 0);
}

Status run_lat_server(Session& s) {
    if (auto st = send_advertisement(s, *s.local); !st) return st;
    auto peer = peer_buffer(s, s.size);
    if (!peer) return peer.failure();
    int outstanding = 0;
    for (std::uint64_t round = 0;; ++round) {
        auto st = await_marker(s, *s.local, marker(round), outstanding);
        if (!st) return st.error_code() == ended_by_peer ? Status{Ok{}} : st;
        if (auto r = reap_until(s, outstanding, 8); !r) return r;
        if (auto p = s.link.post_rdma(IBV_WR_RDMA_WRITE, *s.local, s.size, peer.value()); !p)
            return p;
        ++outstanding;
        s.r.completed = round + 1;
        s.r.bytes += 2ull * s.size; // the caller times the session: no clock read per round
        if (s.link.cancel().requested()) return Failure{"interrupted", ended_by_signal};
    }
}

Status prepare_bw(Session& s) {
    return register_buffers(s, s.r.server ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0);
}

Status run_bw_client(Session& s) {
    auto peer = peer_buffer(s, s.size);
    if (!peer) return peer.failure();
    const int depth = static_cast<int>(s.o.depth);
    const int every = std::max(depth / bw_signal_divisor, 1);
    // Per signaled write in flight, the writes its completion retires (itself
    // and the unsignaled ones before it: a QP's writes complete in order).
    std::deque<int> batches;
    int unsignaled = 0;
    std::uint64_t posted = 0;
    s.start = s.last_progress = Clock::now();
    while (!session_over(s, posted) || posted > s.r.completed) {
        // A burst fills the window. Its last write is signaled, so a wait always
        // has a completion to come; with a deadline the session may end up to
        // one burst late.
        const auto in_flight = static_cast<int>(posted - s.r.completed);
        int burst = session_over(s, posted) ? 0 : depth - in_flight;
        if (s.count) burst = static_cast<int>(std::min<std::uint64_t>(burst, s.count - posted));
        for (int i = 0; i < burst; ++i) {
            const bool signaled = i + 1 == burst || unsignaled + 1 == every;
            auto st = s.link.post_rdma(IBV_WR_RDMA_WRITE, *s.local, s.size, peer.value(), signaled);
            if (!st) return st;
            ++posted;
            if (!signaled) {
                ++unsignaled;
                continue;
            }
            batches.push_back(unsignaled + 1);
            unsignaled = 0;
        }
        if (batches.empty()) break; // nothing in flight and nothing left to post
        // Until one signaled write, at least, completes.
        int pending = static_cast<int>(batches.size());
        if (auto st = reap_until(s, pending, pending - 1); !st) return st;
        if (pending < 0) return Failure{"more write completions than signaled writes", EPROTO};
        for (auto retired = batches.size() - static_cast<std::size_t>(pending); retired > 0;
             --retired) {
            s.r.completed += static_cast<std::uint64_t>(batches.front());
            batches.pop_front();
        }
        s.r.bytes = s.r.completed * s.size;
        session_progress(s, false);
        if (s.link.cancel().requested()) return Failure{"interrupted", ended_by_signal};
    }
    return Ok{};
}

Status run_bw_server(Session& s) {
    if (auto st = send_advertisement(s, *s.local); !st) return st;
    // The writes land without completions here: wait for the client to leave.
    for (;;) {
        auto wc = s.link.wait_completion(-1);
        if (!wc) return wc.error_code() == ended_by_peer ? Status{Ok{}} : Status{wc.failure()};
        if (wc.value().opcode != IBV_WC_SEND)
            return Failure{"protocol error: unexpected message from the peer", EPROTO};
    }
}

} // namespace rdmastat::ping
