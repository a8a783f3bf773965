// SPDX-License-Identifier: MIT
#include "collect/addresses.h"

#include <cerrno>
#include <cstring>
#include <ifaddrs.h>
#include <netinet/in.h>

namespace rdmastat {

Result<NetdevAddresses> collect_netdev_addresses() {
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0)
        return Failure{std::string("netdev addresses: getifaddrs: ") + std::strerror(errno), errno};
    NetdevAddresses out;
    for (const ifaddrs* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || !i->ifa_name) continue;
        const std::size_t len = i->ifa_addr->sa_family == AF_INET    ? sizeof(sockaddr_in)
                                : i->ifa_addr->sa_family == AF_INET6 ? sizeof(sockaddr_in6)
                                                                     : 0;
        if (len == 0) continue;
        if (auto e = endpoint_from_sockaddr(i->ifa_addr, len))
            out[i->ifa_name].push_back(e->address);
    }
    freeifaddrs(list);
    for (auto& [name, addresses] : out)
        sort_unique(addresses);
    return out;
}

} // namespace rdmastat
