#!/usr/bin/env python3
"""Runs a Slurm sweep for a test, disturbs it on cue, and proves that
nothing is left running afterwards: no process of the test, no Slurm job.

usage: drive.py --marker DIR [--on PATH:ACTION]... -- COMMAND...

ACTION, done once PATH exists (a cell reached the point under test):
  sigint        SIGINT to COMMAND (Ctrl-C)
  scancel:CELL  `scancel` the cell's job (read from OUT/slurm/jobs.json)
  kill:CELL     SIGKILL the runtime running CELL on its node, as the OOM
                killer would
Prints "exit: N", then "no process left" and "no job left", or what leaked
(which is killed or cancelled, and fails the test).
"""
import argparse, json, os, signal, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--marker", required=True)
p.add_argument("--on", action="append", default=[])
p.add_argument("command", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command


def processes():
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                yield int(pid), f.read().split(b"\0")
        except OSError:
            continue


def out_dir():
    return cmd[cmd.index("--out") + 1]


def do(action):
    if action == "sigint":
        proc.send_signal(signal.SIGINT)
        return
    kind, cell = action.split(":", 1)
    if kind == "scancel":
        with open(os.path.join(out_dir(), "slurm", "jobs.json")) as f:
            job = json.load(f)[cell]["job"]
        subprocess.run(["scancel", job], check=True)
        return
    for pid, argv in processes():
        words = [w.decode(errors="replace") for w in argv]
        if "--node-rank" in words and "--cells" in words and \
                words[words.index("--cells") + 1] == cell and a.marker in " ".join(words):
            os.kill(pid, signal.SIGKILL)
            return
    sys.exit(f"drive.py: no runtime running {cell}")


proc = subprocess.Popen(cmd)
pending = []
for on in a.on:
    path, action = on.split(":", 1)
    pending.append((path, action))
while proc.poll() is None and pending:
    for item in list(pending):
        if os.path.exists(item[0]):
            time.sleep(0.3)  # let the cell get properly under way
            do(item[1])
            pending.remove(item)
    time.sleep(0.05)
rc = proc.wait()
print(f"exit: {rc}", flush=True)

failed = bool(pending)
for path, action in pending:
    print(f"never reached: {path} ({action})", flush=True)
left = [(pid, b" ".join(argv).decode(errors="replace")) for pid, argv in processes()
        if a.marker.encode() in b" ".join(argv) and b"drive.py" not in b" ".join(argv)]
for pid, line in left:
    print(f"LEFTOVER pid {pid}: {line}", flush=True)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
if not left:
    print("no process left", flush=True)
# A job of this test is one whose command (the job script) is under DIR.
jobs = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%i %T %o"], capture_output=True,
                      text=True).stdout.split("\n")
live = [j for j in jobs if a.marker in j and j.split()[1] not in
        ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")]
for j in live:
    print(f"LEFTOVER job: {j}", flush=True)
    subprocess.run(["scancel", j.split()[0]])
if not live:
    print("no job left", flush=True)
sys.exit(1 if left or live or failed else 0)
