#!/usr/bin/env python3
"""Signals a running command at a chosen point, then proves nothing is left.

usage: signal-when.py --marker TEXT --signal INT|TERM|KILL
                      --when-lines PATH:N [--count-to FILE] -- COMMAND...

Starts COMMAND, waits until PATH exists and holds at least N complete lines
(records flushed by a cell in measurement), writes that line count to
--count-to, and sends the signal to COMMAND alone (as `kill` would; the
engines are in their own process groups). After COMMAND exits it prints
"exit: N" (-9 for SIGKILL), then waits up to 20 s for every process whose
command line contains --marker to go -- after a SIGKILL the engines learn of
it through PR_SET_PDEATHSIG, asynchronously -- and reports and kills any
that remain ("LEFTOVER ..."), failing the harness. test/Runtime/Inputs/
supervise.py does the same for SIGINT at a file's appearance; this one adds
the other signals and a point inside the measurement.
"""
import argparse, os, signal, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--marker", required=True)
p.add_argument("--signal", required=True, choices=["INT", "TERM", "KILL"])
p.add_argument("--when-lines", required=True)
p.add_argument("--count-to")
p.add_argument("command", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command
path, need = a.when_lines.rsplit(":", 1)
need = int(need)


def complete_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return -1


proc = subprocess.Popen(cmd)
sent = False
deadline = time.monotonic() + 120
while proc.poll() is None and time.monotonic() < deadline:
    n = complete_lines(path)
    if n >= need:
        proc.send_signal(getattr(signal, "SIG" + a.signal))
        sent = True
        if a.count_to:
            with open(a.count_to, "w") as f:
                f.write(f"{n}\n")
        break
    time.sleep(0.01)
rc = proc.wait()
print(f"exit: {rc}", flush=True)


def leftovers():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie is already dead, only not yet reaped
        except OSError:
            continue
        if a.marker in line and "signal-when.py" not in line:
            found.append((int(pid), line.strip()))
    return found


left = leftovers()
end = time.monotonic() + 20
while left and time.monotonic() < end:
    time.sleep(0.1)
    left = leftovers()
for pid, line in left:
    print(f"LEFTOVER pid {pid}: {line}", flush=True)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
if not left:
    print("no process left", flush=True)
if not sent:
    print(f"the signal point was never reached ({path} had {complete_lines(path)} lines)", flush=True)
    sys.exit(1)
sys.exit(1 if left else 0)
