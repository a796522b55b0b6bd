#!/usr/bin/env bash
# Byte-for-byte record of what the compiler writes for every recipe in the
# repository, to prove that a change to the plan writer (or to anything the
# plan passes through) left the output as it was.
#
#   bench/compile/plan-bytes.sh save  DIR [ARECIPEC]   # before the change
#   bench/compile/plan-bytes.sh check DIR [ARECIPEC]   # after: cmp with DIR
#
# Every *.arecipe under examples/, test/, bench/ and std/ is compiled with
# --emit plan (bench and eval mode) and --emit sh; stdout, stderr and the
# exit status of each run are kept, so recipes that fail to compile are
# covered too (their diagnostics must not change either). ARECIPEC defaults
# to build/bin/arecipec. check prints each file that differs and exits 1 if
# any does.
set -euo pipefail

usage() { echo "usage: $0 save|check DIR [ARECIPEC]" >&2; exit 2; }
[ $# -ge 2 ] || usage
Action=$1 Dir=$2
Root=$(cd "$(dirname "$0")/../.." && pwd)
Arecipec=$(realpath "${3:-$Root/build/bin/arecipec}")
case $Action in save|check) ;; *) usage ;; esac
[ -x "$Arecipec" ] || { echo "$0: no compiler at $Arecipec" >&2; exit 2; }

Out=$(mktemp -d)
trap 'rm -rf "$Out"' EXIT

cd "$Root"
# Relative paths, so the diagnostics' file names do not depend on where the
# worktree is.
find examples test bench std -name '*.arecipe' -type f | LC_ALL=C sort >"$Out/list"
while IFS= read -r F; do
  Key=${F//\//__}
  for Run in "plan --mode bench" "plan --mode eval" "sh"; do
    Tag=${Run// /_}
    # shellcheck disable=SC2086
    set +e
    "$Arecipec" "$F" -I examples --emit $Run -o - \
      >"$Out/$Key.$Tag.out" 2>"$Out/$Key.$Tag.err"
    echo $? >"$Out/$Key.$Tag.rc"
    set -e
  done
done <"$Out/list"
N=$(wc -l <"$Out/list")
Plans=$(grep -lx 0 "$Out"/*.plan_--mode_bench.rc | wc -l)

if [ "$Action" = save ]; then
  rm -rf "$Dir" && mkdir -p "$Dir" && cp -a "$Out/." "$Dir/"
  echo "saved $N recipes ($Plans compile to a plan) into $Dir"
  exit 0
fi

Bad=0
if ! cmp -s "$Out/list" "$Dir/list"; then
  echo "the set of recipes differs from $Dir (save again)"; Bad=1
fi
for G in "$Dir"/*.out "$Dir"/*.err "$Dir"/*.rc; do
  B=$(basename "$G")
  if ! cmp -s "$G" "$Out/$B"; then echo "differs: $B"; Bad=$((Bad + 1)); fi
done
echo "checked $N recipes ($Plans compile to a plan), $(ls "$Dir" | wc -l) files: $Bad differ"
[ "$Bad" = 0 ]
