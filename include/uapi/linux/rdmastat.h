/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmastat: every rdma_cm id of the caller's network namespace, joined with
 * its queue pair and its owner, and every connected queue pair with its
 * address vector, over generic netlink.
 *
 * The kernel's RDMA netlink (NLDEV) reports cm_ids and QPs separately, one
 * device at a time. The rdmastat module reports one record per cm_id with the
 * QP state beside it, and adds what NLDEV leaves out: the iWARP port-mapper
 * (on-the-wire) addresses, the owner's uid and thread group, and the network
 * namespace. For QPs connected without rdma_cm (raw verbs: ibv_modify_qp() to
 * RTR with the peer's QP number and GID, as NCCL, UCX and perftest do), it
 * adds the peer NLDEV leaves out: the QP's address vector.
 *
 * Family and commands
 * -------------------
 * The generic netlink family is RDMASTAT_GENL_NAME, version
 * RDMASTAT_GENL_VERSION. It has two commands:
 *
 * RDMASTAT_CMD_CONN_GET
 *   A dump (NLM_F_DUMP) of every cm_id of the caller's network namespace, on
 *   every RDMA device that namespace may use: all devices in shared mode,
 *   only the namespace's own in exclusive mode (`rdma system set netns
 *   exclusive`), exactly as NLDEV decides. The request carries no
 *   attributes; one with any is refused with -EINVAL and an extended ack
 *   pointing at the attribute. There is no non-dump form (-EOPNOTSUPP).
 *
 *   Each reply message describes exactly one cm_id (the attributes below at
 *   the top level of the message). A dump is split over as many netlink
 *   messages, and recvmsg() calls, as it needs; it resumes after the last id
 *   sent, device by device in index order and by cm id number within a
 *   device. Ids created during a dump may be missed and ids destroyed during
 *   it are skipped; none is reported twice. When the set of devices changed
 *   while the dump ran (a device registered, unregistered or moved to another
 *   namespace), the messages filled after the change carry NLM_F_DUMP_INTR:
 *   dump again. The creation and destruction of ids is not signalled that way
 *   (the kernel keeps no generation for them).
 *
 * RDMASTAT_CMD_QP_GET
 *   A dump (NLM_F_DUMP) of every connected QP (RC, UC, XRC initiator and
 *   target; UD QPs have no peer) the caller's network namespace holds, on the
 *   devices RDMASTAT_CMD_CONN_GET walks: the QPs of processes in that
 *   namespace, and kernel QPs for callers in the initial namespace (XRC
 *   target QPs among them: the kernel creates a process's in its own name,
 *   without a task). A QP that never reached RTR (from INIT to ERR) is sent
 *   without RDMASTAT_QP_A_DEST_NUM, RDMASTAT_QP_A_PATH_MTU and
 *   RDMASTAT_QP_A_AV. Only for
 *   callers with CAP_NET_ADMIN (-EPERM otherwise), since every message asks
 *   the QP's driver (ib_query_qp(), as NLDEV's QP dump does, under a restrack
 *   reference the QP's destruction waits for). The request carries no
 *   attributes, as above; there is no non-dump form.
 *
 *   Each reply message describes exactly one QP: RDMASTAT_A_DEV_INDEX,
 *   RDMASTAT_A_DEV_NAME, RDMASTAT_A_PORT (absent before the QP has one),
 *   RDMASTAT_A_QP, RDMASTAT_A_OWNER and RDMASTAT_A_NETNS (the caller's). It
 *   splits and resumes as RDMASTAT_CMD_CONN_GET does, by device index, then
 *   by QP number; NLM_F_DUMP_INTR has the same meaning.
 *
 * Requests are strictly validated (the family has no legacy operations):
 * any attribute, and a non-zero reserved field of the generic netlink
 * header, are refused.
 *
 * Loading
 * -------
 * The module carries no alias for its family: asking for the family never
 * loads it. Only an administrator does (modprobe rdmastat).
 *
 * Permissions
 * -----------
 * Any user may dump the cm_ids of their own network namespace. The owner
 * fields (RDMASTAT_OWNER_A_PID, _TID, _UID and _COMM) of an id are sent to
 * callers with CAP_NET_ADMIN, and otherwise only when the caller's effective
 * uid is the owner's real, effective and saved uid (ptrace's test), as ss -p
 * shows other users' sockets only to the privileged. Only a request with
 * CAP_NET_ADMIN makes the module call into a driver, and only such a request
 * may dump QPs (RDMASTAT_CMD_QP_GET). A kernel owner's
 * name (RDMASTAT_OWNER_A_KERN_NAME) is sent to everyone. Pids are in the
 * caller's pid namespace and uids in the caller's user namespace; an owner
 * not visible there is sent without that field.
 *
 * Attributes of a reply (enum rdmastat_attr)
 * ------------------------------------------
 * RDMASTAT_A_DEV_INDEX: u32, the RDMA device's index (as NLDEV's).
 * RDMASTAT_A_DEV_NAME: NUL-terminated string, the device's name.
 * RDMASTAT_A_DRIVER: NUL-terminated string, the name of the kernel module
 *   that registered the device ("siw", "rdma_rxe", "mlx5_ib", ...).
 * RDMASTAT_A_TRANSPORT: u8, enum rdmastat_transport of the id's port.
 * RDMASTAT_A_PORT: u32, the port number; absent while the id has none.
 * RDMASTAT_A_CM_IDN: u32, the cm id number, the same number NLDEV reports
 *   as RDMA_NLDEV_ATTR_RES_CM_IDN.
 * RDMASTAT_A_CM_STATE: u8, the connection manager state in the kernel's
 *   numbering (enum rdma_cm_state): 0 IDLE, 1 ADDR_QUERY, 2 ADDR_RESOLVED,
 *   3 ROUTE_QUERY, 4 ROUTE_RESOLVED, 5 CONNECT, 6 DISCONNECT, 7 ADDR_BOUND,
 *   8 LISTEN, 9 DEVICE_REMOVAL, 10 DESTROYING.
 * RDMASTAT_A_PORT_SPACE: u32, enum rdma_ucm_port_space (0x0106 TCP,
 *   0x0111 UDP, 0x013F IB, 0x0002 IPOIB).
 * RDMASTAT_A_INTERNAL: flag, present when the id is one the kernel created
 *   itself: the per-device listener child of a listener bound to a wildcard
 *   address.
 * RDMASTAT_A_LOCAL, RDMASTAT_A_PEER: binary, a struct sockaddr_in or
 *   struct sockaddr_in6 (the length tells which); absent while unset.
 * RDMASTAT_A_MAPPED_LOCAL, RDMASTAT_A_MAPPED_PEER: binary, as above: the
 *   addresses on the wire of an iWARP id, which differ from RDMASTAT_A_LOCAL
 *   and RDMASTAT_A_PEER when the iWARP port mapper assigned other ones.
 *   Only for ids on iWARP devices that have an iWARP connection manager id,
 *   and only when it can be read safely (see RDMASTAT_A_MAPPING_WITHHELD).
 * RDMASTAT_A_MAPPED: flag, present when port mapping is in effect for the id.
 * RDMASTAT_A_MAPPING_WITHHELD: flag, present on an id of an iWARP port whose
 *   wire addresses (the three attributes above) are not sent because the
 *   kernel gives no guarantee that its iWARP connection manager id is alive
 *   while the dump reads it: any id not in state CONNECT (listeners above
 *   all, since a failing rdma_listen() frees that id under no lock), and an
 *   id busy in an event handler at the moment of the dump. Absent when the
 *   module read the id's mapping (an id without an iWARP connection manager
 *   id then has none of the three).
 * RDMASTAT_A_QP: nested, enum rdmastat_qp_attr; absent while the id has no QP.
 * RDMASTAT_A_OWNER: nested, enum rdmastat_owner_attr.
 * RDMASTAT_A_NETNS: u32, the inode number of the id's network namespace,
 *   as /proc/PID/ns/net shows it.
 * (RDMASTAT_A_MAPPING_WITHHELD: described above, with the mapped addresses.)
 *
 * Attributes of RDMASTAT_A_QP (enum rdmastat_qp_attr)
 * ---------------------------------------------------
 * RDMASTAT_QP_A_NUM: u32, the local QP number.
 * RDMASTAT_QP_A_TYPE: u8, enum ib_qp_type (2 RC, 3 UC, 4 UD, ...) of the
 *   QP, present when the QP is the id's own (RDMASTAT_QP_A_UNJOINED absent).
 * RDMASTAT_QP_A_STATE: u8, enum ib_qp_state (0 RESET, 1 INIT, 2 RTR, 3 RTS,
 *   4 SQD, 5 SQE, 6 ERR), as the driver reports it now; only to callers
 *   with CAP_NET_ADMIN (no other caller makes the module call into a
 *   driver), and absent when the query failed. The module asks while it
 *   holds a restrack reference on the QP, which the QP's destruction waits
 *   for before it reaches the driver, as NLDEV does. The module parameter
 *   qp_queries counts the driver queries made.
 * RDMASTAT_QP_A_DEST_NUM: u32, the peer's QP number (RDMASTAT_CMD_QP_GET,
 *   once the QP is past INIT).
 * RDMASTAT_QP_A_PATH_MTU: u8, enum ib_mtu (1 256, 2 512, 3 1024, 4 2048,
 *   5 4096) of the path (RDMASTAT_CMD_QP_GET, past INIT, when the driver
 *   reports one).
 * RDMASTAT_QP_A_AV: nested, enum rdmastat_av_attr: the address vector the
 *   move to RTR set (RDMASTAT_CMD_QP_GET, past INIT, when the driver reports
 *   one: iWARP drivers do not).
 * RDMASTAT_QP_A_UNJOINED: u8, enum rdmastat_qp_unjoined: present when the id
 *   names a QP number (RDMASTAT_QP_A_NUM) that is not its own QP, and then
 *   RDMASTAT_QP_A_TYPE and RDMASTAT_QP_A_STATE are absent. A user-space id's
 *   QP number is whatever the application passed to rdma_connect() or
 *   rdma_accept(), and it is not cleared when that QP is destroyed, so a QP
 *   is the id's only when it exists on the id's device and has the id's owner
 *   (the same process, threads included, or the same kernel owner name, or
 *   rdma_cm, whose name rdma_create_qp() gives the QPs it makes for kernel
 *   ids). A kernel id's QP is found by number too, never through the id's
 *   own QP pointer, which some kernel users leave dangling.
 *
 * In RDMASTAT_CMD_QP_GET's messages, RDMASTAT_QP_A_TYPE is always present and
 * RDMASTAT_QP_A_STATE whenever the driver answered; RDMASTAT_QP_A_UNJOINED
 * never is.
 *
 * Attributes of RDMASTAT_QP_A_AV (enum rdmastat_av_attr)
 * ------------------------------------------------------
 * RDMASTAT_AV_A_PORT: u32, the local port the path leaves from.
 * RDMASTAT_AV_A_DGID: binary, 16 bytes: the peer's GID, when the path has a
 *   global route header (always on RoCE, where an IPv4 peer's GID is
 *   ::ffff:a.b.c.d).
 * RDMASTAT_AV_A_SGID_INDEX: u8, the index of the local GID in the port's
 *   GID table (with RDMASTAT_AV_A_DGID).
 * RDMASTAT_AV_A_SGID: binary, 16 bytes: that local GID, read from the GID
 *   cache; absent when the entry is no longer valid.
 * RDMASTAT_AV_A_FLOW_LABEL: u32, RDMASTAT_AV_A_TRAFFIC_CLASS: u8,
 *   RDMASTAT_AV_A_HOP_LIMIT: u8: the rest of the global route (with
 *   RDMASTAT_AV_A_DGID).
 * RDMASTAT_AV_A_DLID: u32, the peer's LID, and RDMASTAT_AV_A_SL: u8, the
 *   service level: InfiniBand paths only.
 *
 * Attributes of RDMASTAT_A_OWNER (enum rdmastat_owner_attr)
 * --------------------------------------------------------
 * RDMASTAT_OWNER_A_PID: u32, the owning process (thread group id).
 * RDMASTAT_OWNER_A_TID: u32, the thread that created the id, when it is not
 *   the thread group leader (NLDEV reports this one as the pid).
 * RDMASTAT_OWNER_A_UID: u32, the owning process's real uid.
 * RDMASTAT_OWNER_A_COMM: NUL-terminated string, the process's command name.
 * RDMASTAT_OWNER_A_KERN_NAME: NUL-terminated string, the kernel module that
 *   owns the id ("rpcrdma", "nvme_rdma", ...), instead of the fields above.
 *
 * Attributes of a request
 * -----------------------
 * None, for either command: see RDMASTAT_CMD_CONN_GET.
 */
#ifndef _UAPI_LINUX_RDMASTAT_H
#define _UAPI_LINUX_RDMASTAT_H

#define RDMASTAT_GENL_NAME "rdmastat"
#define RDMASTAT_GENL_VERSION 1

enum rdmastat_cmd {
	RDMASTAT_CMD_UNSPEC,
	RDMASTAT_CMD_CONN_GET,
	RDMASTAT_CMD_QP_GET,
	__RDMASTAT_CMD_LAST
};
#define RDMASTAT_CMD_MAX (__RDMASTAT_CMD_LAST - 1)

enum rdmastat_attr {
	RDMASTAT_A_UNSPEC,
	RDMASTAT_A_DEV_INDEX,
	RDMASTAT_A_DEV_NAME,
	RDMASTAT_A_DRIVER,
	RDMASTAT_A_TRANSPORT,
	RDMASTAT_A_PORT,
	RDMASTAT_A_CM_IDN,
	RDMASTAT_A_CM_STATE,
	RDMASTAT_A_PORT_SPACE,
	RDMASTAT_A_INTERNAL,
	RDMASTAT_A_LOCAL,
	RDMASTAT_A_PEER,
	RDMASTAT_A_MAPPED_LOCAL,
	RDMASTAT_A_MAPPED_PEER,
	RDMASTAT_A_MAPPED,
	RDMASTAT_A_QP,
	RDMASTAT_A_OWNER,
	RDMASTAT_A_NETNS,
	RDMASTAT_A_MAPPING_WITHHELD,
	__RDMASTAT_A_LAST
};
#define RDMASTAT_A_MAX (__RDMASTAT_A_LAST - 1)

enum rdmastat_qp_attr {
	RDMASTAT_QP_A_UNSPEC,
	RDMASTAT_QP_A_NUM,
	RDMASTAT_QP_A_TYPE,
	RDMASTAT_QP_A_STATE,
	RDMASTAT_QP_A_UNJOINED,
	RDMASTAT_QP_A_DEST_NUM,
	RDMASTAT_QP_A_PATH_MTU,
	RDMASTAT_QP_A_AV,
	__RDMASTAT_QP_A_LAST
};
#define RDMASTAT_QP_A_MAX (__RDMASTAT_QP_A_LAST - 1)

enum rdmastat_av_attr {
	RDMASTAT_AV_A_UNSPEC,
	RDMASTAT_AV_A_PORT,
	RDMASTAT_AV_A_DGID,
	RDMASTAT_AV_A_SGID_INDEX,
	RDMASTAT_AV_A_SGID,
	RDMASTAT_AV_A_FLOW_LABEL,
	RDMASTAT_AV_A_TRAFFIC_CLASS,
	RDMASTAT_AV_A_HOP_LIMIT,
	RDMASTAT_AV_A_DLID,
	RDMASTAT_AV_A_SL,
	__RDMASTAT_AV_A_LAST
};
#define RDMASTAT_AV_A_MAX (__RDMASTAT_AV_A_LAST - 1)

enum rdmastat_owner_attr {
	RDMASTAT_OWNER_A_UNSPEC,
	RDMASTAT_OWNER_A_PID,
	RDMASTAT_OWNER_A_TID,
	RDMASTAT_OWNER_A_UID,
	RDMASTAT_OWNER_A_COMM,
	RDMASTAT_OWNER_A_KERN_NAME,
	__RDMASTAT_OWNER_A_LAST
};
#define RDMASTAT_OWNER_A_MAX (__RDMASTAT_OWNER_A_LAST - 1)

/* Why an id's QP number was not joined with a QP (RDMASTAT_QP_A_UNJOINED). */
enum rdmastat_qp_unjoined {
	RDMASTAT_QP_UNJOINED_NONE,		/* never sent */
	RDMASTAT_QP_UNJOINED_GONE,		/* no QP with this number on the device */
	RDMASTAT_QP_UNJOINED_OTHER_OWNER,	/* the QP belongs to another owner */
	__RDMASTAT_QP_UNJOINED_LAST
};
#define RDMASTAT_QP_UNJOINED_MAX (__RDMASTAT_QP_UNJOINED_LAST - 1)

/* The link layer of an id's port: decides which port space it really uses. */
enum rdmastat_transport {
	RDMASTAT_TRANSPORT_UNKNOWN,
	RDMASTAT_TRANSPORT_INFINIBAND,
	RDMASTAT_TRANSPORT_ROCE,
	RDMASTAT_TRANSPORT_IWARP,
	RDMASTAT_TRANSPORT_USNIC,
	__RDMASTAT_TRANSPORT_LAST
};

#endif /* _UAPI_LINUX_RDMASTAT_H */
