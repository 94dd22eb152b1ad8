// --allow-domain and --publish on the command line: forms, canonical spelling, usage errors,
// and that no short form takes a claude flag.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/parse.hpp"

using namespace blaude::cli;
using Args = std::vector<std::string>;

namespace {
Options ok(const Args& a) {
  auto r = parse(a);
  REQUIRE(std::holds_alternative<Options>(r));
  return std::get<Options>(r);
}
std::string err(const Args& a) {
  auto r = parse(a);
  REQUIRE(std::holds_alternative<UsageError>(r));
  return std::get<UsageError>(r).message;
}
}  // namespace

TEST_CASE("cli net: --allow-domain and --publish, repeatable, both spellings", "[net]") {
  auto o = ok({"--allow-domain", "Example.COM", "-c", "--allow-domain=*.npmjs.org:443", "--publish", "5173",
               "--publish=8080", "--allow-domain", "example.com", "--publish", "5173"});
  CHECK(o.allow_domains == Args{"example.com", "*.npmjs.org:443"});  // canonical, duplicates once
  CHECK(o.publish == std::vector<uint16_t>{5173, 8080});
  CHECK(o.claude_args == Args{"-c"});
}

TEST_CASE("cli net: -p stays claude's; there is no short form", "[net]") {
  auto o = ok({"-p", "8080"});
  CHECK(o.publish.empty());
  CHECK(o.claude_args == Args{"-p", "8080"});
}

TEST_CASE("cli net: bad values and contradictions are usage errors", "[net]") {
  CHECK(err({"--allow-domain", "https://example.com/x"}) ==
        "--allow-domain \"https://example.com/x\": it is a URL, not a host (drop the scheme: write example.com)");
  CHECK(err({"--allow-domain", "*.com"}).find("covers a whole top-level domain") != std::string::npos);
  CHECK(err({"--allow-domain"}) == "--allow-domain requires a value");
  CHECK(err({"--publish", "0"}) == "--publish: '0' is not a port (1 to 65535)");
  CHECK(err({"--publish", "http"}) == "--publish: 'http' is not a port (1 to 65535)");
  CHECK(err({"--no-network", "--allow-domain", "example.com"}) ==
        "--no-network and --allow-domain contradict each other: --no-network allows no destination at all (drop one)");
  CHECK(err({"--publish", "3000", "--no-network"}).starts_with("--no-network and --publish contradict"));
  CHECK(err({"--no-sandbox", "--allow-domain", "example.com"}) ==
        "--allow-domain needs the sandbox's own network; --no-sandbox has none");
}

TEST_CASE("cli net: --help lists the options", "[net]") {
  std::string h = help_text();
  CHECK(h.find("--allow-domain PATTERN") != std::string::npos);
  CHECK(h.find("--publish PORT") != std::string::npos);
  CHECK(h.find("no-default-domains") != std::string::npos);
}
