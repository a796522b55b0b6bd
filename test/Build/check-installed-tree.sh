#!/usr/bin/env bash
# Runs an installed arecipe tree, under `env -i` (no PATH into the build),
# and fails unless every tool finds its data relative to itself. Run inside
# run-hidden.sh, so the source and build trees are out of reach.
#
#   check-installed-tree.sh PREFIX REFERENCE_PLAN WORKDIR
#
# PREFIX holds bin/ and share/arecipe/; REFERENCE_PLAN is the build tree's
# plan of examples/kimik3-mi355x-atom.arecipe, compiled from examples/.
set -euo pipefail
p=$1 reference=$2 tmp=$3
fail() { echo "check-installed-tree: FAIL: $*" >&2; exit 1; }
run() { env -i PATH=/usr/bin:/bin HOME="$tmp" "$@"; }
cd "$p/share/arecipe/examples"

run "$p/bin/arecipec" kimik3-mi355x-atom.arecipe --emit plan -o "$tmp/plan.installed.json"
cmp "$reference" "$tmp/plan.installed.json" ||
  fail "the installed arecipec's plan differs from the build tree's"
echo "installed arecipec: kimik3-mi355x-atom.arecipe -> plan, byte-identical to the build tree's"

for input in "$tmp/plan.installed.json" kimik3-mi355x-atom.arecipe; do
  run "$p/bin/arecipe-run" --simulate --dry-run --out "$tmp/results" "$input" >"$tmp/dry-run.txt" ||
    fail "arecipe-run --simulate --dry-run $input failed: $(tail -5 "$tmp/dry-run.txt")"
  grep -q "^simulated: engines replaced by $p/bin/arecipe-sim," "$tmp/dry-run.txt" ||
    fail "arecipe-run does not use the installed arecipe-sim: $(head -3 "$tmp/dry-run.txt")"
  cells=$(grep -c '^cell ' "$tmp/dry-run.txt") || cells=0
  [[ $cells == 11 ]] || fail "arecipe-run --dry-run $input shows $cells cells, not 11"
  echo "installed arecipe-run --simulate --dry-run $(basename "$input"): 11 cells, simulator $p/bin/arecipe-sim"
done

# arecipe-sim: the default hardware profile (mi355x) loads from the tree; the
# unknown model then stops it, naming where it looked.
set +e
msg=$(run "$p/bin/arecipe-sim" --sim-model no-such-model -- \
  python -m atom.entrypoints.openai_server --model m --server-port 0 2>&1)
status=$?
set -e
want="(looked for $p/share/arecipe/sim/models/no-such-model.json)"
[[ $status == 2 && $msg == *"$want"* ]] ||
  fail "arecipe-sim did not look for its profiles in the tree (exit $status): $msg"
echo "installed arecipe-sim: profiles from $p/share/arecipe/sim"

run "$p/bin/arecipe-load" --help >/dev/null || fail "arecipe-load --help failed"
echo "installed arecipe-load: starts"

# Control: the same compiler without share/ beside it finds no std/, so what
# it found above came from the tree and from nothing compiled in.
mkdir -p "$tmp/bare/bin"
cp "$p/bin/arecipec" "$tmp/bare/bin/"
set +e
msg=$(run "$tmp/bare/bin/arecipec" kimik3-mi355x-atom.arecipe --emit plan -o /dev/null 2>&1)
status=$?
set -e
[[ $status == 1 && $msg == *"cannot find import 'std/hardware/mi355x'"* ]] ||
  fail "arecipec copied without share/ beside it still compiled (exit $status): $msg"
echo "control: arecipec copied without share/ cannot find std/ (exit 1)"
