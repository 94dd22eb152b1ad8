// The hosts Claude Code needs for the configured provider, allowed by default in proxy mode so
// that claude keeps working without the user listing anything. A pure function of the
// environment (the host's, before the sandbox's env policy): the same inputs always give the same
// list, which --help, --print-policy and `blaude doctor` show.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/decision.hpp"

namespace blaude::net {

using EnvLookup = std::function<std::string(std::string_view)>;  // "" when unset

struct ProviderDefaults {
  std::string provider;               // "Anthropic API", "ANTHROPIC_BASE_URL", "Amazon Bedrock", ...
  std::vector<Rule> rules;            // Origin::Default, source = the variable that chose it
  std::vector<std::string> warnings;  // e.g. an ANTHROPIC_BASE_URL that is not a URL
};

// `remote_control`: --remote-control / `remote-control`: the claude.ai hosts Remote Control uses.
ProviderDefaults provider_defaults(const EnvLookup& env, bool remote_control);

// EnvLookup over a KEY=VALUE list.
EnvLookup env_from(const std::vector<std::string>& environ);

// "host:port" of scheme://[user@]host[:port][/...], scheme http or https (default ports 80/443).
std::optional<std::string> url_destination(std::string_view url);

}  // namespace blaude::net
