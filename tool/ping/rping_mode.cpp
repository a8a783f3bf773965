// SPDX-License-Identifier: MIT
// rping's cycle (wire.h): the client advertises its source, the server READs
// it and says go ahead, the client advertises its sink, the server WRITEs the
// data back and says go ahead. Only the server issues RDMA operations.
#include "ping/session.h"

#include <cstring>

namespace rdmastat::ping {
namespace {

Status with_context(Status s, const std::string& context) {
    if (s) return s;
    return Failure{context + ": " + s.error(), s.error_code()};
}

// The client's wait for a go-ahead: any 16-byte message (rping sends stale bytes).
Status await_go_ahead(Session& s, const std::string& context) {
    auto wc = await_completion(s, IBV_WC_RECV, s.o.timeout_ms);
    if (!wc) return with_context(wc.failure(), context);
    if (wc.value().byte_len != advertisement_size)
        return Failure{context + ": go-ahead of " + std::to_string(wc.value().byte_len) +
                           " bytes, expected 16",
                       EPROTO};
    return s.link.post_recv(*s.msg_in, advertisement_size);
}

// One ping after the other until the client leaves (a Failure with
// ended_by_peer) or something fails.
Status serve_pings(Session& s) {
    for (std::uint64_t seq = 0;; ++seq) {
        const std::string ping = "ping " + std::to_string(seq);
        // The client sets the pace: wait for its next ping without a limit.
        auto src = receive_advertisement(s, s.size, -1);
        if (!src) return with_context(src.failure(), ping + ": source");
        const std::uint32_t len = src.value().length;
        s.r.size = len;
        if (auto st = s.link.post_rdma(IBV_WR_RDMA_READ, *s.local, len, src.value()); !st)
            return st;
        if (auto wc = await_completion(s, IBV_WC_RDMA_READ, s.o.timeout_ms); !wc)
            return with_context(wc.failure(), ping);
        if (s.o.verbose && s.hooks.data)
            s.hooks.data("server ping data: " + printable_prefix({s.local->data, len}));
        if (auto st = s.link.post_send(*s.msg_out, advertisement_size); !st) return st;
        auto sink = receive_advertisement(s, max_buffer, -1);
        if (!sink) return with_context(sink.failure(), ping + ": sink");
        if (sink.value().length < len)
            return Failure{ping + ": the peer's sink of " + std::to_string(sink.value().length) +
                               " bytes cannot take the " + std::to_string(len) + " bytes read",
                           EPROTO};
        if (auto st = s.link.post_rdma(IBV_WR_RDMA_WRITE, *s.local, len, sink.value()); !st)
            return st;
        if (auto wc = await_completion(s, IBV_WC_RDMA_WRITE, s.o.timeout_ms); !wc)
            return with_context(wc.failure(), ping);
        if (auto st = s.link.post_send(*s.msg_out, advertisement_size); !st) return st;
        s.r.completed = seq + 1;
        s.r.bytes += 2ull * len;
        s.r.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
        if (s.count && s.r.completed >= s.count) return Ok{}; // rping -s -C: served them all
    }
}

} // namespace

Status prepare_rping_client(Session& s) {
    // The server READs the source and WRITEs the sink: no other access.
    return register_buffers(s, IBV_ACCESS_REMOTE_READ,
                            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

Status run_rping_client(Session& s) {
    for (std::uint64_t seq = 0; !session_over(s, seq); ++seq) {
        const std::string ping = "ping " + std::to_string(seq);
        fill_rping_payload(s.local->bytes(), seq);
        std::memset(s.sink->data, 0, s.sink->size);
        auto t0 = Clock::now();
        if (auto st = send_advertisement(s, *s.local); !st) return st;
        if (auto st = await_go_ahead(s, ping + ": waiting for the server to read"); !st) return st;
        if (auto st = send_advertisement(s, *s.sink); !st) return st;
        if (auto st = await_go_ahead(s, ping + ": waiting for the server to write back"); !st)
            return st;
        s.latency.add(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()));
        s.r.completed = seq + 1;
        s.r.bytes += 2ull * s.size;
        if (s.o.validate && std::memcmp(s.local->data, s.sink->data, s.size) != 0)
            return Failure{ping + ": data mismatch: the server sent back other bytes", EBADMSG};
        if (s.o.verbose && s.hooks.data)
            s.hooks.data("ping data: " + printable_prefix(s.sink->bytes()));
        session_progress(s, false);
    }
    return Ok{};
}

Status prepare_rping_server(Session& s) {
    // The READ lands here and the WRITE leaves from here. On iWARP a READ's
    // response is placed like a tagged write, so the sink needs remote write.
    int access = IBV_ACCESS_LOCAL_WRITE;
    if (is_iwarp(s.link)) access |= IBV_ACCESS_REMOTE_WRITE;
    return register_buffers(s, access);
}

// rping -s -C N: the Nth go-ahead is sent; the client leaves first. Leaving
// first ourselves can hang rping's client (rdma-core 44 to 56, on siw and
// rxe): the go-ahead and our disconnect arrive together, its main thread
// moves the QP to ERR while its CQ thread has consumed the last receive and
// not posted the next, so nothing is flushed, and that thread, which ends
// only on a flush, never does. rping's own server never leaves first. A
// client that pings on (a larger -C) is left at its next message, one that
// stays at the timeout; a signal meanwhile is not noted (the run is over).
void await_departure(Session& s) {
    if (s.r.mode != Mode::rping || !s.r.server || !s.count || s.r.completed < s.count) return;
    (void)await_completion(s, IBV_WC_RECV, s.o.timeout_ms);
}

// A client may leave at any point of the cycle (rping after its count, a
// client after SIGINT): that is the end of the run, not an error.
Status run_rping_server(Session& s) {
    Status st = serve_pings(s);
    if (!st && st.error_code() == ended_by_peer) return Ok{};
    return st;
}

} // namespace rdmastat::ping
