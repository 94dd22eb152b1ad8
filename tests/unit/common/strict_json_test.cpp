// The strict JSON check in front of every parse of Claude Code's files: JSON.parse's grammar,
// bounded depth without recursion, and the inputs a lenient reader would see differently.
#include <string>

#include "catch.hpp"
#include "common/strict_json.hpp"

using blaude::strict_json_error;
using blaude::strict_json_parse;

namespace {
bool ok(const std::string& s) { return strict_json_error(s).empty(); }
std::string deep(size_t n, char open = '[', char close = ']') { return std::string(n, open) + std::string(n, close); }
}  // namespace

TEST_CASE("strict json: what JSON.parse reads passes", "[strict_json]") {
  for (const char* s : {"{}", "[]", "0", "-0", "1.5e+10", "-12.25E-3", "\"\"", "true", "false", "null", " \t\r\n{} ",
                        R"({"a": [1, {"b": null}], "c": "\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"})",
                        "{\"caf\xc3\xa9\": \"\xf0\x9f\x98\x80\"}", R"({"a":1,"A":2})"})
    CHECK(ok(s));
  CHECK(ok(deep(128)));
  CHECK(ok(std::string("{\"a\":") + deep(127) + "}"));
}

TEST_CASE("strict json: what JSON.parse refuses is refused", "[strict_json]") {
  for (const char* s : {"", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{'a':1}", "[01]", "[1.]", "[.5]",
                        "[+1]", "[1e]", "[NaN]", "[Infinity]", "[-Infinity]", "[undefined]", "[True]", "{} {}", "{}x",
                        "[1] // c", "/* c */ {}", "{\"a\":1 /* c */}", "[\"\\x41\"]", "[\"\\u12\"]", "[\"\\a\"]",
                        "[\"a\tb\"]", "[\"a\nb\"]", "\"abc", "[1 2]", "{\"a\":1}}", "\f{}", "\v{}"})
    CHECK_FALSE(ok(s));
  CHECK_FALSE(ok(std::string("[\"a\0b\"]", 7)));
  CHECK_FALSE(ok(std::string("{}\0", 3)));
  // JSON.parse reads 1e999 as Infinity, nlohmann refuses the text: refused, so both agree.
  CHECK(strict_json_error("[1e999]").find("out of a double's range") != std::string::npos);
  CHECK(strict_json_error("-1e1113").find("out of a double's range") != std::string::npos);
  CHECK(ok("[1e-999, 1.7976931348623157e308]"));
}

TEST_CASE("strict json: beyond JSON.parse, what a lenient reader would read otherwise", "[strict_json]") {
  CHECK(strict_json_error("\xEF\xBB\xBF{}").find("byte order mark") != std::string::npos);
  // Duplicate keys, also spelled differently: JSON.parse keeps the last one.
  CHECK(strict_json_error(R"({"hooks": {}, "hooks": {"x": 1}})").find("already has") != std::string::npos);
  CHECK_FALSE(ok(R"({"hooks": 1, "\u0068ooks": 2})"));
  CHECK_FALSE(ok(R"({"a": {"k": 1, "k": 2}})"));
  CHECK_FALSE(ok(R"([{"k": 1}, {"k": 2, "x": {"y": 1, "y": 1}}])"));
  CHECK(ok(R"([{"k": 1}, {"k": 2}])"));  // the same key in two objects is fine
  CHECK(ok(R"({"a": {"k": 1}, "k": 2})"));
  // Lone surrogates (JSON.parse keeps them; nlohmann refuses them): neither reader may differ.
  for (const char* s : {R"(["\ud800"])", R"(["\udc00"])", R"(["\ud800x"])", R"(["\ud800\u0041"])", R"(["\udbff\ud800"])"})
    CHECK(strict_json_error(s).find("surrogate") != std::string::npos);
  // Invalid UTF-8: a stray continuation byte, overlong forms, encoded surrogates, above U+10FFFF,
  // a truncated sequence.
  for (const char* s : {"[\"\x80\"]", "[\"\xc0\xaf\"]", "[\"\xe0\x80\xaf\"]", "[\"\xed\xa0\x80\"]",
                        "[\"\xf4\x90\x80\x80\"]", "[\"\xf5\x80\x80\x80\"]", "[\"\xc3\"]", "[\"\xe2\x82\"]"})
    CHECK(strict_json_error(s).find("UTF-8") != std::string::npos);
  CHECK_FALSE(ok("[\xc3\xa9]"));  // outside a string, any non-ASCII byte
}

TEST_CASE("strict json: depth is bounded, and the check itself does not recurse", "[strict_json]") {
  CHECK(strict_json_error(deep(129)).find("deeper than 128") != std::string::npos);
  CHECK(strict_json_error(deep(65, '{', '}')).size() > 0);  // {{ is no key: refused anyway
  CHECK_FALSE(ok(deep(5, '[', ']') + "]"));
  CHECK(ok(deep(64)));
  CHECK_FALSE(strict_json_error(deep(65), 64).empty());
  // Far beyond any stack: a recursive checker would crash here.
  const std::string huge = std::string(2'000'000, '[');
  CHECK_FALSE(ok(huge));
  std::string nested;
  for (int i = 0; i < 200000; ++i) nested += "{\"a\":";
  CHECK_FALSE(ok(nested + "1" + std::string(200000, '}')));
}

TEST_CASE("strict json: the parse returns nlohmann's document only for accepted text", "[strict_json]") {
  std::string why;
  auto j = strict_json_parse(R"({"b": 1, "a": [true]})", &why);
  REQUIRE(j);
  CHECK(j->begin().key() == "b");  // the order kept
  CHECK_FALSE(strict_json_parse(R"({"a": 1} // trailing)", &why));
  CHECK_FALSE(why.empty());
  CHECK_FALSE(strict_json_parse(deep(200), &why));
  CHECK(why.find("deeper") != std::string::npos);
}
