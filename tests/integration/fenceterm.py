#!/usr/bin/env python3
"""A user's terminal that answers late, and the user's shell that reads what comes after the
command: for the reply fence (what the terminal answers to the command's queries must not be
read by the shell once the command is over).

  fenceterm.py [--delay S] [--hold S] [--mute-fence] [--job] OUT -- CMD...

runs `fenceterm.py shell OUT -- CMD...` on a new pty and plays the terminal: it answers
  CSI 5 n with CSI 0 n, CSI c with CSI ? 62 ; 22 c (the fence's queries; not with --mute-fence),
  CSI 6 n with a cursor position report, DCS $ q Pt ST with kitty's echo of Pt,
in the order asked, each at least S seconds (--delay) after its query. Like kitty, it holds every
answer while synchronized output (CSI ? 2026 h) is on, until CSI ? 2026 l or, with --hold, until
that many seconds have passed since it began.

The shell side runs CMD on the terminal as a shell does (cooked, echo on), then puts the terminal
in raw mode (TCSANOW: nothing already typed is dropped) and reads for 1.5 s. OUT gets JSON:
{"code": CMD's exit code, "secs": how long CMD ran, "got": what the shell read, as \\xNN escapes}.
With --job CMD runs as a job (its own process group in the foreground); if it stops, the shell
reads the terminal as above ("stopped": true, "got_stopped": what it read) and continues it.
"""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time
import tty

LISTEN_S = float(os.environ.get("FENCETERM_LISTEN", "1.5"))


def hexed(b):
    return "".join("\\x%02x" % c for c in b)


def listen():
    """What the shell reads in LISTEN_S, in raw mode set with TCSANOW (nothing typed is dropped)."""
    saved = termios.tcgetattr(0)
    tty.setraw(0, termios.TCSANOW)
    got = bytearray()
    end = time.monotonic() + LISTEN_S
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        r, _, _ = select.select([0], [], [], left)
        if r:
            got += os.read(0, 4096)
    termios.tcsetattr(0, termios.TCSANOW, saved)
    return bytes(got)


def shell(out, cmd, job):
    report = {}
    t0 = time.monotonic()
    if not job:
        report["code"] = subprocess.call(cmd)
    else:
        # As a job-control shell runs a job: its own process group in the foreground; when it
        # stops, the shell takes the terminal back and reads it; then `fg`.
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            os.execvp(cmd[0], cmd)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        os.tcsetpgrp(0, pid)
        _, st = os.waitpid(pid, os.WUNTRACED)
        os.tcsetpgrp(0, os.getpgrp())
        report["stopped"] = os.WIFSTOPPED(st)
        if os.WIFSTOPPED(st):
            report["got_stopped"] = hexed(listen())
            os.tcsetpgrp(0, pid)
            os.killpg(pid, signal.SIGCONT)
            _, st = os.waitpid(pid, 0)
            os.tcsetpgrp(0, os.getpgrp())
        report["code"] = os.waitstatus_to_exitcode(st)
    report["secs"] = round(time.monotonic() - t0, 3)
    report["got"] = hexed(listen())
    with open(out, "w") as f:
        json.dump(report, f)


# What the terminal answers, by query. Anchored at an ESC; None: not a query it knows.
QUERIES = [
    (re.compile(rb"\x1b\[5n"), lambda m: b"\x1b[0n", "fence"),
    (re.compile(rb"\x1b\[0?c"), lambda m: b"\x1b[?62;22c", "fence"),
    (re.compile(rb"\x1b\[6n"), lambda m: b"\x1b[7;13R", "child"),
    (re.compile(rb"\x1bP\$q([^\x1b]*)\x1b\\"), lambda m: b"\x1bP0$r" + m.group(1) + b"\x1b\\", "child"),
]
SYNC_ON = re.compile(rb"\x1b\[\?2026h")
SYNC_OFF = re.compile(rb"\x1b\[\?2026l")


def terminal(delay, hold, mute_fence, job, out, cmd):
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.executable, [sys.executable, __file__, "shell", out, "1" if job else "0", "--"] + cmd)
    buf = b""
    queue = []  # [bytes, ready_at]; ready_at None while held
    held_since = None
    alive = True
    while alive or queue:
        now = time.monotonic()
        if held_since is not None and hold is not None and now - held_since >= hold:
            held_since = None
        if held_since is None:
            for e in queue:
                if e[1] is None:
                    e[1] = now + delay
        # In order: the head goes first, whatever is ready behind it.
        while queue and queue[0][1] is not None and queue[0][1] <= now:
            try:
                os.write(fd, queue.pop(0)[0])
            except OSError:
                queue.clear()
        waits = [0.05]
        if queue and queue[0][1] is not None:
            waits.append(max(0.0, queue[0][1] - now))
        if not alive:
            if not queue or queue[0][1] is None:
                break
            time.sleep(min(waits))
            continue
        r, _, _ = select.select([fd], [], [], min(waits))
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            alive = False
            continue
        buf += data
        i = 0
        while True:
            j = buf.find(b"\x1b", i)
            if j < 0:
                buf = b""
                break
            if SYNC_ON.match(buf, j):
                held_since = time.monotonic()
                i = j + 1
                continue
            if SYNC_OFF.match(buf, j):
                held_since = None
                i = j + 1
                continue
            hit = None
            for rx, answer, who in QUERIES:
                m = rx.match(buf, j)
                if m:
                    hit = (m, answer, who)
                    break
            if hit:
                m, answer, who = hit
                if not (mute_fence and who == "fence"):
                    ready = None if held_since is not None else time.monotonic() + delay
                    queue.append([answer(m), ready])
                i = m.end()
                continue
            rest = buf[j:]
            if len(rest) < 256 and (re.fullmatch(rb"\x1b(\[[0-9;?]*)?", rest) or
                                    (rest.startswith(b"\x1bP") and b"\x1b\\" not in rest)):
                buf = rest  # maybe a query cut by the read: wait for the rest
                break
            i = j + 1
    _, st = os.waitpid(pid, 0)
    return 0


def main(argv):
    if argv and argv[0] == "shell":
        shell(argv[1], argv[argv.index("--") + 1:], argv[2] == "1")
        return 0
    delay, hold, mute, job = 0.0, None, False, False
    while argv and argv[0].startswith("--") and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--delay":
            delay = float(argv.pop(0))
        elif opt == "--hold":
            hold = float(argv.pop(0))
        elif opt == "--mute-fence":
            mute = True
        elif opt == "--job":
            job = True
        else:
            sys.exit("unknown option " + opt)
    out = argv[0]
    cmd = argv[argv.index("--") + 1:]
    return terminal(delay, hold, mute, job, out, cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
