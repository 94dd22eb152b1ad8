#include "sandbox/policy_bwrap.hpp"

namespace blaude::sandbox {

std::vector<std::string> policy_bwrap_args(const Grants& grants) {
  std::vector<std::string> args;
  // Reads first, then writes: a write grant below a read grant must stay writable, and a later
  // mount shadows an earlier one. Exec is a read-only bind on Linux.
  for (Access pass : {Access::Read, Access::Exec, Access::Write})
    for (const auto& g : grants)
      if (g.access == pass)
        args.insert(args.end(),
                    {pass == Access::Write ? "--bind-try" : "--ro-bind-try", g.path, g.path});
  return args;
}

}  // namespace blaude::sandbox
