#include "catch.hpp"
#include "common/limits.hpp"
#include "sandbox/bwrap/run/limits.hpp"

using namespace blaude;
using namespace blaude::sandbox::bwrap;

TEST_CASE("memory sizes: units, decimals, refusals", "[limits]") {
  std::string why;
  CHECK(parse_memory_size("8G", &why) == 8ULL << 30);
  CHECK(parse_memory_size("512M", &why) == 512ULL << 20);
  CHECK(parse_memory_size("1.5GiB", &why) == (3ULL << 30) / 2);
  CHECK(parse_memory_size("2tb", &why) == 2ULL << 40);
  CHECK(parse_memory_size("1073741824", &why) == 1ULL << 30);
  for (const char* bad : {"", "G", "8X", "8GG", "1.5", "-1G", "1.G", "8 G", "99999999999999999999G", "1.2345G"}) {
    INFO(bad);
    CHECK_FALSE(parse_memory_size(bad, &why));
  }
  CHECK_FALSE(parse_memory_size("100M", &why));
  CHECK(why.find("too little") != std::string::npos);
  CHECK(format_size(8ULL << 30) == "8 GiB");
  CHECK(format_size(300ULL << 20) == "300 MiB");
  CHECK(format_size((3ULL << 30) / 2) == "1.5 GiB");
}

TEST_CASE("pids counts", "[limits]") {
  std::string why;
  CHECK(parse_pids_count("4096", &why) == 4096);
  CHECK_FALSE(parse_pids_count("63", &why));
  CHECK_FALSE(parse_pids_count("4k", &why));
  CHECK_FALSE(parse_pids_count("", &why));
  CHECK_FALSE(parse_pids_count("9999999999", &why));
}

TEST_CASE("the cgroup v2 dir from /proc/self/cgroup and mountinfo", "[limits]") {
  const std::string mi =
      "24 1 0:22 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
  CHECK(own_cgroup_dir("0::/user.slice/app.slice/x.scope\n", mi) == "/sys/fs/cgroup/user.slice/app.slice/x.scope");
  CHECK(own_cgroup_dir("4:memory:/a\n", mi).empty());  // v1 only
  CHECK(own_cgroup_dir("0::/a\n", "24 1 0:22 / /x rw - cgroup cgroup rw\n").empty());
  // A mount of a subtree (a container's): the path below its root.
  CHECK(own_cgroup_dir("0::/c/inner\n", "30 1 0:26 /c /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n") ==
        "/sys/fs/cgroup/inner");
  CHECK(own_cgroup_dir("0::/d\n", "30 1 0:26 /c /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n").empty());
  // Optional fields before the dash, an escaped blank in the mount point.
  CHECK(own_cgroup_dir("0::/a\n", "30 1 0:26 / /my\\040cg rw shared:4 master:1 - cgroup2 none rw\n") == "/my cg/a");
}

TEST_CASE("limits: off, the root cgroup, and no v2 fall back as they say", "[limits]") {
  LimitSettings s;
  s.off = true;
  CHECK(plan_limits(s, "0::/a\n", "").kind == LimitKind::Off);
  s.off = false;
  auto p = plan_limits(s, "0::/\n", "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  CHECK(p.kind == LimitKind::Rlimit);
  CHECK(p.no_cgroup.find("root cgroup") != std::string::npos);
  p = plan_limits(s, "4:memory:/a\n", "");
  CHECK(p.kind == LimitKind::Rlimit);
  CHECK(describe_limits(p).find("RLIMIT_NPROC (4096 tasks beyond the account's), NO memory limit") != std::string::npos);
}

TEST_CASE("cgroup event counts", "[limits]") {
  CHECK(cgroup_event_count("low 0\nhigh 3\nmax 7\noom 1\noom_kill 2\noom_group_kill 1\n", "oom_kill") == 2);
  CHECK(cgroup_event_count("max 12\n", "max") == 12);
  CHECK(cgroup_event_count("max_x 5\n", "max") == 0);
  CHECK(cgroup_event_count("", "max") == 0);
}
