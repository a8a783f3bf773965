// SPDX-License-Identifier: MIT
#include "collect/module.h"

#include "collect/module_parse.h"

#include <cerrno>
#include <linux/netlink.h>
#include <linux/rdmastat.h>

namespace rdmastat {

Result<std::optional<ModuleSource>> ModuleSource::open() {
    auto sock = NetlinkSocket::open(NETLINK_GENERIC);
    if (!sock) {
        // A kernel without generic netlink cannot have the family either.
        if (sock.error_code() == EPROTONOSUPPORT) return std::optional<ModuleSource>();
        return Failure{"generic netlink: " + sock.error(), sock.error_code()};
    }
    auto family = resolve_genl_family(sock.value(), RDMASTAT_GENL_NAME);
    if (!family) return family.failure();
    if (!family.value()) return std::optional<ModuleSource>();
    return std::optional<ModuleSource>(ModuleSource(std::move(sock.value()), *family.value()));
}

Result<Bytes> ModuleSource::dump_command(std::uint8_t cmd) {
    return socket_.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = family_.id;
        nlh->nlmsg_flags |= NLM_F_DUMP;
        put_genl_header(nlh, cmd, RDMASTAT_GENL_VERSION);
    });
}

Result<Bytes> ModuleSource::dump() {
    return dump_command(RDMASTAT_CMD_CONN_GET);
}

Result<Bytes> ModuleSource::dump_qps() {
    return dump_command(RDMASTAT_CMD_QP_GET);
}

Result<std::vector<ModuleQpRecord>> ModuleSource::collect_qps() {
    auto bytes = dump_qps();
    if (!bytes) return Failure{"module qp dump: " + bytes.error(), bytes.error_code()};
    auto records = parse_module_qp_dump(bytes.value());
    if (!records) return Failure{"module: " + records.error()};
    return records;
}

Result<std::vector<ModuleRecord>> ModuleSource::collect() {
    auto bytes = dump();
    if (!bytes) return Failure{"module conn dump: " + bytes.error(), bytes.error_code()};
    auto records = parse_module_dump(bytes.value());
    if (!records) return Failure{"module: " + records.error()};
    return records;
}

} // namespace rdmastat
