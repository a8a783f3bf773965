// SPDX-License-Identifier: MIT
#pragma once

/// RDMA resources NLDEV tracks besides cm_ids (every ResourceKind): the record
/// a parser produces and its conversion into model Resources.

#include "model/records.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rdmastat {

/// Kind-specific facts of a resource as text, e.g. {"cqe", "256"}.
using ResourceDetails = std::vector<std::pair<std::string, std::string>>;

/// One resource as NLDEV reported it; numbers and owner as the kernel sent them.
struct ResourceRecord {
    ResourceKind kind = ResourceKind::qp;
    std::uint32_t device_index = 0;
    std::string device_name;
    std::uint32_t number = 0; ///< lqpn, cqn, mrn, pdn, ctxn or srqn
    RawOwner owner;
    /// Kind-specific facts as text, in this order when present: qp "type",
    /// "state"; cq "cqe"; mr "length", "lkey", "rkey" (keys only for readers
    /// with CAP_NET_ADMIN); pd "users"; ctx none; srq "type" (BASIC, XRC, TM),
    /// "lqpn" (its QPs as rdma prints them, "6-8,11"), "pdn", "cqn" (XRC and
    /// tag-matching SRQs only).
    ResourceDetails details;
};

/// What one collection of resources found.
struct ResourceDump {
    std::vector<ResourceRecord> records;
    /// Kinds the kernel predates (SRQs before Linux 5.19): it refused their dump
    /// as it refuses a command it does not know. Left out, not an error.
    std::vector<ResourceKind> unreported;
};

/// A QP record as a resource of kind qp: number lqpn, details "type" and
/// "state" by their kernel names when the kernel sent them.
ResourceRecord resource_from_qp(const QpRecord& qp);

/// The pids that own any of records: what resolve_owners must look up, once each.
std::set<std::uint32_t> resource_owner_pids(const std::vector<ResourceRecord>& records);

/// One Resource per record, in order, with its owner resolved as join() resolves
/// cm_id owners: a kernel owner by name, a pid from owners (a pid missing there
/// keeps just the pid), no owner when the kernel named none.
std::vector<Resource> to_resources(const std::vector<ResourceRecord>& records,
                                   const OwnerMap& owners);

} // namespace rdmastat
