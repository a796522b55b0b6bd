#!/usr/bin/env bash
# ctest install-relocatable: `cmake --install` gives a tree that works with
# the source and build trees out of reach (docs/build.md#install).
#
#   install-relocatable.sh SOURCE_DIR BUILD_DIR
#
# 1. Installs into a throwaway prefix and checks the layout.
# 2. Fails if any installed file (binaries included) contains the path of
#    the source or the build tree.
# 3. Copies the prefix to another directory and deletes the original, so no
#    path of the first install can be used either.
# 4. With an empty tmpfs over the source and build trees (run-hidden.sh),
#    runs check-installed-tree.sh on the copy: the installed arecipec
#    compiles the installed example (byte-identical plan),
#    `arecipe-run --simulate --dry-run` runs, arecipe-sim loads its profiles.
# Exits 77 (ctest: skipped) only when no mount namespace can be created.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=installed-tree-test.sh
source "$(dirname "$0")/installed-tree-test.sh" install-relocatable "$1" "$2"

cmake --install "$build" --prefix "$tmp/first" >/dev/null

for f in bin/arecipec bin/arecipe-run bin/arecipe-sim bin/arecipe-load \
         share/arecipe/std/engines/atom.arecipe share/arecipe/std/hardware/mi355x.arecipe \
         share/arecipe/sim/hardware/mi355x.json \
         share/arecipe/examples/kimik3-mi355x-atom.arecipe share/doc/arecipe/README.md; do
  [[ -f $tmp/first/$f ]] || fail "not installed: <prefix>/$f"
done
for f in arecipec arecipe-run arecipe-sim arecipe-load; do
  [[ -x $tmp/first/bin/$f ]] || fail "<prefix>/bin/$f is not executable"
done
echo "layout: bin/ has the 4 tools; share/arecipe/ has std/ (with sim/) and examples/"

if hits=$(grep -rlF -e "$src" -e "$build" "$tmp/first"); then
  fail "installed files contain a source or build path:"$'\n'"$hits"
fi
echo "no installed file contains $src or $build"

cp -a "$tmp/first" "$tmp/moved"
rm -rf "$tmp/first"

check_installed_tree "$tmp/moved"
echo "install-relocatable: ok"
