// SPDX-License-Identifier: MIT
#include "ping/session.h"

namespace rdmastat::ping {

bool session_over(const Session& s, std::uint64_t done) {
    if (s.count && done >= s.count) return true;
    return s.deadline && Clock::now() >= *s.deadline;
}

void session_progress(Session& s, bool force) {
    auto now = Clock::now();
    if (!force && now - s.last_progress < std::chrono::seconds(1)) return;
    s.last_progress = now;
    s.r.seconds = std::chrono::duration<double>(now - s.start).count();
    if (s.latency.count()) s.r.latency = summarize(s.latency);
    if (!force && s.hooks.progress) s.hooks.progress(s.r);
}

std::uint32_t send_depth(Mode m, bool server, std::uint32_t depth) {
    // rping mode has at most a SEND and an RDMA operation in flight, plus SEND
    // completions not reaped yet; bw keeps `depth` writes outstanding.
    if (m == Mode::bw && !server) return depth + 4;
    return 16;
}

std::uint32_t inline_bytes(Mode m, std::uint32_t size) {
    constexpr std::uint32_t most = 256;
    return m == Mode::lat && size <= most ? size : 0;
}

Status register_buffers(Session& s, int local_access, std::optional<int> sink_access) {
    auto local = s.link.add_buffer(s.size, local_access);
    if (!local) return local.failure();
    s.local = local.value();
    if (sink_access) {
        auto sink = s.link.add_buffer(s.size, *sink_access);
        if (!sink) return sink.failure();
        s.sink = sink.value();
    }
    auto in = s.link.add_buffer(advertisement_size, IBV_ACCESS_LOCAL_WRITE);
    if (!in) return in.failure();
    auto out = s.link.add_buffer(advertisement_size, 0);
    if (!out) return out.failure();
    s.msg_in = in.value();
    s.msg_out = out.value();
    return s.link.post_recv(*s.msg_in, advertisement_size);
}

Status send_advertisement(Session& s, const Buffer& b) {
    encode_advertisement(b.advertise(), s.msg_out->data);
    return s.link.post_send(*s.msg_out, advertisement_size);
}

namespace {
const char* wanted_name(ibv_wc_opcode op) {
    switch (op) {
    case IBV_WC_RECV:
        return "message from the peer";
    case IBV_WC_RDMA_READ:
        return "RDMA READ completion";
    case IBV_WC_RDMA_WRITE:
        return "RDMA WRITE completion";
    default:
        return "completion";
    }
}
} // namespace

Result<ibv_wc> await_completion(Session& s, ibv_wc_opcode want, int timeout_ms) {
    for (;;) {
        auto wc = s.link.wait_completion(timeout_ms);
        if (!wc && wc.error_code() == ended_by_timeout)
            return Failure{std::string("no ") + wanted_name(want) + " within " +
                               std::to_string(timeout_ms) + " ms",
                           ended_by_timeout};
        if (!wc) return wc;
        if (wc.value().opcode == want) return wc;
        if (wc.value().opcode == IBV_WC_SEND) continue;
        return Failure{
            "protocol error: unexpected " +
                std::string(wc.value().opcode == IBV_WC_RECV ? "message" : "completion") +
                " from the peer",
            EPROTO};
    }
}

Result<Advertisement> receive_advertisement(Session& s, std::uint32_t capacity, int timeout_ms) {
    auto wc = await_completion(s, IBV_WC_RECV, timeout_ms);
    if (!wc) return wc.failure();
    auto adv = parse_advertisement({s.msg_in->data, wc.value().byte_len}, capacity);
    if (!adv) return Failure{"peer's " + adv.error(), EPROTO};
    if (auto p = s.link.post_recv(*s.msg_in, advertisement_size); !p) return p.failure();
    return adv;
}

Status prepare_session(Session& s) {
    switch (s.r.mode) {
    case Mode::rping:
        return s.r.server ? prepare_rping_server(s) : prepare_rping_client(s);
    case Mode::lat:
        return prepare_lat(s);
    case Mode::bw:
        return prepare_bw(s);
    }
    return Failure{"unknown mode", EINVAL};
}

Status run_session(Session& s) {
    switch (s.r.mode) {
    case Mode::rping:
        return s.r.server ? run_rping_server(s) : run_rping_client(s);
    case Mode::lat:
        return s.r.server ? run_lat_server(s) : run_lat_client(s);
    case Mode::bw:
        return s.r.server ? run_bw_server(s) : run_bw_client(s);
    }
    return Failure{"unknown mode", EINVAL};
}

} // namespace rdmastat::ping
