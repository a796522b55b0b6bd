#!/usr/bin/env python3
"""Rewrites a compiled plan to serve on port 0: under --simulate the
simulator then binds a free port (docs/runtime.md), so a test never collides
with another run on the compiler's fixed port. Usage: free-ports.py IN OUT"""
import json
import sys

plan = json.load(open(sys.argv[1]))
for cell in plan["cells"]:
    for process in cell["processes"]:
        port = process.get("port")
        if port is None:
            continue
        process["port"] = 0
        argv = process["argv"]
        for i in range(len(argv) - 1):
            if argv[i] in ("--port", "--server-port") and argv[i + 1] == str(port):
                argv[i + 1] = "0"
json.dump(plan, open(sys.argv[2], "w"), indent=2)
