#!/usr/bin/env python3
"""Prints a plan in the line format of the `--emit sh` launcher's print mode.

usage: plan-to-print.py PLAN.json — one block per cell: `cell ID`, per
process `process NAME`, `argv WORD` per argv element, `env NAME=VALUE` per
variable (sorted), `gpus I,J,...`, then `client TARGET CONC KIND`. A test
diffs this with `launch.sh --print`, so the launcher runs what the plan says.
"""
import json
import sys

plan = json.load(open(sys.argv[1]))
for cell in plan["cells"]:
    print(f"cell {cell['id']}")
    for proc in cell["processes"]:
        print(f"process {proc['name']}")
        for word in proc["argv"]:
            print(f"argv {word}")
        for name, value in sorted(proc["env"].items()):
            print(f"env {name}={value}")
        print("gpus " + ",".join(str(g) for g in proc["gpus"] or []))
    client = cell["client"]
    print(f"client {client['target']} {client['concurrency']} {client['workload']['kind']}")
