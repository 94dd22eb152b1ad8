// The pure helpers behind the Seatbelt host facts and decision.
#include "sandbox/seatbelt/launch.hpp"
#include "seatbelt/fixtures.hpp"

using namespace blaude::sandbox;
using namespace blaude::sandbox::seatbelt;
using namespace blaude::sandbox::seatbelt::testing;

TEST_CASE("seatbelt host: the per-user dirs from $TMPDIR", "[seatbelt]") {
  auto d = darwin_dirs_from_temp("/private/var/folders/xy/abc123/T");
  REQUIRE(d);
  CHECK(d->temp == "/private/var/folders/xy/abc123/T");
  CHECK(d->cache == "/private/var/folders/xy/abc123/C");
  CHECK(d->volatile_dir == "/private/var/folders/xy/abc123/X");
  CHECK(darwin_dirs_from_temp("/private/var/folders/xy/abc123/T/"));
  for (const char* bad : {"/tmp", "/var/folders/xy/abc123/T", "/private/var/folders/xy/T",
                          "/private/var/folders//abc/T", "/private/var/folders/xy/abc/T/x", "/private/var/folders/xy/abc/0"}) {
    INFO(bad);
    CHECK_FALSE(darwin_dirs_from_temp(bad));
  }
}

TEST_CASE("seatbelt host: a script's interpreter from its first line", "[seatbelt]") {
  auto s = parse_shebang("#!/usr/bin/env node\nrequire('x')\n");
  REQUIRE(s);
  CHECK(s->program == "node");
  CHECK(s->via_env);
  s = parse_shebang("#!/usr/bin/env -S node --no-warnings\n");
  REQUIRE(s);
  CHECK(s->program == "node");
  s = parse_shebang("#!/usr/bin/env NODE_OPTIONS=x node\n");
  REQUIRE(s);
  CHECK(s->program == "node");
  s = parse_shebang("#! /opt/x/bin/python3 -u\r\n");
  REQUIRE(s);
  CHECK(s->program == "/opt/x/bin/python3");
  CHECK_FALSE(s->via_env);
  CHECK_FALSE(parse_shebang("\x7f" "ELF..."));
  CHECK_FALSE(parse_shebang("#!relative/python\n"));
  CHECK_FALSE(parse_shebang("#!/usr/bin/env\n"));
}

TEST_CASE("seatbelt profile: ancestors and case-insensitive regexes", "[seatbelt]") {
  CHECK(ancestors("/a/b/c") == std::vector<std::string>{"/a/b", "/a"});
  CHECK(ancestors("/a").empty());
  CHECK(ci_regex("/A.b+c", false) == "^/[Aa]\\.[Bb]\\+[Cc]$");
  CHECK(ci_regex("/x", true) == "^/[Xx](/.*)?$");
  // Outside the fixed alphabet: no regex at all (the literal rule still applies).
  for (const char* p : {"/a\"b", "/a(b", "/a[b", "/a\\b", "/caf\xc3\xa9", "/a*b", "/a$b", "/a|b", "/a?b"}) {
    INFO(p);
    CHECK(ci_regex(p, false).empty());
  }
}

TEST_CASE("seatbelt context: -m refuses what Linux refuses", "[seatbelt]") {
  auto h = mac_host();
  auto r = claude_request();
  r.mounts = {{"/nope", false}};
  h.mounts = {{"/nope", "", false, false}};
  auto d = make_context(h, r, true, "/dev/ttys001", "");
  REQUIRE(std::holds_alternative<SeatbeltPlanError>(d));
  CHECK(std::get<SeatbeltPlanError>(d).what.find("does not exist") != std::string::npos);
  r.mounts = {{"/Users", false}};
  h.mounts = {{"/Users", "/Users", false, false}};
  d = make_context(h, r, true, "/dev/ttys001", "");
  REQUIRE(std::holds_alternative<SeatbeltPlanError>(d));
  CHECK(std::get<SeatbeltPlanError>(d).what.find("home directory") != std::string::npos);
  r.allow_protected_writes = true;
  CHECK(std::holds_alternative<SeatbeltDecision>(make_context(h, r, true, "/dev/ttys001", "")));
}

TEST_CASE("seatbelt context: --clear-tmp needs the per-user temporary dir", "[seatbelt]") {
  auto h = mac_host();
  h.darwin_temp.clear();
  auto r = claude_request();
  r.clear_tmp = true;
  CHECK(std::holds_alternative<SeatbeltPlanError>(make_context(h, r, true, "", "")));
  r.clear_tmp = false;
  CHECK(std::holds_alternative<SeatbeltDecision>(make_context(h, r, true, "", "")));
}

TEST_CASE("seatbelt launch: --dry-run prints the exact profile and a runnable command", "[seatbelt]") {
  auto plan = std::get<LaunchPlan>(seatbelt_launch("/usr/bin/sandbox-exec", "(version 1)\nBLAUDE_PROFILE\n(deny default)\n",
                                                   {"claude", "it's"}));
  auto text = format_dry_run(plan, {"HOME=/Users/alice", "A=b c"}, "/Users/alice/src/my app");
  // The profile contains the default delimiter on a line of its own: another one is chosen.
  CHECK(text.find("<<'BLAUDE_PROFILE_'\n(version 1)\nBLAUDE_PROFILE\n(deny default)\nBLAUDE_PROFILE_\n)") !=
        std::string::npos);
  CHECK(text.find("cd '/Users/alice/src/my app' && env -i HOME=/Users/alice 'A=b c' /usr/bin/sandbox-exec -p "
                  "\"$PROFILE\" -- claude 'it'\\''s'\n") != std::string::npos);
}

TEST_CASE("seatbelt context: the post-session audit covers every dir a repository could be written in", "[seatbelt]") {
  auto h = mac_host();
  auto r = claude_request();
  const std::string H = kHome;
  r.mounts = {{H + "/libs", true}, {H + "/docs", false}};
  h.mounts = {{H + "/libs", H + "/libs", false, false}, {H + "/docs", H + "/docs", false, false}};
  h.git_dirs = {H + "/repos/app.git"};
  r.keyring = true;
  r.grants = {{Access::Write, H + "/out", "/p/.blaude:1"}, {Access::Read, H + "/ro", "/p/.blaude:2"}};
  auto d = make_context(h, r, true, "/dev/ttys001", "");
  REQUIRE(std::holds_alternative<SeatbeltDecision>(d));
  const auto& c = std::get<SeatbeltDecision>(d).ctx;
  auto dirs = audit_dirs(c, r.grants);
  auto has = [&](const std::string& p) { return std::find(dirs.begin(), dirs.end(), p) != dirs.end(); };
  CHECK(has(h.project));
  CHECK(has(H + "/libs"));
  CHECK(has(H + "/repos/app.git"));
  CHECK(has(c.claude_config_dir));
  CHECK(has(H + "/out"));
  // What the sandbox can only read, the keychain dir and the temporary dirs are not audited.
  CHECK_FALSE(has(H + "/docs"));
  CHECK_FALSE(has(H + "/ro"));
  CHECK_FALSE(has(H + "/Library/Keychains"));
  CHECK_FALSE(has(c.tmp_dir));
  CHECK_FALSE(has("/private/tmp"));
  // --tmp opens no project: nothing of it is audited.
  r.tmp = true;
  auto t = make_context(h, r, true, "/dev/ttys001", "");
  REQUIRE(std::holds_alternative<SeatbeltDecision>(t));
  dirs = audit_dirs(std::get<SeatbeltDecision>(t).ctx, r.grants);
  CHECK_FALSE(has(h.project));
  CHECK(has(H + "/out"));
}
