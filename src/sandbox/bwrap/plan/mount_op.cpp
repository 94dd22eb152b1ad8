#include "sandbox/bwrap/plan/mount_op.hpp"

#include <map>
#include <stdexcept>

#include "common/paths.hpp"

namespace blaude::sandbox::bwrap {

const char* option_name(OpKind k) {
  switch (k) {
    case OpKind::Bind: return "--bind";
    case OpKind::RoBind: return "--ro-bind";
    case OpKind::BindTry: return "--bind-try";
    case OpKind::DevBind: return "--dev-bind";
    case OpKind::Tmpfs: return "--tmpfs";
    case OpKind::Dev: return "--dev";
    case OpKind::Proc: return "--proc";
    case OpKind::Dir: return "--dir";
    case OpKind::Symlink: return "--symlink";
    case OpKind::Overlay: return "--tmp-overlay";
    case OpKind::RemountRo: return "--remount-ro";
    case OpKind::Data: return "--ro-bind-data";
    case OpKind::File: return "--file";
    case OpKind::Option: return "";
  }
  return "";
}

namespace {

bool has_source(OpKind k) {
  switch (k) {
    case OpKind::Bind:
    case OpKind::RoBind:
    case OpKind::BindTry:
    case OpKind::DevBind:
    case OpKind::Symlink:
    case OpKind::Data:
    case OpKind::File: return true;
    default: return false;
  }
}

bool is_bind(OpKind k) { return k == OpKind::Bind || k == OpKind::RoBind || k == OpKind::BindTry || k == OpKind::DevBind; }

}  // namespace

size_t width(const MountOp& op) {
  if (op.helper) return 0;
  switch (op.kind) {
    case OpKind::Option: return op.words.size();
    case OpKind::Dir: return op.perms.empty() ? 2 : 4;
    case OpKind::Overlay: return 4;
    default: return has_source(op.kind) ? 3 : 2;
  }
}

void render(const MountOp& op, std::vector<std::string>& out) {
  if (op.helper) return;
  switch (op.kind) {
    case OpKind::Option: out.insert(out.end(), op.words.begin(), op.words.end()); return;
    case OpKind::Dir:
      if (!op.perms.empty()) out.insert(out.end(), {"--perms", op.perms});
      break;
    case OpKind::Overlay: out.insert(out.end(), {"--overlay-src", op.source}); break;
    default: break;
  }
  out.push_back(option_name(op.kind));
  if (has_source(op.kind)) out.push_back(op.source);
  out.push_back(op.dest);
}

std::vector<std::string> render(const Ops& ops) {
  std::vector<std::string> out;
  for (const auto& op : ops) render(op, out);
  return out;
}

std::vector<size_t> render(const Ops& ops, std::vector<std::string>& out) {
  std::vector<size_t> starts;
  starts.reserve(ops.size());
  for (const auto& op : ops) {
    starts.push_back(out.size());
    render(op, out);
  }
  return starts;
}

Ops ops_from_words(const std::vector<std::string>& w) {
  static const std::map<std::string, OpKind> kinds = {
      {"--bind", OpKind::Bind},          {"--ro-bind", OpKind::RoBind}, {"--bind-try", OpKind::BindTry},
      {"--dev-bind", OpKind::DevBind},   {"--tmpfs", OpKind::Tmpfs},    {"--dev", OpKind::Dev},
      {"--proc", OpKind::Proc},          {"--dir", OpKind::Dir},        {"--symlink", OpKind::Symlink},
      {"--remount-ro", OpKind::RemountRo}, {"--ro-bind-data", OpKind::Data}, {"--file", OpKind::File}};
  // bwrap's options that take arguments and mount nothing (their values are not options).
  static const std::map<std::string, size_t> valued = {
      {"--setenv", 2}, {"--unsetenv", 1}, {"--chdir", 1},   {"--hostname", 1}, {"--uid", 1},
      {"--gid", 1},    {"--cap-drop", 1}, {"--cap-add", 1}, {"--args", 1},     {"--seccomp", 1},
      {"--userns", 1}, {"--userns2", 1},  {"--pidns", 1},   {"--info-fd", 1},  {"--json-status-fd", 1},
      {"--block-fd", 1}, {"--userns-block-fd", 1}, {"--sync-fd", 1}, {"--lock-file", 1},
      {"--exec-label", 1}, {"--file-label", 1}, {"--argv0", 1}};
  Ops out;
  auto arg = [&](size_t i) {
    if (i >= w.size()) throw std::invalid_argument("bwrap option without its argument: " + w.back());
    return w[i];
  };
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string& o = w[i];
    if (auto k = kinds.find(o); k != kinds.end()) {
      if (has_source(k->second)) {
        out.push_back(mount_op(k->second, arg(i + 1), arg(i + 2)));
        i += 2;
      } else {
        out.push_back(mount_op(k->second, "", arg(i + 1)));
        i += 1;
      }
    } else if (o == "--perms" && i + 2 < w.size() && w[i + 2] == "--dir") {
      MountOp d = mount_op(OpKind::Dir, "", arg(i + 3));
      d.perms = w[i + 1];
      out.push_back(std::move(d));
      i += 3;
    } else if (o == "--overlay-src" && i + 2 < w.size() && w[i + 2] == "--tmp-overlay") {
      out.push_back(mount_op(OpKind::Overlay, w[i + 1], arg(i + 3)));
      i += 3;
    } else if (auto v = valued.find(o); v != valued.end()) {
      std::vector<std::string> words{o};
      for (size_t k = 1; k <= v->second; ++k) words.push_back(arg(i + k));
      out.push_back(option_op(std::move(words)));
      i += v->second;
    } else if (o.rfind("--", 0) == 0 && (o.find("bind") != std::string::npos || o.find("overlay") != std::string::npos ||
                                         o == "--mqueue" || o == "--chmod" || o == "--perms" || o == "--size")) {
      throw std::invalid_argument("not a mount the planner makes: " + o);
    } else {
      out.push_back(option_op({o}));
    }
  }
  return out;
}

std::vector<MountStep> steps_of(const Ops& ops, size_t first_index, bool count_helper) {
  std::vector<MountStep> out;
  size_t index = first_index;
  for (size_t i = 0; i < ops.size(); ++i) {
    const MountOp& op = ops[i];
    const size_t w = op.helper && count_helper ? (has_source(op.kind) ? 3 : 2) : width(op);
    if (op.kind != OpKind::Option && op.kind != OpKind::Dir && (count_helper || !op.helper)) {
      // The option's own word: after --overlay-src SRC for an overlay.
      const size_t at = index + (op.kind == OpKind::Overlay ? 2 : 0);
      const bool src = is_bind(op.kind) && op.kind != OpKind::DevBind;  // as bwrap's by-path binds
      out.push_back({option_name(op.kind), normalize(op.dest), src ? normalize(op.source) : "", at, i});
    }
    index += w;
  }
  return out;
}

bool hides(const MountStep& s) { return s.op != "--symlink" && s.op != "--remount-ro"; }

namespace {

enum class Shown { Bind, Link, Opaque };
struct Source {
  Shown how;
  std::string src;  // host source (Bind) or link text (Link)
  std::string dst;
};

std::vector<Source> table_of(const Ops& ops) {
  std::vector<Source> out;
  for (const auto& op : ops) {
    switch (op.kind) {
      case OpKind::Bind:
      case OpKind::RoBind:
      case OpKind::BindTry:
      case OpKind::DevBind:
      case OpKind::Overlay: out.push_back({Shown::Bind, op.source, op.dest}); break;
      case OpKind::Symlink: out.push_back({Shown::Link, op.source, op.dest}); break;
      case OpKind::Tmpfs:
      case OpKind::Dev:
      case OpKind::Proc:
      case OpKind::Data:
      case OpKind::File: out.push_back({Shown::Opaque, "", op.dest}); break;
      case OpKind::Dir:
      case OpKind::RemountRo:
      case OpKind::Option: break;
    }
  }
  return out;
}

std::string source_in(const std::vector<Source>& table, const std::string& path, int depth) {
  if (depth > 16) return {};
  for (auto m = table.rbegin(); m != table.rend(); ++m) {
    if (!is_under(path, m->dst)) continue;
    std::string rest = relative_to(path, m->dst);
    switch (m->how) {
      case Shown::Bind:
        return rest.empty() ? m->src : join(m->src, rest);
      case Shown::Link:
        return source_in(table, join(join(dirname_of(m->dst), m->src), rest), depth + 1);
      case Shown::Opaque:
        return {};
    }
  }
  return {};  // bwrap's own root: an empty tmpfs
}

}  // namespace

std::string source_at(const Ops& ops, const std::string& path) { return source_in(table_of(ops), normalize(path), 0); }

SourceOf source_table(const Ops& ops) {
  return [table = table_of(ops)](const std::string& path) { return source_in(table, normalize(path), 0); };
}

}  // namespace blaude::sandbox::bwrap
