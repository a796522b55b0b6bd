#!/usr/bin/env bash
# The README's main command: installs the Debian packages, builds, and runs
# the main job on the embedded default — the Kimi-K3 MI355X ATOM example
# recipe, all 11 cells, against the engine simulator:
#
#   arecipec  examples/kimik3-mi355x-atom.arecipe --emit plan   (compile)
#   arecipe-run --simulate plan.json                           (run)
#
# The recipe's measured window is one hour per cell; this demo shortens it
# to ARECIPE_WINDOW (default 10min, simulated) with `--set client.duration`
# and runs the simulator ARECIPE_TIME_SCALE (default 60) times faster than
# real time, so the whole sweep takes a few minutes. Results, the summary
# and report.html go to ARECIPE_OUT (default out/main).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${ARECIPE_BUILD_DIR:-$root/build}
recipe=examples/kimik3-mi355x-atom.arecipe
out=${ARECIPE_OUT:-$root/out/main}
window=${ARECIPE_WINDOW:-10min}
scale=${ARECIPE_TIME_SCALE:-60}
cd "$root"
mkdir -p "$out"

echo "== compile: arecipec $recipe --emit plan --set client.duration=$window"
"$build/bin/arecipec" "$recipe" --emit plan --set "client.duration=$window" -o "$out/plan.json"
"$build/bin/arecipec" "$recipe" --emit table
echo "plan: $out/plan.json"

echo "== run: arecipe-run --simulate --time-scale $scale --out $out/results $out/plan.json"
rm -rf "$out/results"
status=0
"$build/bin/arecipe-run" --simulate --time-scale "$scale" --out "$out/results" "$out/plan.json" || status=$?

echo
cat "$out/results/summary.md"
echo
if [[ -f $out/results/report.html ]]; then
  echo "report: $out/results/report.html"
fi
exit "$status"
