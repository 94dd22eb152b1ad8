// The planner's mount vocabulary: one typed operation per bwrap setup step (a mount, a dir, a
// link, a non-mount option), appended by the rules of plan() and edited by its passes (mount
// order, lifting binds to the helper, /dev), and written out as bwrap's argv once, at the end
// (bubblewrap itself keeps its SetupOp list the same way and applies it in order). The passes
// read the ops, never the argv: no option table has to agree with another, and a value that
// reads like an option ("--setenv X --bind") is never taken for one. Pure.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/bwrap/plan/protect_form.hpp"
#include "sandbox/launch_plan.hpp"

namespace blaude::sandbox::bwrap {

enum class OpKind : unsigned char {
  Bind,       // --bind SRC DEST
  RoBind,     // --ro-bind SRC DEST
  BindTry,    // --bind-try SRC DEST (nothing when SRC is gone)
  DevBind,    // --dev-bind SRC DEST
  Tmpfs,      // --tmpfs DEST
  Dev,        // --dev DEST
  Proc,       // --proc DEST
  Dir,        // [--perms P] --dir DEST: no mount, hides nothing and is never counted as hidden
  Symlink,    // --symlink TEXT DEST (source = the link's text): can be hidden, hides nothing
  Overlay,    // --overlay-src SRC --tmp-overlay DEST: a write-discarding overlay of SRC
  RemountRo,  // --remount-ro DEST: a mark on an earlier mount; can be hidden, hides nothing
  Data,       // --ro-bind-data TOKEN DEST (TOKEN: a DataFd the launcher fills)
  File,       // --file TOKEN DEST
  Option,     // anything else, its words verbatim (namespaces, --setenv, --chdir, --info-fd)
};

struct MountOp {
  OpKind kind = OpKind::Option;
  std::string source;              // bind or overlay source, link text, data token; as written
  std::string dest;                // in the sandbox, as written (the queries normalize it)
  std::string perms;               // Dir: the mode given by a --perms before it ("" none)
  std::vector<std::string> words;  // Option: the words, as written
  // Made by the protect helper instead of bwrap (a lifted bind, protect.cpp): not in the argv;
  // still counted where it stands by the mount-order check, and its InnerMount listed first among
  // the helper's mounts.
  std::optional<InnerMount> helper = {};
  // Made by bwrap from a descriptor the launcher opens and checks (plan_held.cpp, held.hpp): its
  // HeldPath, whose argv index the render fills in.
  std::optional<HeldPath> held = {};
  // A protection (protect_form.hpp): what it makes of its path and what it protects, for
  // --dry-run's list of protected paths with the form each took.
  struct Protects {
    std::string what;
    std::string why;
    // Set where the rule itself decides the form (blaude's own overlay, a path left writable);
    // else --dry-run reads it from what the passes made of the op (lifted, held, re-checked).
    std::optional<ProtectForm> form = {};
  };
  std::optional<Protects> protects = {};
  bool gate = false;           // one of the protect gate's ops (gate_args.hpp)
  bool launcher_only = false;  // the launcher's own (the setup-done marker): --dry-run leaves it out
};
using Ops = std::vector<MountOp>;

inline MountOp mount_op(OpKind k, std::string source, std::string dest) {
  MountOp o;
  o.kind = k;
  o.source = std::move(source);
  o.dest = std::move(dest);
  return o;
}
// `op` marked as a protection (protect_form.hpp).
inline MountOp protecting(MountOp op, std::string what, std::string why) {
  op.protects = MountOp::Protects{std::move(what), std::move(why)};
  return op;
}
inline MountOp option_op(std::vector<std::string> words) {
  MountOp o;
  o.words = std::move(words);
  return o;
}

// bwrap's option for a kind ("--ro-bind"); for Overlay the one that names DEST (--tmp-overlay);
// "" for Option.
const char* option_name(OpKind k);

// How many argv words `op` takes (0 for one the helper makes).
size_t width(const MountOp& op);

// Appends `op`'s words (none for one the helper makes).
void render(const MountOp& op, std::vector<std::string>& out);
std::vector<std::string> render(const Ops& ops);
// Appends every op's words to `out` and returns where each op's words start there (an op the
// helper makes: where it would stand; it takes none).
std::vector<size_t> render(const Ops& ops, std::vector<std::string>& out);

// The ops that `words` (bwrap options, no program name, no "--") spell: for option lists that
// come from outside the planner (proxy mode's). Throws std::invalid_argument on a mount option
// the planner has no kind for.
Ops ops_from_words(const std::vector<std::string>& words);

// One step of the mount table as the mount-order and layout passes see it: the ops that have a
// destination and are a mount or a mark on one (everything but Dir and Option), in order.
struct MountStep {
  std::string op;    // bwrap's option ("--ro-bind", "--tmp-overlay", "--remount-ro", ...)
  std::string dst;   // normalized
  std::string src;   // a bind's source, normalized ("" for everything else)
  size_t index = 0;  // where its option stands in the argv rendered from the ops (argv[0] = bwrap)
  size_t at = 0;     // its op's position in the Ops
};
// `first_index`: where the first op's words start in the argv. An op the helper makes keeps its
// width here with `count_helper` (the mount table as the planner laid it out), else it has none
// (the argv bwrap gets) and is left out.
std::vector<MountStep> steps_of(const Ops& ops, size_t first_index = 1, bool count_helper = true);

// Whether a step mounts something over its destination (and so can hide earlier steps).
bool hides(const MountStep& s);

// The host path sandbox path `path` shows under the mounts `ops` make (bwrap's order: the last
// mount covering it wins; symlinks are followed); "" when it is no host path (tmpfs, /proc, data,
// bwrap's empty root). Ops the helper makes count.
std::string source_at(const Ops& ops, const std::string& path);
// The same for many paths: the table is built once.
using SourceOf = std::function<std::string(const std::string&)>;
SourceOf source_table(const Ops& ops);

}  // namespace blaude::sandbox::bwrap
