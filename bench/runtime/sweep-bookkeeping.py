#!/usr/bin/env python3
"""Times the runtime's per-sweep bookkeeping, without any engine.

  sweep-bookkeeping.py ARECIPE_RUN cells N   a sweep of N cells that each fail
                                             at once (a pre-flight `false`):
                                             what remains is writing the
                                             cell summaries and rebuilding
                                             results.json, summary.csv/md and
                                             report.html after every cell
  sweep-bookkeeping.py ARECIPE_RUN chain N   `--check` of one cell with N
                                             processes chained by 'after',
                                             each listed before the one it
                                             waits for

Prints wall and CPU seconds of arecipe-run (from os.wait4). The plans are
built from test/Runtime/Inputs/kimik3-sim-plan.json.
"""
import json, os, subprocess, sys, tempfile, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
run, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = json.load(open(os.path.join(root, "test/Runtime/Inputs/kimik3-sim-plan.json")))
work = tempfile.mkdtemp(prefix="arecipe-bench-")
plan_path = os.path.join(work, "plan.json")

if kind == "cells":
    template = base["cells"][0]
    template["preflight"] = [{"action": "run", "argv": ["false"], "timeout_s": 30}]
    cells = []
    for i in range(n):
        c = json.loads(json.dumps(template))
        c["id"], c["conc"] = f"c{i + 1}", i + 1
        c["client"]["concurrency"] = i + 1
        cells.append(c)
    base["cells"] = cells
    argv = [run, "--progress=plain", "--out", os.path.join(work, "out"), plan_path]
else:
    cell = base["cells"][0]
    base["cells"] = [cell]
    for i in reversed(range(n)):
        cell["processes"].append({"name": f"w{i}", "role": "worker", "argv": ["sleep", "1"],
                                  "after": [f"w{i - 1}" if i else "server"]})
    argv = [run, "--check", plan_path]
json.dump(base, open(plan_path, "w"))

start = time.monotonic()
proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
wall = time.monotonic() - start
print(f"{kind} {n}: exit {os.waitstatus_to_exitcode(status)}, wall {wall:.2f} s, "
      f"user {usage.ru_utime:.2f} s, system {usage.ru_stime:.2f} s, "
      f"peak RSS {usage.ru_maxrss / 1024:.0f} MB")
subprocess.run(["rm", "-rf", work])
