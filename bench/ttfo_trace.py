#!/usr/bin/env python3
# Where a PTY proxy's time to first output goes, from kernel trace events (a tracefs
# instance of its own: sched_process_exec/fork, sys_enter_write, and with --stacks the kernel
# stack of every uninterruptible sleep), without ptrace. Each variant is a command prefix run on a
# fresh pty this script holds (the user's terminal); `{}` in it stands for the producer,
# `/bin/echo PAYLOAD`. Per run,
# relative to the proxy's exec:
#   spawn        the proxy's first fork or vfork (its child, which becomes the producer)
#   prod_exec    the producer's exec (the gap from spawn is the child's set-up and exec)
#   prod_write   the producer's write of the payload
#   out          this script's read of the pty that returned the payload: the first output as
#                the terminal sees it (this script's own wake-up is in every variant alike)
# and prints the median and p90 of each, variants interleaved run by run. The p90 is the point:
# on an idle VM the medians hide stalls of several ms (a vfork child's exec waiting in
# sched_exec's migration, a page fault waiting on a locked folio, n_tty_poll flushing the flip
# buffer's work), which --stacks counts by kernel stack.
# As root, with tracefs at /sys/kernel/tracing. PREFIX='chrt -f 50' runs each start at real-time
# priority (the proxy's children inherit it).
# --producer PTYBENCH: the producer is `PTYBENCH --produce 64` (ptybench's own, a heavier start
# than echo's: its first output is its pattern's first bytes) instead of `echo PAYLOAD`.
# Usage: bench/ttfo_trace.py [--stacks] [--producer PTYBENCH] RUNS NAME='COMMAND WITH {}' ...
#   e.g. bench/ttfo_trace.py 60 blaude='build/blaude --no-sandbox --exec {}' script="script -qfec '{}' /dev/null"
import os, re, select, shlex, shutil, statistics, subprocess, sys, time
from collections import Counter

T = "/sys/kernel/tracing"
I = T + "/instances/blaude-ttfo-trace"
args = sys.argv[1:]
stacks = "--stacks" in args
args = [a for a in args if a != "--stacks"]
producer = None
if "--producer" in args:
    i = args.index("--producer"); producer = os.path.abspath(args[i + 1]); del args[i:i + 2]
if len(args) < 2 or any("=" not in a or "{}" not in a for a in args[1:]):
    sys.exit("usage: ttfo_trace.py [--stacks] [--producer PTYBENCH] RUNS NAME='COMMAND WITH {}' ...  ({} is the producer)")
runs = int(args[0])
variants = [(a.split("=", 1)[0], a.split("=", 1)[1]) for a in args[1:]]
if not os.path.isdir(T + "/instances"):
    sys.exit("ttfo_trace: no tracefs at %s (mount -t tracefs nodev %s; run as root)" % (T, T))
if not os.path.isdir(I): os.mkdir(I)
ECHO = shutil.which("echo") or "/bin/echo"
if producer:
    PROD_CMD = producer + " --produce 64"
    MARK = subprocess.run([producer, "--produce", "64"], stdout=subprocess.PIPE, check=True).stdout[:8]
    PROD_COMM = os.path.basename(producer)[:15]
else:
    PROD_CMD, MARK, PROD_COMM = ECHO + " PAYLOAD", b"PAYLOAD", "echo"

def w(p, v):
    with open(I + "/" + p, "w") as f: f.write(v)

w("tracing_on", "0"); w("trace", ""); w("buffer_size_kb", "8192"); w("trace_clock", "mono")
for e in ["sched/sched_process_exec", "sched/sched_process_fork", "syscalls/sys_enter_write",
          "syscalls/sys_enter_read"]:
    w("events/%s/enable" % e, "1")
if stacks:
    w("events/sched/sched_switch/enable", "1")
    w("events/sched/sched_switch/trigger", "stacktrace if prev_state == 2")
prefix = os.environ.get("PREFIX", "").split()
pat = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+)(?:: |\()(.*)$")

def one(cmd):
    """One start on a fresh pty; returns the phase times (ms) and the D-state stacks."""
    mfd, sfd = os.openpty()
    w("trace", ""); w("tracing_on", "1")
    p = subprocess.Popen(prefix + shlex.split(cmd.replace("{}", PROD_CMD)),
                         stdin=sfd, stdout=sfd, stderr=sfd, start_new_session=True,
                         env=dict(os.environ, DISPLAY=os.environ.get("DISPLAY", ":ttfo")))
    os.close(sfd)
    got = b""; end = time.time() + 10
    while MARK not in got and time.time() < end:
        r, _, _ = select.select([mfd], [], [], 0.5)
        if r:
            try: got += os.read(mfd, 4096)
            except OSError: break
    w("tracing_on", "0"); p.wait(); os.close(mfd)
    lines = open(I + "/trace").read().splitlines()
    t0 = pid0 = proxy_comm = None; d = {}; st = []; cur = None
    me = os.getpid()
    kids = {p.pid}  # the first exec in the started process (past PREFIX's own execs: same pid)
    for line in lines:
        if line.strip().startswith("=>"):
            if cur is not None: cur.append(line.strip()[3:])
            continue
        if cur is not None: st.append(tuple(cur)); cur = None
        if "<stack trace>" in line:
            # only the proxy's own processes and the producer (not kworkers, not this script)
            c = line.strip().split("-")[0]
            if t0 is not None and c in (proxy_comm, PROD_COMM): cur = []
            continue
        m = pat.match(line)
        if not m: continue
        t = float(m.group(3)) * 1000; comm = m.group(1); pid = int(m.group(2)); ev = m.group(4); rest = m.group(5)
        if ev == "sched_process_exec":
            if t0 is None:
                if pid in kids: t0 = t; pid0 = pid; proxy_comm = comm
                continue
            # The producer's exec: its binary, in a process other than the proxy's first (the
            # relay variant is ptybench too).
            if pid != pid0 and rest.split()[0].endswith("/" + os.path.basename(PROD_CMD.split()[0])):
                d.setdefault("prod_exec", t - t0); d.setdefault("prod_pid", pid)
            continue
        if t0 is None: continue
        if ev == "sched_process_fork" and pid == pid0: d.setdefault("spawn", t - t0)
        elif ev == "sys_write" and pid == d.get("prod_pid"): d.setdefault("prod_write", t - t0)
        elif ev == "sys_read" and pid == me and int(rest[4:rest.index(",")], 0) == mfd and "prod_write" in d:
            d["out"] = t - t0  # the last read: the one that returned the payload
    if cur: st.append(tuple(cur))
    return d, st

res = {n: {} for n, _ in variants}
stk = {n: Counter() for n, _ in variants}
for r in range(runs):
    for name, cmd in variants:
        d, st = one(cmd)
        for k, v in d.items(): res[name].setdefault(k, []).append(v)
        for s in st:
            key = " < ".join(f for f in s if not f.startswith(("__schedule", "schedule", "__traceiter",
                                                                  "trace_event_raw", "do_syscall_64",
                                                                  "entry_SYSCALL")))[:160]
            stk[name][key] += 1

def q(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(len(v) * p))]

cols = ["spawn", "prod_exec", "prod_write", "out"]
print("| variant | " + " | ".join("%s p50 / p90, ms" % c for c in cols) + " | runs |")
print("|---|" + "---|" * (len(cols) + 1))
for name, _ in variants:
    cells = []
    for c in cols:
        v = res[name].get(c, [])
        cells.append("%.2f / %.2f" % (statistics.median(v), q(v, 0.9)) if v else "—")
    print("| %s | %s | %d |" % (name, " | ".join(cells), len(res[name].get("out", []))))
print("(ms from the proxy's exec; out = the terminal's read that returned the payload)")
if stacks:
    for name, _ in variants:
        print("\n%s: uninterruptible sleeps by kernel stack (count over %d runs)" % (name, runs))
        for k, c in stk[name].most_common(8): print("  %4d  %s" % (c, k))
if stacks:
    w("events/sched/sched_switch/trigger", "!stacktrace if prev_state == 2")
w("tracing_on", "0")
