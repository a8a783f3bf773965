// SPDX-License-Identifier: MIT
// The snapshot parser (collect/json_parser.h) against nlohmann's, the parser it
// replaced: both must accept the same texts and read the same values, whatever
// block boundary a token straddles.
#include "catch_compat.hpp"
#include "collect/json_parser.h"
#include "collect/snapshot_file.h"
#include "render/json.h"
#include "support.h"

#include <nlohmann/json.hpp>
#include <sstream>

using namespace rdmastat;
using json = nlohmann::json;

namespace {

// Builds the document the parser reports, as nlohmann would hold it.
class Tree : public JsonHandler {
  public:
    json root;

    void null() override { put(nullptr); }
    void boolean(bool v) override { put(v); }
    void signed_number(std::int64_t v) override { put(v); }
    void unsigned_number(std::uint64_t v) override { put(v); }
    void float_number(double v) override { put(v); }
    void string(std::string_view v) override { put(std::string(v)); }
    void key(std::string_view k) override { key_ = k; }
    void start_object() override { open(json::object()); }
    void start_array() override { open(json::array()); }
    void end_object() override { stack_.pop_back(); }
    void end_array() override { stack_.pop_back(); }

  private:
    json* put(json v) {
        if (stack_.empty()) return &(root = std::move(v));
        json& top = *stack_.back();
        if (top.is_object()) return &(top[key_] = std::move(v));
        top.push_back(std::move(v));
        return &top.back();
    }
    void open(json v) { stack_.push_back(put(std::move(v))); }
    std::vector<json*> stack_;
    std::string key_;
};

struct Parsed {
    std::optional<json> value;
    std::string refusal;
};

Parsed parse(const std::string& text, std::size_t max_depth = 1000, std::size_t max_keys = 1000) {
    std::istringstream in(text);
    Tree t;
    try {
        parse_json(in, t, max_depth, max_keys);
    } catch (const JsonRefusal& r) {
        return Parsed{std::nullopt, r.message};
    }
    return Parsed{std::move(t.root), {}};
}

// Each text must be read as nlohmann reads it: refused by both, or the same value.
void agrees(const std::string& text) {
    INFO(json(text).dump(-1, ' ', false, json::error_handler_t::replace));
    Parsed ours = parse(text);
    const bool valid = json::accept(text);
    CHECK(ours.value.has_value() == valid);
    if (ours.value && valid) {
        json theirs = json::parse(text);
        CHECK(*ours.value == theirs);
        CHECK(ours.value->dump() == theirs.dump()); // number kinds too: 1 is not 1.0
    }
}

} // namespace

TEST_CASE("the parser accepts and refuses what nlohmann does", "[json]") {
    const std::vector<std::string> texts = {
        // Values and space.
        "null",
        "true",
        "false",
        "0",
        "-0",
        "17",
        "-17",
        " \t\r\n[ ] ",
        "{}",
        "[[],{}]",
        R"({"a":1,"b":[true,false,null],"c":{"d":"e"}})",
        R"({"a":1,"a":2})",
        // Numbers: the grammar, and where integers stop.
        "1.5",
        "-1.5e3",
        "1E+2",
        "1e-2",
        "0.0",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "-1e400",
        "1e-400",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "0x1",
        "--1",
        "1.e3",
        "2.",
        "-01",
        // Literals cut short or misspelled.
        "tru",
        "nul",
        "falsey",
        "True",
        "nan",
        "Infinity",
        // Strings: escapes, surrogates, UTF-8 and control characters.
        R"("a\"b\\c\/d\b\f\n\r\t")",
        R"("\u0041\u00e9\u20ac")",
        R"("\ud83d\ude00")",
        R"("\ud83d")",
        R"("\ude00")",
        R"("\ud83dx")",
        R"("\ud83d\u0041")",
        R"("\u12")",
        R"("\x")",
        "\"\xc3\xa9\"",
        "\"\xe2\x82\xac\"",
        "\"\xf0\x9f\x98\x80\"",
        "\"\xc0\x80\"",
        "\"\xc1\xbf\"",
        "\"\xe0\x80\x80\"",
        "\"\xed\xa0\x80\"",
        "\"\xf4\x90\x80\x80\"",
        "\"\xf5\x80\x80\x80\"",
        "\"\xff\"",
        "\"\xc3\"",
        "\"\xe2\x82\"",
        "\"\x80\"",
        std::string("\"a\0b\"", 5),
        "\"a\nb\"",
        "\"a\x1f\"",
        "\"a\x7f\"",
        "\"abc",
        // Structure.
        "[1,]",
        "[,1]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:2}",
        "{\"a\":}",
        "[1 2]",
        "[1}",
        "{]",
        "]",
        "",
        " ",
        "1 2",
        "[] x",
        "{\"a\":1}}",
        "[[[]]",
        "\"\"",
        "[\"\",\"\"]",
        // A byte order mark opens the text, whole, or it is not JSON.
        "\xef\xbb\xbf{}",
        "\xef\xbb\xbf",
        "\xef\xbb{}",
        "\xef{}",
        " \xef\xbb\xbf{}",
        "\"\\",
    };
    for (const std::string& t : texts)
        agrees(t);
}

TEST_CASE("the parser's refusals name the byte at fault and what was expected", "[json]") {
    CHECK(parse("{\"a\": 1, x}").refusal ==
          "not valid JSON at byte 10: expected a string as the object's key, found 'x'");
    CHECK(parse("[1,]").refusal == "not valid JSON at byte 4: expected a value, found ']'");
    CHECK(parse("{\"a\": 1").refusal ==
          "not valid JSON at byte 8: unexpected end of input; expected ',' or '}'");
    CHECK(parse("").refusal ==
          "not valid JSON at byte 1: unexpected end of input; expected a value");
    CHECK(parse("[1] 2").refusal ==
          "not valid JSON at byte 5: expected the end of the text after the JSON value, found '2'");
    CHECK(parse("\"a\nb\"").refusal ==
          "not valid JSON at byte 3: control character byte 0x0a in a string (it must be escaped)");
    CHECK(parse("\"\xc3(\"").refusal == "not valid JSON at byte 3: invalid UTF-8 in a string: '('");
    CHECK(parse(R"("\x")").refusal == "not valid JSON at byte 3: invalid escape in a string: 'x'");
    CHECK(parse(R"("\ud83dx")").refusal ==
          "not valid JSON at byte 8: \\u escape of a high surrogate not followed by a low one");
    CHECK(parse("\"\\").refusal == "not valid JSON at byte 3: unexpected end of input in a string");
    CHECK(parse(R"("\ude00")").refusal ==
          "not valid JSON at byte 8: \\u escape of a lone low surrogate");
    CHECK(parse("tru").refusal ==
          "not valid JSON at byte 4: unexpected end of input; expected 'true'");
    // nlohmann would stop at the NUL and accept: RFC 8259 has no such end.
    CHECK(parse(std::string("2\t\0", 3)).refusal ==
          "not valid JSON at byte 3: expected the end of the text after the JSON value, found "
          "byte 0x00");
    CHECK(parse("01").refusal ==
          "not valid JSON at byte 2: expected the end of the text after the JSON value, found '1'");
}

TEST_CASE("the parser's limits stop it where they are broken", "[json]") {
    CHECK(parse("[[[1]]]", 3).value);
    CHECK(parse("[[[[1]]]]", 3).refusal == "JSON nested deeper than 3 levels at byte 4");
    CHECK(parse(R"({"a":1,"b":2})", 10, 2).value);
    CHECK(parse(R"({"a":1,"b":2,"c":3})", 10, 2).refusal ==
          "JSON object with more than 2 keys at byte 17");
    // A limit broken before a syntax error is the one reported, and the other way round.
    CHECK(parse("[[[[x", 3).refusal == "JSON nested deeper than 3 levels at byte 4");
    CHECK(parse("[x[[[", 3).refusal == "not valid JSON at byte 2: expected a value, found 'x'");
}

TEST_CASE("tokens that straddle a block boundary read the same", "[json]") {
    // The parser reads 256 KiB blocks: pad so that each token of the document
    // starts, in turn, at every byte near the boundary.
    const std::string doc =
        R"({"key":"value","n":18446744073709551615,"neg":-42,"f":1.25e2,"u":"\u00e9\ud83d\ude00é",)"
        R"("t":true,"z":null,"l":[1,2,{"x":"y"}]})";
    const json expected = json::parse(doc);
    const std::size_t block = 256 * 1024;
    for (std::size_t shift = 0; shift <= doc.size() + 1; ++shift) {
        const std::string text = std::string(block - shift, ' ') + doc;
        Parsed p = parse(text);
        INFO("shift " << shift << ": " << p.refusal);
        REQUIRE(p.value);
        CHECK(*p.value == expected);
    }
    // And a refusal past the boundary counts every byte before it.
    CHECK(parse(std::string(block + 10, ' ') + "x").refusal ==
          "not valid JSON at byte " + std::to_string(block + 11) + ": expected a value, found 'x'");
}

TEST_CASE("a connection across a block boundary reads the same, fast or not", "[json][snapshot]") {
    // The fast path sees a connection whole (the block is refilled behind
    // it); one it declines (an unknown key at its end) is read by the general
    // path from its start. Either way, wherever the block boundary falls.
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(test::fixture_text("snapshot.json"));
    auto& conns = doc["connections"];
    REQUIRE_FALSE(conns.empty());
    const Snapshot plain = test::snapshot_from_text(doc.dump()).take();
    nlohmann::ordered_json odd = conns[0];
    odd["unknown_key"] = 1;
    const std::string head = R"({"version":1,"source":"nldev","connections":[)";
    const std::size_t block = 256 * 1024;
    for (const std::string& element : {conns[0].dump(), odd.dump()}) {
        for (std::size_t shift = 0; shift <= element.size(); shift += 7) {
            std::string text =
                head + std::string(block - head.size() - shift, ' ') + element + "]}";
            std::istringstream in(text);
            auto snap = parse_snapshot_json(in, "t.json");
            INFO("shift " << shift << " of " << element);
            REQUIRE(snap.ok());
            REQUIRE(snap.value().connections.size() == 1);
            CHECK(snap.value().connections[0] == plain.connections[0]);
        }
    }
}
