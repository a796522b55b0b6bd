"""Writes two broken copies of a plan whose cell 0 has server-0, server-1 and
a router: OUT/bad.json (a `sim_router` on a server, a policy that is a
number) and OUT/bad2.json (a `sim_router` that is a string)."""
import json
import sys

plan, out = sys.argv[1], sys.argv[2]
p = json.load(open(plan))
procs = p["cells"][0]["processes"]
procs[2]["sim_router"]["policy"] = 7
procs[0]["sim_router"] = {"policy": "random", "header": None}
json.dump(p, open(f"{out}/bad.json", "w"))
del procs[0]["sim_router"]
procs[2]["sim_router"] = "consistent_hash"
json.dump(p, open(f"{out}/bad2.json", "w"))
