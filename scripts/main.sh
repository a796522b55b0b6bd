#!/usr/bin/env bash
# The README's main command: installs the Debian packages, builds, and runs
# the main job on the embedded default — the Kimi-K3 MI355X ATOM example
# recipe. Today that is the compiler front end over the example (the
# runtime that executes the plan against arecipe-sim lands with its issue).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${ARECIPE_BUILD_DIR:-$root/build}
recipe=examples/kimik3-mi355x-atom.arecipe
out=${ARECIPE_OUT:-$root/out/main}
mkdir -p "$out"
cd "$root"

echo "== arecipec $recipe --syntax-only"
"$build/bin/arecipec" "$recipe" --syntax-only
echo "ok: $recipe parses"

echo "== arecipec $recipe --emit ast -o $out/kimik3.ast.json"
"$build/bin/arecipec" "$recipe" --emit ast -o "$out/kimik3.ast.json"
python3 - "$out/kimik3.ast.json" <<'PY'
import json, sys, collections
ast = json.load(open(sys.argv[1]))
kinds = collections.Counter()
def walk(n):
    if isinstance(n, dict):
        if "kind" in n: kinds[n["kind"]] += 1
        for v in n.values(): walk(v)
    elif isinstance(n, list):
        for v in n: walk(v)
walk(ast)
print(f"syntax tree: {sum(kinds.values())} nodes")
for k, c in sorted(kinds.items()):
    print(f"  {k:<24} {c}")
PY
echo "wrote $out/kimik3.ast.json"
