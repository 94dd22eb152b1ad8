#!/usr/bin/env bash
# Proxy mode's costs, each against a baseline measured in the same run:
#   bulk     a download from a loopback server (netbench serve on the host): direct on the host
#            vs. from inside blaude in proxy mode (relay + host proxy); target >= 0.8x
#   connect  connect-to-first-byte p50 over N fresh connections: direct vs. through the proxy;
#            target <= +1 ms
#   capture  the same through transparent capture (a proxy-unaware client: it looks the name up
#            through the relay's DNS for each connection, then connects to the synthetic address),
#            in a mount namespace whose /etc/hosts names capture.bench (127.0.0.1) for the proxy;
#            and again with the synthetic address looked up once (the capture's share alone)
#   idle     context switches of blaude's proxy thread and of the relay while the session idles
#            (target 0: no polling, no timers)
#   startup  `blaude --exec true`, R interleaved runs: default mode vs. proxy mode, wall median
#            (target <= +5 ms) and CPU mean; --no-network shows the namespace's own share
# With --before OLD: bulk, connect and start-up are also measured for OLD's blaude (a directory
# holding another build's blaude, and its blaude-exec), interleaved with this build's, so that a
# change is judged against the build before it in the same run.
# Runs blaude as uid 65534 (real bwrap, unprivileged), like the integration tests.
# Usage: bench/net_bench.sh BUILD_DIR [--bytes N] [--conns N] [--reps N] [--before OLD_DIR]
set -euo pipefail
BUILD=$(readlink -f "${1:?usage: net_bench.sh BUILD_DIR [--bytes N] [--conns N] [--reps N] [--before OLD_DIR]}")
shift
BYTES=$((1 << 30)) CONNS=500 REPS=15 BEFORE=""
while [ $# -gt 0 ]; do
  case $1 in
    --bytes) BYTES=$2; shift 2 ;;
    --conns) CONNS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --before) BEFORE=$(readlink -f "$2"); shift 2 ;;
    *) echo "net_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
BLAUDE=$BUILD/blaude NETBENCH=$BUILD/netbench
for f in "$BLAUDE" "$NETBENCH" ${BEFORE:+"$BEFORE/blaude"}; do [ -x "$f" ] || { echo "net_bench.sh: $f is not built" >&2; exit 1; }; done

T=$(mktemp -d /tmp/net_bench.XXXXXX)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
chmod 755 "$T"
mkdir -p "$T/home" "$T/proj"
cp "$NETBENCH" "$T/proj/netbench"
chown -R 65534:65534 "$T/home" "$T/proj"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME="$T/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }
bl() { (cd "$T/proj" && nobody "$BLAUDE" "$@" </dev/null); }
# The old build's binaries, copied where uid 65534 can run them.
if [ -n "$BEFORE" ]; then
  mkdir -p "$T/old"
  cp "$BEFORE/blaude" "$T/old/blaude"
  [ -e "$BEFORE/blaude-exec" ] && cp "$BEFORE/blaude-exec" "$T/old/blaude-exec"
  chmod -R 755 "$T/old"
fi
bl_old() { (cd "$T/proj" && nobody "$T/old/blaude" "$@" </dev/null); }

setpriv --reuid=65534 --regid=65534 --clear-groups "$NETBENCH" serve "$T/proj/port" &  # $! is the server
SERVER=$!
while [ ! -s "$T/proj/port" ]; do sleep 0.05; done
P=$(cat "$T/proj/port")
ALLOW=(--allow-domain "127.0.0.1:$P")
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p"; }

# --- bulk: 3 interleaved pairs, the median of each side -------------------------------------------
: >"$T/bulk.direct"; : >"$T/bulk.proxy"; : >"$T/bulk.old"
for _ in 1 2 3; do
  nobody "$NETBENCH" bulk 127.0.0.1 "$P" "$BYTES" | field mib_per_s >>"$T/bulk.direct"
  bl "${ALLOW[@]}" --exec ./netbench bulk 127.0.0.1 "$P" "$BYTES" 3128 | field mib_per_s >>"$T/bulk.proxy"
  [ -n "$BEFORE" ] && bl_old "${ALLOW[@]}" --exec ./netbench bulk 127.0.0.1 "$P" "$BYTES" 3128 | field mib_per_s >>"$T/bulk.old"
done
bd=$(median <"$T/bulk.direct") bp=$(median <"$T/bulk.proxy")

# --- connect: p50 of CONNS fresh connections each way ----------------------------------------------
ld=$(nobody "$NETBENCH" latency 127.0.0.1 "$P" "$CONNS" | field p50_us)
lp=$(bl "${ALLOW[@]}" --exec ./netbench latency 127.0.0.1 "$P" "$CONNS" 3128 | field p50_us)
printf '127.0.0.1 localhost\n127.0.0.1 capture.bench\n' >"$T/hosts"
lc=$(unshare -m sh -c 'mount --bind "$1/hosts" /etc/hosts && cd "$1/proj" && exec setpriv --reuid=65534 --regid=65534 --clear-groups \
  env -i HOME="$1/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$2" --allow-domain "capture.bench:$3" --exec sh -c \
  "./netbench latency capture.bench $3 $4 && ./netbench latency \$(getent hosts capture.bench | cut -d\" \" -f1) $3 $4" </dev/null' \
  sh "$T" "$BLAUDE" "$P" "$CONNS" | field p50_us | tr '\n' ' ' | sed 's/ *$//')
lca=${lc#* } lc=${lc%% *}
lo=""
[ -n "$BEFORE" ] && lo=$(bl_old "${ALLOW[@]}" --exec ./netbench latency 127.0.0.1 "$P" "$CONNS" 3128 | field p50_us)

# --- idle: a session that sleeps; context switches of the proxy thread and the relay in 3 s -------
bl "${ALLOW[@]}" --exec sleep 15 &
BL=$!
bpid="" relay="" ptid=""
for _ in $(seq 200); do
  bpid=$(pgrep -u 65534 -xf "$BLAUDE --allow-domain 127.0.0.1:$P --exec sleep 15" || true)
  relay=$(pgrep -u 65534 -f "^/run/blaude/blaude __net-relay .*-- (/run/blaude/blaude __exec )?sleep 15$" || true)
  ptid=""
  [ -n "$bpid" ] && for t in /proc/"$bpid"/task/*; do [ "$(cat "$t/comm" 2>/dev/null)" = blaude-net ] && ptid=${t##*/}; done
  [ -n "$relay" ] && [ -n "$ptid" ] && break
  sleep 0.1
done
[ -n "$ptid" ] && [ -n "$relay" ] || { echo "net_bench.sh: did not find the proxy thread and the relay" >&2; exit 1; }
sw() { awk '/ctxt_switches/ {s += $2} END {print s + 0}' "$1"; }
sleep 1  # start-up settles
p0=$(sw "/proc/$bpid/task/$ptid/status") r0=$(sw "/proc/$relay/status")
sleep 3
p1=$(sw "/proc/$bpid/task/$ptid/status") r1=$(sw "/proc/$relay/status")
wait "$BL" || true

# --- startup: REPS interleaved runs of each mode: wall (median) and CPU (user+sys of blaude and
# everything it started, mean: the kernel counts CPU in ticks, so a median of one run is coarse).
# --no-network is a second baseline: its own network namespace without the relay and the proxy,
# i.e. the part of proxy mode's cost that the namespace itself takes.
TIMEFORMAT='%R %U %S'
timed() { { time bl "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%d %d\n", $1 * 1e6, ($2 + $3) * 1e6}'; }
: >"$T/st.default"; : >"$T/st.nonet"; : >"$T/st.proxy"; : >"$T/st.old"
timed_old() { { time bl_old "$@" >/dev/null 2>&1; } 2>&1 | awk '{printf "%d %d\n", $1 * 1e6, ($2 + $3) * 1e6}'; }
for _ in $(seq "$REPS"); do
  timed --exec true >>"$T/st.default"
  timed --no-network --exec true >>"$T/st.nonet"
  timed "${ALLOW[@]}" --exec true >>"$T/st.proxy"
  [ -n "$BEFORE" ] && timed_old "${ALLOW[@]}" --exec true >>"$T/st.old"
done
mean() { awk '{s += $1} END {printf "%d", s / NR}'; }
sd=$(cut -d' ' -f1 "$T/st.default" | median) sn=$(cut -d' ' -f1 "$T/st.nonet" | median) sp=$(cut -d' ' -f1 "$T/st.proxy" | median)
cd_=$(cut -d' ' -f2 "$T/st.default" | mean) cn=$(cut -d' ' -f2 "$T/st.nonet" | mean) cp=$(cut -d' ' -f2 "$T/st.proxy" | mean)

verdict() { if awk "BEGIN {exit !($1)}"; then echo met; else echo MISSED; fi; }
printf '%-10s %-30s %-30s %-14s %s\n' measure baseline "proxy mode" result target
printf '%-10s %-30s %-30s %-14s %s\n' bulk "direct $bd MiB/s" "$bp MiB/s" \
  "$(awk "BEGIN {printf \"%.2fx\", $bp / $bd}")" ">= 0.8x: $(verdict "$bp / $bd >= 0.8")"
printf '%-10s %-30s %-30s %-14s %s\n' connect "direct p50 $ld us" "p50 $lp us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $lp - $ld}")" "<= +1000 us: $(verdict "$lp - $ld <= 1000")"
printf '%-10s %-30s %-30s %-14s %s\n' capture "proxy p50 $lp us" "capture p50 $lc us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $lc - $lp}")" "direct $(awk "BEGIN {printf \"%+.0f us\", $lc - $ld}")"
printf '%-10s %-30s %-30s %-14s %s\n' "  by addr" "proxy p50 $lp us" "capture p50 $lca us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $lca - $lp}")" "(the synthetic address known: no lookup each time)"
printf '%-10s %-30s %-30s %-14s %s\n' idle "-" "proxy thread $((p1 - p0)), relay $((r1 - r0))" \
  "switches/3 s" "0: $(verdict "$((p1 - p0 + r1 - r0)) == 0")"
printf '%-10s %-30s %-30s %-14s %s\n' startup "default median $sd us" "median $sp us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $sp - $sd}")" "<= +5000 us: $(verdict "$sp - $sd <= 5000")"
printf '%-10s %-30s %-30s %-14s %s\n' "  cpu" "default mean $cd_ us" "mean $cp us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $cp - $cd_}")" "(user+sys, all processes)"
printf '%-10s %-30s %-30s %-14s %s\n' "  netns" "--no-network median $sn us" "cpu mean $cn us" \
  "$(awk "BEGIN {printf \"%+.0f us\", $sn - $sd}")" "(the namespace alone, wall vs default)"
if [ -n "$BEFORE" ]; then
  bo=$(median <"$T/bulk.old") so=$(cut -d' ' -f1 "$T/st.old" | median) co=$(cut -d' ' -f2 "$T/st.old" | mean)
  echo "before ($BEFORE), proxy mode in the same run:"
  printf '%-10s %-30s %-30s %s\n' bulk "before $bo MiB/s ($(awk "BEGIN {printf \"%.2fx\", $bo / $bd}") direct)" \
    "after $bp MiB/s" "$(awk "BEGIN {printf \"%.2fx\", $bp / $bo}") of before"
  printf '%-10s %-30s %-30s %s\n' connect "before p50 $lo us" "after p50 $lp us" "$(awk "BEGIN {printf \"%+.0f us\", $lp - $lo}")"
  printf '%-10s %-30s %-30s %s\n' startup "before median $so us" "after median $sp us" "$(awk "BEGIN {printf \"%+.0f us\", $sp - $so}")"
  printf '%-10s %-30s %-30s %s\n' "  cpu" "before mean $co us" "after mean $cp us" "$(awk "BEGIN {printf \"%+.0f us\", $cp - $co}")"
fi
echo "(bytes $BYTES, connections $CONNS, start-up runs $REPS each; load average $(cut -d' ' -f1-3 /proc/loadavg))"
