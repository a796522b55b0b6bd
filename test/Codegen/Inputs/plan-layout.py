#!/usr/bin/env python3
"""Prints the layout of a plan's cells, one line per fact, for FileCheck.

usage: plan-layout.py PLAN.json

Per cell: `cell ID arm=ARM conc=N gpus=N nodes=N by_role=ROLE:N,...
reuse=cell|arm target=NAME`; per process: `  NAME role=R template=T
node_rank=K replica=I node=J gpus=0,1,... port=P ready=KIND after=A,B`
and `    argv WORD WORD ...` (the words joined by one space). The layout
tests of language v2 (roles, replicas, routers, services, arms) read it.
A v1 cell has none of v1.1's fields (docs/plan-schema.md, "Minor version
1.1"): they print as a reader of the plan defaults them (`arm=None`,
`by_role=` empty, `reuse=cell`, `template=None`, `replica=0`, `node=None`).
"""
import json
import sys

plan = json.load(open(sys.argv[1]))
print(f"schema {plan['schema']}")
for cell in plan["cells"]:
    roles = ",".join(f"{r}:{n}" for r, n in cell.get("gpus_by_role", {}).items())
    print(f"cell {cell['id']} arm={cell.get('arm')} conc={cell['conc']} "
          f"gpus={cell['gpus']} nodes={cell['nodes']} by_role={roles} "
          f"reuse={cell.get('server_reuse', 'cell')} target={cell['client']['target']}")
    for p in cell["processes"]:
        gpus = ",".join(str(g) for g in p["gpus"] or [])
        ready = p["ready"].get("kind", "default")
        if ready == "alive":
            ready += f":{p['ready']['alive_s']}"
        print(f"  {p['name']} role={p['role']} template={p.get('template')} "
              f"node_rank={p['node_rank']} replica={p.get('replica', 0)} node={p.get('node')} "
              f"gpus={gpus} port={p['port']} ready={ready} after={','.join(p['after'])}")
        print("    argv " + " ".join(p["argv"]))
