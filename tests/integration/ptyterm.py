#!/usr/bin/env python3
"""A scriptable user's terminal for integration tests: runs a command on a fresh pty pair and
plays the terminal side (raw, so bytes arrive exactly as written). Of the queries it sees it
answers blaude's reply fence alone (as every terminal would).

  ptyterm.py capture OUT -- CMD...      read everything into OUT; print the exit code
  ptyterm.py stall SECS -- CMD...       once the first output has arrived, stop reading for
                                        SECS (sampling the RSS of the direct child), then read
                                        the rest; prints JSON
  ptyterm.py flood-input MIB -- CMD...  write MIB of input to a child that never reads it,
                                        sampling the child's RSS; prints JSON
  ptyterm.py capture-kill OUT MARKER SIG -- CMD...
                                        read into OUT; once MARKER has arrived, send signal SIG
                                        (a name: KILL, TERM, ...) to the direct child, then read
                                        the rest until every writer is gone; print the exit code
"""
import json
import os
import pty
import select
import signal
import sys
import time
import tty


def spawn(cmd):
    pid, fd = pty.fork()
    if pid == 0:
        try:
            # Raw before blaude starts, not after the fork in the parent: blaude copies this
            # terminal's modes to the child's pty when it starts, so a parent that set them late
            # raced with it (and a cooked copy made the input-flood check flaky: a canonical pty
            # with a full line drops input instead of pushing back).
            tty.setraw(0)
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    return pid, fd


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


# blaude's reply fence at the end of a session (and on Ctrl-Z): answered as a terminal answers
# it, so that blaude does not wait out the fence's bound on every run. Nothing else is answered.
FENCE_QUERY = b"\x1b[5n\x1b[c"
FENCE_ANSWER = b"\x1b[0n\x1b[?62;22c"


def read_all(fd, sink, deadline=None):
    tail = b""
    while True:
        if deadline and time.time() > deadline:
            return False
        r, _, _ = select.select([fd], [], [], 1.0)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            return True
        if not data:
            return True
        seen = tail + data
        if FENCE_QUERY in seen:
            try:
                os.write(fd, FENCE_ANSWER)
            except OSError:
                pass
            seen = seen[seen.rfind(FENCE_QUERY) + len(FENCE_QUERY):]
        tail = seen[-(len(FENCE_QUERY) - 1):]
        sink(data)


def status_code(st):
    return os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)


def capture(out, cmd):
    pid, fd = spawn(cmd)
    with open(out, "wb") as f:
        read_all(fd, f.write, time.time() + 240)
    _, st = os.waitpid(pid, 0)
    print(status_code(st))


def stall(secs, cmd):
    pid, fd = spawn(cmd)
    # The stall starts at the child's first output, when blaude's start-up is over: an ASan build
    # spends up to a second faulting in its own data at start, growth that is not the stall's.
    # One read of what has arrived (at most 4 KiB) is all the terminal takes before it stalls.
    first = 0
    r, _, _ = select.select([fd], [], [], 60.0)
    if r:
        try:
            first = len(os.read(fd, 4096))
        except OSError:
            pass
    samples = []
    t0 = time.time()
    while time.time() - t0 < secs:
        time.sleep(0.25)
        samples.append(rss_kib(pid))
    got = bytearray()

    def sink(d):
        got.extend(d[-64:])
        if len(got) > 4096:
            del got[:-4096]
        sink.total += len(d)
        if sink.total > (8 << 20):
            raise StopIteration
    sink.total = 0
    try:
        read_all(fd, sink, time.time() + 30)
    except StopIteration:
        pass
    os.kill(pid, signal.SIGTERM)
    read_all(fd, lambda d: None, time.time() + 10)
    _, st = os.waitpid(pid, 0)
    print(json.dumps({"rss_kib": samples, "first_read": first, "read_after": sink.total,
                      "code": status_code(st)}))


def wait_marker(fd, marker, secs):
    """Read until `marker` appears in the output (the child is running, so blaude's start-up
    is over); False if it does not within `secs`."""
    seen = bytearray()

    def sink(d):
        seen.extend(d)
        del seen[:-4096]
        if marker in seen:
            raise StopIteration
    try:
        read_all(fd, sink, time.time() + secs)
    except StopIteration:
        return True
    return False


def flood_input(mib, cmd, marker=None):
    pid, fd = spawn(cmd)
    # The memory baseline must be blaude's steady state, not a sample taken while it is still
    # starting (under ASan, start-up alone grows RSS by ~12 MiB after the first 0.25 s on a
    # loaded machine). With a marker, the flood and the samples begin once the child runs.
    if marker is not None and not wait_marker(fd, marker.encode(), 60):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        print(json.dumps({"rss_kib": [], "sent": 0, "code": -1, "error": "no marker"}))
        return
    os.set_blocking(fd, False)
    chunk = b"x" * 4096
    sent = 0
    samples = []
    t0 = time.time()
    last = t0
    while sent < mib << 20 and time.time() - t0 < 6:
        try:
            sent += os.write(fd, chunk)
        except BlockingIOError:
            time.sleep(0.01)
        try:
            os.read(fd, 65536)
        except (BlockingIOError, OSError):
            pass
        if time.time() - last > 0.25:
            samples.append(rss_kib(pid))
            last = time.time()
    samples.append(rss_kib(pid))
    os.kill(pid, signal.SIGTERM)
    os.set_blocking(fd, True)
    read_all(fd, lambda d: None, time.time() + 10)
    _, st = os.waitpid(pid, 0)
    print(json.dumps({"rss_kib": samples, "sent": sent, "code": status_code(st)}))


def capture_kill(out, marker, sig, cmd):
    pid, fd = spawn(cmd)
    got = bytearray()
    sent = False
    deadline = time.time() + 60
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 1.0)
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        got.extend(data)
        if not sent and marker.encode() in got:
            os.kill(pid, getattr(signal, "SIG" + sig))
            sent = True
    with open(out, "wb") as f:
        f.write(bytes(got))
    _, st = os.waitpid(pid, 0)
    print(status_code(st))


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    mode, opts, cmd = args[0], args[1:sep], args[sep + 1:]
    if mode == "capture":
        capture(opts[0], cmd)
    elif mode == "stall":
        stall(float(opts[0]), cmd)
    elif mode == "flood-input":
        flood_input(int(opts[0]), cmd, opts[1] if len(opts) > 1 else None)
    elif mode == "capture-kill":
        capture_kill(opts[0], opts[1], opts[2], cmd)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
