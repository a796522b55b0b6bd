#!/usr/bin/env python3
"""arecipe-tune against the grid, on the Kimi-K3 example in simulation.

  python3 bench/tune/acceptance.py [--build build] [--out /tmp/tune-acc]
      [--conc 4,16,32] [--scenario FIXED | --scenario recipe] [--window W]
      [--sim-clock auto] [--time-scale 200] [--seed 1] [--jobs 1]

By default the recipe's agentic scenario is replaced by the fixed 8k/1k one
InferenceX runs (`fixed(isl = 8192, osl = 1024, ratio = 0.8)`), which the
simulator's lock-step virtual clock measures exactly (docs/tuning.md,
"Clock"); `--scenario recipe` keeps the recipe's agentic scenario (wall
clock, `--window` seconds, default 240).

1. The grid: every combination of the search space, over the full window
   (`arecipe-tune --strategy grid`); kept in OUT/grid and reused when run
   again.
2. The tune, twice with one seed (OUT/tune-a, OUT/tune-b), with a budget of
   25 % of the grid's measured cells.
3. Per concurrency: the grid's optimum (the best measurement that meets the
   SLA) and the grid's own measurement of the configuration the tune chose
   (the same cell digest, window and time scale name the same file), so the
   distance is not blurred by measuring the chosen cell a second time.
4. Whether the two tunes wrote byte-identical patches.
5. The patched recipe re-run with arecipe-run, and its figure against the
   tune's.
6. The noise floor: the recipe's own configuration measured three times.

It prints every figure; it asserts nothing (bench/README.md).
"""
import argparse
import json
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build", help="relative to the source tree, or absolute")
ap.add_argument("--out", default="/tmp/tune-acc")
ap.add_argument("--conc", default="4,16,32")
ap.add_argument("--scenario", default="fixed(isl = 8192, osl = 1024, ratio = 0.8)")
ap.add_argument("--window", default=None)
ap.add_argument("--sim-clock", default="auto")
ap.add_argument("--jobs", default="1")
ap.add_argument("--time-scale", default="200")
ap.add_argument("--seed", default="1")
ap.add_argument("--port", default="18733")
a = ap.parse_args()

src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# From the source tree, with relative paths: the plan names the recipe's
# file as found, and a measurement's key is the digest of its cell and plan.
os.chdir(src)
tune_file = os.path.join("bench", "tune", "kimik3-mi355x-atom-tune.arecipe")
tune = os.path.abspath(os.path.join(a.build, "bin", "arecipe-tune"))
run = os.path.abspath(os.path.join(a.build, "bin", "arecipe-run"))
agentic = a.scenario == "recipe"
if agentic and a.window is None:
    a.window = "240"
common = ["-I", "examples", "--conc", a.conc, "--time-scale", a.time_scale,
          "--set", "port=" + a.port, "--sim-clock", a.sim_clock, "--jobs", a.jobs]
if a.window is not None:
    common += ["--window", a.window]
# What arecipe-run needs to measure a cell as the tune did.
run_extra = ["--set", "port=" + a.port, "--time-scale", a.time_scale]
if agentic:
    run_extra += ["--set", f"client.duration={a.window}s"]
else:
    common += ["--set", "scenario=" + a.scenario]
    run_extra += ["--set", "scenario=" + a.scenario]
    if a.window is not None:
        sys.exit("--window: a fixed scenario is measured over the cells' own num_prompts here")
    if a.sim_clock != "wall":
        run_extra += ["--sim-clock", "virtual"]


def sh(argv, **kw):
    print("$", " ".join(argv), flush=True)
    return subprocess.run(argv, check=True, stderr=subprocess.DEVNULL, **kw)


sh([tune, tune_file, "--strategy", "grid", "--out", a.out + "/grid"] + common,
   stdout=subprocess.DEVNULL)
grid = json.load(open(a.out + "/grid/tune.json"))
budget = grid["cells_used"] // 4
for d in ("tune-a", "tune-b"):
    sh([tune, tune_file, "--out", f"{a.out}/{d}", "--seed", a.seed,
        "--budget-cells", str(budget)] + common, stdout=subprocess.DEVNULL)
ta = json.load(open(a.out + "/tune-a/tune.json"))
tb = json.load(open(a.out + "/tune-b/tune.json"))

print(f"\ngrid: {grid['cells_used']} cells measured; tune budget {budget} (25 %)")
print(f"tune a: {ta['cells_used']} cells used; tune b: {tb['cells_used']} cells used")
obj = grid["objective"].split()[1]
print(f"objective: {grid['objective']}")
for g, t in zip(grid["cells"], ta["cells"]):
    best = [f for f in g["full_window"] if f.get("meets_sla")]
    if not best:
        print(f"conc {g['conc']}: grid: nothing meets the SLA")
        continue
    opt = best[0]["metrics"][obj]  # the ranked list's first that meets the SLA
    if "winner" not in t:
        print(f"conc {g['conc']}: tune: {t.get('note')}")
        continue
    key = t["winner"]["eval"]
    gp = os.path.join(a.out, "grid", key)
    in_grid = json.load(open(gp))["metrics"].get(obj) if os.path.exists(gp) else None
    own = t["winner"]["metrics"][obj]
    # The winner is the best full-window measurement that meets the SLA
    # (docs/tuning.md, "Strategy"): say whether its measurement does.
    meets = any(f.get("eval") == key and f.get("meets_sla") for f in t["full_window"])
    print(f"conc {g['conc']}: the tune's winner meets the SLA ({t.get('sla')}): {meets}")
    line = (f"conc {g['conc']}: grid optimum {opt:.1f} {best[0]['values']}; tune chose "
            f"{t['winner']['values']} (its own measurement {own:.1f}")
    if in_grid is not None:
        line += f", the grid's {in_grid:.1f}: {100 * (opt - in_grid) / opt:.1f} % below the optimum)"
    else:
        line += ", not in the grid)"
    print(line)
pa = open(a.out + "/tune-a/recipe.patch", "rb").read()
pb = open(a.out + "/tune-b/recipe.patch", "rb").read()
print("patches of the two tunes with seed", a.seed, "byte-identical:", pa == pb)

# The patched recipe, re-run.
rerun = a.out + "/rerun"
subprocess.run(["rm", "-rf", rerun], check=True)
sh([run, a.out + "/tune-a/kimik3-mi355x-atom.arecipe", "--simulate"] + run_extra + [
    "--cells", ",".join("c" + c for c in a.conc.split(",")), "--out", rerun,
    "--progress", "plain"], stdout=subprocess.DEVNULL)
for t in ta["cells"]:
    if "winner" not in t:
        continue
    s = json.load(open(f"{rerun}/cells/c{t['conc']}/summary.json"))
    re_fig = s["request_metrics"]["throughput"]["per_gpu"]["total"]
    own = t["winner"]["metrics"][obj]
    print(f"conc {t['conc']}: patched recipe re-run {re_fig:.1f} vs tuned {own:.1f} "
          f"({100 * (re_fig - own) / own:+.1f} %)")

# The noise floor: the recipe's values, three more times.
for i in range(3):
    d = f"{a.out}/noise{i}"
    subprocess.run(["rm", "-rf", d], check=True)
    sh([run, os.path.join("examples", "kimik3-mi355x-atom.arecipe"), "--simulate"] + run_extra + [
        "--cells", ",".join("c" + c for c in a.conc.split(",")),
        "--out", d, "--progress", "plain"], stdout=subprocess.DEVNULL)
for c in a.conc.split(","):
    figs = [json.load(open(f"{a.out}/noise{i}/cells/c{c}/summary.json"))["request_metrics"]
            ["throughput"]["per_gpu"]["total"] for i in range(3)]
    print(f"conc {c}: the recipe's values measured 3 times: "
          + ", ".join(f"{f:.1f}" for f in figs)
          + f" (spread {100 * (max(figs) - min(figs)) / max(figs):.1f} %)")
