#!/usr/bin/env python3
"""Prints where each process of a multi-node cell ran, from its summary:
node rank, role, whether it serves the API or runs headless, and whether
the ranks ran on different nodes (node names vary with the scheduler's
choice, so only their difference is printed).

usage: check-ranks.py CELL_DIR PLAN
"""
import json, sys

cell_dir, plan_path = sys.argv[1], sys.argv[2]
with open(f"{cell_dir}/summary.json") as f:
    summary = json.load(f)
cell = summary["cell"]
with open(plan_path) as f:
    plan = json.load(f)
spec = {p["name"]: p for c in plan["cells"] if c["id"] == cell for p in c["processes"]}
nodes = {}
for name, p in summary["arecipe_run"]["processes"].items():
    argv = p["command"]
    what = "headless" if "--headless" in argv else "serves the API" if spec[name]["serves_api"] else "-"
    master = argv[argv.index("--master-addr") + 1] if "--master-addr" in argv else "none"
    print(f"{name}: node rank {p['node_rank']}, role {spec[name]['role']}, {what}, "
          f"master address {master}, {p['exit']}")
    nodes[p["node_rank"]] = p["node"]
print("nodes:", "different" if len(set(nodes.values())) == len(nodes) else "SAME", len(nodes))
