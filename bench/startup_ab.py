#!/usr/bin/env python3
# Interleaved A/B of blaude builds as uid 65534 (bwrap 0.8 unless BWRAP_DIR), on trees made by
# bench/gen_tree.sh. BLAUDE_LOG=debug, not --debug (which makes the plan whole before the start). For each run: to exec (the clock `date +%s%N` prints inside, minus the clock
# before the start), total, and from the debug log: probe us, protect mounts us, waiting-for-bwrap us,
# audit before/after ms.
# PREFIX='chrt -f 50' runs each start at real-time priority (the other load on a shared machine
# then waits: the nearest to a quiet machine that one can get here).
# Usage: bench/startup_ab.py RUNS HOME TREE[,TREE...] NAME=BIN[:ENV=V] ...   (as root; HOME and the
# trees owned by 65534)
import os, re, statistics, subprocess, sys, time
runs, home, trees = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
variants = []
for spec in sys.argv[4:]:
    name, rest = spec.split("=", 1)
    parts = rest.split(":")
    variants.append((name, parts[0], parts[1:]))
bwdir = os.environ.get("BWRAP_DIR", "/usr/bin")
log = home + "/.local/state/blaude/blaude.log"
def run(tree, binary, env):
    cmd = os.environ.get("PREFIX", "").split() + ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-C", tree, "-i",
           "HOME=" + home, "PATH=%s:/usr/bin:/bin" % bwdir, "TERM=dumb", "BLAUDE_LOG=debug"] + env + [binary, "--no-clipboard", "--exec", "date", "+%s%N"]
    try: os.truncate(log, 0)
    except FileNotFoundError: pass
    t0 = time.time_ns()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    t1 = time.time_ns()
    text = open(log).read()
    g = lambda pat: float(m.group(1)) if (m := re.search(pat, text)) else float("nan")
    return dict(exec=(int(out.split()[-1]) - t0) / 1e6, total=(t1 - t0) / 1e6,
                probe=g(r"sandbox: probe (\d+) us") / 1000, mounts=g(r"protect: \d+ mounts in (\d+) us") / 1000,
                wait=g(r"us \((\d+) us waiting for bwrap") / 1000,
                before=g(r"audit: before the session: .* in ([\d.]+) ms"), after=g(r"audit: after the session: .* in ([\d.]+) ms"))
load0 = open("/proc/loadavg").read().split()[:3]
res = {}
for i in range(runs + 2):
    for tree in trees:
        for name, binary, env in variants:
            r = run(tree, binary, env)
            if i >= 2: res.setdefault((tree, name), []).append(r)
load1 = open("/proc/loadavg").read().split()[:3]
keys = ["exec", "total", "probe", "wait", "mounts", "before", "after"]
print("| tree | build | " + " | ".join(k + " ms (median / min)" for k in keys) + " |")
print("|---|---|" + "---|" * len(keys))
for (tree, name), rs in res.items():
    cells = []
    for k in keys:
        v = [r[k] for r in rs if r[k] == r[k]]
        cells.append("%.2f / %.2f" % (statistics.median(v), min(v)) if v else "-")
    print("| %s | %s | %s |" % (os.path.basename(tree), name, " | ".join(cells)))
# Paired: run i of each build is one round of the interleaving, so the ratio of run i to the first
# build's run i compares the two under the same moment's load; their median is the robust number.
if len(variants) > 1:
    print("\n| tree | build | to exec / %s, median of paired ratios | total / %s |" % (variants[0][0], variants[0][0]))
    print("|---|---|---|---|")
    for tree in trees:
        base = res[(tree, variants[0][0])]
        for name, _, _ in variants[1:]:
            rs = res[(tree, name)]
            rx = [r["exec"] / b["exec"] for r, b in zip(rs, base)]
            rt = [r["total"] / b["total"] for r, b in zip(rs, base)]
            print("| %s | %s | %.3f | %.3f |" % (os.path.basename(tree), name, statistics.median(rx), statistics.median(rt)))
print("\nprefix '%s'; " % os.environ.get("PREFIX", "") + "load average before: %s, after: %s; runs per cell: %d; bwrap dir %s" % (" ".join(load0), " ".join(load1), runs, bwdir))
