// SPDX-License-Identifier: MIT
#pragma once

/// Kernel numbering → the names the kernel and iproute2 use. Unknown numbers map to
/// their decimal text, so a newer kernel never breaks the listing.

#include "model/cm_event.h"
#include "model/model.h"

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace rdmastat {

/// CmState: "IDLE" ... "DESTROYING", as the kernel and iproute2 name them.
std::string cm_state_name(CmState state);
/// Every name cm_state_name knows, indexed by enum rdma_cm_state.
std::span<const char* const> cm_state_names();
/// CmEventType: "ADDR_RESOLVED" ... "TIMEWAIT_EXIT", as librdmacm's
/// rdma_event_str() names them without its "RDMA_CM_EVENT_" prefix.
std::string cm_event_type_name(CmEventType type);
/// Ending: "disconnected", "rejected", "reject_sent", "unreachable", "error",
/// "device_removed", "closed".
std::string_view ending_name(Ending ending);
/// enum ib_cm_rej_reason: "NO_QP" (1) ... "VENDOR_OPTION_NOT_SUPPORTED" (35),
/// the kernel's names without "IB_CM_REJ_"; decimal text for other numbers.
std::string ib_cm_reject_reason_name(std::int32_t reason);
/// QpState: "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR".
std::string qp_state_name(QpState state);
/// QpType: "SMI", "GSI", "RC", "UC", "UD", ..., "DRIVER".
std::string qp_type_name(QpType type);
/// PortSpace: "tcp", "udp", "ib", "ipoib".
std::string port_space_name(PortSpace ps);
/// SnapshotSource: "nldev", "module", "file".
std::string_view snapshot_source_name(SnapshotSource source);
/// CounterSource: "nldev", "sysfs".
std::string_view counter_source_name(CounterSource source);
std::optional<CounterSource> counter_source_from_name(std::string_view name);
/// "0002:c903:0000:1234": four groups of four hex digits, as iproute2 shows it.
std::string guid_text(Guid guid);
/// Inverse of guid_text; also takes fewer digits or groups, but never more than
/// 64 bits.
std::optional<Guid> guid_from_text(std::string_view text);
/// ResourceKind: "qp", "cq", "mr", "pd", "ctx", "srq", as JSON, snapshots and capture
/// files name them (lsof's TYPE is the upper-case form).
std::string_view resource_kind_name(ResourceKind kind);

/// Inverses of the names above, for readers of saved snapshots: a name, or the
/// decimal text a value without one is written as. Exact case; nullopt for
/// anything else.
std::optional<CmState> cm_state_from_name(std::string_view name);
std::optional<QpState> qp_state_from_name(std::string_view name);
std::optional<QpType> qp_type_from_name(std::string_view name);
std::optional<PortSpace> port_space_from_name(std::string_view name);
std::optional<ResourceKind> resource_kind_from_name(std::string_view name);
/// TcpState as ss names it: "ESTAB", "SYN-SENT", "SYN-RECV" (also for
/// NEW_SYN_RECV request sockets), "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT",
/// "UNCONN" (CLOSE), "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING",
/// "BOUND-INACTIVE"; other numbers as their decimal text.
std::string tcp_state_name(TcpState state);
/// Inverse of tcp_state_name ("SYN-RECV" reads as syn_recv).
std::optional<TcpState> tcp_state_from_name(std::string_view name);
/// PortState as the kernel names it: "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER".
std::string port_state_name(PortState state);
/// PortPhysState: "SLEEP", "POLLING", "DISABLED", ... "LINK_UP".
std::string port_phys_state_name(PortPhysState state);
/// NodeType: "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"
/// (also for 0).
std::string node_type_name(NodeType type);
/// Inverses of the three above (a name, or the decimal text of a number
/// without one).
std::optional<PortState> port_state_from_name(std::string_view name);
std::optional<PortPhysState> port_phys_state_from_name(std::string_view name);
std::optional<NodeType> node_type_from_name(std::string_view name);

/// QpUnjoined as JSON and text name it: "gone", "other_owner".
std::string_view qp_unjoined_name(QpUnjoined reason);
/// Inverse of qp_unjoined_name.
std::optional<QpUnjoined> qp_unjoined_from_name(std::string_view name);
/// enum rdmastat_qp_unjoined (the rdmastat module's UAPI) → QpUnjoined; nullopt
/// for NONE and values this build does not know.
std::optional<QpUnjoined> qp_unjoined_from_module(std::uint8_t reason);

/// enum rdmastat_transport (the rdmastat module's UAPI) → Transport.
Transport transport_from_module(std::uint8_t transport);
/// NLDEV's protocol string ("ib", "iw", "roce", "usnic") → Transport.
Transport transport_from_protocol(std::string_view protocol);
/// "infiniband", "roce", "iwarp", "usnic", "unknown": the JSON and filter names.
std::string_view transport_name(Transport t);
/// Inverse of transport_name; also accepts "ib", "iw" and any case.
std::optional<Transport> transport_from_name(std::string_view name);

/// ContainerRuntime: "docker", "containerd", "crio", "podman".
std::string_view container_runtime_name(ContainerRuntime runtime);
std::optional<ContainerRuntime> container_runtime_from_name(std::string_view name);
/// PodQos: "guaranteed", "burstable", "besteffort", as kubelet's cgroups name them.
std::string_view pod_qos_name(PodQos qos);
std::optional<PodQos> pod_qos_from_name(std::string_view name);

/// The name of any model enum above, for code generic over them (the JSON writers).
inline std::string name_of(CmState v) {
    return cm_state_name(v);
}
inline std::string name_of(QpState v) {
    return qp_state_name(v);
}
inline std::string name_of(QpType v) {
    return qp_type_name(v);
}
inline std::string name_of(PortSpace v) {
    return port_space_name(v);
}
inline std::string name_of(SnapshotSource v) {
    return std::string(snapshot_source_name(v));
}
inline std::string name_of(ResourceKind v) {
    return std::string(resource_kind_name(v));
}
inline std::string name_of(Transport v) {
    return std::string(transport_name(v));
}
inline std::string name_of(CounterSource v) {
    return std::string(counter_source_name(v));
}
inline std::string name_of(QpUnjoined v) {
    return std::string(qp_unjoined_name(v));
}
inline std::string name_of(ContainerRuntime v) {
    return std::string(container_runtime_name(v));
}
inline std::string name_of(PodQos v) {
    return std::string(pod_qos_name(v));
}
inline std::string name_of(TcpState v) {
    return tcp_state_name(v);
}
inline std::string name_of(PortState v) {
    return port_state_name(v);
}
inline std::string name_of(PortPhysState v) {
    return port_phys_state_name(v);
}
inline std::string name_of(NodeType v) {
    return node_type_name(v);
}
inline std::string name_of(CmEventType v) {
    return cm_event_type_name(v);
}
inline std::string name_of(Ending v) {
    return std::string(ending_name(v));
}

/// For code generic over the model's enums (the snapshot readers): Names<E>
/// has noun, what an error calls a value of E ("unknown CM state 'X'"), and
/// parse, the inverse of name_of.
template <typename E> struct Names;
#define RDMASTAT_NAMES(E, NOUN, PARSE)                                                             \
    template <> struct Names<E> {                                                                  \
        static constexpr const char* noun = NOUN;                                                  \
        static std::optional<E> parse(std::string_view name) { return PARSE(name); }               \
    }
RDMASTAT_NAMES(Transport, "transport", transport_from_name);
RDMASTAT_NAMES(CmState, "CM state", cm_state_from_name);
RDMASTAT_NAMES(QpState, "QP state", qp_state_from_name);
RDMASTAT_NAMES(QpType, "QP type", qp_type_from_name);
RDMASTAT_NAMES(PortSpace, "port space", port_space_from_name);
RDMASTAT_NAMES(ResourceKind, "resource kind", resource_kind_from_name);
RDMASTAT_NAMES(CounterSource, "counter source", counter_source_from_name);
RDMASTAT_NAMES(ContainerRuntime, "container runtime", container_runtime_from_name);
RDMASTAT_NAMES(PodQos, "pod QoS class", pod_qos_from_name);
RDMASTAT_NAMES(QpUnjoined, "reason", qp_unjoined_from_name);
RDMASTAT_NAMES(TcpState, "TCP state", tcp_state_from_name);
RDMASTAT_NAMES(PortState, "port state", port_state_from_name);
RDMASTAT_NAMES(PortPhysState, "physical port state", port_phys_state_from_name);
RDMASTAT_NAMES(NodeType, "node type", node_type_from_name);
#undef RDMASTAT_NAMES

/// An enum of the model that name_of names.
template <typename E>
concept named_enum = std::is_enum_v<E> && requires(E e) {
    { name_of(e) } -> std::convertible_to<std::string>;
};

} // namespace rdmastat
