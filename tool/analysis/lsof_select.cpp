// SPDX-License-Identifier: MIT
#include "analysis/lsof_select.h"

#include "common/numbers.h"
#include "common/text.h"

#include <algorithm>
#include <sys/socket.h>

namespace rdmastat {
namespace {

Failure fail(const char* option, std::string_view item, const std::string& reason) {
    return Failure{"lsof: " + std::string(option) + ": '" + std::string(item) + "' " + reason};
}

/// Calls add(item, excluded) for every comma-separated item of list.
template <typename F> Status for_items(const char* option, std::string_view list, F add) {
    if (list.empty()) return fail(option, list, "is empty");
    while (true) {
        auto comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        bool excluded = !item.empty() && item.front() == '^';
        if (excluded) item.remove_prefix(1);
        Status s = add(item, excluded);
        if (!s) return s;
        if (comma == list.npos) return Ok{};
        list.remove_prefix(comma + 1);
    }
}

/// lsof's ports are 1 to 65535: port 0 names no socket.
std::optional<std::uint16_t> lsof_port(std::string_view s) {
    if (!s.empty() && s.front() == ':') return std::nullopt;
    auto v = parse_port(s);
    if (!v || *v == 0) return std::nullopt;
    return v;
}

Status add_port_item(InetSpec& spec, std::string_view item) {
    auto dash = item.find('-');
    if (dash == item.npos) {
        auto p = lsof_port(item);
        if (!p) return fail("-i", item, "is not a port");
        spec.ports.push_back({*p, *p});
        return Ok{};
    }
    auto low = lsof_port(item.substr(0, dash)), high = lsof_port(item.substr(dash + 1));
    if (!low || !high || *low > *high) return fail("-i", item, "is not a port range");
    spec.ports.push_back({*low, *high});
    return Ok{};
}

} // namespace

Status add_pid_list(LsofSelectors& sel, std::string_view list) {
    return for_items("-p", list, [&](std::string_view item, bool excluded) -> Status {
        auto pid = parse_number<std::uint32_t>(item);
        if (!pid || *pid == 0) return fail("-p", item, "is not a PID");
        (excluded ? sel.excluded_pids : sel.pids).push_back(*pid);
        return Ok{};
    });
}

Status add_command(LsofSelectors& sel, std::string_view value) {
    bool excluded = !value.empty() && value.front() == '^';
    if (excluded) value.remove_prefix(1);
    if (value.empty()) return fail("-c", value, "is not a command name");
    if (value.size() >= 2 && value.front() == '/' && value.back() == '/')
        return fail("-c", value, "is a regular expression, which rdmastat does not support");
    (excluded ? sel.excluded_comms : sel.comms).emplace_back(value);
    return Ok{};
}

Status add_user_list(LsofSelectors& sel, std::string_view list) {
    return for_items("-u", list, [&](std::string_view item, bool excluded) -> Status {
        if (item.empty()) return fail("-u", item, "is not a user");
        UserSpec u;
        if (item.find_first_not_of("0123456789") == item.npos) {
            u.uid = parse_number<std::uint32_t>(item);
            if (!u.uid) return fail("-u", item, "is not a uid");
        } else {
            u.name = std::string(item);
        }
        (excluded ? sel.excluded_users : sel.users).push_back(std::move(u));
        return Ok{};
    });
}

Result<InetSpec> parse_inet_spec(std::string_view whole) {
    InetSpec spec;
    std::string_view s = whole;
    if (!s.empty() && (s.front() == '4' || s.front() == '6')) {
        spec.family = s.front() == '4' ? AF_INET : AF_INET6;
        s.remove_prefix(1);
    }
    std::string_view proto = s.substr(0, s.find_first_of("@:"));
    if (!proto.empty()) {
        std::string p = lower(proto);
        if (p != "tcp" && p != "udp")
            return fail("-i", whole, "is not [4|6][tcp|udp][@ADDR][:PORT[,PORT|-PORT]...]");
        spec.protocol = p;
        s.remove_prefix(proto.size());
    }
    if (!s.empty() && s.front() == '@') {
        s.remove_prefix(1);
        std::string_view addr;
        if (!s.empty() && s.front() == '[') {
            auto close = s.find(']');
            addr = s.substr(0, close == s.npos ? s.size() : close + 1);
        } else if (std::count(s.begin(), s.end(), ':') >= 2) {
            addr = s; // IPv6 without brackets: refused below, with the reason
        } else {
            addr = s.substr(0, s.find(':'));
        }
        s.remove_prefix(addr.size());
        bool bracketed = addr.size() >= 2 && addr.front() == '[' && addr.back() == ']';
        auto ip = IpAddress::parse(addr);
        if (!ip)
            return fail("-i", addr, "is not a numeric address (rdmastat resolves no host names)");
        if (ip->family == AF_INET6 && !bracketed)
            return fail("-i", addr, "needs brackets: IPv6 is written [ADDR]");
        if (ip->family == AF_INET && bracketed)
            return fail("-i", addr, "is IPv4: brackets are for IPv6");
        if (spec.family && *spec.family != ip->family)
            return fail("-i", whole, "names an address of the other IP version");
        spec.address = *ip;
    }
    if (!s.empty() && s.front() == ':') {
        s.remove_prefix(1);
        if (s.empty()) return fail("-i", whole, "has no port after ':'");
        Status ports = for_items("-i", s, [&](std::string_view item, bool excluded) -> Status {
            if (excluded) return fail("-i", "^" + std::string(item), "is not a port");
            return add_port_item(spec, item);
        });
        if (!ports) return ports.failure();
        s = {};
    }
    if (!s.empty()) return fail("-i", whole, "is not [4|6][tcp|udp][@ADDR][:PORT[,PORT|-PORT]...]");
    return spec;
}

} // namespace rdmastat
