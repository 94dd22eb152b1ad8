#include "sandbox/bwrap/probe/gpg.hpp"

namespace blaude::sandbox::bwrap {

const std::vector<std::string> kGpgPublicFiles = {"pubring.kbx", "pubring.gpg", "trustdb.gpg", "gpg.conf",
                                                  "common.conf", "tofu.db"};

namespace {

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string unescape(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '%' && i + 2 < v.size()) {
      int h = hexval(v[i + 1]), l = hexval(v[i + 2]);
      if (h >= 0 && l >= 0) {
        out.push_back(char(h * 16 + l));
        i += 2;
        continue;
      }
    }
    out.push_back(v[i]);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> parse_gpgconf_dirs(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    std::string_view line = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    i = nl == std::string_view::npos ? text.size() : nl + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string value = unescape(line.substr(colon + 1));
    if (value.empty() || value.front() != '/') continue;  // every dir gpgconf lists is absolute
    out[std::string(line.substr(0, colon))] = std::move(value);
  }
  return out;
}

GpgBinds gpg_binds(const std::map<std::string, std::string>& dirs) {
  GpgBinds b;
  auto get = [&](const char* k) {
    auto it = dirs.find(k);
    return it == dirs.end() ? std::string() : it->second;
  };
  b.agent_source = get("agent-extra-socket");
  b.agent_dest = get("agent-socket");
  b.socket_dir = get("socketdir");
  b.homedir = get("homedir");
  if (b.agent_source.empty() || b.agent_dest.empty())
    b.problem = "gpgconf names no agent-extra-socket (gpg-agent's restricted socket)";
  if (!b.homedir.empty())
    for (const auto& f : kGpgPublicFiles) b.public_files.push_back(b.homedir + "/" + f);
  return b;
}

}  // namespace blaude::sandbox::bwrap
