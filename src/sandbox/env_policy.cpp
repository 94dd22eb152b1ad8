#include "sandbox/env_policy.hpp"

#include <algorithm>
#include <map>

namespace blaude::sandbox {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Exactly the seed's list (000_*.txt, "Environment variables"), nothing the bash blaude had on
// top of it: the bash script also passed WARP_*, MCP_DISCOVERY_CACHE* as a prefix,
// MCP_PROTOCOL_NEGOTIATION, MCP_SDK_GENERATION, BETA_TRACING_ENDPOINT,
// ENABLE_BETA_TRACING_DETAILED, lower-case http_proxy/https_proxy/socks_proxy/no_proxy,
// TERM_PROGRAM(_VERSION), NOTEBOOKLM_QUERY_TIMEOUT and NOTEBOOKLM_BL, which the seed does not
// name; --env KEY=VALUE passes any of them.
// Whole namespaces owned by Claude Code and its providers: new upstream variables pass without
// a blaude release. The CLAUDE_ prefix is why the deny-set below must be checked first.
constexpr std::string_view kPrefixes[] = {
    "ANTHROPIC_", "CLAUDE_", "VERTEX_REGION_", "DISABLE_PROMPT_CACHING", "MCP_SERVER_", "WEBSHARE_",
};

// Enumerated, not prefix-matched: AWS_*, OTEL_* and friends hold far more than Claude needs.
// Deliberately absent: GH_TOKEN/GITHUB_TOKEN (only --git), SSH_AUTH_SOCK (only --ssh), DBUS_*
// (only --keyring), DISPLAY, WAYLAND_DISPLAY, XAUTHORITY, ALL_PROXY, SHELL, EDITOR, PATH.
constexpr std::string_view kAllowlist[] = {
    "AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ROLE_ARN",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "GCLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT", "GOOGLE_APPLICATION_CREDENTIALS",
    "VERTEX_AI_PROJECT_ID", "VERTEX_AI_API_ENDPOINT", "CLOUD_RUN_JOB_ATTEMPT", "CLOUD_ML_REGION",
    "GPG_TTY", "GNUPGHOME",
    "MCP_TIMEOUT", "MCP_TOOL_TIMEOUT", "MCP_CONNECT_TIMEOUT_MS", "MCP_ENABLED",
    "MCP_OAUTH_CALLBACK_PORT", "MCP_CLIENT_SECRET", "ENABLE_TOOL_SEARCH",
    "ENABLE_CLAUDEAI_MCP_SERVERS", "MCP_CONNECTION_NONBLOCKING",
    "MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE", "MCP_SSE_URL", "MCP_DISCOVERY_CACHE",
    "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER", "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_CLIENT_KEY", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY",
    "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "OTEL_METRIC_EXPORT_INTERVAL",
    "OTEL_LOGS_EXPORT_INTERVAL", "OTEL_TRACES_EXPORT_INTERVAL", "OTEL_LOG_USER_PROMPTS",
    "OTEL_LOG_ASSISTANT_RESPONSES", "OTEL_LOG_TOOL_DETAILS", "OTEL_LOG_TOOL_CONTENT",
    "OTEL_METRICS_INCLUDE_SESSION_ID", "OTEL_METRICS_INCLUDE_VERSION",
    "OTEL_METRICS_INCLUDE_ACCOUNT_UUID", "OTEL_METRICS_INCLUDE_ENTRYPOINT",
    "OTEL_METRICS_INCLUDE_RESOURCE_ATTRIBUTES", "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_LOG_RAW_API_BODIES", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    "OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
    "TRACEPARENT", "TRACESTATE",
    "BASH_DEFAULT_TIMEOUT_MS", "BASH_MAX_OUTPUT_LENGTH", "BASH_MAX_TIMEOUT_MS",
    "MAX_THINKING_TOKENS", "MAX_MCP_OUTPUT_TOKENS", "MAX_STRUCTURED_OUTPUT_RETRIES",
    "TASK_MAX_OUTPUT_LENGTH", "SLASH_COMMAND_TOOL_CHAR_BUDGET", "API_TIMEOUT_MS",
    "API_FORCE_IDLE_TIMEOUT", "FALLBACK_FOR_ALL_PRIMARY_MODELS",
    "HTTP_PROXY", "HTTPS_PROXY", "SOCKS_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "FORCE_AUTOUPDATE_PLUGINS", "DISABLE_INSTALLATION_CHECKS", "DISABLE_UPDATES",
    "DISABLE_UPGRADE_COMMAND", "DISABLE_DOCTOR_COMMAND", "DISABLE_EXTRA_USAGE_COMMAND",
    "DISABLE_LOGIN_COMMAND", "DISABLE_LOGOUT_COMMAND", "DISABLE_FEEDBACK_COMMAND",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS", "DISABLE_AUTO_COMPACT", "DISABLE_COMPACT",
    "DISABLE_INTERLEAVED_THINKING", "ENABLE_PROMPT_CACHING_1H", "ENABLE_PROMPT_CACHING_1H_BEDROCK",
    "FORCE_PROMPT_CACHING_5M",
    "IS_DEMO", "FORCE_HYPERLINK", "USE_BUILTIN_RIPGREP", "CCR_FORCE_BUNDLE", "CLAUDECODE",
    "AI_AGENT", "DEBUG", "DISABLE_COST_WARNINGS", "CI", "NO_COLOR", "FORCE_COLOR",
    "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_ORG_ID", "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_VERSION", "GOOGLE_API_KEY", "GEMINI_API_KEY",
    "MISTRAL_API_KEY", "COHERE_API_KEY", "HUGGINGFACE_API_KEY", "HF_TOKEN", "GROQ_API_KEY",
    "TOGETHER_API_KEY", "REPLICATE_API_TOKEN", "PERPLEXITY_API_KEY", "FIREWORKS_API_KEY",
    "DEEPSEEK_API_KEY", "XAI_API_KEY", "JINA_API_KEY", "EXA_API_KEY",
    "FEEDLY_ACCESS_TOKEN", "RAINDROP_ACCESS_TOKEN",
    "CLAUDECHIC_DEBUG", "CLAUDECHIC_REMOTE_PORT", "CHIC_PROFILE", "CHIC_SAMPLE_THRESHOLD",
    "NOTEBOOKLM_COOKIES", "NOTEBOOKLM_CSRF_TOKEN", "NOTEBOOKLM_SESSION_ID",
    "NOTEBOOKLM_MCP_TRANSPORT", "NOTEBOOKLM_MCP_HOST", "NOTEBOOKLM_MCP_PORT",
    "NOTEBOOKLM_MCP_DEBUG",
};

// Settings that keep blaude's auto-skip behaviour working; the host cannot override them.
const std::vector<std::string_view> kForcedAlways = {
    "DISABLE_AUTOUPDATER",         "DISABLE_ERROR_REPORTING",
    "DISABLE_BUG_COMMAND",         "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY",
    "DISABLE_INSTALL_GITHUB_APP_COMMAND", "CLAUDE_DISABLE_CONFIG_WATCH",
};
// Privacy opt-outs; Remote Control's eligibility check needs them off (seed, "Remote Control").
const std::vector<std::string_view> kPrivacy = {"DO_NOT_TRACK", "DISABLE_TELEMETRY",
                                                "DISABLE_GROWTHBOOK"};

// Markers an outer claude session sets; inside they would mislabel the inner session (e.g.
// CLAUDE_CODE_CHILD_SESSION hides it from --resume) or point at host objects (the messaging
// socket, a PID from another namespace). CLAUDE_CODE_SUBPROCESS_ENV_SCRUB, even =0, forces the
// permission mode back to default.
const std::vector<std::string_view> kUnset = {
    "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_EXECPATH",
    "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_BRIDGE_SESSION_ID", "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_TEAM_NAME", "CLAUDE_CODE_REMOTE", "CLAUDE_CODE_REMOTE_SESSION_ID",
    "CLAUDE_EFFORT", "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_MESSAGING_SOCKET",
    "CLAUDE_CODE_MESSAGING_TOKEN", "CLAUDE_PID",
};
// Remote Control needs a full-scope claude.ai OAuth session: these narrower credentials make it
// report "not yet enabled".
const std::vector<std::string_view> kRcAuth = {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"};

std::vector<std::string_view> concat(std::initializer_list<const std::vector<std::string_view>*> ls) {
  std::vector<std::string_view> out;
  for (auto* l : ls) out.insert(out.end(), l->begin(), l->end());
  return out;
}

// Insertion-ordered map: set() replaces in place so the output is stable for golden tests.
class Env {
 public:
  void set(std::string_view k, std::string_view v) {
    for (auto& [key, val] : list_) {
      if (key == k) {
        val = v;
        return;
      }
    }
    list_.emplace_back(k, v);
  }
  void unset(std::string_view k) {
    std::erase_if(list_, [&](const auto& kv) { return kv.first == k; });
  }
  EnvList take() { return std::move(list_); }

 private:
  EnvList list_;
};

}  // namespace

const std::vector<std::string_view>& forced_names(bool remote_control) {
  static const auto normal = concat({&kForcedAlways, &kPrivacy});
  return remote_control ? kForcedAlways : normal;
}

const std::vector<std::string_view>& unset_names(bool remote_control) {
  static const auto rc = concat({&kUnset, &kPrivacy, &kRcAuth});
  return remote_control ? rc : kUnset;
}

bool passthrough_allowed(std::string_view name) {
  for (auto p : kPrefixes) {
    if (starts_with(name, p)) return true;
  }
  if (ends_with(name, "_WEBHOOK")) return true;
  return std::find(std::begin(kAllowlist), std::end(kAllowlist), name) != std::end(kAllowlist);
}

bool denied(std::string_view name, bool remote_control) {
  if (starts_with(name, "CLAUDE_CODE_MESSAGING_")) return true;
  const auto& f = forced_names(remote_control);
  const auto& u = unset_names(remote_control);
  return std::find(f.begin(), f.end(), name) != f.end() ||
         std::find(u.begin(), u.end(), name) != u.end();
}

EnvList filter_env(const std::vector<std::string>& host_env, const EnvRules& o,
                   const EnvContext& ctx) {
  // Sorted by name, as the bash blaude's `compgen -e` walked them; first definition wins.
  std::map<std::string, std::string, std::less<>> host;
  for (const auto& kv : host_env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    host.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  auto get = [&](std::string_view k) -> std::string {
    auto it = host.find(k);
    return it == host.end() ? std::string() : it->second;
  };
  const bool rc = o.remote_control;
  const bool keep = o.keep_env || !ctx.sandboxed;
  Env env;

  // 1. Basics (or the whole host environment under --keep-env / --no-sandbox).
  if (keep) {
    for (const auto& [k, v] : host) env.set(k, v);
  } else {
    env.set("HOME", ctx.home);
    std::string user = ctx.user;
    if (user.empty()) user = get("USER");
    if (user.empty()) user = get("LOGNAME");
    if (user.empty()) user = "root";
    env.set("USER", user);
    std::string term = get("TERM");
    env.set("TERM", term.empty() ? "xterm-256color" : term);
    if (!get("COLORTERM").empty()) env.set("COLORTERM", get("COLORTERM"));
  }

  // 2. The sandbox's own locations, also under --keep-env: host paths mean nothing inside.
  if (ctx.sandboxed) {
    env.set("HOME", ctx.home);
    env.set("XDG_RUNTIME_DIR", "/run/user/" + std::to_string(ctx.uid));
    env.set("PATH", ctx.path);
    env.set("GOPATH", ctx.home + "/go");
    env.set("CARGO_HOME", ctx.home + "/.cargo");
    for (const auto& [k, v] : ctx.tool_env) env.set(k, v);
  }

  // 3. Locale and the opt-in sockets.
  if (!keep) {
    std::string lang = get("LANG");
    env.set("LANG", lang.empty() ? "C.UTF-8" : lang);
    for (auto k : {"LC_ALL", "LC_CTYPE"}) {
      if (!get(k).empty()) env.set(k, get(k));
    }
  }
  if (o.ssh && !ctx.ssh_auth_sock.empty()) env.set("SSH_AUTH_SOCK", ctx.ssh_auth_sock);

  // 4./5. Forced values and unsets, under every mode.
  for (auto k : forced_names(rc)) env.set(k, "1");
  for (auto k : unset_names(rc)) env.unset(k);
  if (keep) {
    // The host copy of a messaging variable not named in the list is just as live.
    for (const auto& [k, v] : host) {
      if (starts_with(k, "CLAUDE_CODE_MESSAGING_")) env.unset(k);
    }
  }

  // 6. The passthrough: deny-set first, so CLAUDE_* can never bring a forced/unset name back.
  if (!keep) {
    for (const auto& [k, v] : host) {
      if (v.empty() || denied(k, rc) || !passthrough_allowed(k)) continue;
      env.set(k, v);
    }
    // After the clearenv, not before it (the bash blaude lost these, reference §4.6).
    if (o.git) {
      for (auto k : {"GH_TOKEN", "GITHUB_TOKEN"}) {
        if (!get(k).empty()) env.set(k, get(k));
      }
    }
    if (o.keyring && !get("DBUS_SESSION_BUS_ADDRESS").empty()) {
      env.set("DBUS_SESSION_BUS_ADDRESS", get("DBUS_SESSION_BUS_ADDRESS"));
    }
  }

  // 7. The user's --env, last: it may override anything above, deliberately.
  for (const auto& [k, v] : o.user_env) env.set(k, v);
  return env.take();
}

std::vector<std::string> env_notices(const std::vector<std::string>& host_env, const EnvRules& o) {
  auto has = [&](std::string_view name, bool nonempty) {
    for (const auto& kv : host_env) {
      if (kv.size() > name.size() && starts_with(kv, name) && kv[name.size()] == '=') {
        return !nonempty || kv.size() > name.size() + 1;
      }
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& kv : host_env) {
    if (kv == "CLAUDE_CODE_RESTRICTED=1") {
      out.push_back("Warning: CLAUDE_CODE_RESTRICTED=1 is set in the environment.");
      out.push_back("  Restricted mode blocks --dangerously-skip-permissions which blaude always passes.");
      out.push_back("  Unset it before launching, or run claude directly for a restricted session.");
    }
  }
  if (o.remote_control) {
    out.push_back("Note: Remote Control mode: telemetry and GrowthBook feature-flag fetching are on for");
    out.push_back("  this session (required for Remote Control eligibility; off in normal sessions).");
    if (has("ANTHROPIC_API_KEY", true) || has("CLAUDE_CODE_OAUTH_TOKEN", true)) {
      out.push_back("  Note: ANTHROPIC_API_KEY / CLAUDE_CODE_OAUTH_TOKEN block Remote Control (needs claude.ai");
      out.push_back("  OAuth): they are unset for this session; claude will use your /login session.");
    }
    out.push_back("Note: Remote Control still asks to approve remote-driven actions (--dangerously-skip-permissions does not apply).");
    if (o.no_network) {
      out.push_back("  Warning: --no-network is set; Remote Control needs outbound network and will fail.");
    }
  }
  return out;
}

std::vector<std::string> to_environ(const EnvList& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace blaude::sandbox
