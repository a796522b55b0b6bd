#!/usr/bin/env bash
# Formats every .arecipe file of examples/ and std/ in place with arecipe-fmt
# (docs/formatting.md), or with --check only reports: a unified diff for
# each file that is not formatted, and exit status 1 if there is one. CI runs
# the --check form (the ctest `format-check`); after merging branches that
# touched recipes, `bash scripts/format.sh` is the one command that formats
# the tree again.
#
#   bash scripts/format.sh [--check] [--root DIR] [--fmt PATH]
#
# --root: the tree whose examples/ and std/ are formatted (default: this
# repository); --fmt: the arecipe-fmt to use (default: the build's, built
# first if it is missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tree=$root
fmt=""
mode=(-i)
while (($#)); do
  case $1 in
    --check) mode=(--check) ;;
    --root) tree=$2; shift ;;
    --fmt) fmt=$2; shift ;;
    *) echo "format.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $fmt ]]; then
  build=${ARECIPE_BUILD_DIR:-$root/build}
  fmt=$build/bin/arecipe-fmt
  if [[ ! -x $fmt ]]; then
    bash "$root/scripts/build.sh" >/dev/null
  fi
fi
fmt=$(cd "$(dirname "$fmt")" && pwd)/$(basename "$fmt")
[[ $fmt == */* && -x $fmt ]] || fmt=$(command -v "$(basename "$fmt")")
cd "$tree"
files=()
for dir in examples std; do
  if [[ -d $dir ]]; then
    while IFS= read -r -d '' f; do files+=("$f"); done \
      < <(find "$dir" -name '*.arecipe' -type f -print0 | sort -z)
  fi
done
if ((${#files[@]} == 0)); then
  echo "format.sh: no .arecipe files under $tree/examples or $tree/std" >&2
  exit 2
fi
"$fmt" "${mode[@]}" "${files[@]}"
