// The audit's git config parser, table-driven, and against the real git: whatever git lists
// for a file (`git config --file F -l -z`), the parser must list too.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/git_config.hpp"
#include "catch.hpp"

using namespace blaude;

namespace {

std::vector<std::string> keys(const ParsedConfig& p) {
  std::vector<std::string> out;
  for (const auto& e : p.entries) out.push_back(e.key + (e.value ? "=" + *e.value : ""));
  return out;
}

using V = std::vector<std::string>;

// git's own reading of text: each entry as key[=value], or {"ERROR"} when git refuses the file.
V git_reads(const std::string& text) {
  char dir[] = "/tmp/blaude-audit-cfg.XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string f = std::string(dir) + "/config";
  std::ofstream(f, std::ios::binary) << text;
  const std::string cmd = "env -i PATH=/usr/bin:/bin HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 git config --file '" + f +
                          "' -l -z 2>/dev/null";
  V out;
  std::string buf;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char c[4096];
    size_t n;
    while ((n = fread(c, 1, sizeof c, p)) > 0) buf.append(c, n);
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) out = {"ERROR"};
  }
  unlink(f.c_str());
  rmdir(dir);
  if (!out.empty()) return out;
  // -z: "key\nvalue\0" or "key\0" for a bare key.
  size_t i = 0;
  while (i < buf.size()) {
    size_t z = buf.find('\0', i);
    std::string item = buf.substr(i, z - i);
    size_t nl = item.find('\n');
    out.push_back(nl == std::string::npos ? item : item.substr(0, nl) + "=" + item.substr(nl + 1));
    i = z + 1;
  }
  return out;
}

// Later gits keep tabs inside values where 2.39 writes spaces; compare without that difference.
std::string blanks(std::string s) {
  for (char& c : s)
    if (c == '\t') c = ' ';
  return s;
}

V ours(const std::string& text) {
  ParsedConfig p = parse_git_config(text);
  if (p.error_line) return {"ERROR"};
  V out;
  for (auto& k : keys(p)) out.push_back(blanks(k));
  return out;
}

}  // namespace

TEST_CASE("audit: git config syntax as git reads it", "[audit]") {
  CHECK(keys(parse_git_config("[core]\n\tfsmonitor = x\n")) == V{"core.fsmonitor=x"});
  CHECK(keys(parse_git_config("[core] fsmonitor = x")) == V{"core.fsmonitor=x"});  // key on the header line
  CHECK(keys(parse_git_config("[Core]FsMonitor=x")) == V{"core.fsmonitor=x"});
  CHECK(keys(parse_git_config("[filter \"EvIl\"]\nclean = c")) == V{"filter.EvIl.clean=c"});
  CHECK(keys(parse_git_config("[Filter.EvIl]\nclean = c")) == V{"filter.evil.clean=c"});  // legacy form
  CHECK(keys(parse_git_config("[core]\npager = le\\\nss\n")) == V{"core.pager=less"});  // continuation
  CHECK(keys(parse_git_config("[core]\npager = \"a # b\" # c\n")) == V{"core.pager=a # b"});
  CHECK(keys(parse_git_config("[core]\npager = a ; b\n")) == V{"core.pager=a"});
  CHECK(keys(parse_git_config("[core]\r\npager = x\r\n")) == V{"core.pager=x"});
  CHECK(keys(parse_git_config("\xef\xbb\xbf[core]\nbare")) == V{"core.bare"});
  CHECK(keys(parse_git_config("[alias]\n\tst = \"!sh -c \\\"x\\\"\"")) == V{"alias.st=!sh -c \"x\""});
  CHECK(keys(parse_git_config("[a \"b\\\"c\"]\nk=v")) == V{"a.b\"c.k=v"});
  CHECK(keys(parse_git_config("[include]\npath")) == V{"include.path"});
  CHECK(parse_git_config("[core]\f fsmonitor = x").error_line == 1);  // \f is not blank to git
  CHECK(parse_git_config("[core]\npager = \"open\n").error_line != 0);
  CHECK(parse_git_config("[core]\npager = a\\q\n").error_line != 0);
  CHECK(parse_git_config("\xef\xbb[core]").error_line != 0);  // a partial BOM
  CHECK(parse_git_config("[]").error_line != 0);
  // Entries before an error are still returned (git may have used them).
  auto p = parse_git_config("[core]\nfsmonitor = x\n!bad\n");
  CHECK(p.error_line == 3);
  CHECK(keys(p) == V{"core.fsmonitor=x"});
  CHECK(parse_git_config("[core]\nfsmonitor = x\n").entries[0].line == 2);
}

TEST_CASE("audit: key parts split the way git splits them", "[audit]") {
  auto k = split_key("url.https://a.b/.insteadof");
  CHECK(k.section == "url");
  CHECK(k.subsection == "https://a.b/");
  CHECK(k.name == "insteadof");
  CHECK(k.has_subsection);
  CHECK_FALSE(split_key("core.pager").has_subsection);
  CHECK(split_key("bare").section.empty());
}

TEST_CASE("audit: written config reads back to the same entries", "[audit]") {
  const char* inputs[] = {
      "[core]\n\tfsmonitor = x\n[remote \"o\"]\n\turl = a\n\tfetch = +refs/*:refs/*\n[core]\n\tbare\n",
      "[a \"q\\\"\\\\\"]\nk = \" lead and trail \"\nm = tab\\there\\nnl\\b\nn = \"\"\n",
      "[x.Y.z]\nk=1\n[x \"y.z\"]\nk=2\n",
  };
  for (const char* in : inputs) {
    auto a = parse_git_config(in);
    REQUIRE(a.error_line == 0);
    auto b = parse_git_config(write_git_config(a.entries));
    CHECK(b.error_line == 0);
    CHECK(keys(b) == keys(a));
  }
  int dropped = 0;
  write_git_config({{"nosection", std::string("x"), 1}}, &dropped);
  CHECK(dropped == 1);
}

TEST_CASE("audit: a name git cut at a NUL in a subsection is dropped, not written as another key", "[audit]") {
  // git reads [url "eX<NUL>:sh"] k as url.eX (the name is a C string). Written as [url] eX it
  // would read back as url.ex: a different key. fuzz_audit_git_config found it.
  const std::string in("[url \"eX\0:sh\"]\n\tinsteadOf = x\n[core]\n\tbare = false\n", 51);
  auto a = parse_git_config(in);
  REQUIRE(a.error_line == 0);
  REQUIRE(a.entries.size() == 2);
  CHECK(a.entries[0].key == "url.eX");
  int dropped = 0;
  auto b = parse_git_config(write_git_config(a.entries, &dropped));
  CHECK(dropped == 1);
  REQUIRE(b.entries.size() == 1);
  CHECK(b.entries[0].key == "core.bare");
}

TEST_CASE("audit: the parser reads what the real git reads", "[audit][git]") {
  REQUIRE(system("git --version >/dev/null 2>&1") == 0);
  const char* cases[] = {
      "[core]\n\tfsmonitor = x\n",
      "[core] fsmonitor = x",
      "[Core]FsMonitor=x\n[core \"sub\"] k",
      "[filter \"EvIl\"]\nclean = c\n[Filter.EvIl]\nsmudge = s\n",
      "[core]\npager = le\\\nss\n",
      "[core]\npager = \"a # b\" # c\n",
      "[core]\npager = a ; b\n",
      "[core]\r\npager = x\r\n",
      "[core]\rpager = x\n",
      "\xef\xbb\xbf[core]\nbare",
      "\xef\xbb[core]\nbare",
      "[alias]\n\tst = \"!sh -c \\\"x\\\"\"",
      "[a \"b\\\"c\"]\nk=v",
      "[a \"b\\zc\"]\nk=v",
      "[include]\npath",
      "[core]\f fsmonitor = x",
      "[core]\v fsmonitor = x",
      "[core]\npager = \"open\n",
      "[core]\npager = a\\q\n",
      "[]",
      "[core]\nfsmonitor = x\n!bad\n",
      "fsmonitor = x\n",
      "[core]\n  pager  =   a   b  \n",
      "[core]\n\tpager = a \t b\n",
      "[core]\n\tk1-x = 1\n\tk_x = 2\n",
      "[core]\n\t1k = 1\n",
      "[sec \"a\"b]\nk=1\n",
      "[sec \"a\" ]\nk=1\n",
      "[sec\t\"a\"]\nk=1\n",
      "[sec\n\"a\"]\nk=1\n",
      "[core]\npager=x\\\n",
      "[core]\npager=x\\",
      "[core]\npager=\"x\\\"\"\n",
      "[core]k\n=v\n",
      "[core]\nk =\n",
      "[core]\nk=\"\"\"\"\n",
      "[x.y \"z\"]\nk=v\n",
      "[core];c\n\tk=v#c\n",
      "  [core]  \n  k  =  v  \n",
      "[core]\nk=a\xc3\xa9\n",
      "[\xc3\xa9]\nk=v\n",
  };
  for (const char* c : cases) {
    INFO("config text: " << c);
    V git = git_reads(c);
    for (auto& k : git) k = blanks(k);
    CHECK(ours(c) == git);
  }
}

// Random texts from git's syntax characters, a fixed seed: every one must read as git reads it.
TEST_CASE("audit: random config texts read as the real git reads them", "[audit][git]") {
  REQUIRE(system("git --version >/dev/null 2>&1") == 0);
  const char* atoms[] = {"[", "]", "\"", "\\", "\n", "\r", "\r\n", " ", "\t", "=", "#", ";", "a",
                         "B", ".", "-", "1", "\f", "core", "fsmonitor", "[core]", "x = y", "\"s\"", "\0"};
  unsigned seed = 12345;
  auto rnd = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  for (int i = 0; i < 300; ++i) {
    std::string text = "[core]\n";
    int n = 1 + int(rnd() % 24);
    for (int j = 0; j < n; ++j) {
      const char* a = atoms[rnd() % (sizeof atoms / sizeof *atoms)];
      text += *a ? std::string(a) : std::string(1, '\0');
    }
    INFO("config text #" << i << ": [" << text << "]");
    V git = git_reads(text);
    for (auto& k : git) k = blanks(k);
    CHECK(ours(text) == git);
  }
}
