// SPDX-License-Identifier: MIT
#pragma once

/// A plain text table: columns as wide as their widest cell, two spaces apart,
/// the last column not padded (so lines carry no trailing blanks). Cells hold
/// names any process can choose, so they are made printable() on the way in.

#include <charconv>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rdmastat {

/// s with every byte a terminal could act on written as "\xHH" (lower-case hex), as
/// ps does: C0 controls, DEL, bytes that are not part of valid UTF-8, and the UTF-8
/// encoding of C1 controls (U+0080..U+009F). Valid printable UTF-8 is kept.
std::string printable(std::string_view s);
/// printable(s) appended to out.
void append_printable(std::string& out, std::string_view s);

/// n in decimal appended to out: a plain cell's text (Table::plain_cell_by).
template <typename T> void append_number(std::string& out, T n) {
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof(digits), n).ptr);
}
/// append_number(*v), or "-" when v is empty.
template <typename T> void append_number_or_dash(std::string& out, const std::optional<T>& v) {
    if (v)
        append_number(out, *v);
    else
        out += '-';
}

class Table {
  public:
    explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
    /// With marked, each row starts with a one-character mark and a blank (the
    /// header with two blanks): -w's "+" and "-".
    Table(std::vector<std::string> headers, bool marked)
        : headers_(std::move(headers)), marked_(marked) {}
    /// Adds a row, each cell made printable(); it must have one cell per header.
    void add(const std::vector<std::string>& row);
    /// The same one cell at a time: cell() per column, then end_row().
    void cell(std::string_view text);
    /// A cell of text no process chose (a number, an address, an enum's name),
    /// printable ASCII by construction: appended as is.
    void plain_cell(std::string_view text) {
        text_ += text;
        ends_.push_back(text_.size());
    }
    /// A plain cell that write(std::string& out) appends to out, with no copy.
    template <typename Write> void plain_cell_by(Write&& write) {
        write(text_);
        ends_.push_back(text_.size());
    }
    /// The mark of the row being added, in a marked table (else a blank).
    void mark(char m) { mark_ = m; }
    void end_row() {
        rows_.push_back(ends_.size());
        if (marked_) marks_.push_back(mark_);
        mark_ = ' ';
    }
    bool empty() const { return rows_.empty(); }
    std::size_t size() const { return rows_.size(); }
    void write(std::ostream& out, bool with_header = true) const;
    /// Writes the rows added since the last flush, aligned with every row
    /// flushed before (a column widens where these rows need it, never
    /// narrows), the header only before the first; then drops them.
    void flush(std::ostream& out, bool with_header = true);

  private:
    void write_rows(std::ostream& out, bool with_header, std::vector<std::size_t>& width) const;

    std::vector<std::string> headers_;
    // Every cell's text in one string (a million rows stay compact): ends_ has
    // each cell's end offset in text_, rows_ each row's end index in ends_.
    std::string text_;
    std::vector<std::size_t> ends_;
    std::vector<std::size_t> rows_;
    bool marked_ = false;
    char mark_ = ' ';
    std::vector<char> marks_;        // each row's mark, in a marked table
    std::vector<std::size_t> width_; // of the rows flushed so far
    bool flushed_ = false;
};

} // namespace rdmastat
