#!/usr/bin/env python3
"""Runs arecipe-run --simulate --sim-fixed-ports (which keeps the plan's
ports) on a one-cell plan whose server has a fixed port that another socket
has bound without listening: nothing listens, so the check before the start
passes, and the engine then fails to bind. Prints
arecipe-run's exit status and its console lines, the port shown as PORT.

usage: port-bound.py --plan BASE --dir DIR
"""
import argparse, json, os, socket, subprocess

p = argparse.ArgumentParser()
p.add_argument("--plan", required=True)
p.add_argument("--dir", required=True)
a = p.parse_args()

holder = socket.socket()
holder.bind(("127.0.0.1", 0))  # no SO_REUSEADDR: the engine's bind fails
port = holder.getsockname()[1]

plan = json.load(open(a.plan))
cell = plan["cells"][1]
plan["cells"] = [cell]
server = cell["processes"][0]
server["port"] = port
argv = server["argv"]
argv[argv.index("--server-port") + 1] = str(port)
plan_path = os.path.join(a.dir, "plan.json")
json.dump(plan, open(plan_path, "w"))

run = subprocess.run(["arecipe-run", "--simulate", "--sim-fixed-ports", "--progress=plain",
                      "--port-free-timeout=1", "--out", os.path.join(a.dir, "out"), plan_path],
                     stderr=subprocess.PIPE, text=True)
holder.close()
print(f"exit: {run.returncode}")
print(run.stderr.replace(str(port), "PORT"), end="")
