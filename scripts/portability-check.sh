#!/usr/bin/env bash
# Does the tree compile with only what macOS has? No Mac here, so: every source file of the forced-
# fallbacks build (BLAUDE_POSIX_FALLBACKS=ON, i.e. BLAUDE_LINUX_CALLS=0) is preprocessed with
# scripts/portability/poison.h force-included (the Linux-only calls, flags and syscall numbers
# poisoned, __linux__ undefined) and scripts/portability/shim/ first on the include path (Linux-only
# headers #error). Poisoning is the preprocessor's, so -E finds every use, at a fraction of a
# compile's cost; active code naming /proc is listed (a note: macOS has no /proc). Prints each failure;
# exits 1 if any. Usage: scripts/portability-check.sh BUILD_DIR   (a configured forced-fallbacks
# build dir; its compile_commands.json is read). Run by `make posix`.
set -euo pipefail
build=${1:?usage: portability-check.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
db=$build/compile_commands.json
[ -f "$db" ] || { echo "portability-check: no $db (configure $build first)" >&2; exit 2; }
grep -q 'BLAUDE_POSIX_FALLBACKS=1' "$db" || {
  echo "portability-check: $build is not a forced-fallbacks build (-DBLAUDE_POSIX_FALLBACKS=ON)" >&2; exit 2; }
exec python3 - "$db" "$root" "${JOBS:-2}" <<'PY'
import json, os, re, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
db, root, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
port = os.path.join(root, "scripts", "portability")
# bench/ is Linux-only (ptybench's signalfd/pty.h, netbench's accept4): CMake adds it only on Linux.
ours = tuple(os.path.join(root, d) + "/" for d in ("src", "tests"))
def expand(e):
    # A unity build's entry compiles a batch (CMakeFiles/<target>.dir/Unity/unity_N_cxx.cxx, a
    # list of #includes of the sources): each of its sources is checked on its own, with its flags.
    if not re.search(r"/Unity/unity_[0-9]+_cxx\.cxx$", e["file"]):
        return [e]
    out = []
    for line in open(e["file"]):
        m = re.match(r'#include "(/[^"]+)"', line)
        if m:
            f = dict(e, file=m.group(1))
            if "command" in f:
                f["command"] = f["command"].replace(e["file"], m.group(1))
            else:
                f["arguments"] = [m.group(1) if a == e["file"] else a for a in f["arguments"]]
            out.append(f)
    return out
entries = [x for e in json.load(open(db)) for x in expand(e)]
entries = [e for e in entries if e["file"].startswith(ours) and "/_deps/" not in e["file"]]

def args_of(e, mode):
    a = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
    out, skip = [], False
    for x in a:
        if skip: skip = False; continue
        if x in ("-o", "-MF", "-MT", "-MQ"): skip = True; continue
        if x in ("-c", "-MD", "-MMD") or x.startswith("-g"): continue
        out.append(x)
    return out[:1] + ["-isystem", os.path.join(port, "shim"), "-include", os.path.join(port, "poison.h"), mode] + out[1:]

marker = re.compile(r'^# \d+ "([^"]+)"')
def check(e):
    rel = os.path.relpath(e["file"], root)
    r = subprocess.run(args_of(e, "-E"), cwd=e["directory"], capture_output=True, text=True)
    if r.returncode != 0:
        errs = [l for l in r.stderr.splitlines() if "error" in l][:6]
        return rel, "\n    ".join(errs)
    cur, hits = "", []
    for line in r.stdout.splitlines():
        m = marker.match(line)
        if m: cur = m.group(1); continue
        if cur.startswith(ours) and '"/proc' in line:
            hits.append(f"{os.path.relpath(cur, root)}: names /proc in active code: {line.strip()[:100]}")
    return rel, ("note:" + "\n    ".join(hits[:4]) if hits else None)

with ThreadPoolExecutor(jobs) as ex:
    res = [(f, m) for f, m in ex.map(check, entries) if m]
# A /proc name is a note, not a failure: most are bwrap arguments, policy names, or reads whose
# ENOENT off Linux is their answer (AppArmor, kernel facts); a new one is read in the list.
notes = [(f, m[5:]) for f, m in res if m.startswith("note:")]
bad = [(f, m) for f, m in res if not m.startswith("note:")]
for f, m in notes:
    print(f"portability-check: note: {f}\n    {m}")
for f, m in bad:
    print(f"portability-check: FAIL: {f}\n    {m}")
print(f"portability-check: {len(entries) - len(bad)}/{len(entries)} files compile with POSIX + macOS calls only")
sys.exit(1 if bad else 0)
PY
