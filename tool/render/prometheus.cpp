// SPDX-License-Identifier: MIT
#include "render/prometheus.h"

#include "render/table.h"

#include <charconv>
#include <cmath>

namespace rdmastat {
namespace {

void escaped(std::ostream& out, const std::string& s, bool quote) {
    for (char ch : s) {
        if (ch == '\\')
            out << "\\\\";
        else if (ch == '\n')
            out << "\\n";
        else if (quote && ch == '"')
            out << "\\\"";
        else
            out << ch;
    }
}

// Prometheus refuses a whole scrape that is not UTF-8, and a process's name or
// cgroup may be any bytes: those are written as printable() writes them. A
// newline keeps the format's own escape.
std::string label_value(const std::string& s) {
    std::string out;
    std::size_t from = 0;
    for (std::size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1)
        out += printable(std::string_view(s).substr(from, nl - from)) + '\n';
    return out + printable(std::string_view(s).substr(from));
}

void number(std::ostream& out, double v) {
    // Counters can exceed 2^53; beyond that a double is what Prometheus stores anyway.
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        out << static_cast<long long>(v);
        return;
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    out.write(buf, ec == std::errc() ? end - buf : 0);
}

} // namespace

void write_prometheus(std::ostream& out, const std::vector<MetricFamily>& families) {
    for (const MetricFamily& f : families) {
        out << "# HELP " << f.name << ' ';
        escaped(out, f.help, false);
        out << "\n# TYPE " << f.name << ' '
            << (f.type == MetricType::counter     ? "counter"
                : f.type == MetricType::histogram ? "histogram"
                                                  : "gauge")
            << '\n';
        for (const Sample& s : f.samples) {
            out << f.name << s.suffix;
            if (!s.labels.empty()) {
                out << '{';
                for (std::size_t i = 0; i < s.labels.size(); ++i) {
                    if (i) out << ',';
                    out << s.labels[i].first << "=\"";
                    escaped(out, label_value(s.labels[i].second), true);
                    out << '"';
                }
                out << '}';
            }
            out << ' ';
            number(out, s.value);
            out << '\n';
        }
    }
}

} // namespace rdmastat
