// `gpgconf --list-dirs` output, and what --git binds from it for signing: gpg-agent's restricted
// ("extra") socket at the path gpg inside will look for the agent, and the public half of the
// home dir. Never the ssh socket (S.gpg-agent.ssh: ssh-agent access without --ssh), never the
// private keys, never the whole socket dir. Pure.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace blaude::sandbox::bwrap {

// "name:value" lines, values percent-escaped (%3a is ':'); unknown lines are ignored.
std::map<std::string, std::string> parse_gpgconf_dirs(std::string_view text);

struct GpgBinds {
  std::string agent_source;  // host: agent-extra-socket
  std::string agent_dest;    // sandbox: agent-socket (where gpg inside connects)
  std::string socket_dir;    // sandbox: socketdir, made 0700 (gpg ignores it otherwise)
  std::string homedir;       // sandbox: homedir, made 0700
  std::vector<std::string> public_files;  // homedir files bound read-only (if they exist)
  std::string problem;       // why signing will not work ("" if it should)
};

// From gpgconf's dirs; whether the sockets/files exist is checked by the caller.
GpgBinds gpg_binds(const std::map<std::string, std::string>& dirs);

// The home dir files gpg reads to sign and verify: keyrings, trust db, options.
extern const std::vector<std::string> kGpgPublicFiles;

}  // namespace blaude::sandbox::bwrap
