// SPDX-License-Identifier: MIT
#include "model/names.h"

#include "common/numbers.h"
#include "common/text.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <linux/rdmastat.h>
#include <vector>

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

// Indexed by ResourceKind: the one table of their names.
constexpr const char* resource_kinds[] = {"qp", "cq", "mr", "pd", "ctx", "srq"};
static_assert(std::size(resource_kinds) == resource_kind_count, "one name per ResourceKind");

// The value whose name is name, among 0..limit: a known name or the decimal
// text of a value without one (what lookup writes for it).
// The names are made once per enum: a snapshot's reader looks them up by the
// million. name_of and limit are template arguments, so that the names kept
// are those of the one function and range each lookup asks about.
template <typename E, unsigned limit, auto name_of>
std::optional<E> from_name(std::string_view name) {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (unsigned v = 0; v <= limit; ++v)
            n.emplace_back(name_of(static_cast<E>(v)));
        return n;
    }();
    for (std::size_t v = 0; v < names.size(); ++v)
        if (names[v] == name) return static_cast<E>(v);
    return std::nullopt;
}

} // namespace

std::string cm_state_name(CmState state) {
    return lookup(cm_states, static_cast<std::uint8_t>(state));
}

std::span<const char* const> cm_state_names() {
    return cm_states;
}

std::string cm_event_type_name(CmEventType type) {
    static constexpr std::array<const char*, 20> names = {
        "ADDR_RESOLVED",     "ADDR_ERROR",       "ROUTE_RESOLVED", "ROUTE_ERROR",
        "CONNECT_REQUEST",   "CONNECT_RESPONSE", "CONNECT_ERROR",  "UNREACHABLE",
        "REJECTED",          "ESTABLISHED",      "DISCONNECTED",   "DEVICE_REMOVAL",
        "MULTICAST_JOIN",    "MULTICAST_ERROR",  "ADDR_CHANGE",    "TIMEWAIT_EXIT",
        "ADDRINFO_RESOLVED", "ADDRINFO_ERROR",   "USER",           "INTERNAL"};
    return lookup(names, static_cast<std::uint32_t>(type));
}

std::string_view ending_name(Ending ending) {
    static constexpr std::array<const char*, 7> names = {
        "disconnected", "rejected",       "reject_sent", "unreachable",
        "error",        "device_removed", "closed"};
    auto i = static_cast<std::size_t>(ending);
    return i < names.size() ? names[i] : "closed";
}

std::string ib_cm_reject_reason_name(std::int32_t reason) {
    static constexpr std::array<const char*, 36> names = {nullptr,
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
                                                          nullptr,
                                                          "VENDOR_OPTION_NOT_SUPPORTED"};
    if (reason < 0) return std::to_string(reason);
    return lookup(names, static_cast<unsigned>(reason));
}

std::string qp_state_name(QpState state) {
    static constexpr std::array<const char*, 7> names = {"RESET", "INIT", "RTR", "RTS",
                                                         "SQD",   "SQE",  "ERR"};
    return lookup(names, static_cast<std::uint8_t>(state));
}

std::string qp_type_name(QpType qp_type) {
    auto type = static_cast<std::uint8_t>(qp_type);
    // Index 7 is unused by the kernel; 0xff is IB_QPT_DRIVER.
    static constexpr std::array<const char*, 11> names = {
        "SMI",           "GSI", "RC",         "UC",      "UD",     "RAW_IPV6",
        "RAW_ETHERTYPE", "",    "RAW_PACKET", "XRC_INI", "XRC_TGT"};
    if (type == 0xff) return "DRIVER";
    return lookup(names, type);
}

std::string port_space_name(PortSpace port_space) {
    auto ps = static_cast<std::uint32_t>(port_space);
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

std::string_view snapshot_source_name(SnapshotSource source) {
    switch (source) {
    case SnapshotSource::nldev:
        return "nldev";
    case SnapshotSource::module:
        return "module";
    case SnapshotSource::file:
        break;
    }
    return "file";
}

std::string_view counter_source_name(CounterSource source) {
    return source == CounterSource::nldev ? "nldev" : "sysfs";
}

std::optional<CounterSource> counter_source_from_name(std::string_view name) {
    return from_name<CounterSource, 1, counter_source_name>(name);
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

std::string_view resource_kind_name(ResourceKind kind) {
    return resource_kinds[static_cast<std::size_t>(kind)];
}

std::optional<CmState> cm_state_from_name(std::string_view name) {
    return from_name<CmState, 0xff, cm_state_name>(name);
}

std::optional<QpState> qp_state_from_name(std::string_view name) {
    return from_name<QpState, 0xff, qp_state_name>(name);
}

std::optional<QpType> qp_type_from_name(std::string_view name) {
    return from_name<QpType, 0xff, qp_type_name>(name);
}

std::optional<PortSpace> port_space_from_name(std::string_view name) {
    for (PortSpace ps : {PortSpace::ipoib, PortSpace::tcp, PortSpace::udp, PortSpace::ib})
        if (port_space_name(ps) == name) return ps;
    // A port space without a name is written as its number, exactly.
    auto v = parse_number<std::uint32_t>(name);
    if (!v || port_space_name(static_cast<PortSpace>(*v)) != name) return std::nullopt;
    return static_cast<PortSpace>(*v);
}

std::optional<ResourceKind> resource_kind_from_name(std::string_view name) {
    return from_name<ResourceKind, resource_kind_count - 1, resource_kind_name>(name);
}

std::string tcp_state_name(TcpState state) {
    // With ss's names (iproute2's misc/ss.c).
    static constexpr std::array<const char*, 14> names = {
        nullptr,      "ESTAB",     "SYN-SENT", "SYN-RECV",      "FIN-WAIT-1",
        "FIN-WAIT-2", "TIME-WAIT", "UNCONN",   "CLOSE-WAIT",    "LAST-ACK",
        "LISTEN",     "CLOSING",   "SYN-RECV", "BOUND-INACTIVE"};
    return lookup(names, static_cast<std::uint8_t>(state));
}

std::optional<TcpState> tcp_state_from_name(std::string_view name) {
    return from_name<TcpState, 0xff, tcp_state_name>(name);
}

std::string port_state_name(PortState state) {
    static constexpr std::array<const char*, 6> names = {"NOP",   "DOWN",   "INIT",
                                                         "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return lookup(names, static_cast<std::uint8_t>(state));
}

std::string port_phys_state_name(PortPhysState state) {
    static constexpr std::array<const char*, 8> names = {"",
                                                         "SLEEP",
                                                         "POLLING",
                                                         "DISABLED",
                                                         "PORT_CONFIGURATION_TRAINING",
                                                         "LINK_UP",
                                                         "LINK_ERROR_RECOVERY",
                                                         "PHY_TEST"};
    return lookup(names, static_cast<std::uint8_t>(state));
}

std::string node_type_name(NodeType type) {
    static constexpr std::array<const char*, 8> names = {
        "unspecified", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"};
    return lookup(names, static_cast<std::uint8_t>(type));
}

std::optional<PortState> port_state_from_name(std::string_view name) {
    return from_name<PortState, 0xff, port_state_name>(name);
}

std::optional<PortPhysState> port_phys_state_from_name(std::string_view name) {
    return from_name<PortPhysState, 0xff, port_phys_state_name>(name);
}

std::optional<NodeType> node_type_from_name(std::string_view name) {
    return from_name<NodeType, 0xff, node_type_name>(name);
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

namespace {

constexpr std::array<std::string_view, 4> runtime_names = {"docker", "containerd", "crio",
                                                           "podman"};
constexpr std::array<std::string_view, 3> qos_names = {"guaranteed", "burstable", "besteffort"};

template <typename E, std::size_t N>
std::optional<E> index_named(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i)
        if (names[i] == name) return static_cast<E>(i);
    return std::nullopt;
}

} // namespace

std::string_view container_runtime_name(ContainerRuntime runtime) {
    return runtime_names.at(static_cast<std::size_t>(runtime));
}

std::optional<ContainerRuntime> container_runtime_from_name(std::string_view name) {
    return index_named<ContainerRuntime>(runtime_names, name);
}

std::string_view pod_qos_name(PodQos qos) {
    return qos_names.at(static_cast<std::size_t>(qos));
}

std::optional<PodQos> pod_qos_from_name(std::string_view name) {
    return index_named<PodQos>(qos_names, name);
}

} // namespace rdmastat
