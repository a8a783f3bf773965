// SPDX-License-Identifier: MIT
#pragma once

/// rdma_cm set-up shared by the client and the server (internal to ping/).

#include "common/error.h"
#include "ping/link.h"

#include <string>
#include <sys/socket.h>

namespace rdmastat::ping {

/// host (a name or numeric address) and port as a sockaddr; what names the
/// option in errors ("-a 10.9.0.9: Name or service not known").
Result<sockaddr_storage> resolve_host(const std::string& host, std::uint16_t port,
                                      const std::string& what);

/// An event channel and a TCP-port-space id on it, owned by a Link.
Result<std::unique_ptr<Link>> make_link(const Cancel& cancel);

/// The next event on link's channel, which must be `want`; other events become
/// a Failure "STEP: EVENT (status N)" naming the step and what the CM said.
Result<CmEvent> expect_event(Link& link, rdma_cm_event_type want, const std::string& step,
                             int timeout_ms);

/// rping's connection parameters (one outstanding RDMA READ each way, RNR
/// retries without limit), carrying hello as private data.
rdma_conn_param conn_param(const Hello& hello, std::uint8_t (&buf)[hello_size]);

} // namespace rdmastat::ping
