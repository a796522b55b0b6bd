#!/usr/bin/env python3
"""Starts FIRST, waits until PATH exists (FIRST is under way), runs SECOND to
its end, then waits for FIRST. Prints each one's exit status and the last
line of its stderr, prefixed with its name: what a second run into the same
directory does to the first.

usage: two-runs.py --when PATH --first COMMAND --second COMMAND
"""
import argparse, os, shlex, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--when", required=True)
p.add_argument("--first", required=True)
p.add_argument("--second", required=True)
a = p.parse_args()

first = subprocess.Popen(shlex.split(a.first), stderr=subprocess.PIPE, text=True)
deadline = time.monotonic() + 120
while not os.path.exists(a.when) and first.poll() is None and time.monotonic() < deadline:
    time.sleep(0.02)
if not os.path.exists(a.when):
    first.kill()
    sys.exit(f"{a.when} never appeared")
second = subprocess.run(shlex.split(a.second), stderr=subprocess.PIPE, text=True)
print(f"second: exit {second.returncode}")
print("second: " + (second.stderr.strip().splitlines() or [""])[-1])
_, err = first.communicate()
print(f"first: exit {first.returncode}")
print("first: " + ([l for l in err.splitlines() if "c14:" in l] or [""])[-1])
