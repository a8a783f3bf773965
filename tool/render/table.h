// SPDX-License-Identifier: MIT
#pragma once

/// A plain text table: columns as wide as their widest cell, two spaces apart,
/// the last column not padded (so lines carry no trailing blanks).

#include <ostream>
#include <string>
#include <vector>

namespace rdmastat {

class Table {
  public:
    explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
    /// Adds a row; it must have one cell per header.
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    bool empty() const { return rows_.empty(); }
    void write(std::ostream& out, bool with_header = true) const;

  private:
    std::vector<std::string> headers_;
    std::vector<std::vector<std::string>> rows_;
};

} // namespace rdmastat
