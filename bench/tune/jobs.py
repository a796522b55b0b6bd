#!/usr/bin/env python3
"""arecipe-tune --jobs: wall time of one search measured one cell at a time
against N at a time, on the Kimi-K3 example in simulation.

  python3 bench/tune/jobs.py [--build build] [--out /tmp/tune-jobs]
      [--jobs 1,2,4] [--conc 4] [--window 60] [--time-scale 200]
      [--budget-cells 24] [--executor local|slurm]

For each N of --jobs, in a fresh OUT/jobs-N: the grid of
bench/tune/kimik3-mi355x-atom-tune.arecipe at --conc within --budget-cells
(every cell a real arecipe-run of arecipe-sim), with --jobs N. Prints, per
N, the cells measured, the wall seconds and the speed-up over the first N,
then whether every run chose the same configurations (it need not: each
run measures on its own, and the simulator's figures move with the
machine's load; the same measurements always give the same choice, see
test/Tune/jobs.test). It asserts nothing (bench/README.md).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
for name, default in [("build", "build"), ("out", "/tmp/tune-jobs"), ("jobs", "1,2,4"),
                      ("conc", "4"), ("window", "60"), ("time-scale", "200"),
                      ("budget-cells", "24"), ("executor", "local")]:
    ap.add_argument("--" + name, default=default)
a = ap.parse_args()

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = a.build if os.path.isabs(a.build) else os.path.join(root, a.build)
tune = os.path.join(build, "bin", "arecipe-tune")
space = os.path.join(root, "bench", "tune", "kimik3-mi355x-atom-tune.arecipe")

rows, choices = [], {}
for n in [int(j) for j in a.jobs.split(",")]:
    out = os.path.join(a.out, f"jobs-{n}")
    shutil.rmtree(out, ignore_errors=True)
    start = time.monotonic()
    p = subprocess.run([tune, space, "-I", os.path.join(root, "examples"), "--out", out,
                        "--strategy", "grid", "--conc", a.conc, "--window", a.window,
                        "--time-scale", a.time_scale, "--budget-cells", a.budget_cells,
                        "--executor", a.executor, "--jobs", str(n)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"--jobs {n}: arecipe-tune exited {p.returncode}:\n{p.stderr[-2000:]}")
    measured = int(re.search(r"\((\d+) measured now\)", p.stdout).group(1))
    t = json.load(open(os.path.join(out, "tune.json")))
    choices[n] = [(c["conc"], c.get("changes")) for c in t["cells"]]
    rows.append((n, measured, wall))

print(f"grid of {os.path.basename(space)} at conc {a.conc}, window {a.window} s, "
      f"time scale {a.time_scale}, budget {a.budget_cells} cells, executor {a.executor}")
print("| --jobs | cells measured | wall s | speed-up |")
print("|---|---|---|---|")
for n, measured, wall in rows:
    print(f"| {n} | {measured} | {wall:.1f} | {rows[0][2] / wall:.2f}x |")
print("same choice in every run:", len({json.dumps(c) for c in choices.values()}) == 1)
