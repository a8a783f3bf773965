// SPDX-License-Identifier: MIT
#pragma once

/// ss-style filter expressions over Connection values.
///
///   expr     := and_expr { ("or" | "||" | ",") and_expr }
///   and_expr := unary { ["and" | "&&"] unary }          juxtaposition also means and
///   unary    := ("not" | "!") unary | "(" expr ")" | primary
///   primary  := "state" STATE                            a CM state (cm ids) or a QP state
///                                                        (verbs connections), any case, '-' = '_'
///             | "via" ("cm" | "verbs")                   how the connection was made
///             | ("qpn" | "rqpn") NUMBER                  its QP's number, or its peer's
///             | "gid" GID                                its path's local or peer GID (IPv6
///                                                        text; an IPv4 address is its
///                                                        IPv4-mapped GID)
///             | ("src" | "dst") ADDR_SPEC                 src = local, dst = peer endpoint (a
///                                                        verbs end: its GID's address, no port)
///             | ("sport" | "dport") [OP] PORT             PORT is "7174" or ":7174"; cm ids only
///             | "dev" NAME | "pid" NUMBER | "comm" NAME
///             | "user" (NAME | UID) | "transport" NAME
///             | "container" (ID_PREFIX | RUNTIME)        the owner's container
///             | "pod" (UID_PREFIX | QOS)                 the owner's Kubernetes pod
///             | "cgroup" PATH                            the owner's cgroup, or one below PATH
///   OP       := eq == = ne != gt > lt < ge >= le <=      (default eq; may be glued: ">=:1024")
///   ADDR_SPEC:= ADDR ["/" PREFIX] [":" PORT] | "[" IPV6 "]" ["/" PREFIX] [":" PORT]
///             | IPV6 ["/" PREFIX] | "*" [":" PORT]
///
/// Other primaries also take "=", "==" or "!=" before their value ("dev != siw0"), and
/// ":*" in an ADDR_SPEC means any port. Keywords, connectives and operator words are
/// case-insensitive; values (device, comm, user) are exact.
/// Every word is split on whitespace, around "(", ")" and ",", and after a "!" that
/// starts a token unless it begins "!=", so a filter quoted as one shell word, or
/// "(state", "siw0)", "siw0,dev" and "!state", parse as expected. Consequently a comm
/// name containing spaces, parentheses or commas, or starting with "!", cannot be
/// matched. Nesting of "(" and "not" is capped at max_depth levels.

#include "common/error.h"
#include "model/address.h"
#include "model/model.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdmastat {

class Filter {
  public:
    /// Deepest nesting of "(" and "not" accepted by parse.
    static constexpr int max_depth = 256;

    /// A filter that matches everything (the same as parsing an empty word list).
    Filter();

    /// Parses the words after the options, e.g.
    /// {"state","listen","and","(","sport","=",":7174","or","dev","siw0",")"}.
    /// An empty word list yields a filter that matches everything. On malformed input
    /// returns a Failure "filter: <reason>" naming the offending word and its 1-based
    /// position among the split words, e.g. "filter: unknown keyword 'foo' (word 3)".
    static Result<Filter> parse(const std::vector<std::string>& words);

    /// Whether c satisfies the expression. A condition on a field the connection
    /// lacks (no local/peer endpoint, unknown pid, ...) is false, so `not` of it is true.
    bool matches(const Connection& c) const;

    /// True when any `state` primary appears (the CLI then widens its default selection,
    /// as ss does).
    bool mentions_state() const { return mentions_state_; }

  private:
    friend class FilterParser; // defined in filter.cpp

    /// Comparison of sport/dport, as the set of outcomes it accepts: bit 1 less, 2 equal,
    /// 4 greater.
    enum class Op : unsigned { lt = 1, eq = 2, le = 3, gt = 4, ne = 5, ge = 6 };

    /// One node of the expression tree; children are indices into the node vector, so
    /// the filter copies with the defaults and destroying it never recurses.
    struct Node {
        enum class Kind {
            all, ///< matches everything (empty filter)
            and_,
            or_,
            not_,
            state,
            src,
            dst,
            sport,
            dport,
            dev,
            pid,
            netns,
            comm,
            user,
            uid,
            transport,
            via,
            qpn,
            rqpn,
            gid,
            container,
            pod,
            cgroup,
        };
        Kind kind = Kind::all;
        std::vector<std::size_t> children;
        std::string text; ///< dev, comm, user, container, pod, cgroup
        std::optional<CmState> state;    ///< state: a CM state, or
        std::optional<QpState> qp_state; ///< a verbs connection's QP state
        Via via = Via::cm;
        std::uint32_t number = 0; ///< pid, uid, netns inode, port of sport/dport
        Op op = Op::eq;
        bool any_address = false; ///< src/dst "*"
        IpAddress address;        ///< src/dst network; gid's GID, unmapped
        unsigned prefix = 0;      ///< src/dst prefix length
        bool has_port = false;    ///< src/dst ":PORT" given
        std::uint16_t port = 0;
        Transport transport = Transport::unknown;
    };

    bool eval(std::size_t index, const Connection& c) const;

    std::vector<Node> nodes_;
    std::size_t root_ = 0;
    bool mentions_state_ = false;
};

} // namespace rdmastat
