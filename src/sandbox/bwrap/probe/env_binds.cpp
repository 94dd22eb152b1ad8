#include "sandbox/bwrap/probe/env_binds.hpp"

#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

namespace {

void add(std::vector<EnvBind>& out, const std::string& var, const std::string& value, Kind want, bool rw) {
  if (value.empty() || value.front() != '/') return;
  out.push_back({var, normalize(value), want, rw});
}

std::string first_token(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_first_of(" \t\n", b) - b);
}

}  // namespace

std::vector<EnvBind> env_binds(const HostFacts& f) {
  std::vector<EnvBind> out;
  for (const char* v :
       {"CLAUDE_ENV_FILE", "CLAUDE_CODE_CLIENT_CERT", "CLAUDE_CODE_CLIENT_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE",
        "NODE_EXTRA_CA_CERTS", "GOOGLE_APPLICATION_CREDENTIALS", "CLAUDE_CLIENT_PRESENCE_FILE", "CLAUDE_CODE_SHELL",
        "OTEL_EXPORTER_OTLP_CLIENT_KEY", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_CERTIFICATE",
        "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY", "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE"})
    add(out, v, f.env_or(v), Kind::File, false);
  add(out, "CLAUDE_SKILL_DIR", f.env_or("CLAUDE_SKILL_DIR"), Kind::Dir, false);
  for (const char* v : {"CLAUDE_CODE_PLUGIN_CACHE_DIR", "CLAUDE_PLUGIN_DATA", "CLAUDE_CODE_WORKSPACE_DIR",
                        "CLAUDE_LOGS_DIR", "CLAUDE_MCP_STDERR_LOG_DIR", "CLAUDE_SESSION_METADATA_DIR",
                        "CLAUDE_CODE_WORKSPACE_STATE_DIR"})
    add(out, v, f.env_or(v), Kind::Dir, true);
  // The value names a log *file*; claude creates it, so its directory must be writable.
  std::string dbg = f.env_or("CLAUDE_CODE_DEBUG_LOGS_DIR");
  if (!dbg.empty() && dbg.front() == '/') add(out, "CLAUDE_CODE_DEBUG_LOGS_DIR", dirname_of(dbg), Kind::Dir, true);
  std::string seeds = f.env_or("CLAUDE_CODE_PLUGIN_SEED_DIR");
  for (size_t i = 0; i <= seeds.size() && !seeds.empty();) {
    size_t j = seeds.find(':', i);
    if (j == std::string::npos) j = seeds.size();
    add(out, "CLAUDE_CODE_PLUGIN_SEED_DIR", seeds.substr(i, j - i), Kind::Dir, false);
    i = j + 1;
  }
  for (const char* v : {"CLAUDE_CODE_SHELL_PREFIX", "CLAUDE_CODE_PROCESS_WRAPPER"})
    add(out, v, first_token(f.env_or(v)), Kind::File, false);
  return out;
}

}  // namespace blaude::sandbox::bwrap
