// SPDX-License-Identifier: MIT
#include "analysis/filter.h"

#include "common/numbers.h"
#include "common/text.h"
#include "model/names.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <sstream>
#include <string_view>
#include <sys/socket.h>
#include <utility>

namespace rdmastat {
namespace {

/// "IDLE, ADDR_QUERY, ...": every state Names<E> names.
template <typename E> std::string state_list() {
    std::string out;
    for (std::string_view name : Names<E>::names)
        out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
}

/// The state of E a filter word names, in any case; nullopt for none.
template <typename E> std::optional<E> state_named(const std::string& lowered) {
    const auto& names = Names<E>::names;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (lower(names[i]) == lowered) return static_cast<E>(i);
    return std::nullopt;
}

bool all_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == s.npos;
}

/// Shells hand over "(state", "siw0,dev", "!state" or a whole quoted filter as one
/// word, so tokens are re-cut on whitespace, around parentheses and commas, and after
/// a '!' that starts a token (but not the "!=" operator) before parsing.
std::vector<std::string> split_words(const std::vector<std::string>& words) {
    std::string spaced;
    for (const std::string& w : words) {
        bool token_start = true;
        for (std::size_t i = 0; i < w.size(); ++i) {
            char ch = w[i];
            bool bang = ch == '!' && token_start && (i + 1 == w.size() || w[i + 1] != '=');
            if (ch == '(' || ch == ')' || ch == ',' || bang) {
                spaced += {' ', ch, ' '};
                token_start = true;
            } else {
                spaced += ch;
                token_start = std::isspace(static_cast<unsigned char>(ch)) != 0;
            }
        }
        spaced += ' ';
    }
    std::vector<std::string> out;
    std::istringstream in(spaced);
    for (std::string t; in >> t;)
        out.push_back(std::move(t));
    return out;
}

} // namespace

class FilterParser {
  public:
    using Node = Filter::Node;
    using Kind = Node::Kind;
    using Op = Filter::Op;

    FilterParser(std::vector<std::string> tokens, Filter& f) : toks_(std::move(tokens)), f_(f) {}

    void run() {
        if (toks_.empty()) return; // keep the default match-all filter
        f_.nodes_.clear();
        f_.root_ = expr();
        // expr only stops early at a ')' it did not open.
        if (!at_end()) fail("unbalanced ')'", pos_);
    }

  private:
    bool at_end() const { return pos_ >= toks_.size(); }
    const std::string& tok() const { return toks_[pos_]; }
    std::string got() const { return at_end() ? "end of filter" : "'" + tok() + "'"; }

    /// Throws "filter: reason (word N)detail"; word is a 0-based token index, past the end
    /// omits the position.
    [[noreturn]] void fail(const std::string& reason, std::size_t word,
                           const std::string& detail = "") const {
        std::string m = "filter: " + reason;
        if (word < toks_.size()) m += " (word " + std::to_string(word + 1) + ")";
        throw Failure{m + detail}; // caught in Filter::parse: never escapes it
    }

    std::size_t add(Node n) {
        f_.nodes_.push_back(std::move(n));
        return f_.nodes_.size() - 1;
    }

    std::size_t combine(Kind kind, std::vector<std::size_t> kids) {
        if (kids.size() == 1 && kind != Kind::not_) return kids.front();
        Node n;
        n.kind = kind;
        n.children = std::move(kids);
        return add(std::move(n));
    }

    std::size_t negate(std::size_t child) { return combine(Kind::not_, {child}); }

    static bool is_or(const std::string& t) { return t == "||" || t == "," || lower(t) == "or"; }
    static bool is_and(const std::string& t) { return t == "&&" || lower(t) == "and"; }
    static bool is_not(const std::string& t) { return t == "!" || lower(t) == "not"; }

    std::size_t expr() {
        std::vector<std::size_t> kids{and_expr()};
        while (!at_end() && is_or(tok())) {
            ++pos_;
            kids.push_back(and_expr());
        }
        return combine(Kind::or_, std::move(kids));
    }

    std::size_t and_expr() {
        std::vector<std::size_t> kids{unary()};
        while (!at_end() && !is_or(tok()) && tok() != ")") {
            if (is_and(tok())) ++pos_;
            kids.push_back(unary());
        }
        return combine(Kind::and_, std::move(kids));
    }

    [[noreturn]] void expected_condition() const {
        std::string reason = "expected a condition";
        if (pos_ > 0) reason += " after '" + toks_[pos_ - 1] + "'";
        fail(reason + ", got " + got(), pos_);
    }

    std::size_t unary() {
        if (at_end()) expected_condition();
        bool open = tok() == "(";
        if (!open && !is_not(tok())) {
            if (tok() == ")" || is_or(tok()) || is_and(tok())) expected_condition();
            return primary();
        }
        // Recursion depth is bounded here, so hostile input cannot exhaust the stack.
        if (depth_ >= Filter::max_depth)
            fail("nesting deeper than " + std::to_string(Filter::max_depth) + " levels", pos_);
        std::size_t at = pos_++;
        ++depth_;
        std::size_t child = open ? expr() : negate(unary());
        --depth_;
        if (open) {
            if (at_end()) fail("unbalanced '(': missing ')'", at);
            ++pos_;
        }
        return child;
    }

    /// Index of the token after the keyword, which must exist and not be a parenthesis.
    std::size_t value(const std::string& what) {
        if (at_end() || tok() == "(" || tok() == ")")
            fail("expected " + what + " after '" + toks_[pos_ - 1] + "', got " + got(), pos_);
        return pos_++;
    }

    /// Optional "=", "==" or "!=" before a plain value (only when a value follows it);
    /// true for "!=".
    bool optional_equality() {
        if (pos_ + 1 >= toks_.size() || toks_[pos_ + 1] == "(" || toks_[pos_ + 1] == ")")
            return false;
        bool ne = tok() == "!=";
        if (ne || tok() == "=" || tok() == "==") ++pos_;
        return ne;
    }

    static std::optional<Op> op_word(std::string_view t) {
        static constexpr std::array<std::string_view, 13> words = {
            "eq", "==", "=", "ne", "!=", "gt", ">", "lt", "<", "ge", ">=", "le", "<="};
        static constexpr std::array<Op, 13> ops = {Op::eq, Op::eq, Op::eq, Op::ne, Op::ne,
                                                   Op::gt, Op::gt, Op::lt, Op::lt, Op::ge,
                                                   Op::ge, Op::le, Op::le};
        for (std::size_t i = 0; i < words.size(); ++i)
            if (t == words[i]) return ops[i];
        return std::nullopt;
    }

    std::size_t primary() {
        std::size_t kw_at = pos_++;
        const std::string kw = lower(toks_[kw_at]);
        Node n;
        if (kw == "sport" || kw == "dport") {
            n.kind = kw == "sport" ? Kind::sport : Kind::dport;
            return port_condition(std::move(n));
        }
        bool negated = optional_equality();
        if (kw == "state") {
            std::size_t at = value("a state");
            n.text = toks_[at];
            std::replace(n.text.begin(), n.text.end(), '-', '_');
            n.state = state_named<CmState>(lower(n.text));
            if (!n.state) n.qp_state = state_named<QpState>(lower(n.text));
            if (!n.state && !n.qp_state)
                fail("unknown state '" + toks_[at] + "'", at,
                     "; valid states: " + state_list<CmState>() + " (cm ids), " +
                         state_list<QpState>() + " (verbs connections)");
            n.kind = Kind::state;
            f_.mentions_state_ = true;
        } else if (kw == "src" || kw == "dst") {
            n.kind = kw == "src" ? Kind::src : Kind::dst;
            std::size_t at = value("an address");
            address_spec(toks_[at], at, n);
        } else if (kw == "dev" || kw == "comm") {
            n.kind = kw == "dev" ? Kind::dev : Kind::comm;
            n.text = toks_[value(kw == "dev" ? "a device name" : "a command name")];
        } else if (kw == "via") {
            std::size_t at = value("cm or verbs");
            auto via = enum_from_name<Via>(lower(toks_[at]));
            if (!via)
                fail("unknown connection kind '" + toks_[at] + "'", at, "; expected cm or verbs");
            n.kind = Kind::via;
            n.via = *via;
        } else if (kw == "qpn" || kw == "rqpn") {
            n.kind = kw == "qpn" ? Kind::qpn : Kind::rqpn;
            n.number = number(value("a QP number"), "a QP number");
        } else if (kw == "gid") {
            std::size_t at = value("a GID");
            auto gid = IpAddress::parse(toks_[at]);
            if (!gid)
                fail("'" + toks_[at] + "' is not a GID", at,
                     "; expected IPv6 form, or an IPv4 address for its mapped GID");
            n.kind = Kind::gid;
            n.address = unmapped(*gid);
        } else if (kw == "pid") {
            n.kind = Kind::pid;
            n.number = number(value("a pid"), "a pid");
        } else if (kw == "netns") {
            n.kind = Kind::netns;
            n.number = number(value("a network namespace inode"), "a network namespace inode");
        } else if (kw == "user") {
            std::size_t at = value("a user name or uid");
            n.text = toks_[at];
            n.kind = all_digits(n.text) ? Kind::uid : Kind::user;
            if (n.kind == Kind::uid) n.number = number(at, "a uid");
        } else if (kw == "container" || kw == "pod" || kw == "cgroup") {
            n.kind = kw == "container" ? Kind::container : kw == "pod" ? Kind::pod : Kind::cgroup;
            n.text = toks_[value(kw == "container" ? "a container id or runtime"
                                 : kw == "pod"     ? "a pod UID or QoS class"
                                                   : "a cgroup path")];
            // "/system.slice/" is the cgroup "/system.slice" and what is below it.
            if (n.kind == Kind::cgroup)
                while (n.text.size() > 1 && n.text.ends_with('/'))
                    n.text.pop_back();
        } else if (kw == "transport") {
            std::size_t at = value("a transport");
            auto t = transport_from_name(toks_[at]);
            if (!t)
                fail("unknown transport '" + toks_[at] + "'", at,
                     "; valid transports: infiniband (ib), roce, iwarp (iw), usnic, unknown");
            n.kind = Kind::transport;
            n.transport = *t;
        } else {
            fail("unknown keyword '" + toks_[kw_at] + "'", kw_at,
                 "; expected state, src, dst, sport, dport, dev, pid, comm, user, netns, "
                 "transport, via, qpn, rqpn, gid, container, pod or cgroup");
        }
        std::size_t out = add(std::move(n));
        return negated ? negate(out) : out;
    }

    std::uint32_t number(std::size_t at, const std::string& what) const {
        auto v = parse_number<std::uint32_t>(toks_[at]);
        if (!v) fail("'" + toks_[at] + "' is not " + what, at);
        return *v;
    }

    std::size_t port_condition(Node n) {
        std::string_view text;
        std::size_t at = pos_;
        if (auto op = at_end() ? std::nullopt : op_word(lower(tok()))) {
            n.op = *op;
            ++pos_;
        } else if (std::size_t len = at_end() ? 0 : tok().find_first_not_of("<>=!");
                   len > 0 && len != std::string::npos) {
            // ss also takes the operator glued to the port: ">=:1024", "!=7174".
            auto glued = op_word(std::string_view(tok()).substr(0, len));
            if (!glued) fail("unknown operator in '" + tok() + "'", pos_);
            n.op = *glued;
            text = std::string_view(toks_[pos_++]).substr(len);
        }
        if (text.empty()) text = toks_[at = value("a port")];
        auto port = parse_port(text);
        if (!port) fail("'" + std::string(text) + "' is not a port", at);
        n.number = *port;
        return add(std::move(n));
    }

    /// ADDR[/PREFIX][:PORT], [IPV6][/PREFIX][:PORT], IPV6[/PREFIX], * or *:PORT.
    void address_spec(std::string_view s, std::size_t at, Node& n) const {
        const std::string spec(s);
        std::string_view host = s, prefix, port;
        bool has_prefix = false, has_port = false;
        // rest must be "", "/P", ":PORT" or "/P:PORT".
        auto split_rest = [&](std::string_view rest) {
            if (!rest.empty() && rest.front() == '/') {
                has_prefix = true;
                std::size_t colon = rest.find(':');
                prefix = rest.substr(1, colon == rest.npos ? rest.npos : colon - 1);
                rest = colon == rest.npos ? std::string_view() : rest.substr(colon);
            }
            if (!rest.empty() && rest.front() == ':') {
                has_port = true;
                port = rest.substr(1);
                rest = {};
            }
            if (!rest.empty()) fail("'" + spec + "' is not an address", at);
        };
        if (s == "*" || s.substr(0, 2) == "*:" || s.substr(0, 2) == "*/") {
            n.any_address = true;
            split_rest(s.substr(1));
        } else if (s.front() == '[') {
            std::size_t close = s.find(']');
            if (close == s.npos) fail("'" + spec + "' lacks a closing ']'", at);
            host = s.substr(1, close - 1);
            split_rest(s.substr(close + 1));
        } else {
            bool v6 = std::count(s.begin(), s.end(), ':') >= 2;
            std::size_t cut = s.find_first_of(v6 ? "/" : "/:");
            host = s.substr(0, cut);
            if (cut != s.npos) split_rest(s.substr(cut));
            // A bare IPv6 address cannot carry a port: its last group would be taken for one.
            if (v6 && has_port) fail("'" + spec + "': write [IPV6]:PORT to give a port", at);
        }
        unsigned max_bits = 0;
        if (!n.any_address) {
            auto addr = IpAddress::parse(host);
            if (!addr || host.empty() || host.front() == '[')
                fail("'" + std::string(host) + "' is not an IP address", at);
            n.address = *addr;
            n.prefix = max_bits = addr->family == AF_INET ? 32 : 128;
        }
        if (has_prefix) {
            auto len = parse_number<std::uint32_t>(prefix);
            if (n.any_address || !len)
                fail("bad prefix length '" + std::string(prefix) + "' in '" + spec + "'", at);
            if (*len > max_bits)
                fail("prefix " + std::string(prefix) + " is too long for " +
                         (max_bits == 32 ? "IPv4" : "IPv6"),
                     at);
            n.prefix = *len;
        }
        if (has_port && port != "*") {
            auto p = parse_port(port);
            if (!p || port.empty() || port.front() == ':')
                fail("'" + std::string(port) + "' is not a port", at);
            n.has_port = true;
            n.port = *p;
        }
    }

    std::vector<std::string> toks_;
    std::size_t pos_ = 0;
    int depth_ = 0;
    Filter& f_;
};

Filter::Filter() : nodes_(1) {}

Result<Filter> Filter::parse(const std::vector<std::string>& words) {
    Filter f;
    try {
        FilterParser(split_words(words), f).run();
    } catch (Failure& e) {
        return std::move(e);
    }
    return f;
}

bool Filter::matches(const Connection& c) const {
    return eval(root_, c);
}

bool Filter::eval(std::size_t index, const Connection& c) const {
    using K = Node::Kind;
    const Node& n = nodes_[index];
    const auto& ep = n.kind == K::src || n.kind == K::sport ? c.local : c.peer;
    auto each = [&](std::size_t k) { return eval(k, c); };
    auto rel = [&](std::uint32_t a) { return a < n.number ? 1u : a == n.number ? 2u : 4u; };
    switch (n.kind) {
    case K::all:
        return true;
    case K::and_:
        return std::all_of(n.children.begin(), n.children.end(), each);
    case K::or_:
        return std::any_of(n.children.begin(), n.children.end(), each);
    case K::not_:
        return !eval(n.children.front(), c);
    case K::state:
        if (c.via == Via::verbs) return n.qp_state && c.qp && c.qp->state == n.qp_state;
        return n.state && c.state == n.state;
    // A verbs connection's ends are GIDs: they have no port to match.
    case K::src:
    case K::dst:
        if (!ep || (n.has_port && (c.via == Via::verbs || ep->port != n.port))) return false;
        return n.any_address || ep->address.in_prefix(n.address, n.prefix);
    case K::sport:
    case K::dport:
        return ep && c.via == Via::cm && (static_cast<unsigned>(n.op) & rel(ep->port)) != 0;
    case K::dev:
        return c.device == n.text;
    case K::pid:
        return c.owner.pid == n.number;
    case K::netns:
        return c.netns == n.number;
    case K::comm:
        return c.owner.comm == n.text;
    case K::user:
        return c.owner.user == n.text;
    case K::uid:
        return c.owner.uid == n.number;
    case K::transport:
        return c.transport == n.transport;
    case K::via:
        return c.via == n.via;
    case K::qpn:
        return c.qp && c.qp->number == n.number;
    case K::rqpn:
        return c.qp && c.qp->remote_number == n.number;
    case K::gid:
        return c.qp && c.qp->path &&
               ((c.qp->path->sgid && unmapped(*c.qp->path->sgid) == n.address) ||
                (c.qp->path->dgid && unmapped(*c.qp->path->dgid) == n.address));
    case K::container:
        return c.owner.container && (c.owner.container->id.starts_with(n.text) ||
                                     name_of(c.owner.container->runtime) == n.text);
    case K::pod:
        return c.owner.pod &&
               (c.owner.pod->uid.starts_with(n.text) || name_of(c.owner.pod->qos) == n.text);
    case K::cgroup: // the path, or a cgroup below it
        return c.owner.cgroup && c.owner.cgroup->starts_with(n.text) &&
               (c.owner.cgroup->size() == n.text.size() || n.text.ends_with('/') ||
                (*c.owner.cgroup)[n.text.size()] == '/');
    }
    return false;
}

} // namespace rdmastat
