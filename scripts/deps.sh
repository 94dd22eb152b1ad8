#!/usr/bin/env bash
# Installs the system packages blaude needs to build (and, with `test`, to run its tests).
# apt-get as root, else through sudo, else prints the exact command and stops. dnf on Fedora.
# Usage: scripts/deps.sh build|test
set -euo pipefail
what=${1:-build}

deb_build=(g++ cmake make pkg-config libuv1-dev libutf8proc-dev libspdlog-dev libseccomp-dev
           nlohmann-json3-dev catch2 bubblewrap)
deb_test=(tmux xclip xsel xvfb xterm kitty asciinema util-linux procps clang libclang-rt-14-dev nodejs npm
          python3 xauth meson libcap-dev patch git
          curl openssl x11-utils dbus-daemon dbus-bin iproute2  # the network tests
          lintian rpm dpkg-dev fish zsh bash-completion man-db bsdextrautils openssh-client
          keyutils gnupg  # keyctl: test_escapes_ipc; gpg, gpgconf, gpg-agent: test_escapes_gpg
          passt  # pasta: test_net_own_namespace (the .deb recommends it)
          openssh-server  # sshd: test_ssh_agent's git push
          strace gdb  # test_escapes_syscalls: debuggers keep working under the syscall filter
          socat)  # the relay of Claude Code's own command sandbox: test_sandbox_nested_claude_real
rpm_build=(gcc-c++ cmake make pkgconf-pkg-config libuv-devel utf8proc-devel spdlog-devel libseccomp-devel
           json-devel catch2-devel bubblewrap)
rpm_test=(tmux xclip xsel xorg-x11-server-Xvfb xterm kitty asciinema util-linux procps-ng clang compiler-rt
          nodejs npm python3 meson libcap-devel patch git
          curl openssl xdpyinfo dbus-daemon dbus-tools iproute
          rpm-build fish zsh bash-completion man-db openssh-clients openssh-server keyutils gnupg2 passt
          strace gdb)

run_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then sudo "$@"
  else
    echo "blaude: missing system packages; install them with:" >&2
    echo "  sudo $*" >&2
    exit 1
  fi
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  pkgs=("${deb_build[@]}")
  [ "$what" = test ] && pkgs+=("${deb_test[@]}")
  missing=()
  for p in "${pkgs[@]}"; do
    # libclang-rt-14-dev only exists where clang 14 is the default (Debian 12); skip elsewhere.
    if [ "$p" = libclang-rt-14-dev ] && ! apt-cache show "$p" >/dev/null 2>&1; then continue; fi
    # Node.js from elsewhere (nodesource bundles npm): the commands are what matters.
    if [ "$p" = nodejs ] || [ "$p" = npm ]; then command -v "${p/nodejs/node}" >/dev/null && continue; fi
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "blaude: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  run_as_root apt-get update -q >/dev/null
  run_as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
elif command -v dnf >/dev/null 2>&1; then
  pkgs=("${rpm_build[@]}")
  [ "$what" = test ] && pkgs+=("${rpm_test[@]}")
  missing=()
  for p in "${pkgs[@]}"; do rpm -q "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && exit 0
  run_as_root dnf install -y "${missing[@]}"
else
  echo "blaude: unknown package manager; install by hand: ${deb_build[*]}" >&2
  exit 1
fi
