#!/usr/bin/env bash
# ctest package-deb: `cpack -G DEB` builds a package that installs and runs
# the example (docs/build.md#install).
#
#   package-deb.sh SOURCE_DIR BUILD_DIR
#
# 1. Builds the .deb with cpack into a throwaway directory and checks its
#    control fields and that it holds the four tools, std/ and the examples.
# 2. Dependencies: every shared library each packaged binary needs
#    (readelf NEEDED) belongs to a package the .deb's Depends names, and
#    `apt-get install --simulate` resolves the package against this
#    system's package database without installing anything.
# 3. Installs it with dpkg into a throwaway root (its own dpkg database;
#    `--force-depends` because that root has no other packages -- step 2
#    checked them against the real system). `dpkg -i` into the real system
#    is not done: it would change the machine the tests run on.
# 4. With an empty tmpfs over the source and build trees, runs the
#    installed tools from that root (check-installed-tree.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=installed-tree-test.sh
source "$(dirname "$0")/installed-tree-test.sh" package-deb "$1" "$2"

(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack -G DEB failed: $(tail -20 "$tmp/cpack.log")"
debs=("$tmp"/pkg/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "cpack made no single .deb: ${debs[*]}"
deb=${debs[0]}
echo "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == arecipe ]] || fail "Package: $(field Package)"
[[ $(field Architecture) == "$(dpkg --print-architecture)" ]] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
[[ -n $depends ]] || fail "the package declares no Depends"
echo "Depends: $depends"
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/contents"
for f in ./usr/bin/arecipec ./usr/bin/arecipe-run ./usr/bin/arecipe-sim ./usr/bin/arecipe-load \
         ./usr/share/arecipe/std/engines/atom.arecipe ./usr/share/arecipe/sim/hardware/mi355x.json \
         ./usr/share/arecipe/examples/kimik3-mi355x-atom.arecipe; do
  grep -qxF "$f" "$tmp/contents" || fail "the package does not hold $f"
done

mkdir -p "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
declared=" $(echo "$depends" | sed -E 's/\([^)]*\)//g; s/[,|]/ /g') "
for bin in "$tmp"/x/usr/bin/*; do
  for soname in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    # awk reads all of its input (no early `exit`): ldconfig killed by
    # SIGPIPE would fail the pipeline under pipefail, silently.
    path=$(ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64|64bit/ && !p {p = $NF} END {print p}')
    [[ -z $path ]] && path=$(ldconfig -p | awk -v s="$soname" '$1 == s && !p {p = $NF} END {print p}')
    [[ -n $path ]] || fail "$(basename "$bin") needs $soname, which this system does not have"
    real=$(readlink -f "$path")
    pkg=""
    for candidate in "$path" "$real" "${path/#\/usr\/lib/\/lib}" "${real/#\/usr\/lib/\/lib}" \
                     "${path/#\/lib/\/usr\/lib}" "${real/#\/lib/\/usr\/lib}"; do
      pkg=$(dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p') && [[ -n $pkg ]] && break
    done
    [[ -n $pkg ]] || fail "no package owns $path ($soname, needed by $(basename "$bin"))"
    [[ $declared == *" $pkg "* ]] ||
      fail "$(basename "$bin") needs $soname from $pkg, which Depends does not name"
  done
done
echo "every NEEDED library of the 4 binaries comes from a package in Depends"

apt-get install --simulate "$deb" >"$tmp/apt.log" 2>&1 ||
  fail "apt-get cannot resolve the package's dependencies: $(tail -20 "$tmp/apt.log")"
echo "apt-get install --simulate: $(grep -E '^[0-9]+ upgraded' "$tmp/apt.log")"

root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
  fail "dpkg -i into a throwaway root failed: $(tail -20 "$tmp/dpkg.log")"
[[ $(dpkg-query --root="$root" -W -f='${Status}' arecipe) == "install ok installed" ]] ||
  fail "dpkg does not list arecipe as installed in the throwaway root"
echo "dpkg -i into a throwaway root: arecipe $(dpkg-query --root="$root" -W -f='${Version}' arecipe) installed"

check_installed_tree "$root/usr"
echo "package-deb: ok"
