/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rdmastat_kping: RDMA traffic from the kernel (send, recv, RDMA READ and
 * RDMA WRITE over an rdma_cm RC connection), started, stopped and observed
 * over generic netlink.
 *
 * Each run is one connection, served or initiated by a kernel thread of its
 * own: a server listens on an address and port and serves one client; a
 * client connects to a server. The ping mode speaks rping's protocol (the
 * client advertises a source buffer as {be64 address, be32 rkey, be32 length},
 * the server RDMA READs it and sends a 16-byte go-ahead, the client advertises
 * a sink buffer, the server RDMA WRITEs the data back and sends another
 * go-ahead), so either end may be rping or "rdmastat ping". A client puts
 * rdmastat's 12-byte hello in the connection request's private data ("RDST",
 * version 1, the mode, two zero bytes, the be32 size); a server answers a
 * hello with one, and follows the client's mode.
 *
 * Family and commands
 * -------------------
 * The generic netlink family is RDMASTAT_KPING_GENL_NAME, version
 * RDMASTAT_KPING_GENL_VERSION.
 *
 * RDMASTAT_KPING_CMD_START (CAP_NET_ADMIN)
 *   Starts a run. Required: RDMASTAT_KPING_A_ROLE, RDMASTAT_KPING_A_ADDR,
 *   RDMASTAT_KPING_A_PORT. Optional: the other request attributes below.
 *   The reply is the new run's record (as a dump's); a START that fails
 *   leaves no run behind. Errors: -EPERM without
 *   CAP_NET_ADMIN, or for the DMA memory mode without the module parameter;
 *   -EINVAL or -ERANGE with an extended ack pointing at the attribute that
 *   is missing, malformed or out of range; -ENOSPC when
 *   RDMASTAT_KPING_MAX_RUNS runs exist. Connection failures come later, in
 *   the run's state and error.
 *
 * RDMASTAT_KPING_CMD_STOP (CAP_NET_ADMIN)
 *   Stops the run named by RDMASTAT_KPING_A_ID (required), tears down its
 *   connection, queue pair, memory registrations and thread, and forgets it.
 *   The reply is its last record. -ENOENT for an unknown id.
 *
 * RDMASTAT_KPING_CMD_GET
 *   With NLM_F_DUMP: every run of the caller's network namespace, running
 *   or ended (ended runs stay until stopped), one message per run in id
 *   order; when a run was started or stopped between two parts of a dump,
 *   the later messages carry NLM_F_DUMP_INTR (dump again). Without
 *   NLM_F_DUMP: the run named by RDMASTAT_KPING_A_ID. Any user may read.
 *
 * Requests are strictly validated against per-command policies (the family
 * has no legacy operations): an attribute a command does not take, one of
 * the wrong size and one outside the limits below are refused.
 *
 * Runs, deadlines and namespaces
 * ------------------------------
 * Every step of a run that waits (resolving, connecting, a server's wait for
 * its client, each message, completion or RDMA WRITE it expects from the
 * peer) waits at most RDMASTAT_KPING_A_TIMEOUT_MS; one that waits longer
 * fails the run with ETIMEDOUT and names the step. RC connections have no
 * keepalive: the deadline is what ends a run whose peer went silent or
 * vanished. A server of the write and read modes hears nothing from its
 * client while the client works, so its client must finish within it.
 *
 * A run belongs to the network namespace it was started in: only that
 * namespace lists and stops it. While the run's thread lives, the thread and
 * its rdma_cm ids hold references on the namespace (rdma_cm takes one for
 * every id), so deleting the namespace (ip netns del) does not free it and
 * cannot stop the run: the run ends by itself, at the latest one timeout
 * after the last thing it heard from its peer (a peer that keeps talking
 * from another namespace keeps it running until that peer stops, or until
 * the module is unloaded). Once the run has ended it holds no reference;
 * the namespace is then freed and takes its runs with it. A run ends DONE
 * when it did what it was asked (COUNT operations, or a server's client
 * left); STOPPED by STOP; FAILED with RDMASTAT_KPING_A_ERROR and _ERROR_MSG
 * otherwise (the peer left early, a completion failed, a step timed out, the
 * peer sent a message of the wrong length: EPROTO).
 *
 * Attributes of a request (enum rdmastat_kping_attr)
 * --------------------------------------------------
 * RDMASTAT_KPING_A_ID: u32, a run's id, from 1 (STOP, GET).
 * RDMASTAT_KPING_A_ROLE: u8, enum rdmastat_kping_role.
 * RDMASTAT_KPING_A_ADDR: binary, 4 bytes (IPv4) or 16 (IPv6), network order:
 *   the address a server binds (any address: all) or a client connects to.
 * RDMASTAT_KPING_A_PORT: u16, host order, 1 to 65535.
 * RDMASTAT_KPING_A_COUNT: u32, client: operations to do (pings, round trips
 *   or writes); server: pings to serve before leaving. 0 (the default):
 *   until stopped (client), until the client leaves (server).
 * RDMASTAT_KPING_A_SIZE: u32, bytes per operation: the ping mode takes
 *   RDMASTAT_KPING_PING_MIN_SIZE to _PING_MAX_SIZE (default
 *   RDMASTAT_KPING_CLIENT_SIZE; a server's default is the largest ping it
 *   takes), the other modes 1 to RDMASTAT_KPING_MAX_SIZE.
 * RDMASTAT_KPING_A_VALIDATE: flag, client: compare the data that comes back
 *   with what was sent (ping and write-latency modes); a mismatch ends the
 *   run with -EBADMSG.
 * RDMASTAT_KPING_A_MODE: u8, enum rdmastat_kping_mode (client; a server
 *   follows its client's hello). Default RDMASTAT_KPING_MODE_PING.
 * RDMASTAT_KPING_A_DEPTH: u32, write-bandwidth send-queue depth: writes kept
 *   outstanding, RDMASTAT_KPING_DEPTH_MIN to _MAX, default _DEFAULT.
 * RDMASTAT_KPING_A_MEM: u8, enum rdmastat_kping_mem. Default FRWR_LOCAL.
 *   DMA advertises the protection domain's global rkey, through which the
 *   peer can read and write all memory of the host; START refuses it with
 *   -EPERM (extended ack naming the module parameter) unless the module was
 *   loaded with allow_unsafe_global_rkey=1.
 * RDMASTAT_KPING_A_TIMEOUT_MS: u32, milliseconds, how long each step may
 *   wait (see above), RDMASTAT_KPING_TIMEOUT_MIN_MS to _MAX_MS, default
 *   _DEFAULT_MS.
 *
 * Attributes of a reply
 * ---------------------
 * The request attributes as the run uses them (ID, ROLE, ADDR, PORT, COUNT,
 * SIZE, VALIDATE, MODE, DEPTH, MEM, TIMEOUT_MS), and:
 * RDMASTAT_KPING_A_STATE: u8, enum rdmastat_kping_state.
 * RDMASTAT_KPING_A_ERROR: u32, the positive errno that ended the run; absent
 *   while there is none.
 * RDMASTAT_KPING_A_ERROR_MSG: NUL-terminated string of at most
 *   RDMASTAT_KPING_ERROR_MSG_LEN bytes, what failed ("rdma read completion:
 *   remote access error", "the peer left before the run was done ...");
 *   absent with no error.
 * RDMASTAT_KPING_A_PEER: binary, struct sockaddr_in or sockaddr_in6, the
 *   peer's address once connected.
 * RDMASTAT_KPING_A_DEV_NAME: NUL-terminated string, the RDMA device of the
 *   connection, once connected.
 * RDMASTAT_KPING_A_ITERS: u64, operations done (pings, round trips, writes).
 * RDMASTAT_KPING_A_SEND_OPS, _SEND_BYTES, _RECV_OPS, _RECV_BYTES,
 *   _WRITE_OPS, _WRITE_BYTES, _READ_OPS, _READ_BYTES: u64, work completions
 *   of each kind that succeeded and their bytes (a receive's byte_len).
 *   RDMA WRITEs and READs are counted on the side that posts them.
 * RDMASTAT_KPING_A_REG_OPS, _INV_OPS, _REMOTE_INV_OPS: u64, fast
 *   registrations and local invalidations posted, and receives that carried
 *   a remote invalidation of one of this side's keys.
 * RDMASTAT_KPING_A_LAT_MIN_NS, _LAT_MAX_NS, _LAT_SUM_NS: u64, round-trip
 *   times of the client's operations (a ping, a write or read round trip);
 *   the mean is _LAT_SUM_NS / _ITERS. Absent before the first.
 * RDMASTAT_KPING_A_ELAPSED_NS: u64, from connection to the end of the run
 *   (or to now while it runs).
 * RDMASTAT_KPING_A_PAD: padding for 64-bit attributes.
 */
#ifndef _UAPI_LINUX_RDMASTAT_KPING_H
#define _UAPI_LINUX_RDMASTAT_KPING_H

#define RDMASTAT_KPING_GENL_NAME "rdmastat_kping"
#define RDMASTAT_KPING_GENL_VERSION 1

/*
 * rdmastat's hello, at the start of a connection request's (and its
 * answer's) private data: the magic, the version, the mode, two zero bytes
 * and the be32 size, RDMASTAT_KPING_HELLO_LEN bytes in all.
 */
#define RDMASTAT_KPING_HELLO_MAGIC "RDST"
#define RDMASTAT_KPING_HELLO_MAGIC_LEN 4
#define RDMASTAT_KPING_HELLO_VERSION 1
#define RDMASTAT_KPING_HELLO_LEN 12

/*
 * RDMASTAT_KPING_A_SIZE's limits: the ping mode needs room for rping's text
 * ("rdma-ping-N: " and a letter) and rping takes at most 64 KiB - 1; the
 * other modes take up to 1 MiB. Defaults: a client 64 bytes, a server the
 * largest ping it takes.
 */
#define RDMASTAT_KPING_PING_MIN_SIZE 26
#define RDMASTAT_KPING_PING_MAX_SIZE 65535
#define RDMASTAT_KPING_MAX_SIZE (1 << 20)
#define RDMASTAT_KPING_CLIENT_SIZE 64

/* RDMASTAT_KPING_A_DEPTH's limits and default. */
#define RDMASTAT_KPING_DEPTH_MIN 1
#define RDMASTAT_KPING_DEPTH_MAX 1024
#define RDMASTAT_KPING_DEPTH_DEFAULT 128

/* RDMASTAT_KPING_A_TIMEOUT_MS's limits and default. */
#define RDMASTAT_KPING_TIMEOUT_MIN_MS 100
#define RDMASTAT_KPING_TIMEOUT_MAX_MS 3600000
#define RDMASTAT_KPING_TIMEOUT_DEFAULT_MS 10000

/* The longest RDMASTAT_KPING_A_ERROR_MSG, its NUL included. */
#define RDMASTAT_KPING_ERROR_MSG_LEN 96

/* Runs at once, running or ended. */
#define RDMASTAT_KPING_MAX_RUNS 64

enum rdmastat_kping_cmd {
	RDMASTAT_KPING_CMD_UNSPEC,
	RDMASTAT_KPING_CMD_START,
	RDMASTAT_KPING_CMD_STOP,
	RDMASTAT_KPING_CMD_GET,
	__RDMASTAT_KPING_CMD_LAST
};
#define RDMASTAT_KPING_CMD_MAX (__RDMASTAT_KPING_CMD_LAST - 1)

enum rdmastat_kping_attr {
	RDMASTAT_KPING_A_UNSPEC,
	RDMASTAT_KPING_A_PAD,
	RDMASTAT_KPING_A_ID,
	RDMASTAT_KPING_A_ROLE,
	RDMASTAT_KPING_A_ADDR,
	RDMASTAT_KPING_A_PORT,
	RDMASTAT_KPING_A_COUNT,
	RDMASTAT_KPING_A_SIZE,
	RDMASTAT_KPING_A_VALIDATE,
	RDMASTAT_KPING_A_MODE,
	RDMASTAT_KPING_A_DEPTH,
	RDMASTAT_KPING_A_MEM,
	RDMASTAT_KPING_A_STATE,
	RDMASTAT_KPING_A_ERROR,
	RDMASTAT_KPING_A_ERROR_MSG,
	RDMASTAT_KPING_A_PEER,
	RDMASTAT_KPING_A_DEV_NAME,
	RDMASTAT_KPING_A_ITERS,
	RDMASTAT_KPING_A_SEND_OPS,
	RDMASTAT_KPING_A_SEND_BYTES,
	RDMASTAT_KPING_A_RECV_OPS,
	RDMASTAT_KPING_A_RECV_BYTES,
	RDMASTAT_KPING_A_WRITE_OPS,
	RDMASTAT_KPING_A_WRITE_BYTES,
	RDMASTAT_KPING_A_READ_OPS,
	RDMASTAT_KPING_A_READ_BYTES,
	RDMASTAT_KPING_A_REG_OPS,
	RDMASTAT_KPING_A_INV_OPS,
	RDMASTAT_KPING_A_REMOTE_INV_OPS,
	RDMASTAT_KPING_A_LAT_MIN_NS,
	RDMASTAT_KPING_A_LAT_MAX_NS,
	RDMASTAT_KPING_A_LAT_SUM_NS,
	RDMASTAT_KPING_A_ELAPSED_NS,
	RDMASTAT_KPING_A_TIMEOUT_MS,
	__RDMASTAT_KPING_A_LAST
};
#define RDMASTAT_KPING_A_MAX (__RDMASTAT_KPING_A_LAST - 1)

enum rdmastat_kping_role {
	RDMASTAT_KPING_ROLE_SERVER,
	RDMASTAT_KPING_ROLE_CLIENT,
	__RDMASTAT_KPING_ROLE_LAST
};
#define RDMASTAT_KPING_ROLE_MAX (__RDMASTAT_KPING_ROLE_LAST - 1)

/*
 * Traffic patterns; the first three are the modes of rdmastat's hello (and
 * of "rdmastat ping", default, --lat, --bw), so they interoperate with it.
 * PING: rping's cycle. WRITE_LAT: RDMA WRITE ping-pong, each side watching
 * the last byte of its buffer. WRITE_BW: the client keeps DEPTH RDMA WRITEs
 * outstanding into the server's advertised buffer. READ_LAT: the client RDMA
 * READs the server's advertised buffer, one at a time (kping at both ends).
 */
enum rdmastat_kping_mode {
	RDMASTAT_KPING_MODE_PING,
	RDMASTAT_KPING_MODE_WRITE_LAT,
	RDMASTAT_KPING_MODE_WRITE_BW,
	RDMASTAT_KPING_MODE_READ_LAT,
	__RDMASTAT_KPING_MODE_LAST
};
#define RDMASTAT_KPING_MODE_MAX (__RDMASTAT_KPING_MODE_LAST - 1)

/*
 * How buffers are registered. DMA: the protection domain's local DMA key,
 * and for buffers the peer accesses its unsafe global rkey. FRWR_LOCAL: a
 * fast registration (IB_WR_REG_MR) of each buffer before each use, a local
 * invalidation after it; the buffer is advertised at a zero-based address
 * (its offset within its first page), never at a host address. FRWR_REMOTE: as FRWR_LOCAL, but a server sends its
 * go-aheads with IB_WR_SEND_WITH_INV of the key it just used, and a client
 * invalidates locally only keys the server did not (so a FRWR_REMOTE client
 * works with any server, a FRWR_REMOTE server only with kping clients whose
 * keys are fast registrations).
 */
enum rdmastat_kping_mem {
	RDMASTAT_KPING_MEM_DMA,
	RDMASTAT_KPING_MEM_FRWR_LOCAL,
	RDMASTAT_KPING_MEM_FRWR_REMOTE,
	__RDMASTAT_KPING_MEM_LAST
};
#define RDMASTAT_KPING_MEM_MAX (__RDMASTAT_KPING_MEM_LAST - 1)

/* CONNECTING: resolving or waiting for a client; ended runs: the last three. */
enum rdmastat_kping_state {
	RDMASTAT_KPING_STATE_CONNECTING,
	RDMASTAT_KPING_STATE_RUNNING,
	RDMASTAT_KPING_STATE_DONE,
	RDMASTAT_KPING_STATE_STOPPED,
	RDMASTAT_KPING_STATE_FAILED,
	__RDMASTAT_KPING_STATE_LAST
};

#endif /* _UAPI_LINUX_RDMASTAT_KPING_H */
