#!/usr/bin/env python3
"""Writes a one-cell plan (cell c14 of kimik3-sim-plan.json, a short workload)
with generated files, capture steps and placeholders, for the tests of
docs/plan-schema.md "Generated files, capture steps and client settings".

usage: capture-plan.py --case ok|fail|timeout|simulated|logdir|bad -o OUT

ok:        two captures (the second uses the first), two files (one with
           captured values, one with the node's address and host name), a
           `run` step that reads a file, and a `probe` process that prints
           its file, an env value and an argv word. The probe is a router:
           --simulate replaces engines, never routers, so it runs as written.
fail:      the capture exits 3 after printing an error and a secret on stderr.
timeout:   the capture outlives its 1 s timeout.
simulated: the capture fails on this machine but has a simulated_output.
logdir:    the probe writes a config dump into {dir:logs}, named after its
           node's host (a launcher's --dump-config-to), and exports the
           directory.
bad:       placeholders and names the loader must refuse.
"""
import argparse, json, os

p = argparse.ArgumentParser()
p.add_argument("--case", required=True,
               choices=["ok", "fail", "timeout", "simulated", "logdir", "bad"])
p.add_argument("-o", required=True)
a = p.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
plan = json.load(open(os.path.join(here, "kimik3-sim-plan.json")))
plan["schema"] = "arecipe.plan/v1.1"
cell = plan["cells"][0]
plan["cells"] = [cell]
cell["client"]["workload"].update({"num_prompts": 14, "warmup": 0})



def capture(name, argv, timeout_s=10, **extra):
    return dict({"action": "capture", "name": name, "argv": argv, "timeout_s": timeout_s}, **extra)


probe = {
    "name": "probe", "role": "router", "node_rank": 0, "gpus": None, "port": None,
    "endpoints": None, "after": [], "env": {"RAIL": "{capture:rail}"},
    "argv": ["sh", "-c", "cat {file:engine.yaml}; echo \"env $RAIL\"; echo \"$0\"; exec sleep 600",
             "arg {capture:rail}"],
    "ready": {"kind": "running"},
}
if a.case == "ok":
    cell["preflight"] += [
        capture("rail", ["sh", "-c", "echo '  mlx5_0  '; echo 'probing rails' >&2"]),
        capture("gid", ["sh", "-c", "echo {capture:rail}-gid3"]),
        {"action": "run", "argv": ["grep", "-q", "^addr 127.0.0.1$", "{file:hosts.txt}"],
         "timeout_s": 10},
    ]
    cell["files"] = [
        {"name": "engine.yaml",
         "content": "device_name: {capture:rail}\ngid: {capture:gid}\nself: {file:engine.yaml}\n"},
        {"name": "hosts.txt", "content": "addr {node_addr:0}\nhost {node_host:0}\n"},
    ]
    cell["processes"].append(probe)
elif a.case == "fail":
    cell["preflight"].append(capture("rail", ["sh", "-c",
        "echo mlx5_9; echo 'ibv_devinfo: no RDMA device found' >&2; "
        "echo 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz' >&2; exit 3"]))
    cell["files"] = [{"name": "engine.yaml", "content": "device_name: {capture:rail}\n"}]
    cell["processes"].append(probe)
elif a.case == "timeout":
    cell["preflight"].append(capture("rail", ["sleep", "30"], timeout_s=1))
    cell["files"] = [{"name": "engine.yaml", "content": "device_name: {capture:rail}\n"}]
    cell["processes"].append(probe)
elif a.case == "simulated":
    cell["preflight"].append(capture("rail", ["sh", "-c", "echo 'no RDMA device' >&2; exit 1"],
                                     simulated_output=" mlx5_0,mlx5_1\n"))
    cell["files"] = [{"name": "engine.yaml", "content": "device_name: {capture:rail}\n"}]
    cell["processes"].append(probe)
elif a.case == "logdir":
    probe["env"] = {"DUMP_DIR": "{dir:logs}"}
    probe["argv"] = ["sh", "-c", "echo \"dumped to $DUMP_DIR\" > \"$0\"; exec sleep 600",
                     "{dir:logs}/{node_host:0}_config.json"]
    cell["processes"].append(probe)
else:
    cell["preflight"] += [
        capture("gid", ["sh", "-c", "echo {capture:rail}"]),
        capture("rail", ["true"]),
        capture("rail", ["true"]),
        capture("z", ["true"], simulated_output=5),
    ]
    cell["files"] = [
        {"name": "engine.yaml", "content": "a: {file:other.yaml}\n"},
        {"name": "engine.yaml", "content": "\n"},
        {"name": ".hidden", "content": "\n"},
        {"name": "x/y", "content": "\n"},
    ]
    probe["argv"] = ["sh", "-c", "{capture:nope}", "{node_addr:1}", "{nodeaddr:0}",
                     "{node_host:x}", '{"json":{"is":"text"}}', "{dir:cache}/x"]
    probe["env"] = {"RAIL": "{file:missing.txt}"}
    cell["processes"].append(probe)
json.dump(plan, open(a.o, "w"), indent=1)
