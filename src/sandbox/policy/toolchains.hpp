// Toolchains as data: `tool NAME` in a policy file expands to the paths below. The same table
// drives the bwrap mounts (Linux) and the Seatbelt rules (macOS), so a toolchain means the same
// thing on both platforms; paths that do not exist on a platform are simply absent there.
#pragma once
#include <span>
#include <string_view>
#include <vector>

namespace blaude::sandbox::policy {

struct Toolchain {
  std::string_view name;
  std::string_view summary;
  // Paths start with "~/" (the user's home) or "/" (absolute). Write implies read, exec implies
  // read. Invariant (tested): no writable path is or contains an executable one, and nothing on
  // a typical PATH is writable, so no binary planted inside the sandbox runs unsandboxed later.
  std::vector<std::string_view> read;
  std::vector<std::string_view> write;
  std::vector<std::string_view> exec;
  // The one exception, named apart: dirs inside a writable cache from which the tool runs the
  // programs it downloads (npx, pnpm dlx, uvx). They become exec grants: Seatbelt needs one to
  // run anything; bwrap has no exec rule and the cache is already writable there. What makes
  // these caches a risk to the host is the write grant of the cache itself (docs/policy.md).
  std::vector<std::string_view> run = {};
};

std::span<const Toolchain> toolchains();
const Toolchain* find_toolchain(std::string_view name);

}  // namespace blaude::sandbox::policy
