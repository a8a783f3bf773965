// SPDX-License-Identifier: MIT
#include "pipeline/system.h"

#include "collect/counters.h"
#include "collect/gids.h"
#include "collect/module.h"
#include "collect/netlink.h"
#include "collect/nldev.h"
#include "collect/procfs.h"
#include "collect/rdma_cgroup.h"

#include <unistd.h>

namespace rdmastat {
namespace {

class LiveSystem final : public System {
  public:
    Result<std::optional<ModuleDump>> module_ids() override {
        auto module = open_module();
        if (!module) return module.failure();
        if (!module.value()) return std::optional<ModuleDump>();
        auto records = module.value()->collect();
        if (!records) return records.failure();
        return std::optional<ModuleDump>(
            ModuleDump{std::move(records.value()), module.value()->interrupted()});
    }

    Result<std::optional<std::vector<ModuleQpRecord>>> module_qps() override {
        auto module = open_module();
        if (!module) return module.failure();
        if (!module.value()) return std::optional<std::vector<ModuleQpRecord>>();
        auto records = module.value()->collect_qps();
        if (!records) return records.failure();
        return std::optional(std::move(records.value()));
    }

    Result<std::optional<NldevData>> nldev(bool with_cm_ids, bool with_qps) override {
        auto socket = open_nldev();
        if (!socket) return socket.failure();
        if (!socket.value()) return std::optional<NldevData>();
        auto data = socket.value()->collect(with_cm_ids, with_qps);
        if (!data) return data.failure();
        return std::optional<NldevData>(std::move(data.value()));
    }

    Result<ResourceDump> resources(const std::vector<Device>& devices, bool with_qps) override {
        auto socket = open_nldev();
        if (!socket) return socket.failure();
        if (!socket.value()) return ResourceDump{};
        return socket.value()->collect_resources(devices, with_qps);
    }

    OwnerMap owners(const std::set<std::uint32_t>& pids) override { return resolve_owners(pids); }
    NetnsMap netns(const std::set<std::uint32_t>& pids) override { return resolve_netns(pids); }
    std::optional<std::uint32_t> own_netns() override {
        const auto self = static_cast<std::uint32_t>(getpid());
        NetnsMap m = resolve_netns({self});
        auto it = m.find(self);
        return it == m.end() ? std::nullopt : std::optional(it->second);
    }
    UserMap users(const std::set<std::uint32_t>& uids) override { return resolve_users(uids); }
    CgroupMap cgroups(const std::set<std::uint32_t>& pids) override {
        return resolve_cgroups(pids);
    }
    std::vector<CgroupRdma> rdma_cgroups(const std::set<std::string>& paths) override {
        return read_rdma_cgroups(paths);
    }
    Result<HostSockets> host_sockets() override { return collect_host_sockets(); }
    Result<std::vector<Process>> processes() override { return scan_processes(); }
    Status counters(Snapshot& snap) override {
        auto socket = open_nldev();
        if (!socket) return socket.failure();
        if (!socket.value()) { // no RDMA netlink: no devices, no counters
            snap.counters_collected = true;
            return Ok{};
        }
        return collect_counters(*socket.value(), snap);
    }
    Result<NetdevAddresses> addresses() override { return collect_netdev_addresses(); }
    Status gid_tables(std::vector<Device>& devices) override { return collect_gid_tables(devices); }

  private:
    // The module's family, resolved on first use and kept: its cm_id and QP
    // dumps share one socket.
    Result<ModuleSource*> open_module() {
        if (!module_opened_) {
            auto m = ModuleSource::open();
            if (!m) return Failure{"module source: " + m.error(), m.error_code()};
            if (m.value()) module_.emplace(std::move(*m.value()));
            module_opened_ = true;
        }
        return module_ ? &*module_ : nullptr;
    }

    // Opened on first use and kept: one socket serves every dump of a collection.
    Result<NldevSource*> open_nldev() {
        if (!opened_) {
            auto s = NldevSource::open();
            if (!s) return s.failure();
            if (s.value()) nldev_.emplace(std::move(*s.value()));
            opened_ = true;
        }
        return nldev_ ? &*nldev_ : nullptr;
    }

    bool opened_ = false;
    std::optional<NldevSource> nldev_;
    bool module_opened_ = false;
    std::optional<ModuleSource> module_;
};

} // namespace

std::unique_ptr<System> live_system() {
    return std::make_unique<LiveSystem>();
}

} // namespace rdmastat
