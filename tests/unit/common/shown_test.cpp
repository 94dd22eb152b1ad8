// The one sanitizer for strings the sandbox chose, before blaude prints them.
#include <string>

#include "catch.hpp"
#include "common/shown.hpp"

using blaude::shell_word_shown;
using blaude::shown;
using blaude::shows_as_is;

TEST_CASE("shown: plain text and other UTF-8 as it is", "[shown]") {
  CHECK(shown("/home/u/.claude/settings.json") == "/home/u/.claude/settings.json");
  CHECK(shown("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
  CHECK(shows_as_is("a b'c\"d"));
}

TEST_CASE("shown: C0, DEL and the backslash escaped", "[shown]") {
  CHECK(shown("a\nb") == "a\\nb");
  CHECK(shown("a\rb\tc") == "a\\rb\\tc");
  CHECK(shown("\x1b[2J") == "\\e[2J");
  CHECK(shown(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(shown("\x7f\x01") == "\\x7f\\x01");
  CHECK(shown("a\\nb") == "a\\\\nb");  // a literal backslash cannot pass for an escape
  CHECK_FALSE(shows_as_is("a\\b"));
}

TEST_CASE("shown: C1, bidi and zero-width characters escaped", "[shown]") {
  CHECK(shown("\xc2\x9b" "31m") == "\\u009b31m");  // 8-bit CSI
  CHECK(shown("\xc2\x85") == "\\u0085");
  CHECK(shown("\xc2\xa0") == "\xc2\xa0");  // U+00A0 is visible text
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066-2069 isolates, U+200E/200F marks, U+061C.
  CHECK(shown("a\xe2\x80\xae" "b") == "a\\u202eb");
  for (unsigned cp : {0x202Au, 0x202Bu, 0x202Cu, 0x202Du, 0x202Eu, 0x2066u, 0x2067u, 0x2068u, 0x2069u, 0x200Eu,
                      0x200Fu, 0x061Cu, 0x200Bu, 0x200Cu, 0x200Du, 0xFEFFu, 0x2060u, 0x2028u, 0x2029u}) {
    std::string s;
    if (cp < 0x800) {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xE0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    }
    char want[8];
    std::snprintf(want, sizeof want, "\\u%04x", cp);
    CHECK(shown(s) == want);
  }
}

TEST_CASE("shown: invalid UTF-8 as \\xNN, byte by byte", "[shown]") {
  CHECK(shown("\xff") == "\\xff");
  CHECK(shown("a\xc3") == "a\\xc3");
  CHECK(shown("\xc0\xaf") == "\\xc0\\xaf");          // overlong '/'
  CHECK(shown("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // an encoded surrogate
  CHECK(shown("\xe2\x80") == "\\xe2\\x80");
}

TEST_CASE("shown: one line whatever the input", "[shown]") {
  std::string all;
  for (int i = 0; i < 256; ++i) all += char(i);
  const std::string s = shown(all + "\xe2\x80\xa8\xe2\x80\xa9");
  for (unsigned char c : s) CHECK((c >= 0x20 && c != 0x7f));
  CHECK(s.find("\xc2\x9b") == std::string::npos);
}

TEST_CASE("shell_word_shown: a pasteable word on one line", "[shown]") {
  CHECK(shell_word_shown("/a/b c") == "'/a/b c'");
  CHECK(shell_word_shown("it's") == "'it'\\''s'");
  CHECK(shell_word_shown("a\nb") == "$'a\\x0ab'");
  CHECK(shell_word_shown("x'\x1b") == "$'x\\'\\x1b'");
  CHECK(shell_word_shown("a\\b\xe2\x80\xae") == "$'a\\x5cb\\xe2\\x80\\xae'");
}
