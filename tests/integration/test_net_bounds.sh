#!/usr/bin/env bash
# Proxy mode under abuse from inside, real blaude + bwrap as uid 65534, tmux as the
# user's terminal: 1,000 connections at once, a 1 MiB request head, a client that stalls
# half-way. Each gets an error or a timeout; blaude's memory stays flat; the terminal keeps
# working; afterwards a normal request works again; blaude listens on nothing (the relay reaches
# the proxy through a socketpair) and is gone after the exit. The control for "memory stays flat" is the same measurement before the flood.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"

net_prereqs
command -v ss >/dev/null || missing "ss is not installed"
net_world
cp "$BLAUDE_SRC/tests/integration/net_flood.py" "$T_DIR/proj/flood.py"
net_start WEB http 0.0.0.0
W="$HOST_IP:$WEB_PORT"

# blaude runs in tmux (pty mode: the session loop and the proxy's thread both live).
tm_start 100 30 "cd '$T_DIR/proj' && env -i HOME='$T_DIR/home' PATH=/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 \
  setpriv --reuid=65534 --regid=65534 --clear-groups '$BLAUDE' --allow-domain '$W' --exec bash --norc --noprofile -i; \
  echo blaude-exited-\$?"
if tm_wait '\$ $' 30; then pass "the shell inside blaude shows its prompt"; else
  # Once in an ASan suite blaude ended at once with status 0 and said nothing: its log, to learn why.
  fail "the shell inside blaude shows its prompt"; net_log | tail -n 30 | sed 's/^/  log: /'
fi
tm_run "curl -sS http://$W/first"
check "an allowed request works" tm_wait '^body:/first' 20

# blaude's own process on the host (the one whose cwd is the project and exe the binary).
bpid=""
for p in /proc/[0-9]*; do
  [ "$(readlink "$p/exe" 2>/dev/null)" = "$(readlink -f "$BLAUDE")" ] && [ "$(readlink "$p/cwd" 2>/dev/null)" = "$T_DIR/proj" ] && bpid=${p#/proc/}
done
check "found blaude's process on the host" test -n "$bpid"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$bpid/status"; }
rss0=$(rss)

tm_run "python3 flood.py conns 1000 > flood.out; echo flood-done"
check "1,000 connections: the flood ends" tm_wait '^flood-done' 60
flood=$(cat "$T_DIR/proj/flood.out")
log "flood: $flood"
check "... every one of them got an error or a timeout, none hung" grep -Eq "hung=0$" <<<"$flood"
check "... none got anything but a close or a 408" grep -Eq "other=0 " <<<"$flood"
rss1=$(rss)
log "blaude RSS: ${rss0} kB before, ${rss1} kB after 1,000 connections"
check "... blaude's memory stays flat (< 8 MiB growth)" test $((rss1 - rss0)) -lt 8192

tm_run "python3 flood.py bighead"
check "a 1 MiB request head is refused with 431" tm_wait '^HTTP/1.1 431 ' 30
tm_run "python3 flood.py stall"
check "a client stalling half-way gets a 408 within the head timeout" tm_wait '^HTTP/1.1 408 Request Timeout after 1[0-2] s' 40
rss2=$(rss)
check "... memory still flat" test $((rss2 - rss0)) -lt 8192

tm_run "echo still-$((6*7)); curl -sS http://$W/again"
check "the terminal keeps working" tm_wait '^still-42' 20
check "... and so does the network" tm_wait '^body:/again' 20

listening=$(ss -xlpH 2>/dev/null; ss -tlpH 2>/dev/null)
check "blaude holds no listening socket, unix or TCP" sh -c '! printf "%s\n" "$1" | grep -q "pid=$2,"' sh "$listening" "${bpid:-x}"
tm_run "exit 3"
check "blaude ends with the shell's status" tm_wait '^blaude-exited-3' 20
check "when blaude has exited, its process is gone" not test -e "/proc/$bpid/status"
finish
