// SPDX-License-Identifier: MIT
#include "model/names.h"

#include "common/text.h"

#include <array>
#include <linux/rdmastat.h>

namespace rdmastat {
namespace {

template <std::size_t N>
std::string lookup(const std::array<const char*, N>& table, unsigned value) {
    if (value < N && table[value] && *table[value]) return table[value];
    return std::to_string(value);
}

constexpr std::array<const char*, 11> cm_states = {
    "IDLE",       "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",    "ROUTE_RESOLVED", "CONNECT",
    "DISCONNECT", "ADDR_BOUND", "LISTEN",        "DEVICE_REMOVAL", "DESTROYING"};

} // namespace

std::string cm_state_name(std::uint8_t state) {
    return lookup(cm_states, state);
}

std::span<const char* const> cm_state_names() {
    return cm_states;
}

std::string qp_state_name(std::uint8_t state) {
    static constexpr std::array<const char*, 7> names = {"RESET", "INIT", "RTR", "RTS",
                                                         "SQD",   "SQE",  "ERR"};
    return lookup(names, state);
}

std::string qp_type_name(std::uint8_t type) {
    // Index 7 is unused by the kernel; 0xff is IB_QPT_DRIVER.
    static constexpr std::array<const char*, 11> names = {
        "SMI",           "GSI", "RC",         "UC",      "UD",     "RAW_IPV6",
        "RAW_ETHERTYPE", "",    "RAW_PACKET", "XRC_INI", "XRC_TGT"};
    if (type == 0xff) return "DRIVER";
    return lookup(names, type);
}

std::string port_space_name(std::uint32_t ps) {
    switch (ps) {
    case 0x0002:
        return "ipoib";
    case 0x0106:
        return "tcp";
    case 0x0111:
        return "udp";
    case 0x013f:
        return "ib";
    default:
        return std::to_string(ps);
    }
}

std::string port_state_name(std::uint8_t state) {
    static constexpr std::array<const char*, 6> names = {"NOP",   "DOWN",   "INIT",
                                                         "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return lookup(names, state);
}

std::string port_phys_state_name(std::uint8_t state) {
    static constexpr std::array<const char*, 8> names = {"",
                                                         "SLEEP",
                                                         "POLLING",
                                                         "DISABLED",
                                                         "PORT_CONFIGURATION_TRAINING",
                                                         "LINK_UP",
                                                         "LINK_ERROR_RECOVERY",
                                                         "PHY_TEST"};
    return lookup(names, state);
}

std::string node_type_name(std::uint8_t type) {
    static constexpr std::array<const char*, 8> names = {
        "unspecified", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"};
    return lookup(names, type);
}

Transport transport_from_module(std::uint8_t transport) {
    switch (transport) {
    case RDMASTAT_TRANSPORT_INFINIBAND:
        return Transport::infiniband;
    case RDMASTAT_TRANSPORT_ROCE:
        return Transport::roce;
    case RDMASTAT_TRANSPORT_IWARP:
        return Transport::iwarp;
    case RDMASTAT_TRANSPORT_USNIC:
        return Transport::usnic;
    default:
        return Transport::unknown;
    }
}

Transport transport_from_protocol(std::string_view protocol) {
    if (protocol == "ib") return Transport::infiniband;
    if (protocol == "iw") return Transport::iwarp;
    if (protocol == "roce") return Transport::roce;
    if (protocol == "usnic") return Transport::usnic;
    return Transport::unknown;
}

std::string_view transport_name(Transport t) {
    switch (t) {
    case Transport::infiniband:
        return "infiniband";
    case Transport::roce:
        return "roce";
    case Transport::iwarp:
        return "iwarp";
    case Transport::usnic:
        return "usnic";
    case Transport::unknown:
        break;
    }
    return "unknown";
}

std::optional<Transport> transport_from_name(std::string_view name) {
    std::string n = lower(name);
    if (n == "ib") return Transport::infiniband;
    if (n == "iw") return Transport::iwarp;
    for (Transport t : {Transport::unknown, Transport::infiniband, Transport::roce,
                        Transport::iwarp, Transport::usnic})
        if (n == transport_name(t)) return t;
    return std::nullopt;
}

std::string_view qp_unjoined_name(QpUnjoined reason) {
    return reason == QpUnjoined::gone ? "gone" : "other_owner";
}

std::optional<QpUnjoined> qp_unjoined_from_name(std::string_view name) {
    if (name == "gone") return QpUnjoined::gone;
    if (name == "other_owner") return QpUnjoined::other_owner;
    return std::nullopt;
}

std::optional<QpUnjoined> qp_unjoined_from_module(std::uint8_t reason) {
    switch (reason) {
    case RDMASTAT_QP_UNJOINED_GONE:
        return QpUnjoined::gone;
    case RDMASTAT_QP_UNJOINED_OTHER_OWNER:
        return QpUnjoined::other_owner;
    default:
        return std::nullopt;
    }
}

} // namespace rdmastat
