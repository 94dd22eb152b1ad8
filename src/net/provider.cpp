#include "net/provider.hpp"

#include <algorithm>

#include "net/host.hpp"

namespace blaude::net {

namespace {

bool truthy(const std::string& v) {
  std::string l = v;
  std::transform(l.begin(), l.end(), l.begin(), [](char c) { return char(c | 0x20); });
  return l == "1" || l == "true" || l == "yes" || l == "on";
}

struct Builder {
  ProviderDefaults out;
  void add(const std::string& pattern, const std::string& source) {
    auto p = parse_pattern(pattern);
    if (auto* e = std::get_if<PatternError>(&p)) {
      out.warnings.push_back(source + ": " + pattern + ": " + e->what);
      return;
    }
    Rule r{std::get<Pattern>(p), Origin::Default, source};
    for (const Rule& have : out.rules)
      if (have.pattern == r.pattern) return;
    out.rules.push_back(std::move(r));
  }
  // A *_BASE_URL variable: its host:port, or a warning and the fallback.
  void add_url(const EnvLookup& env, const char* var, const std::string& fallback, const std::string& fb_source) {
    std::string url = env(var);
    if (!url.empty()) {
      if (auto d = url_destination(url)) return add(*d, var);
      out.warnings.push_back(std::string(var) + " is not an http(s) URL (" + url.substr(0, 120) +
                             "); its host is not allowed by default");
    }
    if (!fallback.empty()) add(fallback, fb_source);
  }
};

std::string region_of(const EnvLookup& env, const char* a, const char* b, const char* dflt) {
  std::string r = env(a);
  if (r.empty() && b) r = env(b);
  return r.empty() ? dflt : r;
}

}  // namespace

std::optional<std::string> url_destination(std::string_view url) {
  size_t k = url.find("://");
  if (k == std::string_view::npos) return std::nullopt;
  std::string scheme(url.substr(0, k));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](char c) { return char(c | 0x20); });
  uint16_t dflt = scheme == "https" ? 443 : scheme == "http" ? 80 : 0;
  if (!dflt) return std::nullopt;
  std::string_view rest = url.substr(k + 3);
  std::string_view auth = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = auth.rfind('@'); at != std::string_view::npos) auth = auth.substr(at + 1);
  auto a = parse_authority(auth, false);
  if (!std::holds_alternative<Authority>(a)) return std::nullopt;
  const Authority& au = std::get<Authority>(a);
  return destination_text(au.host, au.port ? au.port : dflt);
}

EnvLookup env_from(const std::vector<std::string>& environ) {
  return [environ](std::string_view key) -> std::string {
    for (const auto& kv : environ)
      if (kv.size() > key.size() && kv.compare(0, key.size(), key) == 0 && kv[key.size()] == '=')
        return kv.substr(key.size() + 1);
    return "";
  };
}

ProviderDefaults provider_defaults(const EnvLookup& env, bool remote_control) {
  Builder b;
  if (truthy(env("CLAUDE_CODE_USE_BEDROCK"))) {
    b.out.provider = "Amazon Bedrock";
    std::string r = region_of(env, "AWS_REGION", "AWS_DEFAULT_REGION", "us-east-1");
    b.add_url(env, "ANTHROPIC_BEDROCK_BASE_URL", "bedrock-runtime." + r + ".amazonaws.com:443", "CLAUDE_CODE_USE_BEDROCK");
    b.add("bedrock." + r + ".amazonaws.com:443", "CLAUDE_CODE_USE_BEDROCK");
    std::string small = env("ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION");
    if (!small.empty()) b.add("bedrock-runtime." + small + ".amazonaws.com:443", "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION");
    b.add("sts." + r + ".amazonaws.com:443", "CLAUDE_CODE_USE_BEDROCK");
    b.add("sts.amazonaws.com:443", "CLAUDE_CODE_USE_BEDROCK");
  } else if (truthy(env("CLAUDE_CODE_USE_VERTEX"))) {
    b.out.provider = "Google Vertex AI";
    std::string r = region_of(env, "CLOUD_ML_REGION", nullptr, "us-east5");
    auto host_of = [](const std::string& region) {
      return (region == "global" ? std::string("aiplatform.googleapis.com") : region + "-aiplatform.googleapis.com") + ":443";
    };
    b.add_url(env, "ANTHROPIC_VERTEX_BASE_URL", host_of(r), "CLAUDE_CODE_USE_VERTEX");
    for (const char* v : {"VERTEX_REGION_CLAUDE_3_5_HAIKU", "VERTEX_REGION_CLAUDE_3_7_SONNET",
                          "VERTEX_REGION_CLAUDE_4_0_OPUS", "VERTEX_REGION_CLAUDE_4_0_SONNET",
                          "VERTEX_REGION_CLAUDE_4_1_OPUS", "VERTEX_REGION_CLAUDE_HAIKU_4_5"}) {
      std::string vr = env(v);
      if (!vr.empty()) b.add(host_of(vr), v);
    }
    b.add("oauth2.googleapis.com:443", "CLAUDE_CODE_USE_VERTEX");
    b.add("sts.googleapis.com:443", "CLAUDE_CODE_USE_VERTEX");
  } else if (truthy(env("CLAUDE_CODE_USE_FOUNDRY"))) {
    b.out.provider = "Microsoft Foundry";
    std::string res = env("ANTHROPIC_FOUNDRY_RESOURCE");
    b.add_url(env, "ANTHROPIC_FOUNDRY_BASE_URL", res.empty() ? "" : res + ".services.ai.azure.com:443",
              "ANTHROPIC_FOUNDRY_RESOURCE");
    if (res.empty() && env("ANTHROPIC_FOUNDRY_BASE_URL").empty())
      b.out.warnings.push_back("CLAUDE_CODE_USE_FOUNDRY is set without ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL");
  } else if (!env("ANTHROPIC_BASE_URL").empty()) {
    b.out.provider = "ANTHROPIC_BASE_URL";
    b.add_url(env, "ANTHROPIC_BASE_URL", "", "");
  } else {
    b.out.provider = "Anthropic API";
    b.add("api.anthropic.com:443", "Anthropic API");
    // /login and the OAuth token refresh.
    for (const char* h : {"console.anthropic.com:443", "platform.claude.com:443", "claude.ai:443"})
      b.add(h, "Claude login");
  }
  if (remote_control) {
    for (const char* h : {"api.anthropic.com:443", "claude.ai:443", "statsig.anthropic.com:443"})
      b.add(h, "--remote-control");
  }
  return std::move(b.out);
}

}  // namespace blaude::net
