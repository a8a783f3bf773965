// SPDX-License-Identifier: MIT
// libFuzzer target: the /proc/net/tcp and tcp6 parser (the sock_diag fallback).
#include "collect/proc_net_tcp.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <sys/socket.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)rdmastat::parse_proc_net_tcp(text, AF_INET);
    (void)rdmastat::parse_proc_net_tcp(text, AF_INET6);
    return 0;
}
