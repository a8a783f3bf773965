// SPDX-License-Identifier: MIT
#pragma once

/// Prometheus text exposition format (version 0.0.4) of metric families.

#include "analysis/metrics.h"

#include <ostream>
#include <vector>

namespace rdmastat {

/// The Content-Type of what write_prometheus writes.
inline constexpr const char* prometheus_content_type = "text/plain; version=0.0.4; charset=utf-8";

/// "# HELP", "# TYPE" and one line per sample for each family, in order. Label
/// values are escaped (backslash, double quote, newline); whole numbers print
/// without a fraction, others in the shortest form that reads back the same.
void write_prometheus(std::ostream& out, const std::vector<MetricFamily>& families);

} // namespace rdmastat
