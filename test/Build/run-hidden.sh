#!/usr/bin/env bash
# Runs a command with the source and build trees out of reach: in a private
# mount namespace (as root, or as root of a new user namespace), an empty
# tmpfs is mounted over each, so nothing they hold can be read; the mounts
# vanish with the namespace. Used by the install and package tests.
#
#   run-hidden.sh SOURCE_DIR BUILD_DIR COMMAND [ARGS...]
#
# Exits 77 (ctest: skipped) when no mount namespace can be created.
set -euo pipefail
src=$1 build=$2
shift 2
if unshare -m true 2>/dev/null; then
  ns=(unshare -m)
elif unshare -rm true 2>/dev/null; then
  ns=(unshare -rm)
else
  echo "run-hidden: SKIPPED: cannot create a mount namespace here (unshare -m / -rm)" >&2
  exit 77
fi
# shellcheck disable=SC2016 # the script expands its own arguments
exec "${ns[@]}" bash -c '
set -euo pipefail
src=$1 build=$2
shift 2
mount -t tmpfs -o size=1m,mode=0755 arecipe-hidden "$src"
hidden=$src
case $build/ in
  "$src"/*) ;;
  *) mount -t tmpfs -o size=1m,mode=0755 arecipe-hidden "$build"; hidden="$src and $build" ;;
esac
if [[ -n $(ls -A "$src") || -e $build/bin ]]; then
  echo "run-hidden: the source or build tree is still visible" >&2
  exit 1
fi
echo "source and build trees hidden (an empty tmpfs over $hidden)"
exec "$@"' run-hidden "$src" "$build" "$@"
