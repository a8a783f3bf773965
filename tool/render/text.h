// SPDX-License-Identifier: MIT
#pragma once

/// Text renderers: the netstat-style listing, `devices`, and the `-s` summary.
/// Every cell goes through printable() (render/table.h): a process name cannot put
/// escape sequences on the terminal.

#include "analysis/diff.h"
#include "analysis/summary.h"
#include "model/model.h"
#include "render/listing.h"

#include <memory>
#include <ostream>
#include <vector>

namespace rdmastat {

struct TextOptions {
    bool header = true;     ///< false with -H
    bool numeric = false;   ///< -n: uids and port numbers, no names
    bool processes = false; ///< -p: PID/Program column
    bool extended = false;  ///< -e: user, cm id, port space, QP columns, mapped addresses
};

/// One line per connection, columns in the spirit of `netstat -tan`. The columns
/// depend only on opts; the device's port is headed "Dev-Port". Endpoints print as
/// Endpoint::to_string does, an absent one as "*:*". With extended, an address the
/// iWARP port mapper changed is followed by the one on the wire in parentheses, and
/// an internal id's CM-ID reads "N(internal)".
void render_listing(std::ostream& out, const std::vector<const Connection*>& connections,
                    const TextOptions& opts);
/// The listing with each row's mark before it ("+" appeared, "-" closed, a
/// blank otherwise), rows in the order given.
void render_marked_listing(std::ostream& out, const std::vector<MarkedConnection>& rows,
                           const TextOptions& opts);
/// The same listing written as its connections come, in blocks of
/// listing_block_rows rows (render/listing.h).
std::unique_ptr<ListingWriter> text_listing_writer(std::ostream& out, const TextOptions& opts);
/// One line per device port: name, index, transport, driver, node type, port state, netdev;
/// then, when collected, one line per valid GID table entry: device, port, index, GID
/// (IPv6 text), type, netdev, VLAN and the IP address it stands for ("-" when unknown).
void render_devices(std::ostream& out, const std::vector<Device>& devices, const TextOptions& opts);
void render_summary(std::ostream& out, const Summary& summary);

/// "129/rping", "[ib_core]" for a kernel owner, "-" when unknown (as netstat).
std::string owner_text(const Owner& owner);
/// "docker:0123456789ab": the runtime and the id's first 12 digits, as docker
/// and crictl shorten ids; "-" outside a container.
std::string container_text(const Owner& owner);
std::string container_text(const std::optional<Container>& container);
/// The Kubernetes pod's UID; "-" outside a pod.
std::string pod_text(const Owner& owner);
/// After a blank line, a line per device of each cgroup that holds or limits
/// something on it: path, container, pod, device, and HCA handles and objects
/// as "used/limit" ("max" for none). Nothing when no cgroup does.
void render_rdma_cgroups(std::ostream& out, const std::vector<CgroupRdma>& cgroups, bool header);
/// "10.9.0.1:7174", "[fd00:9::1]:7176"; "*:*" when the id has none.
std::string endpoint_text(const std::optional<Endpoint>& e);
/// A connection's local and peer ends as the listing shows them: a cm id's
/// endpoints (with extended, the wire's after them when the iWARP port mapper
/// changed them); a verbs connection's QP numbers, "*:qp17" and "*:qp18".
void append_local_text(std::string& out, const Connection& c, bool extended);
void append_peer_text(std::string& out, const Connection& c, bool extended);
/// The same ends as text, without the wire's addresses.
std::string local_text(const Connection& c);
std::string peer_text(const Connection& c);

} // namespace rdmastat
