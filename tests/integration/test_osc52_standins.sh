#!/usr/bin/env bash
# The clipboard stand-ins (xclip, xsel, wl-copy, wl-paste, pbcopy, pbpaste first on the
# sandbox's PATH, answered by blaude's broker) against a real Xvfb with the real xclip on the
# host side, the real blaude and bwrap as uid 65534 on a tmux pane (the user's terminal).
# One pty session, held at sync points (the script inside waits for a key): copies of text
# (xclip, wl-copy) and of a PNG reach the host clipboard; reads are refused without the paste
# key (an ordinary key does not open the window); right after Ctrl+V the type list and one
# read are answered, the second read is refused; after the window (2 s) refused again; a
# bracketed paste opens it too. Two sessions in pipes mode: no read at all, a huge copy, an
# unknown option, a malformed request (and the service answers afterwards), the other
# session's socket out of reach; --no-clipboard refuses the copy (control: the same copy
# without it lands); the user policy's clipboard-paste text answers text reads without the key,
# and a project's file may not say it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/osc52_lib.sh"

need_sandbox
sandbox_dirs
start_xvfb
RT=$(mktemp -d /run/blaude-test-rt.XXXXXX)
at_exit_late "rm -rf '$RT'"
chown $NOBODY:$NOBODY "$RT"
chmod 700 "$RT"
mkdir -p "$T_DIR/state"
chown $NOBODY:$NOBODY "$T_DIR/state"
# A 2x2 PNG.
base64 -d >"$WS/img.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8AARGDiPwMAHfAD/aAzCYkAAAAASUVORK5CYII='
chown $NOBODY:$NOBODY "$WS/img.png"
clip_png() { DISPLAY=$X_DISPLAY timeout 5 xclip -o -selection clipboard -t image/png 2>/dev/null; }
png_is_ours() { cmp -s <(clip_png) "$WS/img.png"; }
out_has() { grep -qF -- "$1" "$WS/out"; }

# The script inside: each `k` prints WAIT-N and waits for one key (or, for the paste, 18 bytes).
cat >"$WS/in.sh" <<'SH'
o=out
: >$o
k() { printf 'WAIT-%s\r\n' "$1"; dd bs=1 count="${2:-1}" 2>/dev/null | od -An -c | tr -d ' \n' >key.$1; }
t() { local n=$1; shift; "$@" >got.$n 2>err.$n; echo "$n=$? $(tr -d '\n' <err.$n)" >>$o; }
stty raw -echo
echo "path=$(command -v xclip) $(command -v wl-paste) $(command -v pbcopy)" >>$o
printf 'from inside' | t copy_xclip xclip -selection clipboard -i
k A
t nokey_xclip xclip -selection clipboard -o
t nokey_wlpaste wl-paste
t nokey_targets xclip -selection clipboard -t TARGETS -o
t copy_wlcopy wl-copy 'via wl-copy'
k B
t copy_png xclip -selection clipboard -t image/png -i img.png
k C
t targets xclip -selection clipboard -t TARGETS -o
t read_png xclip -selection clipboard -t image/png -o
t read_twice xclip -selection clipboard -o
k D
sleep 2.3
t after_window xclip -selection clipboard -o
printf '\033[?2004h'
k E 18
printf '\033[?2004l'
t bracketed wl-paste
t bracketed_twice xsel -bo
printf 'STEP-DONE\r\n'
SH
chown $NOBODY:$NOBODY "$WS/in.sh"

tm -f /dev/null new-session -d -s t -x 150 -y 40 \
  "env -i HOME=$H TERM=xterm-256color LANG=C.UTF-8 PATH=/usr/bin:/bin DISPLAY=$X_DISPLAY XDG_RUNTIME_DIR=$RT \
   XDG_STATE_HOME=$T_DIR/state PS1='$ ' setpriv --reuid=65534 --regid=65534 --clear-groups bash --norc --noprofile -i"
tm set-option -t t remain-on-exit on >/dev/null
tm set-option -g status off >/dev/null
tm_wait '^\$ $' 20 >/dev/null
tm_run "cd $WS && $BLAUDE --exec bash in.sh; echo END=\$?"

check "inside: the copy waits at A" tm_wait '^WAIT-A' 30
check "inside: xclip, wl-paste and pbcopy are blaude's stand-ins" out_has "path=/run/blaude/bin/xclip /run/blaude/bin/wl-paste /run/blaude/bin/pbcopy"
check "xclip -i from inside: exit 0" out_has "copy_xclip=0 "
check "... and the host CLIPBOARD holds it (xclip -o on the host)" clip_wait clipboard 'from inside'
# The other session's socket, while this one runs: not there inside.
SOCK=$(ls -d "$RT"/blaude/services-*/clipboard 2>/dev/null | head -1)
check "control: the first session's socket exists on the host ($SOCK)" test -S "$SOCK"
SB_ENV=(XDG_RUNTIME_DIR="$RT" DISPLAY="$X_DISPLAY" XDG_STATE_HOME="$T_DIR/state")
other=$(sb_nobody /usr/bin -- 'test -e "$1" && echo reach=yes || echo reach=no
  ls /run/blaude/services | tr "\n" " "; echo' "$SOCK" || true)
check "a second session cannot reach the first one's socket" grep -q '^reach=no' <<<"$other"
check "... and sees only its own services" grep -qx 'clipboard ' <<<"$(sed -n 2p <<<"$other")"
tm send-keys -t t x

check "inside: waits at B" tm_wait '^WAIT-B' 10
check "xclip -o without the paste key: refused (an ordinary key typed before)" out_has "nokey_xclip=1 "
check "... with the reason on its stderr" out_has "only right after you press Ctrl+V"
check "... and nothing on its stdout" test ! -s "$WS/got.nokey_xclip"
check "wl-paste without the paste key: refused" out_has "nokey_wlpaste=1 "
check "the type list without the paste key: refused" out_has "nokey_targets=1 "
check "wl-copy TEXT: exit 0" out_has "copy_wlcopy=0 "
check "... and the host CLIPBOARD holds it" clip_wait clipboard 'via wl-copy'
tm send-keys -t t x

check "inside: waits at C" tm_wait '^WAIT-C' 10
check "xclip -t image/png -i FILE: exit 0" out_has "copy_png=0 "
check "... and the host CLIPBOARD holds the PNG, byte for byte" wait_until png_is_ours
tm send-keys -t t C-v

check "inside: waits at D" tm_wait '^WAIT-D' 10
check "the key the child got was Ctrl+V" test "$(cat "$WS/key.C")" = "026"
check "right after Ctrl+V: the type list answered" out_has "targets=0 "
check "... and names image/png" grep -qx image/png "$WS/got.targets"
check "right after Ctrl+V: the image read answered" out_has "read_png=0 "
check "... the host's PNG, byte for byte" cmp -s "$WS/got.read_png" "$WS/img.png"
check "a second read in the same window: refused" out_has "read_twice=1 "
clip_set clipboard 'host text'
tm send-keys -t t C-v

check "inside: waits at E" tm_wait '^WAIT-E' 10
check "a read 2.3 s after Ctrl+V: refused" out_has "after_window=1 "
tm set-buffer 'pasted'
tm paste-buffer -p -t t

check "inside: done" tm_wait '^STEP-DONE' 10
check "the child got a bracketed paste" grep -qF '033[200~pasted033[201~' "$WS/key.E"
check "right after the bracketed paste: wl-paste answered" out_has "bracketed=0 "
check "... with the host's text" test "$(cat "$WS/got.bracketed")" = 'host text'
check "a second read (xsel -bo) in that window: refused" out_has "bracketed_twice=1 "
check "blaude exits 0" tm_wait '^END=0' 20
check "the summary counts the copies" tm_wait 'clipboard stand-ins copied 3 time' 5
check "... the reads" tm_wait 'read the host clipboard 3 time' 5
check "... and the refusals" tm_wait 'clipboard stand-ins were refused 6 time' 5
check "the socket directory is gone after the session" test ! -e "$(dirname "$SOCK")"

# Pipes mode: copies only; the bounds; bad input.
clip_set clipboard 'before pipes'
inside=$(sb_nobody /usr/bin -- '
  xclip -selection clipboard -o >/dev/null 2>e; echo "pipes_read=$? $(cat e)"
  head -c 2000000 /dev/zero | tr "\0" x | xclip -selection clipboard -i 2>e; echo "huge=$? $(cat e)"
  xclip -bogus 2>e; echo "unknown=$? $(cat e)"
  xsel -bz 2>e; echo "unknown_xsel=$? $(cat e)"
  python3 -c "
import socket
s = socket.socket(socket.AF_UNIX); s.connect(\"/run/blaude/services/clipboard\")
s.sendall(b\"\\0\\0\\0\\5zz\\0ab\"); s.settimeout(5)
print(\"malformed_reply=%r\" % s.recv(10))
s = socket.socket(socket.AF_UNIX); s.connect(\"/run/blaude/services/clipboard\")
s.sendall(b\"\\x7f\\xff\\xff\\xff\"); s.settimeout(5)
print(\"oversize_reply=%r\" % s.recv(10))"
  printf "after malformed" | xclip -selection clipboard -i 2>e; echo "after=$? $(cat e)"' || true)
check "pipes mode: a read is refused" grep -q '^pipes_read=1 .*pipes mode copies only' <<<"$inside"
check "a 2 MB text copy: refused by the stand-in" grep -q '^huge=1 .*over 1048576 bytes' <<<"$inside"
check "xclip -bogus: a usage error naming it" grep -q '^unknown=2 .*unknown option -bogus' <<<"$inside"
check "xsel -bz: a usage error naming it" grep -q '^unknown_xsel=2 .*unknown option -z' <<<"$inside"
check "a malformed request: the connection is closed unanswered" grep -qx "malformed_reply=b''" <<<"$inside"
check "a length over the bound: closed unanswered" grep -qx "oversize_reply=b''" <<<"$inside"
check "the service still copies afterwards" grep -q '^after=0' <<<"$inside"
check "... and the host CLIPBOARD holds it" clip_wait clipboard 'after malformed'

inside=$(sb_nobody /usr/bin --no-clipboard -- 'printf "not copied" | xclip -selection clipboard -i 2>e; echo "off=$? $(cat e)"' || true)
check "--no-clipboard: the copy is refused, and says so" grep -q '^off=1 .*--no-clipboard' <<<"$inside"
check_eq "--no-clipboard: the host CLIPBOARD unchanged" 'after malformed' "$(clip_get clipboard)"
inside=$(sb_nobody /usr/bin -- 'printf "copied" | xclip -selection clipboard -i 2>e; echo "on=$? $(cat e)"' || true)
check "control: the same copy without --no-clipboard lands" clip_wait clipboard 'copied'

# The policy: `clipboard-paste text` in the user's file answers text reads at any time (even in
# pipes mode), images still not; in a project's file it is refused before anything starts.
mkdir -p "$H/.config/blaude"
echo "clipboard-paste text" >"$H/.config/blaude/policy"
chown -R $NOBODY:$NOBODY "$H/.config"
inside=$(sb_nobody /usr/bin -- 'xclip -selection clipboard -o 2>e; echo " text=$? $(cat e)"
  xclip -selection clipboard -t image/png -o >/dev/null 2>e; echo "png=$? $(cat e)"' || true)
check "clipboard-paste text: a text read is answered without the key" grep -q '^copied text=0' <<<"$inside"
check "... an image read is still refused" grep -q '^png=1 ' <<<"$inside"
rm "$H/.config/blaude/policy"
echo "clipboard-paste text" >"$WS/.blaude"
out=$(cd "$WS" && env -i HOME="$H" PATH=/usr/bin:/bin "${SB_ENV[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$BLAUDE" --exec true </dev/null 2>&1; echo "rc=$?")
check "clipboard-paste in a project's policy is refused" grep -q "clipboard-paste belongs in your own policy" <<<"$out"
check "... and nothing ran" grep -q "^rc=1$" <<<"$out"
rm "$WS/.blaude"
finish
