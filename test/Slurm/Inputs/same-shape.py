#!/usr/bin/env python3
"""Checks that a Slurm sweep's results have the shape of a local run's:
the same files per cell, the same keys in every summary.json and in
results.json, the same summary.csv columns and cell statuses. Values (the
measured numbers, times, ports) may differ; Slurm may add its own
directory (slurm/), a process's `node`, and the ranks' files.

usage: same-shape.py LOCAL_OUT SLURM_OUT
"""
import csv, json, os, sys

local, slurm = sys.argv[1], sys.argv[2]


def files(root):
    out = set()
    for d, _, names in os.walk(os.path.join(root, "cells")):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def keys(value, path=""):
    if isinstance(value, dict):
        out = set()
        for k, v in value.items():
            if k == "node":
                continue
            out |= {f"{path}.{k}"} | keys(v, f"{path}.{k}")
        return out
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return keys(value[0], path + "[]")
    return set()


def load(root, rel):
    with open(os.path.join(root, rel)) as f:
        return json.load(f)


problems = []
if files(local) != files(slurm):
    problems.append(f"cell files differ: only local {sorted(files(local) - files(slurm))}, "
                    f"only slurm {sorted(files(slurm) - files(local))}")
for rel in sorted(f for f in files(local) if f.endswith("summary.json")) + ["results.json"]:
    a, b = keys(load(local, rel)), keys(load(slurm, rel))
    if a != b:
        problems.append(f"{rel}: keys only local {sorted(a - b)}, only slurm {sorted(b - a)}")
rows = []
for root in (local, slurm):
    with open(os.path.join(root, "summary.csv")) as f:
        r = list(csv.reader(f))
        rows.append((r[0], [row[:4] for row in r[1:]]))
if rows[0] != rows[1]:
    problems.append(f"summary.csv differs: {rows[0]} vs {rows[1]}")
for p in problems:
    print(p)
print("same shape" if not problems else "different shape")
sys.exit(1 if problems else 0)
