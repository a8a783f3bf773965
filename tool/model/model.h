// SPDX-License-Identifier: MIT
#pragma once

/// Plain data of rdmastat: what the collectors produce, what analysis and the
/// renderers consume. No libmnl or kernel types here. Fields a source cannot
/// know stay empty (std::nullopt) and are never invented.

#include "model/address.h"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// The link layer an RDMA device speaks; decides which port space a cm_id
/// really occupies (iWARP shares the TCP port space with the host).
enum class Transport { unknown, infiniband, roce, iwarp, usnic };

// The kernel's enums, numbered as the kernel numbers them. A value a newer
// kernel adds is kept as its number (names.h renders it as decimal text), so
// nothing it reports is lost or misnamed.

/// enum rdma_cm_state (drivers/infiniband/core/cma_priv.h).
enum class CmState : std::uint8_t {
    idle,
    addr_query,
    addr_resolved,
    route_query,
    route_resolved,
    connect,
    disconnect,
    addr_bound,
    listen,
    device_removal,
    destroying,
};

/// enum ib_qp_state.
enum class QpState : std::uint8_t { reset, init, rtr, rts, sqd, sqe, err };

/// enum ib_qp_type (7 is unused by the kernel).
enum class QpType : std::uint8_t {
    smi = 0,
    gsi = 1,
    rc = 2,
    uc = 3,
    ud = 4,
    raw_ipv6 = 5,
    raw_ethertype = 6,
    raw_packet = 8,
    xrc_ini = 9,
    xrc_tgt = 10,
    driver = 0xff,
};

/// Whether a QP of this type has one peer, set by its move to RTR (RC, UC, XRC).
inline bool connected_type(QpType t) {
    return t == QpType::rc || t == QpType::uc || t == QpType::xrc_ini || t == QpType::xrc_tgt;
}

/// Whether a QP of this type is a connection once it can carry traffic (past
/// INIT): a connected type, or UD (listed as netstat lists UDP sockets).
inline bool listed_type(QpType t) {
    return t == QpType::ud || connected_type(t);
}

/// enum rdma_ucm_port_space.
enum class PortSpace : std::uint32_t { ipoib = 0x0002, tcp = 0x0106, udp = 0x0111, ib = 0x013f };

/// The RDMA resources NLDEV tracks besides cm_ids, in the order lsof lists
/// them. A new kind is also a name (model/names.cpp) and an NLDEV row
/// (collect/nldev_parse.cpp); both are checked against resource_kind_count.
enum class ResourceKind : std::uint8_t { qp, cq, mr, pd, ctx, srq };
/// How many ResourceKinds there are: their values are 0 .. count - 1.
inline constexpr std::size_t resource_kind_count = 6;

/// Where a Snapshot came from.
enum class SnapshotSource { nldev, module, file };

/// Where a port's counters came from: NLDEV statistics or sysfs hw_counters.
enum class CounterSource { nldev, sysfs };

/// A 64-bit GUID (a device's node GUID), written as "0002:c903:0000:1234".
struct Guid {
    std::uint64_t value = 0;

    bool operator==(const Guid&) const = default;
};

/// enum ib_port_state: a port's logical state; other numbers are kept as they are.
enum class PortState : std::uint8_t { nop, down, init, armed, active, active_defer };
/// enum ib_port_phys_state; other numbers are kept as they are.
enum class PortPhysState : std::uint8_t {
    sleep = 1,
    polling,
    disabled,
    port_configuration_training,
    link_up,
    link_error_recovery,
    phy_test,
};
/// enum rdma_node_type; other numbers are kept as they are.
enum class NodeType : std::uint8_t {
    ca = 1,
    ib_switch,
    router,
    rnic,
    usnic,
    usnic_udp,
    unspecified
};

/// A GID's type (enum ib_gid_type): what its packets carry, InfiniBand's or
/// RoCE's v1 (Ethernet) or v2 (UDP/IP) headers.
enum class GidType : std::uint8_t { ib, roce_v1, roce_v2 };

/// One valid entry of a port's GID table (sysfs: ports/N/gids/I and gid_attrs).
struct Gid {
    std::uint32_t index = 0;
    IpAddress gid;                     ///< the 128 bits, as IPv6 text
    std::optional<GidType> type;       ///< absent on iWARP, which has no GID types
    std::optional<std::string> netdev; ///< RoCE: the net device it belongs to
    std::optional<std::uint16_t> vlan; ///< RoCE: its netdev's VLAN id
    std::optional<IpAddress> address;  ///< RoCE: the IP address it stands for (IPv4 when mapped)

    bool operator==(const Gid&) const = default;
};

struct Port {
    std::uint32_t index = 0;
    std::optional<PortState> state;
    std::optional<PortPhysState> phys_state;
    std::optional<std::string> netdev;     ///< bound net device, e.g. "veth0"
    std::optional<std::uint32_t> netdev_index;
    /// The netdev's IP addresses: collected only for the fabric view's inputs
    /// (a JSON listing; export and serve --per-connection), where they tell
    /// which host holds an address no cm_id is bound to.
    std::optional<std::vector<IpAddress>> addresses;
    /// The port's valid GID table entries: collected only by `devices`.
    std::optional<std::vector<Gid>> gids;

    bool operator==(const Port&) const = default;
};

struct Device {
    std::uint32_t index = 0;
    std::string name;
    Transport transport = Transport::unknown;
    std::optional<NodeType> node_type;
    std::optional<std::string> protocol;  ///< NLDEV's raw protocol string: "ib", "iw", "roce"
    std::optional<std::string> driver;    ///< kernel driver, e.g. "siw", "rdma_rxe"
    std::optional<std::string> firmware;
    std::optional<Guid> node_guid;
    std::vector<Port> ports;
    /// The driver does not report its QPs' states: NLDEV says RESET for QPs
    /// its ids have moved on, so every QP state of the device is unknown
    /// (analysis/qp_state.h, forget_unreported_qp_states).
    bool qp_states_unreported = false;

    bool operator==(const Device&) const = default;
};

/// Who holds a resource: a process (pid, plus what /proc told us) or a kernel module.
/// The runtime whose naming a cgroup path follows (collect/cgroup.h).
enum class ContainerRuntime : std::uint8_t { docker, containerd, crio, podman };

/// A Kubernetes pod's QoS class, as kubelet names its cgroups.
enum class PodQos : std::uint8_t { guaranteed, burstable, besteffort };

struct Container {
    ContainerRuntime runtime = ContainerRuntime::docker;
    std::string id; ///< 64 hex digits, as the runtime names the container

    bool operator==(const Container&) const = default;
};

struct Pod {
    std::string uid; ///< the pod's UID (a UUID, or a static pod's hash)
    PodQos qos = PodQos::guaranteed;

    bool operator==(const Pod&) const = default;
};

/// One device's line in a cgroup's rdma.current and rdma.max (the rdma cgroup
/// controller): HCA handles are the device contexts its processes opened, HCA
/// objects every verbs object (PD, CQ, QP, MR, ...) made through them. The
/// counts are the cgroup's and its descendants'.
struct CgroupRdmaDevice {
    std::string device;
    std::uint64_t hca_handle = 0, hca_object = 0;                ///< rdma.current
    std::optional<std::uint64_t> hca_handle_max, hca_object_max; ///< rdma.max; unset: "max"

    /// Whether rdma.max sets a limit on the device (0 included: forbidden).
    bool limited() const { return hca_handle_max || hca_object_max; }
    /// Whether it holds or limits anything: the lines a listing and the
    /// metrics show.
    bool accounted() const { return hca_handle || hca_object || limited(); }
    bool operator==(const CgroupRdmaDevice&) const = default;
};

/// A cgroup's RDMA accounting: an owner's own cgroup, or an ancestor of one
/// that sets a limit or is a pod's.
struct CgroupRdma {
    std::string path; ///< from the cgroup v2 root, as /proc/PID/cgroup names it
    std::optional<Container> container;
    std::optional<Pod> pod;
    std::vector<CgroupRdmaDevice> devices; ///< in rdma.current's order

    /// Whether a device of it is limited, or accounted (CgroupRdmaDevice).
    bool limited() const {
        for (const CgroupRdmaDevice& d : devices)
            if (d.limited()) return true;
        return false;
    }
    bool accounted() const {
        for (const CgroupRdmaDevice& d : devices)
            if (d.accounted()) return true;
        return false;
    }
    bool operator==(const CgroupRdma&) const = default;
};

/// Whether the cgroup at ancestor is path or one of its ancestors: where a
/// process in path is counted and limited.
inline bool cgroup_covers(const std::string& ancestor, const std::string& path) {
    return path == ancestor || ancestor == "/" ||
           (path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
            path[ancestor.size()] == '/');
}

/// The cgroups of all that cover one of paths (processes' cgroups): where
/// those processes are counted and limited, in all's order.
template <typename Paths>
std::vector<CgroupRdma> rdma_cgroups_covering(const std::vector<CgroupRdma>& all,
                                              const Paths& paths) {
    std::vector<CgroupRdma> out;
    for (const CgroupRdma& c : all)
        for (const std::string& p : paths)
            if (cgroup_covers(c.path, p)) {
                out.push_back(c);
                break;
            }
    return out;
}

struct Owner {
    std::optional<std::uint32_t> pid; ///< the process (thread group id)
    std::optional<std::uint32_t> tid; ///< the thread the kernel named, when not the main one
    std::optional<std::string> comm;
    std::optional<std::uint32_t> uid;
    std::optional<std::string> user;
    std::optional<std::string> kernel; ///< kernel owner's name, e.g. "ib_core"
    /// The process's cgroup v2 path ("/system.slice/docker-<id>.scope"), and
    /// the container and pod it names, when it follows a runtime's naming.
    std::optional<std::string> cgroup;
    std::optional<Container> container;
    std::optional<Pod> pod;

    bool operator==(const Owner&) const = default;
};

/// A connected QP's address vector, as its driver reports it once the QP is past
/// INIT (rdmastat.ko's QP dump, CAP_NET_ADMIN only): where its packets go.
/// GIDs are 128 bits written as IPv6 text; a RoCE GID of an IPv4 address is
/// ::ffff:a.b.c.d.
struct QpPath {
    std::optional<std::uint32_t> port;       ///< the local port the path leaves from
    std::optional<IpAddress> dgid;           ///< the peer's GID (paths with a GRH: all RoCE)
    std::optional<std::uint32_t> sgid_index; ///< the local GID's index in the port's table
    std::optional<IpAddress> sgid;           ///< that local GID, while the entry is valid
    std::optional<std::uint32_t> flow_label;
    std::optional<std::uint32_t> traffic_class;
    std::optional<std::uint32_t> hop_limit;
    std::optional<std::uint32_t> dlid; ///< the peer's LID (InfiniBand)
    std::optional<std::uint32_t> sl;   ///< the service level (InfiniBand)
    std::optional<std::uint32_t> mtu;  ///< the path MTU in bytes

    bool operator==(const QpPath&) const = default;
};

struct Qp {
    std::uint32_t number = 0;
    std::optional<QpType> type;
    std::optional<QpState> state;
    /// The peer's QP number (NLDEV's rqpn), once the QP is past INIT.
    std::optional<std::uint32_t> remote_number;
    /// Its address vector: verbs connections, from rdmastat.ko, as root.
    std::optional<QpPath> path;

    bool operator==(const Qp&) const = default;
};

/// Why an id's QP number was not joined with a QP.
enum class QpUnjoined {
    gone,        ///< no QP with that number on the id's device
    other_owner, ///< the QP with that number belongs to another owner
};

/// A QP number an id names that is not its own QP (an application may pass
/// any number to rdma_connect(), and it outlives the QP).
struct UnjoinedQp {
    std::uint32_t number = 0;
    QpUnjoined reason = QpUnjoined::gone;

    bool operator==(const UnjoinedQp&) const = default;
};

/// How a connection was made: an rdma_cm id (with its QP when it has one), or
/// a QP its owner connected with raw verbs (ibv_modify_qp to RTR with the
/// peer's QP number), as NCCL, UCX and perftest without -R do.
enum class Via : std::uint8_t { cm, verbs };

/// The unit rdmastat lists, as a TCP socket is ss's: an rdma_cm id, or a
/// connected (RC, UC, XRC past INIT) or UD QP that no cm_id owns. A verbs
/// connection has a qp and no cm_id or CM state. NLDEV reports the peer's QP
/// number only; with rdmastat.ko's QP dump (CAP_NET_ADMIN) its local and peer
/// endpoints are the addresses of its path's GIDs (qp.path), with port 0.
struct Connection {
    std::string device;
    std::optional<std::uint32_t> port;
    Transport transport = Transport::unknown;
    std::optional<PortSpace> port_space;
    Via via = Via::cm;
    std::optional<std::uint32_t> cm_id; ///< the kernel's cm id number (NLDEV's cm-idn); cm only
    std::optional<CmState> state;       ///< the id's CM state; cm only
    std::optional<Endpoint> local;
    std::optional<Endpoint> peer;
    std::optional<Qp> qp;                  ///< the id's own QP, same owner
    std::optional<UnjoinedQp> qp_unjoined; ///< set (and qp empty) when the number is not its QP
    Owner owner;
    /// iWARP addresses on the wire, when the port mapper may differ from local/peer
    /// (module source only).
    std::optional<Endpoint> mapped_local;
    std::optional<Endpoint> mapped_peer;
    /// Whether port mapping is in effect; known only when the source sent mapping
    /// information for this id (module source, iWARP ids).
    std::optional<bool> mapped;
    /// An iWARP id whose wire addresses the module could not read safely (a
    /// listener, or an id busy in an event handler): mapping unknown (module only).
    bool mapping_withheld = false;
    bool internal = false; ///< kernel-made per-device child of a wildcard listener (module)
    /// Network namespace inode: the module's, or the owning process's
    /// /proc/PID/ns/net with NLDEV (kernel-owned ids have none there).
    std::optional<std::uint32_t> netns;

    bool operator==(const Connection&) const = default;
};

/// A connection's identity while it lives: its device, how it was made, and its
/// cm id number or (verbs) its QP number. The kernel allocates both numbers
/// cyclically, so a new id or QP gets a new number.
struct ConnectionKey {
    std::string device;
    Via via = Via::cm;
    std::uint32_t number = 0;

    auto operator<=>(const ConnectionKey&) const = default;
};

inline ConnectionKey key_of(const Connection& c) {
    if (c.via == Via::verbs) return {c.device, c.via, c.qp ? c.qp->number : 0};
    return {c.device, c.via, c.cm_id.value_or(0)};
}

/// A TCP socket's state, numbered as the kernel's include/net/tcp_states.h
/// numbers it; a number without a name here is kept as it is.
enum class TcpState : std::uint8_t {
    established = 1,
    syn_sent,
    syn_recv,
    fin_wait1,
    fin_wait2,
    time_wait,
    close,
    close_wait,
    last_ack,
    listen,
    closing,
    new_syn_recv,
    bound_inactive,
};

/// A host TCP socket (sock_diag), with the process holding it when the /proc fd
/// scan found one. siw's sockets, and any kernel socket, have no process.
struct HostSocket {
    TcpState state = TcpState::close;
    Endpoint local;
    Endpoint peer;
    std::uint64_t inode = 0; ///< 0 for sockets without one (TIME-WAIT)
    std::uint32_t uid = 0;
    std::optional<std::uint32_t> pid; ///< a process holding it (the first found)
    std::optional<std::uint32_t> fd;  ///< its fd in that process
    /// The cm_id this socket carries, when attribution found one (siw's sockets):
    /// device and cm id number of a Connection of the same snapshot.
    std::optional<std::string> rdma_device;
    std::optional<std::uint32_t> rdma_cm_id;

    bool operator==(const HostSocket&) const = default;
};

/// One open file of a process that rdmastat cares about: a socket or an RDMA
/// character device (/dev/infiniband/rdma_cm, /dev/infiniband/uverbsN).
struct OpenFile {
    std::uint32_t fd = 0;
    std::string target; ///< readlink of /proc/PID/fd/FD: "socket:[123]", "/dev/infiniband/uverbs0"
    std::optional<std::uint64_t> inode; ///< for sockets

    bool operator==(const OpenFile&) const = default;
};

/// A process, as lsof sees it. inspected is false when /proc/PID/fd could not be
/// read (another user's process without privilege): reported, not skipped.
struct Process {
    std::uint32_t pid = 0;
    std::optional<std::string> comm;
    std::optional<std::uint32_t> uid;
    std::optional<std::string> user;
    bool inspected = true;
    std::vector<OpenFile> files;

    bool operator==(const Process&) const = default;
};

/// An RDMA resource NLDEV tracks besides cm_ids.
struct Resource {
    ResourceKind kind = ResourceKind::qp;
    std::string device;
    std::uint32_t number = 0; ///< lqpn, cqn, mrn, pdn, ctxn or srqn
    Owner owner;
    /// A few kind-specific facts as text, e.g. {"cqe","256"}, {"length","4096"},
    /// {"type","RC"}, {"state","RTS"}: what lsof's NAME column shows.
    std::vector<std::pair<std::string, std::string>> details;

    bool operator==(const Resource&) const = default;
};

/// One hardware counter of a port, as the kernel names it ("sent_pkts", ...).
struct Counter {
    std::string name;
    std::uint64_t value = 0;

    bool operator==(const Counter&) const = default;
};

/// The counters one device port exposes, read once. A port whose device has no
/// counters (siw) is listed with none: "n/a", not zero.
struct PortCounters {
    std::string device;
    std::uint32_t port = 0;
    std::optional<CounterSource> source;
    std::vector<Counter> counters; ///< sorted by name

    bool operator==(const PortCounters&) const = default;
};

/// An NLDEV statistics counter bound to QPs (`rdma statistic qp`): per-QP
/// counters exist only where a driver supports binding and someone bound them.
struct QpCounters {
    std::string device;
    std::uint32_t port = 0;
    std::uint32_t counter_id = 0;
    std::vector<std::uint32_t> qps; ///< local QP numbers bound to it
    std::vector<Counter> counters;  ///< sorted by name

    bool operator==(const QpCounters&) const = default;
};

/// Everything one collection produced, or a saved one loaded back.
struct Snapshot {
    static constexpr int schema_version = 1;
    SnapshotSource source = SnapshotSource::nldev;
    std::vector<Device> devices;
    std::vector<Connection> connections;
    /// Filled only by the commands that need them (lsof, check); absent from
    /// JSON when not collected.
    std::vector<HostSocket> host_sockets;
    std::vector<Process> processes;
    std::vector<Resource> resources;
    bool host_sockets_collected = false;
    bool processes_collected = false;
    bool resources_collected = false;
    /// Port and QP counters: collected by the monitoring commands (-w, export,
    /// serve); absent from JSON when not collected.
    std::vector<PortCounters> port_counters;
    std::vector<QpCounters> qp_counters;
    bool counters_collected = false;
    /// The rdma cgroup controller's accounting of the owners' cgroups (and
    /// their limiting ancestors), sorted by path; absent from JSON when not
    /// collected (a saved snapshot without it).
    std::vector<CgroupRdma> rdma_cgroups;
    bool rdma_cgroups_collected = false;
};

/// Takes a snapshot's connections one at a time, for a command that need not
/// hold them all: a listing of a saved snapshot of ten million connections
/// stays within the memory of its output buffers.
class ConnectionSink {
  public:
    virtual ~ConnectionSink() = default;
    /// Once, before the first connection: the snapshot as far as it is known
    /// (its devices at least), without connections.
    virtual void begin(const Snapshot& head) = 0;
    /// The next connection, in snapshot order; it holds only for the call.
    virtual void connection(const Connection& c) = 0;
};

} // namespace rdmastat
