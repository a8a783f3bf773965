// SPDX-License-Identifier: MIT
#pragma once

/// rdmastat_kping.ko's generic netlink family: start and stop runs, dump them.

#include "collect/genl.h"
#include "collect/netlink.h"
#include "model/kping.h"

#include <optional>
#include <vector>

namespace rdmastat {

/// The runs in a reply to RDMASTAT_KPING_CMD_GET (a dump, up to NLMSG_DONE) or
/// to START, STOP or a single GET (up to the ack). A message of another command,
/// a malformed or missing required attribute is a Failure naming the message.
Result<std::vector<KpingRun>> parse_kping_reply(const Bytes& bytes);

class KpingSource {
  public:
    /// Opens NETLINK_GENERIC and resolves RDMASTAT_KPING_GENL_NAME; nullopt when
    /// the family is not registered (rdmastat_kping.ko is not loaded).
    static Result<std::optional<KpingSource>> open();

    /// START: the new run as the kernel reports it. EPERM (no CAP_NET_ADMIN)
    /// and EINVAL keep their code; the message carries the kernel's extended ack.
    Result<KpingRun> start(const KpingStart& s);
    /// STOP: the run's last record; ENOENT for an unknown id.
    Result<KpingRun> stop(std::uint32_t id);
    /// GET of one run (the doit, not a dump); ENOENT for an unknown id.
    Result<KpingRun> get(std::uint32_t id);
    /// The raw bytes of a GET dump (for parse_kping_reply and the capture tool).
    Result<Bytes> dump();
    /// dump() parsed.
    Result<std::vector<KpingRun>> collect();

  private:
    KpingSource(NetlinkSocket socket, GenlFamily family)
        : socket_(std::move(socket)), family_(family) {}
    Result<KpingRun> one(Result<Bytes> reply);
    /// STOP or GET of run id; what names the request in a failure.
    Result<KpingRun> by_id(std::uint8_t cmd, std::uint32_t id, const std::string& what);
    NetlinkSocket socket_;
    GenlFamily family_;
};

} // namespace rdmastat
