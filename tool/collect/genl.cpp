// SPDX-License-Identifier: MIT
#include "collect/genl.h"

#include "collect/attrs.h"

#include <cerrno>
#include <cstring>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

namespace rdmastat {

void put_genl_header(nlmsghdr* nlh, std::uint8_t cmd, std::uint8_t version) {
    auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = version;
}

Result<GenlMessage> parse_genl_message(const nlmsghdr* nlh, unsigned max) {
    std::size_t len = mnl_nlmsg_get_payload_len(nlh);
    if (len < GENL_HDRLEN)
        return Failure{"generic netlink message of " + std::to_string(len) +
                       " bytes, shorter than its header (" + std::to_string(GENL_HDRLEN) + ")"};
    genlmsghdr g;
    std::memcpy(&g, mnl_nlmsg_get_payload(nlh), sizeof(g));
    auto attrs =
        parse_attrs(static_cast<const std::uint8_t*>(mnl_nlmsg_get_payload(nlh)) + GENL_HDRLEN,
                    len - GENL_HDRLEN, max);
    if (!attrs) return attrs.failure();
    return GenlMessage{g.cmd, g.version, std::move(attrs.value())};
}

Result<GenlFamily> parse_genl_family(const Bytes& bytes) {
    std::optional<GenlFamily> family;
    auto walked = walk_messages(bytes.data(), bytes.size(), [&](const nlmsghdr* nlh) -> Status {
        try {
            if (nlh->nlmsg_type != GENL_ID_CTRL)
                throw Error("unexpected message type " + std::to_string(nlh->nlmsg_type));
            GenlMessage m = parse_genl_message(nlh, CTRL_ATTR_MAX).take();
            if (m.cmd != CTRL_CMD_NEWFAMILY)
                throw Error("unexpected controller command " + std::to_string(m.cmd));
            Attrs a(std::move(m.attrs));
            GenlFamily f;
            f.id = a.need(a.u16(CTRL_ATTR_FAMILY_ID, "family id"), "family id");
            f.version = a.u32(CTRL_ATTR_VERSION, "family version").value_or(0);
            family = f;
        } catch (const Error& e) {
            return Failure{std::string("family reply: ") + e.what()};
        }
        return Ok{};
    });
    if (!walked) return walked.failure();
    if (!family) return Failure{"family reply: no family in the controller's answer"};
    return *family;
}

Result<std::optional<GenlFamily>> resolve_genl_family(NetlinkSocket& sock,
                                                      const std::string& name) {
    auto reply = sock.request([&](nlmsghdr* nlh) {
        nlh->nlmsg_type = GENL_ID_CTRL;
        nlh->nlmsg_flags |= NLM_F_ACK;
        put_genl_header(nlh, CTRL_CMD_GETFAMILY, 1);
        mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name.c_str());
    });
    if (!reply) {
        if (reply.error_code() == ENOENT) return std::optional<GenlFamily>();
        return Failure{"generic netlink family " + name + ": " + reply.error(), reply.error_code()};
    }
    auto family = parse_genl_family(reply.value());
    if (!family) return Failure{"generic netlink family " + name + ": " + family.error()};
    return std::optional<GenlFamily>(family.value());
}

} // namespace rdmastat
