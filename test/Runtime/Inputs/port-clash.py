#!/usr/bin/env python3
"""Runs arecipe-run on a one-cell plan whose server never listens (`sleep`)
while a foreign arecipe-sim serves the model on the server's fixed port:
started before arecipe-run (--when before), or once the cell's server has
been started (--when after, so the port was free when it was checked).
Prints arecipe-run's exit status, its line for the cell and the cell's
summary reason; the foreign server is stopped at the end.

usage: port-clash.py --when before|after --plan BASE --dir DIR
"""
import argparse, json, os, socket, subprocess, sys, time, urllib.request

p = argparse.ArgumentParser()
p.add_argument("--when", choices=["before", "after"], required=True)
p.add_argument("--plan", required=True)
p.add_argument("--dir", required=True)
a = p.parse_args()

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]

plan = json.load(open(a.plan))
cell = plan["cells"][1]
plan["cells"] = [cell]
cell["preflight"] = []
server = cell["processes"][0]
server.update({"argv": ["sleep", "300"], "port": port, "env": {}})
# What the foreign vLLM simulator passes, so that a measurement of it is
# `ok` and nothing but the port check stands in the way; and short.
cell["validity"]["required_metric_prefix"] = "vllm:"
cell["client"]["workload"].update({"num_prompts": 8, "warmup": 0, "osl": 8})
plan_path = os.path.join(a.dir, "plan.json")
json.dump(plan, open(plan_path, "w"))

hf = os.path.join(a.dir, "hf")
os.makedirs(os.path.join(hf, "hub", "models--moonshotai--Kimi-K3"), exist_ok=True)


def start_foreign():
    env = dict(os.environ, HF_HOME=hf)
    log = open(os.path.join(a.dir, "foreign.log"), "w")
    proc = subprocess.Popen(["arecipe-sim", "--sim-hardware", "mi355x", "--sim-model", "kimi-k3",
                             "--sim-time-scale", "100", "--", "vllm", "serve",
                             "moonshotai/Kimi-K3", "--port", str(port), "--tensor-parallel-size", "8"],
                            stdout=log, stderr=log, env=env)
    for _ in range(600):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).status == 200:
                return proc
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    sys.exit("the foreign server never became healthy")


out = os.path.join(a.dir, "out")
foreign = start_foreign() if a.when == "before" else None
run = subprocess.Popen(["arecipe-run", "--progress=plain", "--port-free-timeout=1", "--out", out,
                        plan_path],
                       stderr=subprocess.PIPE, text=True)
if a.when == "after":
    log = os.path.join(out, "cells", cell["id"], "server.log")
    while not os.path.exists(log) and run.poll() is None:
        time.sleep(0.02)
    foreign = start_foreign()
_, err = run.communicate()
foreign.kill()
foreign.wait()
print(f"exit: {run.returncode}")
print([l for l in err.splitlines() if l.startswith("[1/1] c32:")][-1].replace(str(port), "PORT"))
summary = json.load(open(os.path.join(out, "cells", cell["id"], "summary.json")))
print("reason:", summary["arecipe_run"].get("reason", "").replace(str(port), "PORT"))
