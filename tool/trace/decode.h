// SPDX-License-Identifier: MIT
#pragma once

/// The BPF programs' ring-buffer records (trace/bpf/record.h) as TraceEvents.

#include "common/error.h"
#include "model/cm_event.h"

#include <cstddef>

namespace rdmastat {

/// One record. A record of another size, or of a kind this tool does not know,
/// is a Failure naming what is wrong; a field the tool has no name for (an
/// event number, a port space, an address family) is kept as it came, not
/// dropped: numbers stay numbers, and an address of an unknown family is left
/// out of the endpoint (local/peer empty) with other_family set.
Result<TraceEvent> decode_trace_record(const void* data, std::size_t size);

} // namespace rdmastat
