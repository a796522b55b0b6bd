# shellcheck shell=bash
# Sourced by install-relocatable.sh and package-deb.sh:
#
#   source installed-tree-test.sh NAME SOURCE_DIR BUILD_DIR
#
# sets src and build (physical paths), a throwaway directory tmp (removed on
# exit) and fail(); check_installed_tree PREFIX then runs
# check-installed-tree.sh on the tree at PREFIX with the source and build
# trees hidden (run-hidden.sh), against the build tree's own plan of the
# example.
set -euo pipefail
test_name=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
src=$(cd "$2" && pwd -P)
build=$(cd "$3" && pwd -P)
tmp=$(mktemp -d "/tmp/arecipe-$test_name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$test_name: FAIL: $*" >&2; exit 1; }

check_installed_tree() {
  # The reference: the build tree's compiler on the same file, named alike.
  (cd "$src/examples" && "$build/bin/arecipec" kimik3-mi355x-atom.arecipe --emit plan \
    -o "$tmp/plan.build.json")
  # Copies of the helpers, since the source tree is about to be hidden.
  cp "$here/run-hidden.sh" "$here/check-installed-tree.sh" "$tmp/"
  bash "$tmp/run-hidden.sh" "$src" "$build" \
    bash "$tmp/check-installed-tree.sh" "$1" "$tmp/plan.build.json" "$tmp"
}
