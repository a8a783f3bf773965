// SPDX-License-Identifier: MIT
#include "render/table.h"

#include <algorithm>

namespace rdmastat {

void Table::write(std::ostream& out, bool with_header) const {
    std::vector<std::size_t> width(headers_.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    };
    if (with_header) measure(headers_);
    for (const auto& r : rows_)
        measure(r);

    auto emit = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    };
    if (with_header) emit(headers_);
    for (const auto& r : rows_)
        emit(r);
}

} // namespace rdmastat
