#!/usr/bin/env python3
"""Integrity checks on an arecipe-run results directory for the fault tests.

  check-results.py hash OUT CELL...     sha256 of every file of each finished
                                        cell (summary, records, logs), sorted
  check-results.py records FILE|CELLDIR [--at-least N|@FILE]
                                        every line is one complete JSON record
                                        with an id and an error field; prints
                                        the count, fails below N. A cell
                                        directory means its records.jsonl, or
                                        records.partial.jsonl when the cell
                                        never got to write the final file
  check-results.py summary OUT CELL     the cell's summary.json parses and
                                        prints 'CELL STATUS'
"""
import hashlib, json, os, sys


def cmd_hash(out, cells):
    for cell in cells:
        d = os.path.join(out, "cells", cell)
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                print(f"{cell}/{name} {hashlib.sha256(f.read()).hexdigest()}")


def cmd_records(path, at_least):
    if os.path.isdir(path):
        final = os.path.join(path, "records.jsonl")
        path = final if os.path.exists(final) else os.path.join(path, "records.partial.jsonl")
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        sys.exit(f"{path}: the last record is cut off")
    n = 0
    for i, line in enumerate(data.splitlines(), 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            sys.exit(f"{path}:{i}: not a complete JSON record: {e}")
        if "id" not in r or "error" not in r:
            sys.exit(f"{path}:{i}: a record without 'id' or 'error'")
        n += 1
    print(f"records: {n}")
    if n < at_least:
        sys.exit(f"{path}: {n} records, expected at least {at_least} (flushed before the fault)")


def cmd_summary(out, cell):
    with open(os.path.join(out, "cells", cell, "summary.json")) as f:
        s = json.load(f)
    print(cell, s["arecipe_run"]["status"])


args = sys.argv[1:]
if args[0] == "hash":
    cmd_hash(args[1], args[2:])
elif args[0] == "records":
    at_least = 1
    if len(args) > 2 and args[2] == "--at-least":
        v = args[3]
        at_least = int(open(v[1:]).read()) if v.startswith("@") else int(v)
    cmd_records(args[1], at_least)
elif args[0] == "summary":
    cmd_summary(args[1], args[2])
else:
    sys.exit(__doc__)
