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

// The kernel's names (and iproute2's, which uses them), unless said otherwise.
template <> struct Names<CmState> {
    static constexpr const char* noun = "CM state";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 11> names = {
        "IDLE",       "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",    "ROUTE_RESOLVED", "CONNECT",
        "DISCONNECT", "ADDR_BOUND", "LISTEN",        "DEVICE_REMOVAL", "DESTROYING"};
};
/// As librdmacm's rdma_event_str() names them, without "RDMA_CM_EVENT_".
template <> struct Names<CmEventType> {
    static constexpr const char* noun = "CM event";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 20> names = {
        "ADDR_RESOLVED",     "ADDR_ERROR",       "ROUTE_RESOLVED", "ROUTE_ERROR",
        "CONNECT_REQUEST",   "CONNECT_RESPONSE", "CONNECT_ERROR",  "UNREACHABLE",
        "REJECTED",          "ESTABLISHED",      "DISCONNECTED",   "DEVICE_REMOVAL",
        "MULTICAST_JOIN",    "MULTICAST_ERROR",  "ADDR_CHANGE",    "TIMEWAIT_EXIT",
        "ADDRINFO_RESOLVED", "ADDRINFO_ERROR",   "USER",           "INTERNAL"};
};
template <> struct Names<Ending> {
    static constexpr const char* noun = "ending";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 7> names = {
        "disconnected", "rejected",       "reject_sent", "unreachable",
        "error",        "device_removed", "closed"};
};
template <> struct Names<QpState> {
    static constexpr const char* noun = "QP state";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 7> names = {"RESET", "INIT", "RTR", "RTS",
                                                              "SQD",   "SQE",  "ERR"};
};
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
template <> struct Names<SnapshotSource> {
    static constexpr const char* noun = "source";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 3> names = {"nldev", "module", "file"};
};
template <> struct Names<CounterSource> {
    static constexpr const char* noun = "counter source";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 2> names = {"nldev", "sysfs"};
};
/// As JSON, snapshots and capture files name them (lsof's TYPE is the upper-case form).
template <> struct Names<ResourceKind> {
    static constexpr const char* noun = "resource kind";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, resource_kind_count> names = {"qp", "cq",  "mr",
                                                                                "pd", "ctx", "srq"};
};
/// As ss names them (iproute2's misc/ss.c): "SYN-RECV" also for NEW_SYN_RECV
/// request sockets, "UNCONN" for CLOSE.
template <> struct Names<TcpState> {
    static constexpr const char* noun = "TCP state";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 14> names = {
        "",           "ESTAB",     "SYN-SENT", "SYN-RECV",      "FIN-WAIT-1",
        "FIN-WAIT-2", "TIME-WAIT", "UNCONN",   "CLOSE-WAIT",    "LAST-ACK",
        "LISTEN",     "CLOSING",   "SYN-RECV", "BOUND-INACTIVE"};
};
template <> struct Names<PortState> {
    static constexpr const char* noun = "port state";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 6> names = {"NOP",   "DOWN",   "INIT",
                                                              "ARMED", "ACTIVE", "ACTIVE_DEFER"};
};
template <> struct Names<PortPhysState> {
    static constexpr const char* noun = "physical port state";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 8> names = {"",
                                                              "SLEEP",
                                                              "POLLING",
                                                              "DISABLED",
                                                              "PORT_CONFIGURATION_TRAINING",
                                                              "LINK_UP",
                                                              "LINK_ERROR_RECOVERY",
                                                              "PHY_TEST"};
};
/// "unspecified" also for 0.
template <> struct Names<NodeType> {
    static constexpr const char* noun = "node type";
    static constexpr bool numbered = true;
    static constexpr std::array<std::string_view, 8> names = {
        "unspecified", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"};
};
/// The JSON and filter names; transport_from_name() also reads aliases.
template <> struct Names<Transport> {
    static constexpr const char* noun = "transport";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 5> names = {"unknown", "infiniband", "roce",
                                                              "iwarp", "usnic"};
};
template <> struct Names<QpUnjoined> {
    static constexpr const char* noun = "reason";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 2> names = {"gone", "other_owner"};
};
template <> struct Names<ContainerRuntime> {
    static constexpr const char* noun = "container runtime";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 4> names = {"docker", "containerd", "crio",
                                                              "podman"};
};
/// As kubelet's cgroups name them.
template <> struct Names<PodQos> {
    static constexpr const char* noun = "pod QoS class";
    static constexpr bool numbered = false;
    static constexpr std::array<std::string_view, 3> names = {"guaranteed", "burstable",
                                                              "besteffort"};
};

/// enum ib_cm_rej_reason: "NO_QP" (1) ... "VENDOR_OPTION_NOT_SUPPORTED" (35),
/// the kernel's names without "IB_CM_REJ_"; decimal text for other numbers.
std::string ib_cm_reject_reason_name(std::int32_t reason);
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
