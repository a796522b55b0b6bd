#!/usr/bin/env python3
"""Prints a copy of BASE whose first cell has N extra worker processes, each
waiting for the previous one ('after'), the first for the server, listed in
reverse order (each process before the one it waits for: the order that
made the old check quadratic); with --cycle, the server also waits for the
last one, closing a cycle.

usage: make-chain-plan.py BASE N [--cycle]
"""
import json, sys

base, n = sys.argv[1], int(sys.argv[2])
plan = json.load(open(base))
cell = plan["cells"][0]
plan["cells"] = [cell]
server = cell["processes"][0]
for i in reversed(range(n)):
    cell["processes"].append({"name": f"w{i}", "role": "worker", "argv": ["sleep", "1"],
                              "after": [f"w{i - 1}" if i else server["name"]]})
if "--cycle" in sys.argv[3:]:
    server["after"] = [f"w{n - 1}"]
json.dump(plan, sys.stdout)
