#!/usr/bin/env python3
"""Writes a one-cell plan derived from a test plan: the cell CELL alone, with
its client's concurrency or its fixed workload's fields overridden.

usage: one-cell-plan.py --plan BASE --cell CELL [--set FIELD=INT]... -o OUT
"""
import argparse, json

p = argparse.ArgumentParser()
p.add_argument("--plan", required=True)
p.add_argument("--cell", required=True)
p.add_argument("--set", action="append", default=[])
p.add_argument("-o", required=True)
a = p.parse_args()

plan = json.load(open(a.plan))
cell = next(c for c in plan["cells"] if c["id"] == a.cell)
plan["cells"] = [cell]
for kv in a.set:
    k, v = kv.split("=", 1)
    if k == "concurrency":
        cell["client"]["concurrency"] = int(v)
    else:
        cell["client"]["workload"][k] = int(v)
json.dump(plan, open(a.o, "w"), indent=1)
