// SPDX-License-Identifier: MIT
// rdmastat-genlprobe FAMILY CMD MAXATTR: what a generic netlink family says to
// requests its policy must refuse. For each attribute type 1..MAXATTR it sends
// command CMD as a dump carrying that attribute alone (a 4-byte payload), then
// the command without NLM_F_DUMP, then a dump with a non-zero reserved field
// in the genl header, and prints one line per request:
//   attr T: ok | error: <strerror>: <extack> (attribute T)
//   doit: ...
//   reserved: ...
// rdmastat-genlprobe kping: for each request attribute of rdmastat_kping's
// START (and the ID of STOP and GET), one request with only that attribute
// made invalid against its documented limits, the others valid:
//   kping start ATTR: ok | error: ...
//   kping stop/get ID: ...
// rdmastat-genlprobe kping-unread PORT: a START (a server of 10.9.0.1:PORT)
// whose answer cannot be delivered: the requesting socket, its receive buffer
// at the minimum, first asks nlctrl 64 times without reading, so that the
// kernel drops every further message to it. Then it drains and prints
//   overrun: yes | no        (the socket reported ENOBUFS: messages dropped)
//   start reply: none | run ID
//   control reply: none | run ID   (the same START once drained; then stopped)
// START must leave no run behind when its reply is lost (the lab lists the
// runs after it, and starts the same server normally as the control).
// The lab judges the lines; nothing here knows what the answers should be.
#include "collect/genl.h"
#include "collect/netlink.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rdmastat_kping.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

using namespace rdmastat;

namespace {

void report(const std::string& what, const Result<Bytes>& r) {
    if (r)
        std::printf("%s: ok\n", what.c_str());
    else
        std::printf("%s: error: %s\n", what.c_str(), r.error().c_str());
}

} // namespace

// Payloads are strings of bytes: GCC 14 reports a false -Warray-bounds on
// std::vector<std::uint8_t> built from a one-element initializer list.
struct Attr {
    std::uint16_t type;
    std::string payload;
};

// A valid START: a client of 10.9.0.1:7174.
std::vector<Attr> valid_start() {
    return {{RDMASTAT_KPING_A_ROLE, {RDMASTAT_KPING_ROLE_CLIENT}},
            {RDMASTAT_KPING_A_ADDR, {10, 9, 0, 1}},
            {RDMASTAT_KPING_A_PORT, {0x06, 0x1c}}};
}

std::string u32(std::uint32_t v) {
    std::string b(4, '\0');
    std::memcpy(b.data(), &v, 4);
    return b;
}

int probe_kping(NetlinkSocket& sock, const GenlFamily& f) {
    auto send = [&](std::uint8_t cmd, const std::vector<Attr>& attrs) {
        return sock.request([&](nlmsghdr* nlh) {
            nlh->nlmsg_type = f.id;
            nlh->nlmsg_flags |= NLM_F_ACK;
            put_genl_header(nlh, cmd, static_cast<std::uint8_t>(f.version));
            for (const Attr& a : attrs)
                mnl_attr_put(nlh, a.type, a.payload.size(), a.payload.data());
        });
    };
    // Each case breaks one attribute; the rest of the request is valid.
    const std::vector<std::pair<const char*, Attr>> cases = {
        {"ID", {RDMASTAT_KPING_A_ID, u32(1)}}, // not START's
        {"ROLE", {RDMASTAT_KPING_A_ROLE, {RDMASTAT_KPING_ROLE_MAX + 1}}},
        {"ADDR", {RDMASTAT_KPING_A_ADDR, std::string(17, '\1')}},
        {"PORT", {RDMASTAT_KPING_A_PORT, {0, 0}}},
        {"COUNT", {RDMASTAT_KPING_A_COUNT, {1}}},
        {"SIZE", {RDMASTAT_KPING_A_SIZE, u32(RDMASTAT_KPING_MAX_SIZE + 1)}},
        {"VALIDATE", {RDMASTAT_KPING_A_VALIDATE, {1}}},
        {"MODE", {RDMASTAT_KPING_A_MODE, {RDMASTAT_KPING_MODE_MAX + 1}}},
        {"DEPTH", {RDMASTAT_KPING_A_DEPTH, u32(RDMASTAT_KPING_DEPTH_MAX + 1)}},
        {"MEM", {RDMASTAT_KPING_A_MEM, {RDMASTAT_KPING_MEM_MAX + 1}}},
    };
    for (const auto& [name, bad] : cases) {
        std::vector<Attr> attrs;
        for (const Attr& a : valid_start())
            if (a.type != bad.type) attrs.push_back(a);
        attrs.push_back(bad);
        report(std::string("kping start ") + name, send(RDMASTAT_KPING_CMD_START, attrs));
    }
    report("kping stop ID", send(RDMASTAT_KPING_CMD_STOP, {{RDMASTAT_KPING_A_ID, u32(0)}}));
    report("kping get ID", send(RDMASTAT_KPING_CMD_GET, {{RDMASTAT_KPING_A_ID, u32(0)}}));
    report("kping get ROLE", send(RDMASTAT_KPING_CMD_GET, {{RDMASTAT_KPING_A_ROLE, {1}}}));
    return 0;
}

int probe_unread(const GenlFamily& f, std::uint16_t port) {
    const int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    const int one = 1; // the kernel raises it to its minimum
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof one) != 0) {
        std::perror("rdmastat-genlprobe: netlink socket");
        return 1;
    }
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    std::uint32_t seq = 0;
    auto send = [&](std::uint16_t type, std::uint8_t cmd, std::uint8_t version,
                    const std::vector<Attr>& attrs) {
        nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
        nlh->nlmsg_seq = ++seq;
        put_genl_header(nlh, cmd, version);
        for (const Attr& a : attrs)
            mnl_attr_put(nlh, a.type, a.payload.size(), a.payload.data());
        return sendto(fd, nlh, nlh->nlmsg_len, 0, reinterpret_cast<const sockaddr*>(&kernel),
                      sizeof kernel) == static_cast<ssize_t>(nlh->nlmsg_len);
    };
    for (int i = 0; i < 64; ++i)
        if (!send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
                  {{CTRL_ATTR_FAMILY_NAME, std::string("nlctrl") + '\0'}})) {
            std::perror("rdmastat-genlprobe: send");
            return 1;
        }
    const std::vector<Attr> start = {
        {RDMASTAT_KPING_A_ROLE, {RDMASTAT_KPING_ROLE_SERVER}},
        {RDMASTAT_KPING_A_ADDR, {10, 9, 0, 1}},
        {RDMASTAT_KPING_A_PORT, {static_cast<char>(port >> 8), static_cast<char>(port & 0xff)}}};
    std::uint32_t start_seq = seq + 1;
    if (!send(f.id, RDMASTAT_KPING_CMD_START, static_cast<std::uint8_t>(f.version), start)) {
        std::perror("rdmastat-genlprobe: send START");
        return 1;
    }
    bool overrun = false;
    long run = -1;
    // Reads what the socket holds; run is START's answer, if it came.
    auto drain = [&] {
        for (;;) {
            const ssize_t n = recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
            if (n < 0 && errno == ENOBUFS) {
                overrun = true;
                continue;
            }
            if (n <= 0) break;
            int len = static_cast<int>(n);
            for (auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data()); mnl_nlmsg_ok(nlh, len);
                 nlh = mnl_nlmsg_next(nlh, &len)) {
                if (nlh->nlmsg_seq != start_seq || nlh->nlmsg_type != f.id) continue;
                mnl_attr_parse(
                    nlh, GENL_HDRLEN,
                    [](const nlattr* a, void* out) {
                        if (mnl_attr_get_type(a) == RDMASTAT_KPING_A_ID &&
                            mnl_attr_get_payload_len(a) == 4)
                            *static_cast<long*>(out) = mnl_attr_get_u32(a);
                        return MNL_CB_OK;
                    },
                    &run);
            }
        }
    };
    drain();
    std::printf("overrun: %s\n", overrun ? "yes" : "no");
    if (run < 0)
        std::printf("start reply: none\n");
    else
        std::printf("start reply: run %ld\n", run);
    // The control: the same START on the drained socket is answered with a
    // run, which is then stopped.
    run = -1;
    start_seq = seq + 1;
    if (send(f.id, RDMASTAT_KPING_CMD_START, static_cast<std::uint8_t>(f.version), start)) {
        usleep(200 * 1000);
        drain();
    }
    if (run < 0) {
        std::printf("control reply: none\n");
    } else {
        std::printf("control reply: run %ld\n", run);
        send(f.id, RDMASTAT_KPING_CMD_STOP, static_cast<std::uint8_t>(f.version),
             {{RDMASTAT_KPING_A_ID, u32(static_cast<std::uint32_t>(run))}});
        usleep(200 * 1000);
        drain();
    }
    close(fd);
    return 0;
}

int main(int argc, char** argv) {
    if ((argc == 2 && std::string(argv[1]) == "kping") ||
        (argc == 3 && std::string(argv[1]) == "kping-unread")) {
        auto sock = NetlinkSocket::open(NETLINK_GENERIC);
        auto family = sock ? resolve_genl_family(sock.value(), RDMASTAT_KPING_GENL_NAME)
                           : Result<std::optional<GenlFamily>>(sock.failure());
        if (!family || !family.value()) {
            std::fprintf(stderr, "rdmastat-genlprobe: no rdmastat_kping family\n");
            return 1;
        }
        if (argc == 3)
            return probe_unread(*family.value(), static_cast<std::uint16_t>(std::atoi(argv[2])));
        return probe_kping(sock.value(), *family.value());
    }
    if (argc != 4) {
        std::fprintf(stderr,
                     "usage: rdmastat-genlprobe FAMILY CMD MAXATTR | kping | kping-unread PORT\n");
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
