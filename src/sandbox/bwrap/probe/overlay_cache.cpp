#include "sandbox/bwrap/probe/overlay_cache.hpp"

#include <sys/utsname.h>

#include "common/file_io.hpp"
#include "sandbox/bwrap/probe/features.hpp"

namespace blaude::sandbox::bwrap {

namespace {

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

}  // namespace

std::string own_overlay_key(const std::string& boot_id, const std::string& kernel_release,
                            const std::string& bwrap_identity, uid_t uid) {
  if (!one_line(boot_id) || !one_line(kernel_release) || !one_line(bwrap_identity)) return {};
  return "boot=" + boot_id + " kernel=" + kernel_release + " uid=" + std::to_string(uid) + " bwrap=" + bwrap_identity;
}

std::string own_overlay_entry(const std::string& key) { return key + "\nown_overlay=1\n"; }

bool own_overlay_cached(const std::string& content, const std::string& key) {
  return !key.empty() && content == own_overlay_entry(key);
}

std::string own_overlay_key_now(const std::string& bwrap, uid_t uid) {
  std::string boot = read_small_file("/proc/sys/kernel/random/boot_id", 64, Follow::No).value_or("");
  while (!boot.empty() && (boot.back() == '\n' || boot.back() == ' ')) boot.pop_back();
  struct utsname u;
  if (::uname(&u) != 0) return {};
  return own_overlay_key(boot, u.release, bwrap_identity(bwrap), uid);
}

std::string own_overlay_cache_file(const std::string& home, uid_t uid) {
  return home.empty() ? std::string() : own_cache_dir(home) + "/own-overlay-" + std::to_string(uid);
}

}  // namespace blaude::sandbox::bwrap
