// SPDX-License-Identifier: MIT
#include "model/names.h"

#include "common/numbers.h"
#include "common/text.h"

#include <cinttypes>
#include <cstdio>
#include <linux/rdmastat.h>

namespace rdmastat {

std::optional<std::uint64_t> names_detail::decimal(std::string_view text) {
    // Exactly as name_of writes a number: no sign, no leading zero.
    auto v = parse_number<std::uint64_t>(text);
    if (!v || std::to_string(*v) != text) return std::nullopt;
    return v;
}

std::string ib_cm_reject_reason_name(std::int32_t reason) {
    static constexpr std::array<std::string_view, 36> names = {"",
                                                               "NO_QP",
                                                               "NO_EEC",
                                                               "NO_RESOURCES",
                                                               "TIMEOUT",
                                                               "UNSUPPORTED",
                                                               "INVALID_COMM_ID",
                                                               "INVALID_COMM_INSTANCE",
                                                               "INVALID_SERVICE_ID",
                                                               "INVALID_TRANSPORT_TYPE",
                                                               "STALE_CONN",
                                                               "RDC_NOT_EXIST",
                                                               "INVALID_GID",
                                                               "INVALID_LID",
                                                               "INVALID_SL",
                                                               "INVALID_TRAFFIC_CLASS",
                                                               "INVALID_HOP_LIMIT",
                                                               "INVALID_PACKET_RATE",
                                                               "INVALID_ALT_GID",
                                                               "INVALID_ALT_LID",
                                                               "INVALID_ALT_SL",
                                                               "INVALID_ALT_TRAFFIC_CLASS",
                                                               "INVALID_ALT_HOP_LIMIT",
                                                               "INVALID_ALT_PACKET_RATE",
                                                               "PORT_CM_REDIRECT",
                                                               "PORT_REDIRECT",
                                                               "INVALID_MTU",
                                                               "INSUFFICIENT_RESP_RESOURCES",
                                                               "CONSUMER_DEFINED",
                                                               "INVALID_RNR_RETRY",
                                                               "DUPLICATE_LOCAL_COMM_ID",
                                                               "INVALID_CLASS_VERSION",
                                                               "INVALID_FLOW_LABEL",
                                                               "INVALID_ALT_FLOW_LABEL",
                                                               "",
                                                               "VENDOR_OPTION_NOT_SUPPORTED"};
    const auto i = static_cast<std::size_t>(reason);
    return reason >= 0 && i < names.size() && !names[i].empty() ? std::string(names[i])
                                                                : std::to_string(reason);
}

std::string ib_event_name(std::uint32_t event) {
    static constexpr std::array<std::string_view, 21> names = {"CQ_ERR",
                                                               "QP_FATAL",
                                                               "QP_REQ_ERR",
                                                               "QP_ACCESS_ERR",
                                                               "COMM_EST",
                                                               "SQ_DRAINED",
                                                               "PATH_MIG",
                                                               "PATH_MIG_ERR",
                                                               "DEVICE_FATAL",
                                                               "PORT_ACTIVE",
                                                               "PORT_ERR",
                                                               "LID_CHANGE",
                                                               "PKEY_CHANGE",
                                                               "SM_CHANGE",
                                                               "SRQ_ERR",
                                                               "SRQ_LIMIT_REACHED",
                                                               "QP_LAST_WQE_REACHED",
                                                               "CLIENT_REREGISTER",
                                                               "GID_CHANGE",
                                                               "WQ_FATAL",
                                                               "DEVICE_SPEED_CHANGE"};
    return event < names.size() ? std::string(names[event]) : std::to_string(event);
}

std::string state_name(const Connection& c) {
    if (c.via == Via::cm) return c.state ? name_of(*c.state) : "-";
    return c.qp && c.qp->state ? name_of(*c.qp->state) : "-";
}

std::string guid_text(Guid guid) {
    char buf[24];
    const std::uint64_t g = guid.value;
    std::snprintf(buf, sizeof(buf), "%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64 ":%04" PRIx64,
                  (g >> 48) & 0xffff, (g >> 32) & 0xffff, (g >> 16) & 0xffff, g & 0xffff);
    return buf;
}

std::optional<Guid> guid_from_text(std::string_view text) {
    std::string hex;
    for (char ch : text)
        if (ch != ':') hex += ch;
    // At most 16 digits, leading zeros included: more would be more than 64 bits.
    auto v = hex.size() <= 16 ? parse_number<std::uint64_t>(hex, 16) : std::nullopt;
    if (!v) return std::nullopt;
    return Guid{*v};
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

std::optional<Transport> transport_from_name(std::string_view name) {
    std::string n = lower(name);
    if (n == "ib") return Transport::infiniband;
    if (n == "iw") return Transport::iwarp;
    return enum_from_name<Transport>(n);
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
