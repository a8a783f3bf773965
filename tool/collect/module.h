// SPDX-License-Identifier: MIT
#pragma once

/// The rdmastat module (rdmastat.ko) as a source: its generic netlink family
/// reports every cm_id of our network namespace with its QP and owner, and
/// (to CAP_NET_ADMIN only) every connected QP with its address vector.

#include "collect/genl.h"
#include "collect/netlink.h"
#include "model/records.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace rdmastat {

class ModuleSource {
  public:
    /// Opens NETLINK_GENERIC and resolves the family RDMASTAT_GENL_NAME.
    /// nullopt when the family is not registered (rdmastat.ko is not loaded):
    /// an answer, not an error.
    static Result<std::optional<ModuleSource>> open();

    /// The raw bytes of one RDMASTAT_CMD_CONN_GET dump (NLM_F_DUMP, genl version
    /// RDMASTAT_GENL_VERSION): what parse_module_dump and the capture tool take.
    Result<Bytes> dump();
    /// dump() parsed; failures say "module ..." with the kernel's or parser's reason.
    Result<std::vector<ModuleRecord>> collect();

    /// The raw bytes of one RDMASTAT_CMD_QP_GET dump. The kernel refuses a
    /// caller without CAP_NET_ADMIN: a Failure with error_code() EPERM.
    Result<Bytes> dump_qps();
    /// dump_qps() parsed; failures say "module qp dump: ..." with the reason.
    Result<std::vector<ModuleQpRecord>> collect_qps();

    const GenlFamily& family() const { return family_; }
    /// Whether the last dump was interrupted on every attempt (NLM_F_DUMP_INTR:
    /// the RDMA devices changed while it ran), so ids may be missing.
    bool interrupted() const { return socket_.interrupted(); }

  private:
    ModuleSource(NetlinkSocket socket, GenlFamily family)
        : socket_(std::move(socket)), family_(family) {}
    Result<Bytes> dump_command(std::uint8_t cmd);
    NetlinkSocket socket_;
    GenlFamily family_;
};

} // namespace rdmastat
