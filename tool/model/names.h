// SPDX-License-Identifier: MIT
#pragma once

/// The names of the model's enums, each enum named once: Names<E> holds its
/// table, and name_of() and enum_from_name() are the only code that reads one.
/// The kernel's enums are numbered as the kernel numbers them, and a value a
/// newer kernel adds is written as its decimal text (and read back from it),
/// so a newer kernel never breaks the listing.

#include "model/cm_event.h"
#include "model/model.h"

#include <array>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace rdmastat {

/// E's names. Each specialization has noun, what an error calls a value of E
/// ("unknown CM state 'X'"); names, where names[v] names value v (empty: no
/// name); optionally sparse, (value, name) pairs for values past the table;
/// and numbered, whether a value without a name is written as its decimal
/// text (the kernel's enums) or never occurs (rdmastat's own).
template <typename E> struct Names;

/// An enum that Names describes.
template <typename E>
concept named_enum = std::is_enum_v<E> && requires {
    Names<E>::names;
    Names<E>::noun;
};

namespace names_detail {
template <typename E> constexpr std::uint64_t number(E v) {
    return static_cast<std::uint64_t>(static_cast<std::underlying_type_t<E>>(v));
}
template <typename E> constexpr std::string_view find(E v) {
    using N = Names<E>;
    const std::uint64_t i = number(v);
    if (i < N::names.size()) return N::names[i];
    if constexpr (requires { N::sparse; })
        for (const auto& [value, name] : N::sparse)
            if (value == i) return name;
    return {};
}
std::optional<std::uint64_t> decimal(std::string_view text);
} // namespace names_detail

/// v's name, or the decimal text of a value without one.
template <named_enum E> std::string name_of(E v) {
    const std::string_view name = names_detail::find(v);
    return name.empty() ? std::to_string(names_detail::number(v)) : std::string(name);
}

/// The value name names, exactly as name_of writes it (with numbers false,
/// names only: what a user may ask for); nullopt for anything else.
template <named_enum E>
std::optional<E> enum_from_name(std::string_view name, bool numbers = Names<E>::numbered) {
    using N = Names<E>;
    for (std::size_t i = 0; i < N::names.size(); ++i)
        if (!N::names[i].empty() && N::names[i] == name) return static_cast<E>(i);
    if constexpr (requires { N::sparse; })
        for (const auto& [value, n] : N::sparse)
            if (n == name) return static_cast<E>(value);
    if (numbers) {
        using U = std::underlying_type_t<E>;
        const auto v = names_detail::decimal(name);
        if (v && *v <= static_cast<std::uint64_t>(std::numeric_limits<U>::max()) &&
            names_detail::find(static_cast<E>(*v)).empty())
            return static_cast<E>(*v);
    }
    return std::nullopt;
}

/// Names<E> for a table without sparse values: RDMASTAT_NAMES(E, noun,
/// numbered, names...).
#define RDMASTAT_NAMES(E, NOUN, NUMBERED, ...)                                                     \
    template <> struct Names<E> {                                                                  \
        static constexpr const char* noun = NOUN;                                                  \
        static constexpr bool numbered = NUMBERED;                                                 \
        static constexpr auto names = std::to_array<std::string_view>({__VA_ARGS__});              \
    }

// The kernel's names (and iproute2's, which uses them), unless said otherwise.
RDMASTAT_NAMES(CmState, "CM state", true, "IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",
               "ROUTE_RESOLVED", "CONNECT", "DISCONNECT", "ADDR_BOUND", "LISTEN", "DEVICE_REMOVAL",
               "DESTROYING");
/// As librdmacm's rdma_event_str() names them, without "RDMA_CM_EVENT_".
RDMASTAT_NAMES(CmEventType, "CM event", true, "ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED",
               "ROUTE_ERROR", "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE",
               "REJECTED", "ESTABLISHED", "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN",
               "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT", "ADDRINFO_RESOLVED",
               "ADDRINFO_ERROR", "USER", "INTERNAL");
/// As the kernel's enum and iproute2's `rdma monitor` name them.
RDMASTAT_NAMES(DeviceEventType, "device event", true, "REGISTER", "UNREGISTER", "NETDEV_ATTACH",
               "NETDEV_DETACH", "RENAME", "NETDEV_RENAME");
RDMASTAT_NAMES(Ending, "ending", false, "disconnected", "rejected", "reject_sent", "unreachable",
               "error", "device_removed", "closed");
RDMASTAT_NAMES(QpState, "QP state", true, "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR");
/// Value 7 is unused by the kernel; 0xff is IB_QPT_DRIVER.
template <> struct Names<QpType> {
    static constexpr const char* noun = "QP type";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 11> names = {
        "SMI",           "GSI", "RC",         "UC",      "UD",     "RAW_IPV6",
        "RAW_ETHERTYPE", "",    "RAW_PACKET", "XRC_INI", "XRC_TGT"};
    static constexpr std::array<std::pair<std::uint64_t, std::string_view>, 1> sparse = {
        {{0xff, "DRIVER"}}};
};
/// rdmastat's own names, as JSON and filters spell port spaces.
template <> struct Names<PortSpace> {
    static constexpr const char* noun = "port space";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 0> names = {};
    static constexpr std::array<std::pair<std::uint64_t, std::string_view>, 4> sparse = {
        {{0x0002, "ipoib"}, {0x0106, "tcp"}, {0x0111, "udp"}, {0x013f, "ib"}}};
};
RDMASTAT_NAMES(SnapshotSource, "source", false, "nldev", "module", "file");
RDMASTAT_NAMES(CounterSource, "counter source", false, "nldev", "sysfs");
/// As JSON, snapshots and capture files name them (lsof's TYPE is the upper-case form).
RDMASTAT_NAMES(ResourceKind, "resource kind", false, "qp", "cq", "mr", "pd", "ctx", "srq");
static_assert(Names<ResourceKind>::names.size() == resource_kind_count);
/// As ss names them (iproute2's misc/ss.c): "SYN-RECV" also for NEW_SYN_RECV
/// request sockets, "UNCONN" for CLOSE.
RDMASTAT_NAMES(TcpState, "TCP state", true, "", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1",
               "FIN-WAIT-2", "TIME-WAIT", "UNCONN", "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING",
               "SYN-RECV", "BOUND-INACTIVE");
RDMASTAT_NAMES(PortState, "port state", true, "NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
               "ACTIVE_DEFER");
RDMASTAT_NAMES(PortPhysState, "physical port state", true, "", "SLEEP", "POLLING", "DISABLED",
               "PORT_CONFIGURATION_TRAINING", "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST");
/// "unspecified" also for 0.
RDMASTAT_NAMES(NodeType, "node type", true, "unspecified", "ca", "switch", "router", "rnic",
               "usnic", "usnic_udp", "unspecified");
/// The JSON and filter names; transport_from_name() also reads aliases.
RDMASTAT_NAMES(Transport, "transport", false, "unknown", "infiniband", "roce", "iwarp", "usnic");
RDMASTAT_NAMES(Via, "connection kind", false, "cm", "verbs");
RDMASTAT_NAMES(GidType, "GID type", true, "ib", "roce_v1", "roce_v2");
RDMASTAT_NAMES(QpUnjoined, "reason", false, "gone", "other_owner");
RDMASTAT_NAMES(ContainerRuntime, "container runtime", false, "docker", "containerd", "crio",
               "podman");
/// As kubelet's cgroups name them.
RDMASTAT_NAMES(PodQos, "pod QoS class", false, "guaranteed", "burstable", "besteffort");

/// A connection's state as rdmastat shows it: a cm id's CM state, a verbs
/// connection's QP state; "-" when the source did not report it.
std::string state_name(const Connection& c);

/// enum ib_cm_rej_reason: "NO_QP" (1) ... "VENDOR_OPTION_NOT_SUPPORTED" (35),
/// the kernel's names without "IB_CM_REJ_"; decimal text for other numbers.
std::string ib_cm_reject_reason_name(std::int32_t reason);
/// enum ib_event_type: "CQ_ERR" (0) ... "DEVICE_SPEED_CHANGE" (20), the
/// kernel's names without "IB_EVENT_"; decimal text for other numbers.
std::string ib_event_name(std::uint32_t event);
/// "0002:c903:0000:1234": four groups of four hex digits, as iproute2 shows it.
std::string guid_text(Guid guid);
/// Inverse of guid_text; also takes fewer digits or groups, but never more than
/// 64 bits.
std::optional<Guid> guid_from_text(std::string_view text);

/// enum rdmastat_qp_unjoined (the rdmastat module's UAPI) → QpUnjoined; nullopt
/// for NONE and values this build does not know.
std::optional<QpUnjoined> qp_unjoined_from_module(std::uint8_t reason);
/// enum rdmastat_transport (the rdmastat module's UAPI) → Transport.
Transport transport_from_module(std::uint8_t transport);
/// NLDEV's protocol string ("ib", "iw", "roce", "usnic") → Transport.
Transport transport_from_protocol(std::string_view protocol);
/// A transport's name in any case, or "ib", "iw" (filters and snapshot files).
std::optional<Transport> transport_from_name(std::string_view name);

} // namespace rdmastat
