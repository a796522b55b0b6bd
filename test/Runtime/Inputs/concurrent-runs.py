#!/usr/bin/env python3
"""Runs N `arecipe-run` commands at the same time (each with its own --out,
DIR/run<i>) while a listening socket holds the port HOLD, which the plan's
engines use as their fixed port; prints each run's exit status, in order.
Then, as supervise.py does, every live process whose command line contains
DIR is a leftover: reported and killed, and the script exits 1.

usage: concurrent-runs.py --dir DIR --runs N [--hold PORT] -- ARECIPE-RUN-ARGS...
"""
import argparse, os, signal, socket, subprocess, sys

p = argparse.ArgumentParser()
p.add_argument("--dir", required=True)
p.add_argument("--runs", type=int, default=2)
p.add_argument("--hold", type=int)
p.add_argument("args", nargs=argparse.REMAINDER)
a = p.parse_args()
args = a.args[1:] if a.args[:1] == ["--"] else a.args

holder = None
if a.hold:
    # Another server on the plan's port: a run that used it would fail.
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("0.0.0.0", a.hold))
        holder.listen()
    except OSError:
        holder.close()
        holder = None  # already taken by someone else: held all the same
os.makedirs(a.dir, exist_ok=True)
runs = []
for i in range(a.runs):
    out = os.path.join(a.dir, f"run{i}")
    runs.append(subprocess.Popen(["arecipe-run", *args, "--out", out],
                                 stdout=open(out + ".stdout", "w"),
                                 stderr=open(out + ".stderr", "w")))
codes = [r.wait() for r in runs]
if holder:
    holder.close()
for i, c in enumerate(codes):
    print(f"run{i}: exit {c}")

leftover = False
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        continue
    if a.dir in cmd and int(pid) != os.getpid():
        print(f"LEFTOVER {pid}: {cmd}")
        leftover = True
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
print("no process left" if not leftover else "processes were left")
sys.exit(1 if leftover else 0)
