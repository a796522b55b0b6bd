#!/usr/bin/env python3
"""Compares two results directories by structure, not by value: the cells
of results.json with their status, the key paths of each cell summary
(outside `arecipe_run`, which records how the run was made), and what the
report shows (chart points, cell rows). Usage: same-structure.py A B."""
import json
import re
import sys


def keys(value, prefix=""):
    out = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(prefix + k)
            out |= keys(v, prefix + k + ".")
    return out


def describe(d):
    results = json.load(open(f"{d}/results.json"))
    cells = [(c["id"], c["status"]) for c in results["cells"]]
    summary_keys = {}
    for cell, status in cells:
        if status == "pending":
            continue
        s = json.load(open(f"{d}/cells/{cell}/summary.json"))
        s.pop("arecipe_run")
        summary_keys[cell] = keys(s)
    html = open(f"{d}/report.html").read()
    points = len(re.findall(r'<path class="point', html))
    rows = len(re.findall(r'<tr data-cell="[^"]*"><td>', html))
    return cells, summary_keys, points, rows


a, b = describe(sys.argv[1]), describe(sys.argv[2])
print("cells:", " ".join(f"{c}={s}" for c, s in a[0]), "|", " ".join(f"{c}={s}" for c, s in b[0]))
for cell in sorted(set(a[1]) | set(b[1])):
    ka, kb = a[1].get(cell, set()), b[1].get(cell, set())
    print(f"{cell}: {len(ka)} summary keys, {'same' if ka == kb else 'DIFFERENT'}")
    for k in sorted(ka ^ kb):
        print(f"  only in {'A' if k in ka else 'B'}: {k}")
print(f"report: {a[2]} points, {a[3]} cell rows | {b[2]} points, {b[3]} cell rows")
