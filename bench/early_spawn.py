#!/usr/bin/env python3
# Runs build/early_spawn (bench/exec/early_spawn.c) on blaude's own bwrap options for TREE: what
# exec'ing bwrap before the probe, its options sent later through an `--args` pipe, would save at
# three loads of the second CPU (no workspace scan; a light one as on a small repo; a heavy one).
# The options are blaude's --dry-run for TREE (uid 65534, bwrap 0.8 unless BWRAP_DIR) without what
# needs blaude itself: its descriptors (--info-fd, --file), its /run/blaude mounts and checks, and
# the helper's mounts, so that the workspace's --chdir becomes /. The launcher's work is simulated
# (early_spawn.c): NSTAT stats and CPU_US of computation (defaults: blaude's probe and plan on the
# small repo, ~350 system calls and ~0.6 ms of user time by `bench/start_trace.py` and strace).
# Usage: bench/early_spawn.py RUNS HOME TREE BLAUDE [NSTAT CPU_US]   (as root; HOME and TREE
# owned by 65534; PREFIX='chrt -f 50' as in startup_ab.py)
import os, shlex, subprocess, sys, tempfile

runs, home, tree, blaude = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
nstat, cpu_us = (sys.argv[5], sys.argv[6]) if len(sys.argv) > 6 else ("350", "600")
here = os.path.dirname(os.path.abspath(__file__))
harness = os.path.join(os.path.dirname(here), "build", "early_spawn")
if not os.access(harness, os.X_OK):
    sys.exit("early_spawn.py: build it first: cmake --build build --target early_spawn")
bwdir = os.environ.get("BWRAP_DIR", "/usr/bin")
as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-C", tree, "-i",
             "HOME=" + home, "PATH=%s:/usr/bin:/bin" % bwdir, "TERM=dumb"]
dry = subprocess.run(as_nobody + [blaude, "--no-clipboard", "--dry-run", "--exec", "true"],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True, text=True).stdout
words = shlex.split(" ".join(l.rstrip().removesuffix("\\") for l in dry.splitlines() if not l.lstrip().startswith("#")))
start = next(i for i, w in enumerate(words) if w.endswith("/bwrap")) + 1
words = words[start:words.index("--", start)]
# Arity of the options that take values (bwrap 0.8-0.12), to drop whole options.
arity = {"--uid": 1, "--gid": 1, "--hostname": 1, "--cap-drop": 1, "--cap-add": 1, "--chdir": 1, "--setenv": 2,
         "--unsetenv": 1, "--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--bind-try": 2, "--ro-bind-try": 2,
         "--dev-bind-try": 2, "--symlink": 2, "--dev": 1, "--proc": 1, "--tmpfs": 1, "--dir": 1, "--remount-ro": 1,
         "--perms": 1, "--mqueue": 1, "--file": 2, "--info-fd": 1, "--overlay-src": 1, "--tmp-overlay": 1}
out, i = [], 0
while i < len(words):
    w = words[i]
    n = arity.get(w, 0)
    vals = words[i + 1:i + 1 + n]
    i += 1 + n
    if w in ("--file", "--info-fd") or any(v.startswith("/run/blaude") for v in vals):
        continue
    if w == "--setenv" and vals[0].startswith("BLAUDE_"):
        continue
    if w == "--chdir":
        vals = ["/"]
    out += [w] + vals
with tempfile.NamedTemporaryFile(prefix="early-spawn-", delete=False) as f:
    f.write(b"".join(a.encode() + b"\0" for a in out))
os.chmod(f.name, 0o644)
prefix = os.environ.get("PREFIX", "").split()
print("%d bwrap options from %s --dry-run; launcher work: %s stats + %s us" % (len(out), blaude, nstat, cpu_us))
try:
    for label, scan in (("no scan thread", ("0", "0")), ("light scan (small repo)", ("150", "250")),
                        ("heavy scan", ("300", "600"))):
        r = subprocess.run(prefix + as_nobody + [harness, str(runs), f.name, nstat, cpu_us, scan[0], scan[1]],
                           stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
        print("%-24s %s" % (label + ":", r))
finally:
    os.unlink(f.name)
