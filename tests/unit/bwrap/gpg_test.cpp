#include "catch.hpp"
#include "sandbox/bwrap/probe/gpg.hpp"

using namespace blaude::sandbox::bwrap;

TEST_CASE("gpg: gpgconf --list-dirs is read with its escapes", "[gpg]") {
  auto d = parse_gpgconf_dirs(
      "sysconfdir:/etc/gnupg\nsocketdir:/run/user/1000/gnupg\n"
      "agent-ssh-socket:/run/user/1000/gnupg/S.gpg-agent.ssh\n"
      "agent-extra-socket:/run/user/1000/gnupg/S.gpg-agent.extra\n"
      "agent-socket:/run/user/1000/gnupg/S.gpg-agent\nhomedir:/home/u/my%3agpg\njunk\n:x\nrel:x\n");
  CHECK(d.at("homedir") == "/home/u/my:gpg");
  CHECK(d.count("rel") == 0);
  auto b = gpg_binds(d);
  CHECK(b.agent_source == "/run/user/1000/gnupg/S.gpg-agent.extra");
  CHECK(b.agent_dest == "/run/user/1000/gnupg/S.gpg-agent");
  CHECK(b.problem.empty());
  for (const auto& f : b.public_files) {
    CHECK(f.find("private") == std::string::npos);
    CHECK(f.find(".ssh") == std::string::npos);
  }
  CHECK(gpg_binds(parse_gpgconf_dirs("homedir:/h\n")).problem != "");
}

TEST_CASE("gpg: the real gpgconf's output parses and never yields the ssh socket", "[gpg]") {
  FILE* p = popen("gpgconf --list-dirs 2>/dev/null", "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  auto b = gpg_binds(parse_gpgconf_dirs(out));
  CHECK(!b.agent_source.empty());
  CHECK(b.agent_source.find(".ssh") == std::string::npos);
  CHECK(b.agent_dest.find(".ssh") == std::string::npos);
}
