// claude's own long options: never taken for a misspelt blaude option (suggest.cpp).
// kHelp is the output of `scripts/claude-options.sh` (claude --help and every subcommand's
// --help) for Claude Code 2.1.332, the version scripts/install-test-claude.sh installs;
// tests/integration/test_cli_claude_options.sh fails when the installed claude has an option
// missing here or one blaude would catch. When the pinned version moves, regenerate kHelp.
// kOlder: options of earlier Claude Code releases that the pinned --help no longer lists
// (`--init`, `--init-only`, `--maintenance`: the setup-hook flags of 2.0.x), for users on them.
#include <algorithm>
#include <array>
#include <string_view>

#include "cli/suggest.hpp"

namespace blaude::cli {

namespace {

constexpr std::string_view kHelp[] = {
    "--ablation", "--accept-command", "--add-dir", "--agent", "--agents", "--all",
    "--allow-dangerously-skip-permissions", "--allow-real-servers", "--allow-tools",
    "--allowed-tools", "--allowedTools", "--append-system-prompt", "--author", "--author-email",
    "--autocompact", "--available", "--ax-screen-reader", "--background", "--bare", "--betas",
    "--bg", "--brief", "--callback-port", "--case", "--chrome", "--claudeai", "--client-id",
    "--client-secret", "--cloud", "--concurrency", "--config", "--console", "--continue", "--cwd",
    "--dangerously-skip-permissions", "--data-size", "--debug", "--debug-file", "--description",
    "--desktop", "--disable-slash-commands", "--disallow-tools", "--disallowed-tools",
    "--disallowedTools", "--discard", "--discard-unpushed", "--dry-run", "--effort", "--email",
    "--env", "--environment", "--eval-dir", "--exclude-dynamic-system-prompt-sections",
    "--fallback-model", "--file", "--force", "--force-remove-worktree", "--fork-session",
    "--forward-subagent-text", "--from-pr", "--header", "--help", "--ide", "--include-hook-events",
    "--include-partial-messages", "--input-format", "--interactive", "--json", "--json-schema",
    "--judge-model", "--keep-data", "--keep-temp", "--label", "--marketplace", "--max-budget-usd",
    "--max-cost-usd", "--mcp-config", "--message", "--mocks", "--model", "--name", "--no-browser",
    "--no-chrome", "--no-post", "--no-publish", "--no-scaffold", "--no-session-persistence",
    "--output-dir", "--output-format", "--permission-mode", "--permission-prompts", "--plugin-dir",
    "--plugin-url", "--post", "--print", "--profile", "--prompt-suggestions", "--prune",
    "--publish-report", "--push", "--remote", "--remote-control",
    "--remote-control-session-name-prefix", "--replay-user-messages", "--report", "--restricted",
    "--resume", "--runs", "--safe-mode", "--scaffold", "--scope", "--session-id",
    "--setting-sources", "--settings", "--sparse", "--sso", "--strict", "--strict-mcp-config",
    "--system-prompt", "--system-prompt-snapshot", "--tag", "--teleport", "--text", "--threshold",
    "--timeout", "--tmux", "--tools", "--transport", "--trust-plugin", "--trust-workspace",
    "--values-stdin", "--verbose", "--version", "--with", "--worktree", "--yes",
};

constexpr std::string_view kOlder[] = {"--init", "--init-only", "--maintenance"};

constexpr auto kAll = [] {
  std::array<std::string_view, std::size(kHelp) + std::size(kOlder)> all{};
  std::copy(std::begin(kHelp), std::end(kHelp), all.begin());
  std::copy(std::begin(kOlder), std::end(kOlder), all.begin() + std::size(kHelp));
  std::sort(all.begin(), all.end());
  return all;
}();

}  // namespace

std::span<const std::string_view> claude_options() { return kAll; }

}  // namespace blaude::cli
