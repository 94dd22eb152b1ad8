#include "sandbox/seatbelt/launch.hpp"

#include "common/shell_quote.hpp"

namespace blaude::sandbox::seatbelt {

std::variant<LaunchPlan, SeatbeltPlanError> seatbelt_launch(const std::string& sandbox_exec,
                                                            const std::string& profile,
                                                            const std::vector<std::string>& command) {
  if (sandbox_exec.empty())
    return SeatbeltPlanError{std::string("sandbox-exec not found at ") + kSandboxExec,
                             "blaude needs macOS's sandbox-exec; it will not run Claude unsandboxed "
                             "(use --no-sandbox to do that deliberately)"};
  if (command.empty()) return SeatbeltPlanError{"nothing to run", "give a command"};
  LaunchPlan plan;
  plan.argv = {sandbox_exec, "-p", profile, "--"};
  plan.argv.insert(plan.argv.end(), command.begin(), command.end());
  return plan;
}

std::string format_dry_run(const LaunchPlan& plan, const std::vector<std::string>& env, const std::string& cwd) {
  // A delimiter the profile cannot contain: the profile has no line of its own equal to it.
  std::string delim = "BLAUDE_PROFILE";
  const std::string& profile = plan.argv.size() > 2 ? plan.argv[2] : std::string();
  while (profile.find("\n" + delim + "\n") != std::string::npos || profile.starts_with(delim + "\n")) delim += "_";
  std::string out;
  out += "# The Seatbelt profile. The line naming the session's terminal shows " + std::string(kTtyToken) +
         ":\n# blaude puts the pty it opens there (its name exists only then).\n";
  out += "PROFILE=$(cat <<'" + delim + "'\n" + profile;
  if (!profile.empty() && profile.back() != '\n') out += "\n";
  out += delim + "\n)\n";
  std::vector<std::string> cmd = {"env", "-i"};
  cmd.insert(cmd.end(), env.begin(), env.end());
  std::string line = "cd " + shell_quote(cwd) + " && " + shell_quote(cmd);
  for (size_t i = 0; i < plan.argv.size(); ++i) {
    line += " ";
    line += i == 2 ? std::string("\"$PROFILE\"") : shell_quote(plan.argv[i]);
  }
  return out + line + "\n";
}

}  // namespace blaude::sandbox::seatbelt
