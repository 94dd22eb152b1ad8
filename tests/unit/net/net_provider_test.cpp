// Default hosts for the configured Claude provider, as a pure function of the environment.
#include <string>
#include <vector>

#include "catch.hpp"
#include "net/provider.hpp"

using namespace blaude::net;

namespace {

std::vector<std::string> pats(const std::vector<std::string>& env, bool rc = false) {
  std::vector<std::string> out;
  for (const Rule& r : provider_defaults(env_from(env), rc).rules) {
    CHECK(r.origin == Origin::Default);
    out.push_back(r.pattern.text());
  }
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("net provider: Anthropic API and login hosts by default", "[net]") {
  CHECK(pats({"HOME=/h"}) == V{"api.anthropic.com:443", "console.anthropic.com:443", "platform.claude.com:443", "claude.ai:443"});
  CHECK(provider_defaults(env_from({}), false).provider == "Anthropic API");
}

TEST_CASE("net provider: ANTHROPIC_BASE_URL replaces the API host", "[net]") {
  CHECK(pats({"ANTHROPIC_BASE_URL=https://gateway.example.com/anthropic"}) == V{"gateway.example.com:443"});
  CHECK(pats({"ANTHROPIC_BASE_URL=http://127.0.0.1:41234"}) == V{"127.0.0.1:41234"});
  CHECK(pats({"ANTHROPIC_BASE_URL=http://user:pw@[::1]:8080/v1"}) == V{"[::1]:8080"});
  CHECK(pats({"ANTHROPIC_BASE_URL=HTTP://LocalHost"}) == V{"localhost:80"});
  auto bad = provider_defaults(env_from({"ANTHROPIC_BASE_URL=gateway.example.com"}), false);
  CHECK(bad.rules.empty());
  REQUIRE(bad.warnings.size() == 1);
  CHECK(bad.warnings[0].find("ANTHROPIC_BASE_URL is not an http(s) URL") == 0);
  CHECK(pats({"ANTHROPIC_BASE_URL=ftp://x.example"}).empty());
}

TEST_CASE("net provider: Bedrock", "[net]") {
  CHECK(pats({"CLAUDE_CODE_USE_BEDROCK=1", "AWS_REGION=eu-west-1"}) ==
        V{"bedrock-runtime.eu-west-1.amazonaws.com:443", "bedrock.eu-west-1.amazonaws.com:443",
          "sts.eu-west-1.amazonaws.com:443", "sts.amazonaws.com:443"});
  CHECK(pats({"CLAUDE_CODE_USE_BEDROCK=true"})[0] == "bedrock-runtime.us-east-1.amazonaws.com:443");
  CHECK(pats({"CLAUDE_CODE_USE_BEDROCK=1", "AWS_DEFAULT_REGION=ap-south-1"})[0] == "bedrock-runtime.ap-south-1.amazonaws.com:443");
  CHECK(pats({"CLAUDE_CODE_USE_BEDROCK=1", "ANTHROPIC_BEDROCK_BASE_URL=https://bedrock.proxy.example:8443"})[0] ==
        "bedrock.proxy.example:8443");
  auto small = pats({"CLAUDE_CODE_USE_BEDROCK=1", "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION=us-west-2"});
  CHECK(std::find(small.begin(), small.end(), "bedrock-runtime.us-west-2.amazonaws.com:443") != small.end());
  // Bedrock wins over a stray base URL; "0" is off.
  CHECK(pats({"CLAUDE_CODE_USE_BEDROCK=0", "ANTHROPIC_BASE_URL=https://gw.example"}) == V{"gw.example:443"});
}

TEST_CASE("net provider: Vertex", "[net]") {
  CHECK(pats({"CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=europe-west4"}) ==
        V{"europe-west4-aiplatform.googleapis.com:443", "oauth2.googleapis.com:443", "sts.googleapis.com:443"});
  CHECK(pats({"CLAUDE_CODE_USE_VERTEX=1", "CLOUD_ML_REGION=global"})[0] == "aiplatform.googleapis.com:443");
  CHECK(pats({"CLAUDE_CODE_USE_VERTEX=1"})[0] == "us-east5-aiplatform.googleapis.com:443");
  auto per_model = pats({"CLAUDE_CODE_USE_VERTEX=1", "VERTEX_REGION_CLAUDE_3_5_HAIKU=us-central1"});
  CHECK(per_model[1] == "us-central1-aiplatform.googleapis.com:443");
}

TEST_CASE("net provider: Foundry and Remote Control", "[net]") {
  CHECK(pats({"CLAUDE_CODE_USE_FOUNDRY=1", "ANTHROPIC_FOUNDRY_RESOURCE=myres"}) == V{"myres.services.ai.azure.com:443"});
  CHECK_FALSE(provider_defaults(env_from({"CLAUDE_CODE_USE_FOUNDRY=1"}), false).warnings.empty());
  auto rc = pats({"ANTHROPIC_BASE_URL=https://gw.example"}, true);
  CHECK(rc == V{"gw.example:443", "api.anthropic.com:443", "claude.ai:443", "statsig.anthropic.com:443"});
  // No duplicates when the defaults already hold a host.
  auto rc1 = pats({}, true);
  CHECK(std::count(rc1.begin(), rc1.end(), "api.anthropic.com:443") == 1);
}
