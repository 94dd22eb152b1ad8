#include "sandbox/policy/toolchains.hpp"

namespace blaude::sandbox::policy {

namespace {

// Deliberately narrower than xclaude's toolchains (reference A.3): those make host exec
// locations writable (~/.cargo/bin, ~/go/bin, ~/.deno, ~/.pyenv/shims, ~/.local/share/uv), so a
// binary planted inside the sandbox would run unsandboxed the next time the user runs the tool.
// Here caches and package stores are writable; installed executables are read + exec only.
const std::vector<Toolchain>& table() {
  static const std::vector<Toolchain> t = {
      {"node", "Node.js via nvm, npm and pnpm caches",
       {"~/.nvm", "~/.config/pnpm", "~/Library/Preferences/pnpm"},
       {"~/.npm", "~/.cache/node", "~/.pnpm-store", "~/.cache/pnpm", "~/.local/state/pnpm",
        "~/Library/Caches/pnpm"},
       {"~/.nvm"}},
      {"bun", "Bun runtime and its install cache",
       {"~/.bun"},
       {"~/.bun/install/cache"},
       {"~/.bun/bin"}},
      {"uv", "uv-managed Pythons (read/exec) and uv caches",
       {"~/.local/share/uv"},
       {"~/.cache/uv", "~/Library/Caches/uv"},
       {"~/.local/share/uv/python"}},
      {"python", "pyenv interpreters and the pip cache",
       {"~/.pyenv"},
       {"~/.cache/pip", "~/Library/Caches/pip"},
       {"~/.pyenv"}},
      {"rust", "rustup toolchains and the cargo registry",
       // Not all of ~/.cargo: credentials.toml holds the registry token.
       {"~/.cargo/bin", "~/.cargo/config.toml", "~/.rustup"},
       {"~/.cargo/registry", "~/.cargo/git"},
       {"~/.cargo/bin", "~/.rustup/toolchains"}},
      {"go", "Go toolchain, module and build caches",
       {"~/go", "~/.local/go", "/usr/local/go"},
       {"~/go/pkg", "~/.cache/go-build", "~/Library/Caches/go-build"},
       {"~/go/bin", "~/.local/go", "/usr/local/go"}},
      {"deno", "Deno runtime and its module cache",
       {"~/.deno"},
       {"~/.cache/deno", "~/Library/Caches/deno"},
       {"~/.deno/bin"}},
      {"gh", "GitHub CLI configuration (contains its token: read-only)",
       {"~/.config/gh"},
       {},
       {}},
      {"huggingface", "Hugging Face hub cache",
       {},
       {"~/.cache/huggingface"},
       {}},
  };
  return t;
}

}  // namespace

std::span<const Toolchain> toolchains() { return table(); }

const Toolchain* find_toolchain(std::string_view name) {
  for (const auto& t : table())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace blaude::sandbox::policy
