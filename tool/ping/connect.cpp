// SPDX-License-Identifier: MIT
#include "ping/connect.h"

#include <cstring>
#include <netdb.h>
#include <netinet/in.h>

namespace rdmastat::ping {

Result<sockaddr_storage> resolve_host(const std::string& host, std::uint16_t port,
                                      const std::string& what) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int e = getaddrinfo(host.c_str(), nullptr, &hints, &res))
        return Failure{what + " " + host + ": " + gai_strerror(e), EINVAL};
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (ss.ss_family == AF_INET)
        reinterpret_cast<sockaddr_in*>(&ss)->sin_port = htons(port);
    else if (ss.ss_family == AF_INET6)
        reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port = htons(port);
    else
        return Failure{what + " " + host + ": not an IPv4 or IPv6 address", EAFNOSUPPORT};
    return ss;
}

Result<std::unique_ptr<Link>> make_link(const Cancel& cancel) {
    auto ch = make_channel();
    if (!ch) return ch.failure();
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(ch.value(), &id, nullptr, RDMA_PS_TCP)) {
        Failure f = step_failure("rdma_create_id");
        rdma_destroy_event_channel(ch.value());
        return f;
    }
    return std::make_unique<Link>(ch.value(), id, cancel);
}

Result<CmEvent> expect_event(Link& link, rdma_cm_event_type want, const std::string& step,
                             int timeout_ms) {
    auto e = wait_cm_event(link.channel(), timeout_ms, link.cancel());
    if (!e) return Failure{step + ": " + e.error(), e.error_code()};
    if (e.value().type == want) return e;
    int status = e.value().status;
    std::string what = rdma_event_str(e.value().type);
    if (e.value().type == RDMA_CM_EVENT_REJECTED)
        what += " (nobody listening there, or the server refused)";
    else if (status < 0)
        what += std::string(" (") + std::strerror(-status) + ")";
    else if (status > 0)
        what += " (status " + std::to_string(status) + ")";
    return Failure{step + ": " + what, status < 0 ? -status : ECONNREFUSED};
}

rdma_conn_param conn_param(const Hello& hello, std::uint8_t (&buf)[hello_size]) {
    encode_hello(hello, buf);
    rdma_conn_param p{};
    p.private_data = buf;
    p.private_data_len = hello_size;
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.retry_count = 7;
    p.rnr_retry_count = 7;
    return p;
}

} // namespace rdmastat::ping
