#!/usr/bin/env python3
"""Prints 'virtual True' when every measurement of a tune's --out directory
was taken on the virtual clock: its key ends in sim-virtual, its evals/ file
says sim_clock virtual, and the cell summary of an ok run has time_basis
virtual. Otherwise prints what was not, and 'virtual False'."""
import glob
import json
import os
import sys

out = sys.argv[1]
ok, seen = True, 0
for path in sorted(glob.glob(os.path.join(out, "evals", "*.json"))):
    e = json.load(open(path))
    seen += 1
    if not e["key"].endswith("-sim-virtual") or e.get("sim_clock") != "virtual":
        print(f"{e['key']}: sim_clock {e.get('sim_clock')}")
        ok = False
    if e["status"] != "ok":
        continue
    summaries = glob.glob(os.path.join(out, e["run"], "cells", "*", "summary.json"))
    bases = [json.load(open(s))["arecipe_run"].get("time_basis") for s in summaries]
    if not bases or any(b != "virtual" for b in bases):
        print(f"{e['key']}: time_basis {bases}")
        ok = False
print("virtual", ok and seen > 0)
