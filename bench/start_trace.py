#!/usr/bin/env python3
# Where one sandboxed start's time goes, from kernel trace events (a tracefs instance of its own:
# sched_process_exec/fork/exit, the pivot_root/setns/umount syscalls), without ptrace: strace's
# stops distort a 20 ms start several times over. Runs `blaude --no-clipboard --exec true` as uid
# 65534 in TREE, interleaved over the builds, and prints the median of each phase: blaude's exec
# to its first fork (bwrap's spawn, or a helper forked before it), that to
# bwrap's exec, bwrap's exec to its sandbox clone, to the first pivot_root, bwrap's mounts (to the
# helper's setns), the helper's mounts (to its exit), the umount2 calls, the helper's exit to the
# shim's exec, the shim, the total to the command's exec, and after it: the command itself (true),
# its exit to bwrap's, bwrap's exit to blaude's (the audit, blaude's own exit), and the total.
# PREFIX='chrt -f 50' as in startup_ab.py; BWDIR for another bwrap. As root, with tracefs at /sys/kernel/tracing.
# Usage: bench/start_trace.py RUNS HOME TREE NAME=BIN ...   (HOME and TREE owned by 65534)
import os, re, sys, subprocess, statistics, time
I = "/sys/kernel/tracing/instances/blaude-start-trace"
if not os.path.isdir(I): os.mkdir(I)
def w(p, v):
    with open(I + "/" + p, "w") as f: f.write(v)
w("tracing_on", "0"); w("trace", ""); w("buffer_size_kb", "8192")
w("trace_clock", "mono")
EV = ["sched/sched_process_exec", "sched/sched_process_fork", "sched/sched_process_exit",
      "syscalls/sys_enter_pivot_root", "syscalls/sys_enter_setns", "syscalls/sys_exit_setns",
      "syscalls/sys_enter_umount", "syscalls/sys_exit_umount", "syscalls/sys_enter_move_mount"]
for e in EV: w("events/%s/enable" % e, "1")
runs, home, tree = int(sys.argv[1]), sys.argv[2], sys.argv[3]
builds = [(a.split("=")[0], a.split("=")[1] if "=" in a else a) for a in sys.argv[4:]]
prefix = os.environ.get("PREFIX", "").split()
def one(binary):
    w("trace", "")
    w("tracing_on", "1")
    cmd = prefix + ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-C", tree, "-i",
           "HOME=" + home, "PATH=%s:/usr/bin:/bin" % os.environ.get("BWDIR", "/usr/bin"), "TERM=dumb", binary, "--no-clipboard", "--exec", "true"]
    subprocess.run(cmd, check=True)
    w("tracing_on", "0")
    txt = open(I + "/trace").read()
    return parse(txt, binary)
pat = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+)(?:: |\(| -> )(.*)$")
def parse(txt, binary):
    ev = []
    for line in txt.splitlines():
        m = pat.match(line)
        if m: ev.append((float(m.group(3)) * 1000, int(m.group(2)), m.group(4), m.group(5)))
    pids = set(); t = {}
    def first(k, v):
        if k not in t: t[k] = v
    blaude = None; bwrap = None; helper = None; sbx = None; shim = None
    for ts, pid, name, rest in ev:
        if name == "sched_process_exec":
            fn = re.search(r"filename=(\S+)", rest).group(1)
            if blaude is None and fn.endswith(os.path.basename(binary)) and "/run/blaude" not in fn:
                blaude = pid; pids.add(pid); t["start"] = ts; continue
            if pid not in pids: continue
            if fn.endswith("bwrap"): bwrap = pid; first("bwrap_exec", ts)
            elif fn in ("/run/blaude/blaude", "/run/blaude/exec"): shim = pid; first("shim_exec", ts)
            elif fn.endswith("/true"): first("cmd_exec", ts); t["cmd_pid"] = pid
        elif name == "sched_process_fork":
            m = re.search(r"pid=(\d+) .*child_pid=(\d+)", rest)
            par, ch = int(m.group(1)), int(m.group(2))
            if par in pids:
                pids.add(ch)
                if par == blaude: first("fork1", ts)
                if par == bwrap: sbx = sbx or ch; first("bwrap_clone", ts)
        elif pid not in pids: continue
        elif name == "sys_pivot_root": first("pivot1", ts); t["pivot_last"] = ts
        elif name == "sys_setns" and "->" not in rest and "fd:" in rest: helper = pid; first("setns", ts)
        elif name == "sys_umount" and "name:" in rest: t.setdefault("umount", []).append(ts)
        elif name == "sys_umount": t.setdefault("umount_x", []).append(ts)
        elif name == "sched_process_exit":
            if pid == helper: first("helper_exit", ts)
            if pid == t.get("cmd_pid"): first("cmd_exit", ts)
            if pid == bwrap: first("bwrap_exit", ts)
            if pid == blaude: first("end", ts)
    return t
res = {}
for i in range(runs + 1):
    for name, b in builds:
        t = one(b)
        if i == 0: continue
        s = t["start"]
        u = t.get("umount", []); ux = t.get("umount_x", [])
        r = dict(to_fork=t["fork1"] - s, fork_to_bwrap=t["bwrap_exec"] - t["fork1"], bwrap_to_clone=t["bwrap_clone"] - t["bwrap_exec"],
                 clone_to_pivot=t["pivot1"] - t["bwrap_clone"], pivot_to_setns=t["setns"] - t["pivot1"],
                 helper=t["helper_exit"] - t["setns"], umounts=sum(x - y for x, y in zip(ux, u)),
                 helper_to_shim=t["shim_exec"] - t["helper_exit"], shim=t["cmd_exec"] - t["shim_exec"],
                 to_exec=t["cmd_exec"] - s, cmd=t["cmd_exit"] - t["cmd_exec"],
                 to_bwrap_exit=t["bwrap_exit"] - t["cmd_exit"], after_bwrap=t["end"] - t["bwrap_exit"], total=t["end"] - s)
        res.setdefault(name, []).append(r)
keys = list(next(iter(res.values()))[0].keys())
print("| build | " + " | ".join(keys) + " |")
print("|---|" + "---|" * len(keys))
for name, rs in res.items():
    print("| %s | " % name + " | ".join("%.2f" % statistics.median([r[k] for r in rs]) for k in keys) + " |")
print("medians of %d runs; load %s" % (runs, open("/proc/loadavg").read().split()[:3]))
for e in EV: w("events/%s/enable" % e, "0")
