#!/usr/bin/env python3
"""Writes one plan per kind of cell that --sim-clock virtual refuses, each
derived from a test plan by changing that one thing.

usage: virtual-clock-plans.py KIMI_PLAN ROUTER_PLAN OUTDIR
  KIMI_PLAN    a plan whose first cell is one closed-loop engine server
  ROUTER_PLAN  a plan whose first cell's client calls a router
"""
import copy, json, sys

kimi, router, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]


def one_cell(plan):
    plan = copy.deepcopy(plan)
    plan["cells"] = plan["cells"][:1]
    return plan, plan["cells"][0]


def write(name, plan):
    json.dump(plan, open(f"{out}/{name}.json", "w"), indent=1)


plan, cell = one_cell(kimi)
cell["client"]["workload"]["request_rate"] = 4
write("open-loop", plan)

plan = copy.deepcopy(kimi)
for c in plan["cells"][1:]:
    c["client"]["workload"]["request_rate"] = 2
write("two-open-loop", plan)

plan, cell = one_cell(kimi)
cell["profile"] = [{"start_s": 1, "duration_s": 2}]
write("profile", plan)

plan, cell = one_cell(kimi)
cell["processes"][0]["role"] = "decode"
write("disagg", plan)

plan, cell = one_cell(kimi)
second = copy.deepcopy(cell["processes"][0])
second["name"] = "server2"
cell["processes"].append(second)
write("two-servers", plan)

plan, cell = one_cell(kimi)
cell["nodes"] = 2
write("multi-node", plan)

plan, cell = one_cell(router)
write("agentic", plan)

plan, cell = one_cell(router)
cell["client"]["workload"] = copy.deepcopy(kimi["cells"][0]["client"]["workload"])
write("router", plan)
