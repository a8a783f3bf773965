// SPDX-License-Identifier: MIT
// rdmastat-genlprobe FAMILY CMD MAXATTR: what a generic netlink family says to
// requests its policy must refuse. For each attribute type 1..MAXATTR it sends
// command CMD as a dump carrying that attribute alone (a 4-byte payload), then
// the command without NLM_F_DUMP, then a dump with a non-zero reserved field
// in the genl header, and prints one line per request:
//   attr T: ok | error: <strerror>: <extack> (attribute T)
//   doit: ...
//   reserved: ...
// The lab judges the lines; nothing here knows what the answers should be.
#include "collect/genl.h"
#include "collect/netlink.h"

#include <cstdio>
#include <cstdlib>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <string>

using namespace rdmastat;

namespace {

void report(const std::string& what, const Result<Bytes>& r) {
    if (r)
        std::printf("%s: ok\n", what.c_str());
    else
        std::printf("%s: error: %s\n", what.c_str(), r.error().c_str());
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: rdmastat-genlprobe FAMILY CMD MAXATTR\n");
        return 2;
    }
    const std::string name = argv[1];
    const auto cmd = static_cast<std::uint8_t>(std::atoi(argv[2]));
    const int maxattr = std::atoi(argv[3]);
    auto sock = NetlinkSocket::open(NETLINK_GENERIC);
    if (!sock) {
        std::fprintf(stderr, "rdmastat-genlprobe: %s\n", sock.error().c_str());
        return 1;
    }
    auto family = resolve_genl_family(sock.value(), name);
    if (!family || !family.value()) {
        std::fprintf(stderr, "rdmastat-genlprobe: family %s not found\n", name.c_str());
        return 1;
    }
    const GenlFamily f = *family.value();
    auto send = [&](std::uint16_t flags, int attr, std::uint8_t reserved) {
        return sock.value().request([&](nlmsghdr* nlh) {
            nlh->nlmsg_type = f.id;
            nlh->nlmsg_flags |= flags;
            put_genl_header(nlh, cmd, static_cast<std::uint8_t>(f.version));
            static_cast<genlmsghdr*>(mnl_nlmsg_get_payload(nlh))->reserved = reserved;
            if (attr) mnl_attr_put_u32(nlh, static_cast<std::uint16_t>(attr), 1);
        });
    };
    for (int t = 1; t <= maxattr; ++t)
        report("attr " + std::to_string(t), send(NLM_F_DUMP, t, 0));
    report("doit", send(NLM_F_ACK, 0, 0));
    report("reserved", send(NLM_F_DUMP, 0, 1));
    report("plain dump", send(NLM_F_DUMP, 0, 0));
    return 0;
}
