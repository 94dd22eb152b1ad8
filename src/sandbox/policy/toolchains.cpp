#include "sandbox/policy/toolchains.hpp"

namespace blaude::sandbox::policy {

namespace {

// Deliberately narrower than xclaude's toolchains (reference A.3): those make host exec
// locations writable (~/.cargo/bin, ~/go/bin, ~/.deno, ~/.pyenv/shims, ~/.local/share/uv), so a
// binary planted inside the sandbox would run unsandboxed the next time the user runs the tool.
// Here caches and package stores are writable; installed executables are read + exec only.
// A toolchain never opens a unix socket: none is reachable but the --ssh/--git agents.
const std::vector<Toolchain>& table() {
  static const std::vector<Toolchain> t = {
      {"node", "Node.js via nvm, npm and pnpm caches",
       {"~/.nvm", "~/.config/pnpm", "~/Library/Preferences/pnpm"},
       {"~/.npm", "~/.cache/node", "~/.pnpm-store", "~/.cache/pnpm", "~/.local/state/pnpm",
        "~/Library/Caches/pnpm"},
       // pnpm's own binary and its global bins: PNPM_HOME (~/Library/pnpm on macOS).
       {"~/.nvm", "~/.local/share/pnpm", "~/Library/pnpm"},
       {"~/.npm/_npx", "~/.cache/pnpm/dlx", "~/Library/Caches/pnpm/dlx"}},
      {"bun", "Bun runtime, its global installs and its install cache",
       {"~/.bun"},
       {"~/.bun/install/cache"},
       {"~/.bun/bin", "~/.bun/install/global"}},
      {"uv", "uv-managed Pythons and tools (read/exec) and uv caches",
       {"~/.local/share/uv"},
       {"~/.cache/uv", "~/Library/Caches/uv"},
       {"~/.local/share/uv/python", "~/.local/share/uv/tools"},
       {"~/.cache/uv/archive-v0", "~/Library/Caches/uv/archive-v0"}},
      {"python", "pyenv interpreters and the pip cache",
       {"~/.pyenv"},
       {"~/.cache/pip", "~/Library/Caches/pip"},
       {"~/.pyenv"}},
      {"rust", "rustup toolchains and the cargo registry",
       // Not all of ~/.cargo: credentials.toml holds the registry token. The package-cache
       // lock files are taken by every `cargo build` that resolves dependencies.
       {"~/.cargo/bin", "~/.cargo/config.toml", "~/.rustup"},
       {"~/.cargo/registry", "~/.cargo/git", "~/.cargo/.package-cache", "~/.cargo/.package-cache-mutate"},
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
      // The five below follow xclaude's toolchains of the same names, minus every write grant on
      // a place the host later runs code from (noted per line).
      {"seshi", "seshi session indexer (a uv tool): its venv and Python (read/exec), its data dir",
       // xclaude also makes the venv's lib writable (for __pycache__): that is code the host's
       // seshi-hook imports. Python skips writing bytecode it cannot write.
       {"~/.local/share/uv/tools/seshi"},
       {"~/.local/share/seshi"},
       {"~/.local/share/uv/tools/seshi/bin", "~/.local/share/uv/python"}},
      {"cmux", "cmux app bundle (read/exec), its session data (read), its caches",
       // Its IPC socket stays unreachable (unix sockets are denied): through it the sandbox
       // could open cmux terminals outside the sandbox.
       {"~/Library/Application Support/cmux"},
       {"~/Library/Caches/cmux", "~/Library/Caches/INSTALLATION"},
       {"/Applications/cmux.app"}},
      {"playwright", "Playwright's browsers, installed on the host (read/exec)",
       // Not writable, unlike xclaude's: a browser planted there would run at the host's next
       // Playwright run. Install browsers outside the sandbox (npx playwright install).
       {},
       {},
       {"~/Library/Caches/ms-playwright", "~/.cache/ms-playwright"}},
      {"playwright-chromium", "what Playwright's Chromium reads at start, and its crash reporter",
       // xclaude makes all of Application Support/Chromium writable: the default profile of a
       // Chromium the user may browse with (extensions). Only Crashpad here.
       {"~/Library/Input Methods", "~/Library/Keyboard Layouts", "~/Library/Spelling", "~/Library/Google"},
       {"~/Library/Application Support/Chromium/Crashpad"},
       {}},
      {"chrome", "Google Chrome (read/exec) for automation with --user-data-dir in the project",
       // xclaude grants read and write on all of Application Support/Google/Chrome: the user's
       // real profile (cookies, saved passwords, extensions). Only its Crashpad dir here; run
       // Chrome with --no-sandbox --user-data-dir=./chrome-profile, as xclaude documents.
       {"~/Library/Input Methods", "~/Library/Keyboard Layouts", "~/Library/Spelling", "~/Library/Google"},
       {"~/Library/Application Support/Google/Chrome/Crashpad"},
       {"/Applications/Google Chrome.app"}},
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
