#!/usr/bin/env bash
# A monorepo-shaped test tree: one top-level git repo holding N nested repos, with about
# FILES files in all (default 20,000) whatever N is, so a sweep over N measures the cost of a
# nested repo and not of more files. Every repo is made by `git init` (hooks with samples,
# config, info/, objects/, refs/) and has one commit, as real checkouts do.
# Usage: bench/gen_tree.sh DIR N [FILES]
#   layout: DIR/.git, DIR/src/dK/x/ (sources), DIR/node_modules/mK/lib/ (the bulk),
#           DIR/packages/pI/ (nested repos, I = 1..N, 20 source files each)
set -euo pipefail
DIR=${1:?usage: gen_tree.sh DIR N [FILES]}
N=${2:?usage: gen_tree.sh DIR N [FILES]}
FILES=${3:-20000}
[ ! -e "$DIR" ] || { echo "gen_tree.sh: $DIR exists; refusing to touch it" >&2; exit 1; }
mkdir -p "$DIR"

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench \
  GIT_COMMITTER_EMAIL=bench@example.invalid GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent
mkrepo() {  # mkrepo DIR: git init + one commit of what is there
  git -C "$1" init -q -b main
  git -C "$1" add -A
  git -C "$1" commit -q --allow-empty -m init
}
files_in() {  # files_in DIR COUNT EXT
  mkdir -p "$1"
  (cd "$1" && seq -f "f%g.$3" 1 "$2" | xargs touch)
}

for i in $(seq 1 "$N"); do
  files_in "$DIR/packages/p$i/src" 20 js
  echo '{"name":"p'"$i"'"}' >"$DIR/packages/p$i/package.json"
  mkrepo "$DIR/packages/p$i"
done
# What git made counts towards FILES too.
have=$(find "$DIR" -type f | wc -l)
left=$((FILES - have - 1))
src=$((left / 10))
for d in $(seq 1 $(((src + 99) / 100))); do
  n=$((src - (d - 1) * 100)); [ $n -gt 100 ] && n=100
  files_in "$DIR/src/d$d/x" $n c
done
mods=$((left - src))
for m in $(seq 1 $(((mods + 99) / 100))); do
  n=$((mods - (m - 1) * 100)); [ $n -gt 100 ] && n=100
  files_in "$DIR/node_modules/m$m/lib" $n js
done
printf 'node_modules/\npackages/\n' >"$DIR/.gitignore"
git -C "$DIR" init -q -b main
git -C "$DIR" add .gitignore src
git -C "$DIR" commit -q -m init
echo "gen_tree.sh: $DIR: $(find "$DIR" -type f | wc -l) files, $N nested repos"
