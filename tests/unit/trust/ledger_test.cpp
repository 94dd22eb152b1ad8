#include <string>

#include "catch.hpp"
#include "sandbox/policy/print.hpp"
#include "sandbox/trust/io.hpp"
#include "sandbox/trust/ledger.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::trust;

TEST_CASE("trust: sha256 is libcrypto's", "[trust]") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("trust: ledger round trip and decisions", "[trust]") {
  Ledger l;
  record_trust(l, {"repo:/r/.git", "aa", "b1", "/r/.blaude", {{Access::Write, "/r/x", "o:1"}}});
  record_trust(l, {"path:/p/.blaude", "bb", "b1", "/p/.blaude", {}});
  std::string err;
  auto back = parse_ledger(format_ledger(l), err);
  REQUIRE(back);
  REQUIRE(back->entries.size() == 2);
  CHECK(back->entries[0].grants.at(0).path == "/r/x");
  CHECK(back->entries[0].grants.at(0).access == Access::Write);

  CHECK(check_trust(*back, "repo:/r/.git", "aa", "b1").state == TrustState::Trusted);
  CHECK(check_trust(*back, "repo:/r/.git", "cc", "b1").state == TrustState::Changed);
  CHECK(check_trust(*back, "repo:/r/.git", "aa", "b2").state == TrustState::BaseChanged);
  auto fresh = check_trust(*back, "repo:/other/.git", "aa", "b1");
  CHECK(fresh.state == TrustState::New);
  CHECK_FALSE(fresh.previous);

  record_trust(*back, {"repo:/r/.git", "cc", "b1", "/r/.blaude", {}});
  CHECK(back->entries.size() == 2);  // replaced, not appended
  CHECK(check_trust(*back, "repo:/r/.git", "cc", "b1").state == TrustState::Trusted);
}

TEST_CASE("trust: a damaged ledger is an error, an empty one is empty", "[trust]") {
  std::string err;
  CHECK(parse_ledger("", err));
  CHECK(parse_ledger("  \n", err));
  CHECK_FALSE(parse_ledger("{not json", err));
  CHECK_FALSE(err.empty());
  CHECK_FALSE(parse_ledger(R"({"version":2,"entries":[]})", err));
  CHECK_FALSE(parse_ledger(
      R"({"version":1,"entries":[{"scope":"s","sha256":"h","base":"b","grants":[{"access":"root","path":"/"}]}]})",
      err));
}

TEST_CASE("trust: the prompt shows grants by risk and the diff", "[trust]") {
  TrustCheck c;
  c.state = TrustState::Changed;
  c.previous = TrustEntry{"s", "h", "b", "/r/.blaude", {{Access::Read, "/h/old", "x"}}};
  Grants now = {{Access::Exec, "/h/bin2", "/r/.blaude:2"}, {Access::Read, "/h/new", "/r/.blaude:1"}};
  auto text = trust_prompt("/r/.blaude", c, now);
  CHECK(text.find("project policy changed: /r/.blaude") != std::string::npos);
  CHECK(text.find("exec") < text.find("read   /h/new"));
  CHECK(text.find("+ exec   /h/bin2") != std::string::npos);
  CHECK(text.find("+ read   /h/new") != std::string::npos);
  CHECK(text.find("- read   /h/old") != std::string::npos);
  CHECK(text.ends_with("[y/N] "));
  c.state = TrustState::New;
  c.previous.reset();
  CHECK(trust_prompt("/r/.blaude", c, now).find("new project policy") != std::string::npos);
}

TEST_CASE("trust: the prompt shows the file's own text and the resolved paths", "[trust]") {
  TrustCheck c;
  c.state = TrustState::New;
  Grants written = {{Access::Write, "/h/cache", "/r/.blaude:2"}};
  Grants resolved = written;
  resolved.push_back({Access::Write, "/h/elsewhere", "/r/.blaude:2 (via symlink)"});
  auto text = trust_prompt("/r/.blaude", c, written, {}, "# build cache\nallow-write ~/cache\n", resolved);
  CHECK(text.find("Its text:\n  | # build cache\n  | allow-write ~/cache\n") != std::string::npos);
  CHECK(text.find("these paths apply too:\n  write  /h/elsewhere  (/r/.blaude:2 (via symlink))") != std::string::npos);
  // Control: with nothing resolved elsewhere there is no such section.
  CHECK(trust_prompt("/r/.blaude", c, written, {}, "x", written).find("apply too") == std::string::npos);
}

TEST_CASE("trust: the file's text cannot drive the terminal", "[trust]") {
  // A comment hiding the next line (cursor up, erase line), an OSC 52 write, a C1 CSI, bad UTF-8.
  auto q = quote_policy_text("# ok\x1b[1A\x1b[2K\nallow-write ~/x \x1b]52;c;aGk=\x07\n\xc2\x9b" "2J \xff caf\xc3\xa9\ttab\n");
  CHECK(q.find('\x1b') == std::string::npos);
  CHECK(q.find('\x07') == std::string::npos);
  CHECK(q.find("\xc2\x9b") == std::string::npos);
  CHECK(q == "  | # ok\\x1b[1A\\x1b[2K\n  | allow-write ~/x \\x1b]52;c;aGk=\\x07\n  | \\xc2\\x9b2J \\xff caf\xc3\xa9\ttab\n");
  std::string many;
  for (int i = 0; i < 70; ++i) many += "# line\n";
  auto cut = quote_policy_text(many, 60);
  CHECK(cut.find("(10 more lines; the grants below are all of them)") != std::string::npos);
}

TEST_CASE("trust: only y/yes is yes", "[trust]") {
  for (const char* y : {"y", "Y", "yes", "YES", " yes \r", "Yes\n"}) CHECK(is_yes(y));
  for (const char* n : {"", "n", "no", "yess", "y es", "ja", "\x1b[Ay"}) CHECK_FALSE(is_yes(n));
}

TEST_CASE("trust: grant diff ignores origins", "[trust]") {
  Grants a = {{Access::Read, "/x", "f:1"}};
  Grants b = {{Access::Read, "/x", "f:9"}};
  CHECK(diff_grants(a, b).empty());
  b.push_back({Access::Write, "/x", "f:2"});
  auto d = diff_grants(a, b);
  CHECK(d.added.size() == 1);
  CHECK(d.removed.empty());
}
