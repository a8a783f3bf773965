// SPDX-License-Identifier: MIT
#include "collect/snapshot_fast.h"

#include "model/names.h"

#include <array>
#include <string_view>

namespace rdmastat {
namespace {

class FastConnection {
  public:
    explicit FastConnection(const std::vector<JsonEvent>& events) : ev_(events) {}

    std::optional<Connection> read() {
        Connection c;
        if (!next_is(Kind::begin_object)) return std::nullopt;
        unsigned seen = 0;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            const unsigned bit = field_bit(k);
            if (!bit || (seen & bit)) return std::nullopt; // unknown or given twice
            seen |= bit;
            if (!field(k, c)) return std::nullopt;
        }
        if (!next_is(Kind::end_object) || i_ != ev_.size()) return std::nullopt;
        const unsigned required =
            field_bit("device") | field_bit("transport") | field_bit("cm_id") | field_bit("state");
        if ((seen & required) != required) return std::nullopt;
        return c;
    }

  private:
    using Kind = JsonEvent::Kind;
    static constexpr std::array<std::string_view, 14> fields = {
        "device", "port",         "transport",   "port_space", "cm_id",    "state", "local",
        "peer",   "mapped_local", "mapped_peer", "mapped",     "internal", "qp",    "owner"};

    static unsigned field_bit(std::string_view k) {
        for (std::size_t f = 0; f < fields.size(); ++f)
            if (fields[f] == k) return 1u << f;
        if (k == "netns") return 1u << fields.size();
        return k == "qp_unjoined" ? 1u << (fields.size() + 1) : 0;
    }
    bool at(Kind k) const { return i_ < ev_.size() && ev_[i_].kind == k; }
    bool next_is(Kind k) { return at(k) ? (++i_, true) : false; }
    bool null() { return next_is(Kind::null); }
    bool str(std::string& out) {
        if (!at(Kind::string)) return false;
        out = ev_[i_++].text;
        return true;
    }
    template <typename T> bool uint(T& out, std::uint64_t max) {
        if (!at(Kind::unsigned_number) || ev_[i_].number > max) return false;
        out = static_cast<T>(ev_[i_++].number);
        return true;
    }
    template <typename T> bool opt_uint(std::optional<T>& out, std::uint64_t max) {
        if (null()) return true;
        T v{};
        if (!uint(v, max)) return false;
        out = v;
        return true;
    }
    bool opt_str(std::optional<std::string>& out) {
        if (null()) return true;
        std::string v;
        if (!str(v)) return false;
        out = std::move(v);
        return true;
    }
    // A model enum by its name (names.h); false for a name this build does not know.
    template <typename E, typename From> bool named(E& out, From from_name) {
        std::string name;
        if (!str(name)) return false;
        auto v = from_name(name);
        if (!v) return false;
        out = *v;
        return true;
    }
    template <typename E, typename From> bool opt_named(std::optional<E>& out, From from_name) {
        if (null()) return true;
        E v{};
        if (!named(v, from_name)) return false;
        out = v;
        return true;
    }
    bool opt_bool(std::optional<bool>& out) {
        if (null()) return true;
        if (!at(Kind::boolean)) return false;
        out = ev_[i_++].number != 0;
        return true;
    }
    bool endpoint(std::optional<Endpoint>& out) {
        if (null()) return true;
        if (!next_is(Kind::begin_object)) return false;
        Endpoint e;
        bool address = false, port = false;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            std::string text;
            if (k == "address" && !address && str(text)) {
                auto ip = IpAddress::parse(text);
                if (!ip) return false;
                e.address = *ip;
                address = true;
            } else if (k == "port" && !port && uint(e.port, 0xffff)) {
                port = true;
            } else {
                return false;
            }
        }
        if (!next_is(Kind::end_object) || !address || !port) return false;
        out = e;
        return true;
    }
    bool qp(std::optional<Qp>& out) {
        if (null()) return true;
        if (!next_is(Kind::begin_object)) return false;
        Qp q;
        unsigned seen = 0;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            const unsigned bit = k == "number" ? 1 : k == "type" ? 2 : k == "state" ? 4 : 0;
            if (!bit || (seen & bit)) return false;
            seen |= bit;
            if (!(bit == 1   ? uint(q.number, 0xffffffffu)
                  : bit == 2 ? opt_named(q.type, qp_type_from_name)
                             : opt_named(q.state, qp_state_from_name)))
                return false;
        }
        if (!next_is(Kind::end_object) || !(seen & 1)) return false;
        out = std::move(q);
        return true;
    }
    bool qp_unjoined(std::optional<UnjoinedQp>& out) {
        if (null()) return true;
        if (!next_is(Kind::begin_object)) return false;
        UnjoinedQp u;
        unsigned seen = 0;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            const unsigned bit = k == "number" ? 1 : k == "reason" ? 2 : 0;
            if (!bit || (seen & bit)) return false;
            seen |= bit;
            if (bit == 1) {
                if (!uint(u.number, 0xffffffffu)) return false;
                continue;
            }
            std::string name;
            if (!str(name)) return false;
            auto why = qp_unjoined_from_name(name);
            if (!why) return false;
            u.reason = *why;
        }
        if (!next_is(Kind::end_object) || seen != 3) return false;
        out = u;
        return true;
    }
    bool owner(Owner& o) {
        if (null()) return true;
        if (!next_is(Kind::begin_object)) return false;
        unsigned seen = 0;
        while (at(Kind::key)) {
            const std::string& k = ev_[i_++].text;
            bool ok = false;
            unsigned bit = 0;
            if (k == "pid")
                bit = 1, ok = opt_uint(o.pid, 0xffffffffu);
            else if (k == "tid")
                bit = 2, ok = opt_uint(o.tid, 0xffffffffu);
            else if (k == "comm")
                bit = 4, ok = opt_str(o.comm);
            else if (k == "uid")
                bit = 8, ok = opt_uint(o.uid, 0xffffffffu);
            else if (k == "user")
                bit = 16, ok = opt_str(o.user);
            else if (k == "kernel")
                bit = 32, ok = opt_str(o.kernel);
            if (!ok || (seen & bit)) return false;
            seen |= bit;
        }
        return next_is(Kind::end_object);
    }
    bool field(const std::string& k, Connection& c) {
        if (k == "device") return str(c.device);
        if (k == "port") return opt_uint(c.port, 0xffffffffu);
        if (k == "transport") {
            std::string name;
            if (!str(name)) return false;
            auto t = transport_from_name(name);
            if (!t) return false;
            c.transport = *t;
            return true;
        }
        if (k == "port_space") return opt_named(c.port_space, port_space_from_name);
        if (k == "cm_id") return uint(c.cm_id, 0xffffffffu);
        if (k == "state") return named(c.state, cm_state_from_name);
        if (k == "local") return endpoint(c.local);
        if (k == "peer") return endpoint(c.peer);
        if (k == "mapped_local") return endpoint(c.mapped_local);
        if (k == "mapped_peer") return endpoint(c.mapped_peer);
        if (k == "mapped") return opt_bool(c.mapped);
        if (k == "internal") {
            std::optional<bool> v;
            if (!opt_bool(v)) return false;
            c.internal = v.value_or(false);
            return true;
        }
        if (k == "qp") return qp(c.qp);
        if (k == "owner") return owner(c.owner);
        if (k == "qp_unjoined") return qp_unjoined(c.qp_unjoined);
        return opt_uint(c.netns, 0xffffffffu); // netns
    }

    const std::vector<JsonEvent>& ev_;
    std::size_t i_ = 0;
};

} // namespace

std::optional<Connection> fast_connection(const std::vector<JsonEvent>& events) {
    return FastConnection(events).read();
}

} // namespace rdmastat
