// SPDX-License-Identifier: MIT
#pragma once

/// `rdmastat lsof`: which processes hold which RDMA files, chosen as lsof(8)
/// chooses. A "file" is one row: a cm_id, an RDMA resource (any ResourceKind),
/// an open /dev/infiniband/* character device and, when -i was given, a
/// host TCP socket.

#include "analysis/lsof_select.h"
#include "model/model.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

enum class LsofKind { cm_id, resource, chardev, socket };

/// One row. Pointers point into the Snapshot given to select_lsof.
struct LsofFile {
    LsofKind kind = LsofKind::cm_id;
    /// The fd: an rdma_cm id shows the process's /dev/infiniband/rdma_cm fd and a
    /// resource its /dev/infiniband/uverbs* fd when the process has exactly one
    /// such fd (with more, which one is unknown); a chardev or socket its own.
    std::optional<std::uint32_t> fd;
    const Connection* connection = nullptr; ///< cm_id
    const Resource* resource = nullptr;     ///< resource
    const OpenFile* open_file = nullptr;    ///< chardev
    const HostSocket* socket = nullptr;     ///< socket
    /// socket without a process: the cm_id it is attributed to (connection_of), if any.
    const Connection* carries = nullptr;
};

/// Who holds files: a process (pid), a kernel owner (kernel), or neither (a socket
/// no process holds, an id whose owner the kernel did not name).
struct LsofHolder {
    std::optional<std::uint32_t> pid;
    std::optional<std::string> kernel;
    std::optional<std::string> comm;
    std::optional<std::uint32_t> uid;
    std::optional<std::string> user;
    /// The process's cgroup, container and pod, as its ids' and resources'
    /// owners have them (a process with neither has none here).
    std::optional<std::string> cgroup;
    std::optional<Container> container;
    std::optional<Pod> pod;
    std::vector<LsofFile> files;
};

struct LsofResult {
    /// Holders with at least one selected file: processes by pid, then kernel
    /// owners by name, then the files of no known holder. Files in each: cm_ids
    /// (by device, cm id), resources (in ResourceKind order; by device, number),
    /// chardevs (by fd), sockets (by fd, then local endpoint).
    std::vector<LsofHolder> holders;
    /// Processes whose /proc/PID/fd could not be read and that matter here: they
    /// have a listed row, or a -p, -c or -u include names them (and no exclusion).
    std::vector<const Process*> uninspected;
    /// The other processes that could not be inspected; counted only when a socket
    /// without a process or attribution is listed (it may be theirs), else 0.
    std::size_t other_uninspected = 0;

    bool empty() const { return holders.empty(); }
};

/// Selects the files of snap (sockets attributed beforehand, see
/// attribute_host_sockets) as lsof does:
///   - with no include selector (only exclusions, or none) every file is selected;
///   - otherwise a file is selected when its holder matches a -p, -c or -u include
///     or it is an internet file (cm_id or socket) matching an -i spec; with all_of,
///     when it matches every kind of selector given;
///   - then files of a holder an exclusion names are dropped.
/// -c compares prefixes of the command name (a kernel owner's name counts as one);
/// -u a uid with the holder's uid, a name with its user name; a holder without a
/// process matches neither, nor any exclusion. An -i spec matches a file of its
/// family and protocol (a cm_id's port space; "tcp" for sockets) with a local or
/// peer endpoint (or one on the wire, for a mapped iWARP id) whose address equals
/// the spec's (a wildcard local address covers it, see address_covers) and whose
/// port is in one of its ranges. Sockets are files only when -i was given.
LsofResult select_lsof(const Snapshot& snap, const LsofSelectors& sel);

/// True for the RDMA character devices lsof lists: "/dev/infiniband/...".
bool is_rdma_chardev(const std::string& target);

/// The rdma cgroups of snap (Snapshot::rdma_cgroups) that the holders of r
/// are in, or that are ancestors of theirs: where their RDMA use is counted
/// and limited.
std::vector<CgroupRdma> holders_rdma_cgroups(const Snapshot& snap, const LsofResult& r);

} // namespace rdmastat
