// SPDX-License-Identifier: MIT
#include "collect/json_parser.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace rdmastat {
namespace {

// The text in blocks: the whole file is never held in memory.
class Input {
  public:
    explicit Input(std::istream& in) : in_(in), buf_(1 << 18) {}

    /// The next byte, or -1 at the end of the text.
    int peek() {
        if (pos_ == len_ && !refill()) return -1;
        return static_cast<unsigned char>(buf_[pos_]);
    }
    int get() {
        int c = peek();
        if (c >= 0) ++pos_;
        return c;
    }
    void skip() { ++pos_; }
    /// The 1-based position of the next byte (one past the end at the end).
    std::size_t byte() const { return done_ + pos_ + 1; }
    /// The unread bytes of the current block (refilled when empty).
    std::string_view block() {
        if (pos_ == len_) refill();
        return {buf_.data() + pos_, len_ - pos_};
    }
    void advance(std::size_t n) { pos_ += n; }
    /// The next byte is c, and in the current block.
    bool next_in_block(char c) const { return pos_ < len_ && buf_[pos_] == c; }
    /// The unread bytes of the block, at least min of them unless the text
    /// ends sooner: when fewer are left, they move to the block's start and
    /// the rest is read behind them.
    std::string_view window(std::size_t min) {
        if (len_ - pos_ < min && !eof_) {
            const std::size_t rest = len_ - pos_;
            std::memmove(buf_.data(), buf_.data() + pos_, rest);
            done_ += pos_;
            pos_ = 0;
            len_ = rest + read(buf_.data() + rest, buf_.size() - rest);
        }
        return {buf_.data() + pos_, len_ - pos_};
    }

  private:
    bool refill() {
        done_ += len_;
        pos_ = 0;
        len_ = eof_ ? 0 : read(buf_.data(), buf_.size());
        return len_ > 0;
    }
    std::size_t read(char* to, std::size_t n) {
        in_.read(to, static_cast<std::streamsize>(n));
        const auto got = static_cast<std::size_t>(in_.gcount());
        if (got < n) eof_ = true;
        return got;
    }
    std::istream& in_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, len_ = 0, done_ = 0; // done_: bytes before buf_[0]
    bool eof_ = false;
};

} // namespace

// The parser proper: values read straight from the blocks into the handler.
class JsonParser {
  public:
    JsonParser(Input& in, JsonHandler& b, std::size_t max_depth, std::size_t max_keys)
        : in_(in), b_(b), max_depth_(max_depth), max_keys_(max_keys) {}

    void document() {
        // A UTF-8 byte order mark may open the text (nlohmann skips it too).
        if (in_.peek() == 0xef) {
            for (const int b : {0xef, 0xbb, 0xbf}) {
                if (in_.peek() != b) expected("a value (after a byte order mark)");
                in_.skip();
            }
        }
        values();
        skip_space();
        if (in_.peek() >= 0) expected("the end of the text after the JSON value");
    }

  private:
    struct Frame {
        bool object;
        std::size_t keys = 0;
    };

    [[noreturn]] void refuse(std::string_view why) {
        throw JsonRefusal{"not valid JSON at byte " + std::to_string(in_.byte()) + ": " +
                          std::string(why)};
    }
    [[noreturn]] void expected(std::string_view what) {
        const int c = in_.peek();
        if (c < 0) refuse("unexpected end of input; expected " + std::string(what));
        refuse("expected " + std::string(what) + ", found " + shown(c));
    }
    static std::string shown(int c) {
        if (c > 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
        static const char hex[] = "0123456789abcdef";
        return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
    }

    void skip_space() {
        for (;;) {
            std::string_view b = in_.block();
            std::size_t i = 0;
            while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
                ++i;
            in_.advance(i);
            if (i < b.size() || b.empty()) return;
        }
    }

    // Every value of the document, containers without recursion: the depth is
    // bounded by max_depth_, not by the stack.
    void values() {
        for (;;) {
            skip_space();
            if (!(b_.pull_next() && pulled())) switch (const int c = in_.peek()) {
                case '{':
                    open(true);
                    b_.start_object();
                    skip_space();
                    if (in_.peek() != '}') {
                        member_key();
                        continue;
                    }
                    in_.skip();
                    close();
                    break;
                case '[':
                    open(false);
                    b_.start_array();
                    skip_space();
                    if (in_.peek() != ']') continue;
                    in_.skip();
                    close();
                    break;
                case '"':
                    in_.skip();
                    b_.string(string());
                    break;
                case 't':
                    literal("true");
                    b_.boolean(true);
                    break;
                case 'f':
                    literal("false");
                    b_.boolean(false);
                    break;
                case 'n':
                    literal("null");
                    b_.null();
                    break;
                default:
                    if (c != '-' && !(c >= '0' && c <= '9')) expected("a value");
                    number();
                    break;
                }
            // After a value: a comma and the next one, or the end of its container.
            for (;;) {
                if (stack_.empty()) return;
                skip_space();
                const bool object = stack_.back().object;
                const int c = in_.peek();
                if (c == ',') {
                    in_.skip();
                    if (object) {
                        skip_space();
                        member_key();
                    }
                    break;
                }
                if (c != (object ? '}' : ']')) expected(object ? "',' or '}'" : "',' or ']'");
                in_.skip();
                close();
            }
        }
    }

    // The next value through the handler's pull(), or false, with nothing
    // read, for the callbacks.
    bool pulled() {
        std::string_view text = in_.window(JsonPull::window);
        JsonPull pull(text, in_.byte() - 1);
        if (!b_.pull(pull)) return false;
        in_.advance(pull.consumed());
        return true;
    }

    void open(bool object) {
        if (stack_.size() >= max_depth_)
            throw JsonRefusal{"JSON nested deeper than " + std::to_string(max_depth_) +
                              " levels at byte " + std::to_string(in_.byte())};
        in_.skip();
        stack_.push_back(Frame{object});
    }
    void close() {
        const bool object = stack_.back().object;
        stack_.pop_back();
        object ? b_.end_object() : b_.end_array();
    }
    // A key, its colon and the space before its value.
    void member_key() {
        if (in_.peek() != '"') expected("a string as the object's key");
        in_.skip();
        const std::string_view k = key();
        skip_space();
        if (in_.peek() != ':') expected("':' after the object's key");
        if (++stack_.back().keys > max_keys_)
            throw JsonRefusal{"JSON object with more than " + std::to_string(max_keys_) +
                              " keys at byte " + std::to_string(in_.byte())};
        in_.skip();
        b_.key(k);
    }

    void literal(std::string_view word) {
        for (char ch : word) {
            if (in_.peek() != static_cast<unsigned char>(ch))
                expected("'" + std::string(word) + "'");
            in_.skip();
        }
    }

    void digits(bool required) {
        if (required && !(in_.peek() >= '0' && in_.peek() <= '9')) expected("a digit");
        while (in_.peek() >= '0' && in_.peek() <= '9')
            text_ += static_cast<char>(in_.get());
    }
    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: an integer when it has no
    // fraction or exponent and fits 64 bits, else a double.
    void number() {
        text_.clear();
        if (in_.peek() == '-') text_ += static_cast<char>(in_.get());
        if (in_.peek() == '0')
            text_ += static_cast<char>(in_.get());
        else
            digits(true);
        bool integer = true;
        if (in_.peek() == '.') {
            integer = false;
            text_ += static_cast<char>(in_.get());
            digits(true);
        }
        if (in_.peek() == 'e' || in_.peek() == 'E') {
            integer = false;
            text_ += static_cast<char>(in_.get());
            if (in_.peek() == '+' || in_.peek() == '-') text_ += static_cast<char>(in_.get());
            digits(true);
        }
        const char* first = text_.data();
        const char* last = first + text_.size();
        if (integer && text_[0] == '-') {
            std::int64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) return b_.signed_number(v);
        } else if (integer) {
            std::uint64_t v = 0;
            if (std::from_chars(first, last, v).ec == std::errc()) return b_.unsigned_number(v);
        }
        // Too small becomes zero; too large has no value to hold.
        const double v = std::strtod(text_.c_str(), nullptr);
        if (!std::isfinite(v)) refuse("number out of range: " + text_);
        b_.float_number(v);
    }

    // The rest of a string after its opening quote. The view is into the
    // block when the string lies in it whole and has no escape (nearly always),
    // else into text_; either way it holds until the next read.
    std::string_view string() {
        std::string_view b = in_.block();
        std::size_t i = plain_run(b);
        if (i < b.size() && b[i] == '"') {
            in_.advance(i + 1);
            return b.substr(0, i);
        }
        text_.clear();
        for (;;) {
            text_.append(b.data(), i);
            in_.advance(i);
            if (i == b.size()) {
                b = in_.block();
                if (b.empty()) refuse("unexpected end of input in a string");
                i = plain_run(b);
                continue;
            }
            const auto ch = static_cast<unsigned char>(b[i]);
            if (ch == '"') {
                in_.skip();
                return text_;
            }
            if (ch == '\\') {
                in_.skip();
                escape();
            } else if (ch < 0x20) {
                refuse("control character " + shown(ch) + " in a string (it must be escaped)");
            } else {
                utf8();
            }
            b = in_.block();
            i = plain_run(b);
        }
    }
    // The bytes a string holds as they are: ASCII but '"', '\\' and control
    // characters. DEL is one of them, as JSON allows; common/text.h's
    // json_plain, which the writer and the snapshot fast path keep to, is not.
    static std::size_t plain_run(std::string_view b) {
        std::size_t i = 0;
        while (i < b.size()) {
            const auto ch = static_cast<unsigned char>(b[i]);
            if (ch == '"' || ch == '\\' || ch < 0x20 || ch >= 0x80) break;
            ++i;
        }
        return i;
    }
    // A key, which views the block, kept in key_ when reading on to its ':'
    // could refill the block (space after it up to the block's end).
    std::string_view key() {
        std::string_view k = string();
        if (!in_.next_in_block(':')) {
            key_.assign(k);
            k = key_;
        }
        return k;
    }

    // After a backslash. A refusal names the byte at fault, left unread.
    void escape() {
        const int c = in_.peek();
        char plain = 0;
        switch (c) {
        case -1:
            refuse("unexpected end of input in a string");
        case '"':
        case '\\':
        case '/':
            plain = static_cast<char>(c);
            break;
        case 'b':
            plain = '\b';
            break;
        case 'f':
            plain = '\f';
            break;
        case 'n':
            plain = '\n';
            break;
        case 'r':
            plain = '\r';
            break;
        case 't':
            plain = '\t';
            break;
        case 'u':
            break;
        default:
            refuse("invalid escape in a string: " + shown(c));
        }
        in_.skip();
        if (c != 'u') {
            text_ += plain;
            return;
        }
        std::uint32_t cp = hex4();
        if (cp >= 0xdc00 && cp <= 0xdfff) refuse("\\u escape of a lone low surrogate");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            for (const char ch : {'\\', 'u'}) {
                if (in_.peek() != static_cast<unsigned char>(ch))
                    refuse("\\u escape of a high surrogate not followed by a low one");
                in_.skip();
            }
            const std::uint32_t low = hex4();
            if (low < 0xdc00 || low > 0xdfff)
                refuse("\\u escape of a high surrogate not followed by a low one");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        if (cp < 0x80) {
            text_ += static_cast<char>(cp);
        } else if (cp < 0x800) {
            text_ += static_cast<char>(0xc0 | cp >> 6);
            text_ += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            text_ += static_cast<char>(0xe0 | cp >> 12);
            text_ += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
            text_ += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            text_ += static_cast<char>(0xf0 | cp >> 18);
            text_ += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
            text_ += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
            text_ += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }
    std::uint32_t hex4() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const int c = in_.peek();
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) expected("four hex digits after \\u");
            in_.skip();
            v = v << 4 | static_cast<std::uint32_t>(d);
        }
        return v;
    }
    // One UTF-8 sequence of 2 to 4 bytes (RFC 3629's table).
    void utf8() {
        const int lead = in_.peek();
        int more = 0, low = 0x80, high = 0xbf;
        if (lead >= 0xc2 && lead <= 0xdf) {
            more = 1;
        } else if (lead >= 0xe0 && lead <= 0xef) {
            more = 2;
            if (lead == 0xe0) low = 0xa0;
            if (lead == 0xed) high = 0x9f;
        } else if (lead >= 0xf0 && lead <= 0xf4) {
            more = 3;
            if (lead == 0xf0) low = 0x90;
            if (lead == 0xf4) high = 0x8f;
        } else {
            refuse("invalid UTF-8 in a string: " + shown(lead));
        }
        text_ += static_cast<char>(in_.get());
        for (int i = 0; i < more; ++i) {
            const int c = in_.peek();
            if (c < 0) refuse("unexpected end of input in a string");
            if (c < low || c > high) refuse("invalid UTF-8 in a string: " + shown(c));
            text_ += static_cast<char>(in_.get());
            low = 0x80;
            high = 0xbf;
        }
    }

    Input& in_;
    JsonHandler& b_;
    std::size_t max_depth_, max_keys_;
    std::vector<Frame> stack_;
    std::string text_; // the current string (when not in the block) or number
    std::string key_;  // the current key, when not in the block
};

void parse_json(std::istream& in, JsonHandler& handler, std::size_t max_depth,
                std::size_t max_keys) {
    Input input(in);
    JsonParser(input, handler, max_depth, max_keys).document();
}

} // namespace rdmastat
