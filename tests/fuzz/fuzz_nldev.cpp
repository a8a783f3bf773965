// SPDX-License-Identifier: MIT
// libFuzzer target: every NLDEV dump parser gets the same bytes (a whole dump,
// as NetlinkSocket::request returns it), and the monitor's parsers the same
// bytes as a datagram. Parsers must return a Failure, never crash.
#include "collect/nldev_monitor.h"
#include "collect/nldev_parse.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace rdmastat;
    const Bytes bytes(data, data + size);
    (void)parse_device_dump(bytes);
    (void)parse_port_dump(bytes);
    (void)parse_cm_id_dump(bytes);
    (void)parse_chardev_driver(bytes);
    (void)parse_qp_dump(bytes);
    for (const NldevResourceKind& k : nldev_resource_kinds())
        (void)parse_resource_dump(k.kind, bytes);
    (void)parse_monitor_mode(bytes);
    (void)parse_monitor_messages(data, size, [](Result<DeviceEvent>) {});
    return 0;
}
