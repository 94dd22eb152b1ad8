#include <string>

#include "policy/test_context.hpp"
#include "sandbox/policy/policy.hpp"
#include "sandbox/seatbelt/launch.hpp"
#include "seatbelt/fixtures.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::policy;
using namespace blaude::sandbox::seatbelt;
using namespace blaude::sandbox::seatbelt::testing;
using blaude::sandbox::testing::test_context;

namespace {

SeatbeltContext sb_context() {
  auto c = decide(mac_host(), claude_request(), true, "/Users/alice/src/app/.blaude").ctx;
  return c;
}

Policy parse_ok(const std::string& text) {
  auto r = parse_policy(text, "/Users/alice/src/app/.blaude", test_context());
  INFO(text);
  REQUIRE(r.ok());
  return r.policy;
}

std::string profile_of(const Policy& p, const SeatbeltContext& c) { return seatbelt_profile(policy_grants(p), c); }

// The lines of `with` that are not in `base` (the profile is line-oriented and ordered).
std::string added_lines(const std::string& base, const std::string& with) {
  auto pos = with.find(";; protective denies");
  auto bpos = base.find(";; protective denies");
  REQUIRE(pos != std::string::npos);
  REQUIRE(with.substr(pos) == base.substr(bpos));  // the tail is unchanged and still last
  REQUIRE(with.substr(0, bpos) == base.substr(0, bpos));
  return with.substr(bpos, pos - bpos);
}

}  // namespace

TEST_CASE("seatbelt: the base profile matches its golden file", "[seatbelt]") {
  auto profile = profile_of(Policy{}, sb_context());
  check_golden("seatbelt_base.sb", profile);
  auto forms = sbpl::read_all(profile);
  REQUIRE(forms.size() > 10);
  CHECK(forms[0].str() == "(version 1)");
  CHECK(forms[1].str() == "(deny default)");
}

TEST_CASE("seatbelt: golden rules per directive", "[seatbelt]") {
  const auto base = profile_of(Policy{}, sb_context());
  struct Case {
    const char* line;
    const char* expected;
  };
  const Case cases[] = {
      {"allow-read ~/.config/special",
       ";; policy grants\n"
       ";; read from \"/Users/alice/src/app/.blaude:1\"\n"
       "(allow file-read-data\n  (subpath \"/Users/alice/.config/special\"))\n\n"},
      {"allow-write ~/data/share",
       ";; policy grants\n"
       ";; write from \"/Users/alice/src/app/.blaude:1\"\n"
       "(allow file-read-data file-write*\n  (subpath \"/Users/alice/data/share\"))\n\n"},
      {"allow-exec /opt/custom/bin",
       ";; policy grants\n"
       ";; exec from \"/Users/alice/src/app/.blaude:1\"\n"
       "(allow file-read-data process-exec\n  (subpath \"/opt/custom/bin\"))\n\n"},
      {"tool gh",
       ";; policy grants\n"
       ";; read from \"tool gh (/Users/alice/src/app/.blaude:1)\"\n"
       "(allow file-read-data\n  (subpath \"/Users/alice/.config/gh\"))\n\n"},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto with = profile_of(parse_ok(c.line), sb_context());
    CHECK(added_lines(base, with) == c.expected);
  }
}

TEST_CASE("seatbelt: each toolchain becomes exactly its table's rules", "[seatbelt]") {
  const auto base = profile_of(Policy{}, sb_context());
  auto with = profile_of(parse_ok("tool rust"), sb_context());
  auto added = sbpl::read_all(added_lines(base, with));
  // rust: read ~/.cargo/bin (implied by exec, dropped), ~/.cargo/config.toml, ~/.rustup;
  // write the package-cache locks, registry, git; exec ~/.cargo/bin, ~/.rustup/toolchains.
  REQUIRE(added.size() == 8);
  CHECK(added[0].str() == "(allow file-read-data process-exec (subpath \"/Users/alice/.cargo/bin\"))");
  CHECK(added[1].str() == "(allow file-read-data process-exec (subpath \"/Users/alice/.rustup/toolchains\"))");
  CHECK(added[2].str() == "(allow file-read-data file-write* (subpath \"/Users/alice/.cargo/.package-cache\"))");
  CHECK(added[3].str() == "(allow file-read-data file-write* (subpath \"/Users/alice/.cargo/.package-cache-mutate\"))");
  CHECK(added[4].str() == "(allow file-read-data file-write* (subpath \"/Users/alice/.cargo/git\"))");
  CHECK(added[5].str() == "(allow file-read-data file-write* (subpath \"/Users/alice/.cargo/registry\"))");
  CHECK(added[6].str() == "(allow file-read-data (subpath \"/Users/alice/.cargo/config.toml\"))");
  CHECK(added[7].str() == "(allow file-read-data (subpath \"/Users/alice/.rustup\"))");
}

TEST_CASE("seatbelt: one escaping function for every user string", "[seatbelt]") {
  CHECK(sbpl_string("/a b/c") == "\"/a b/c\"");
  CHECK(sbpl_string("/a\"b") == "\"/a\\\"b\"");
  CHECK(sbpl_string("/a\\b") == "\"/a\\\\b\"");
  CHECK(sbpl_string("/caf\xc3\xa9") == "\"/caf\xc3\xa9\"");
  CHECK_THROWS_AS(sbpl_string("/a\nb"), SeatbeltError);
  CHECK_THROWS_AS(sbpl_string("/a\x1b]52;c;x\x07"), SeatbeltError);
  CHECK_THROWS_AS(sbpl_string("/a\xc2\x9b"), SeatbeltError);  // C1 CSI
  CHECK_THROWS_AS(sbpl_string("/a\xff"), SeatbeltError);
}

TEST_CASE("seatbelt: injection attacks are rejected or harmless", "[seatbelt][attack]") {
  // 1. Through the DSL: xclaude's `")` injection (reference A.5) is refused by the parser.
  auto r = parse_policy("allow-read ~/x\") (allow file-write* (subpath \"/\n", "/p/.blaude",
                        test_context());
  CHECK_FALSE(r.ok());
  CHECK(parse_policy("allow-write ./.git\n", "/p/.blaude", test_context()).policy.grants.empty());

  // 2. Straight into the generator (a host path, or a parser bug): the quote is escaped and the
  //    text stays inside one string token. Control: the same text spliced unescaped, as xclaude
  //    did, does produce a rule that writes /, so the reader below would notice a success.
  const std::string evil = "/Users/alice/x\")) (allow file-write* (subpath \"/";
  Policy p;
  p.grants.push_back({Access::Read, evil, "attack"});
  auto forms = sbpl::read_all(seatbelt_profile(p.grants, sb_context()));
  auto writes_root = [](const std::vector<sbpl::Node>& fs) {
    for (const auto& f : fs)
      if (f.head() == "allow" && f.str().find("file-write*") != std::string::npos &&
          f.str().find("(subpath \"/\")") != std::string::npos)
        return true;
    return false;
  };
  CHECK_FALSE(writes_root(forms));
  bool found = false;
  for (const auto& f : forms)
    if (f.head() == "allow" && f.kids.size() == 3 && f.kids[2].kids.size() == 2 &&
        f.kids[2].kids[1].is_string && f.kids[2].kids[1].atom == evil)
      found = true;
  CHECK(found);  // one rule, whose single string is exactly the hostile path
  const std::string naive = "(allow file-read-data (subpath \"" + evil + "\"))";
  CHECK(writes_root(sbpl::read_all(naive)));  // control: the unescaped splice is an escape

  // 3. Newline / control characters cannot be expressed: the generator refuses.
  Policy q;
  q.grants.push_back({Access::Read, "/Users/alice/x\n(allow default)", "attack"});
  CHECK_THROWS_AS(seatbelt_profile(q.grants, sb_context()), SeatbeltError);
  SeatbeltContext bad = sb_context();
  bad.project_dir = "/Users/alice/a\"b\n";
  CHECK_THROWS_AS(seatbelt_profile({}, bad), SeatbeltError);
}

TEST_CASE("seatbelt: ordering attack, no grant re-opens protected paths", "[seatbelt][attack]") {
  // xclaude put user rules after its denies, so `allow-write ./.git` re-opened .git/hooks
  // (last match wins). Here the protective denies are the last rules, whatever the policy.
  // The parser already ignores grants inside the project; here the grants are handed to the
  // generator directly (as if that check regressed) to show the ordering holds on its own.
  struct Case {
    const char* grant;   // a write grant
    const char* victim;  // a protected path inside it
  };
  const Case cases[] = {
      {"/Users/alice/src/app/.git", "/Users/alice/src/app/.git/hooks/pre-commit"},
      {"/Users/alice/src/app", "/Users/alice/src/app/.git/hooks/pre-commit"},
      {"/Users/alice/src/app/.git/hooks", "/Users/alice/src/app/.git/hooks/post-checkout"},
      {"/Users/alice/src/app/sub/.env.local", "/Users/alice/src/app/sub/.env.local"},
      {"/Users/alice/src/app/.git/config", "/Users/alice/src/app/.git/config"},
      {"/Users/alice/other-repo", "/Users/alice/other-repo/.git/hooks/pre-push"},
  };
  // What the workspace scan (and the scan of the write grant's repository) found.
  SeatbeltContext ctx = sb_context();
  const std::string P = kProject;
  for (const char* f : {"/sub/.env.local", "/.env", "/deep/er/.xclaude", "/.git/worktrees/w1/config.worktree"})
    ctx.protect.push_back({P + f, false, "scan"});
  ctx.protect.push_back({"/Users/alice/other-repo/.git/hooks", true, "scan of a write grant"});
  for (const auto& c : cases) {
    INFO(c.grant);
    Policy attack;
    attack.grants.push_back({Access::Write, c.grant, "attack"});
    auto forms = sbpl::read_all(seatbelt_profile(attack.grants, ctx));
    REQUIRE(forms.size() >= 2);
    size_t last_allow = 0;
    for (size_t i = 0; i < forms.size(); ++i)
      if (forms[i].head() == "allow") last_allow = i;
    const auto& deny = forms[forms.size() - 2];
    CHECK(deny.head() == "deny");
    CHECK(deny.kids[1].atom == "file-write*");  // same op name as the allows (reference A.2)
    CHECK(last_allow < forms.size() - 2);
    CHECK_FALSE(sbpl::decide(forms, "file-write*", c.victim));
    for (const char* target : {"/Users/alice/src/app/.git/hooks/pre-commit",
                               "/Users/alice/src/app/.git/config",
                               "/Users/alice/src/app/sub/.env.local",
                               "/Users/alice/src/app/.env", "/Users/alice/src/app/.blaude",
                               "/Users/alice/src/app/deep/er/.xclaude",
                               "/Users/alice/src/app/.git/worktrees/w1/config.worktree"}) {
      INFO(target);
      CHECK_FALSE(sbpl::decide(forms, "file-write*", target));
    }
    // Renaming .git away (then writing hooks in the renamed copy) is blocked too.
    CHECK_FALSE(sbpl::decide(forms, "file-write-unlink", "/Users/alice/src/app/.git"));
    // Control: an ordinary file is writable, so `decide` can say yes.
    CHECK(sbpl::decide(forms, "file-write*", "/Users/alice/src/app/src/main.c"));
    // Control: with the denies placed before the grant (xclaude's order) the attack succeeds,
    // so the checks above would notice a regression in the ordering.
    std::vector<sbpl::Node> xclaude_order(forms.begin(), forms.end() - 2);
    xclaude_order.insert(xclaude_order.end() - 1, forms.end() - 2, forms.end());
    CHECK(sbpl::decide(xclaude_order, "file-write*", c.victim));
  }
}

TEST_CASE("seatbelt: launch is inline and fails closed", "[seatbelt]") {
  auto err = seatbelt_launch("", "(version 1)", {"claude"});
  REQUIRE(std::holds_alternative<SeatbeltPlanError>(err));
  CHECK(std::get<SeatbeltPlanError>(err).what.find("sandbox-exec not found") == 0);
  auto ok = seatbelt_launch("/usr/bin/sandbox-exec", "(version 1)", {"claude", "--resume"});
  REQUIRE(std::holds_alternative<LaunchPlan>(ok));
  const auto& argv = std::get<LaunchPlan>(ok).argv;
  REQUIRE(argv.size() == 6);
  CHECK(argv[0] == "/usr/bin/sandbox-exec");
  CHECK(argv[1] == "-p");
  CHECK(argv[2] == "(version 1)");
  CHECK(argv[3] == "--");
  CHECK(argv[4] == "claude");
}
