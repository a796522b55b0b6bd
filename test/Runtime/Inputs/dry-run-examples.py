#!/usr/bin/env python3
"""Compiles every recipe of the given directories (`*.arecipe`, not
recursive) to a plan with `arecipec --emit plan`, and has `arecipe-run
--dry-run` (and `--dry-run --simulate`) accept each plan. Prints one line per
recipe and mode, `accepted` or the failure with the tool's stderr, then a
count; exits 1 if any was refused or if no recipe was found.

usage: dry-run-examples.py --work DIR RECIPE_DIR...
"""
import argparse, glob, os, subprocess, sys

p = argparse.ArgumentParser()
p.add_argument("--work", required=True)
p.add_argument("dirs", nargs="+")
a = p.parse_args()
os.makedirs(a.work, exist_ok=True)

recipes = sorted(f for d in a.dirs for f in glob.glob(os.path.join(d, "*.arecipe")))
failed = 0
for recipe in recipes:
    name = os.path.relpath(recipe, os.path.dirname(os.path.commonpath(a.dirs)))
    plan = os.path.join(a.work, os.path.basename(recipe) + ".json")
    c = subprocess.run(["arecipec", "--emit", "plan", recipe, "-o", plan],
                       capture_output=True, text=True)
    if c.returncode != 0:
        failed += 1
        print(f"{name}: arecipec exited {c.returncode}\n{c.stderr}")
        continue
    for mode in (["--dry-run"], ["--dry-run", "--simulate"]):
        r = subprocess.run(["arecipe-run", *mode, "--out", os.path.join(a.work, "out"), plan],
                           capture_output=True, text=True)
        label = " ".join(mode)
        if r.returncode != 0 or "cell " not in r.stdout:
            failed += 1
            print(f"{name}: arecipe-run {label} exited {r.returncode}\n{r.stderr}")
        else:
            print(f"{name}: arecipe-run {label}: accepted")
print(f"{len(recipes)} recipes, {failed} refused")
sys.exit(1 if failed or not recipes else 0)
