// SPDX-License-Identifier: MIT
#pragma once

/// JSON pieces the lsof and check renderers share with the schema of
/// rdmastat(8): endpoints, owners, host sockets, the version header.

#include "model/model.h"
#include "model/names.h"
#include "model/schema.h"

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

/// nlohmann would write a model enum as its number; every JSON writer names it.
template <rdmastat::named_enum E> struct nlohmann::adl_serializer<E, void> {
    template <typename J> static void to_json(J& j, E v) { j = rdmastat::name_of(v); }
};

namespace rdmastat::json_common {

using json = nlohmann::ordered_json;

/// j[key] = v when v is known; a model enum by its name.
template <typename T> void put(json& j, const char* key, const std::optional<T>& v) {
    if (!v) return;
    if constexpr (std::is_enum_v<T>)
        j[key] = name_of(*v);
    else
        j[key] = *v;
}

/// A schema::write sink that builds a document.
class DocumentSink {
  public:
    void begin_object() { open(json::object()); }
    void end_object() { stack_.pop_back(); }
    void begin_array() { open(json::array()); }
    void end_array() { stack_.pop_back(); }
    void key(std::string_view k) { key_ = k; }
    void schema_key(std::string_view k) { key(k); }
    void string(std::string_view s) { put(std::string(s)); }
    void number(std::uint64_t n) { put(n); }
    void boolean(bool b) { put(b); }
    void null() { put(nullptr); }
    json take() { return std::move(root_); }

  private:
    json* put(json v);
    void open(json v) { stack_.push_back(put(std::move(v))); }

    json root_;
    std::vector<json*> stack_; ///< the open containers; only the last one grows
    std::string key_;
};

/// v as the snapshot schema (model/schema.h) writes it: a connection as
/// "connections" holds it, an owner as {"pid",...} or {"kernel": NAME}, an
/// endpoint as {"address": "10.0.0.1", "port": 7174}.
template <typename T> json document(const T& v) {
    DocumentSink sink;
    schema::write(v, sink);
    return sink.take();
}

inline json endpoint(const Endpoint& e) {
    return document(e);
}
inline json owner(const Owner& o) {
    return document(o);
}
/// Copies those of keys that from has into j, in the order given: how lsof shows
/// a connection or socket among facts of its own.
void put_members(json& j, const json& from, std::initializer_list<const char*> keys);
/// {"state","local","peer","inode","uid"} plus "pid", "fd", "comm" (the process
/// holding it, comm given separately) and "rdma_device", "rdma_cm_id" when known.
json host_socket(const HostSocket& s, const std::optional<std::string>& comm);
/// {"version": 1, "source": ...}
json header(const Snapshot& snap);
/// Writes j and a newline, indented with pretty. Strings from the system need not
/// be UTF-8 (a comm cut at 15 bytes can split a character): invalid bytes become
/// U+FFFD instead of failing the whole output.
void emit(std::ostream& out, const json& j, bool pretty);

} // namespace rdmastat::json_common
