#!/usr/bin/env python3
"""Runs a command for a runtime test and then proves it left nothing behind.

usage: supervise.py [--path-prepend DIR] [--env NAME=VALUE]... [--unset NAME]...
                    [--interrupt-when PATH] [--marker TEXT] -- COMMAND...

--interrupt-when sends SIGINT to the command once PATH exists (a cell reached
the point under test). After the command exits, every process whose command
line contains --marker (the test's unique output directory) is reported and
killed; the harness then fails, so a leak cannot pass unnoticed. Prints
"exit: N" with the command's exit status and exits 0 unless something leaked
or the interrupt point was never reached.
"""
import argparse, os, signal, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--path-prepend", action="append", default=[])
p.add_argument("--env", action="append", default=[])
p.add_argument("--unset", action="append", default=[])
p.add_argument("--interrupt-when")
p.add_argument("--marker", required=True)
p.add_argument("command", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command

env = dict(os.environ)
for d in reversed(a.path_prepend):
    env["PATH"] = d + os.pathsep + env.get("PATH", "")
for kv in a.env:
    k, v = kv.split("=", 1)
    env[k] = v
for k in a.unset:
    env.pop(k, None)

proc = subprocess.Popen(cmd, env=env)
interrupted = False
if a.interrupt_when:
    while proc.poll() is None:
        if os.path.exists(a.interrupt_when):
            time.sleep(0.3)  # let the cell get properly under way
            proc.send_signal(signal.SIGINT)
            interrupted = True
            break
        time.sleep(0.05)
rc = proc.wait()
sys.stdout.flush()
print(f"exit: {rc}", flush=True)


def leftovers():
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if a.marker in line and "supervise.py" not in line:
            found.append((int(pid), line.strip()))
    return found


left = leftovers()
for pid, line in left:
    print(f"LEFTOVER pid {pid}: {line}", flush=True)
    try:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    except OSError:
        pass
if not left:
    print("no process left", flush=True)
if a.interrupt_when and not interrupted:
    print("the interrupt point was never reached", flush=True)
    sys.exit(1)
sys.exit(1 if left else 0)
