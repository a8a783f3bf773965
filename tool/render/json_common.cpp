// SPDX-License-Identifier: MIT
#include "render/json_common.h"

#include "model/names.h"

namespace rdmastat::json_common {

json* DocumentSink::put(json v) {
    if (stack_.empty()) {
        root_ = std::move(v);
        return &root_;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
        top.push_back(std::move(v));
        return &top.back();
    }
    return &(top[key_] = std::move(v));
}

void put_members(json& j, const json& from, std::initializer_list<const char*> keys) {
    for (const char* key : keys)
        if (from.contains(key)) j[key] = from[key];
}

json host_socket(const HostSocket& s, const std::optional<std::string>& comm) {
    const json all = document(s);
    json j;
    put_members(j, all, {"state", "local", "peer", "inode", "uid", "pid", "fd"});
    if (s.pid) put(j, "comm", comm);
    put_members(j, all, {"rdma_device", "rdma_cm_id"});
    return j;
}

json header(const Snapshot& snap) {
    return json{{"version", Snapshot::schema_version},
                {"source", snapshot_source_name(snap.source)}};
}

void emit(std::ostream& out, const json& j, bool pretty) {
    out << j.dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace) << '\n';
}

} // namespace rdmastat::json_common
