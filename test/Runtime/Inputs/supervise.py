#!/usr/bin/env python3
"""Runs a command for a runtime test, optionally signals it at a chosen point,
and then proves it left nothing behind.

usage: supervise.py --marker TEXT [--path-prepend DIR] [--env NAME=VALUE]...
                    [--unset NAME]...
                    [--interrupt-when PATH | --when-lines PATH:N]
                    [--signal INT|TERM|KILL] [--count-to FILE] -- COMMAND...

--interrupt-when PATH: signal the command 0.3 s after PATH exists (a cell
  reached the point under test).
--when-lines PATH:N: signal it as soon as PATH holds at least N complete
  lines (e.g. records flushed by a cell in measurement); --count-to writes the
  line count seen at that moment.
--signal: which signal (default INT). It goes to COMMAND alone, as `kill`
  would; the engines are in their own process groups.

After the command exits, prints "exit: N" (-9 for SIGKILL). Then every live
process whose command line contains --marker (the test's unique output
directory) is a leftover: reported ("LEFTOVER ...") and killed, and the
harness exits 1, so a leak cannot pass unnoticed. Only after SIGKILL are the
engines given up to 20 s to go, since they learn of it asynchronously through
PR_SET_PDEATHSIG; after any other exit, whatever is still alive is a leak.
Exits 1 as well if a requested signal point was never reached.
"""
import argparse, os, signal, subprocess, sys, time

p = argparse.ArgumentParser()
p.add_argument("--path-prepend", action="append", default=[])
p.add_argument("--env", action="append", default=[])
p.add_argument("--unset", action="append", default=[])
p.add_argument("--marker", required=True)
when = p.add_mutually_exclusive_group()
when.add_argument("--interrupt-when")
when.add_argument("--when-lines")
p.add_argument("--signal", default="INT", choices=["INT", "TERM", "KILL"])
p.add_argument("--count-to")
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


def complete_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return -1


def reached():
    """Whether the signal point is reached; None when no point was asked for."""
    if a.interrupt_when:
        if not os.path.exists(a.interrupt_when):
            return False
        time.sleep(0.3)  # let the cell get properly under way
        return True
    path, need = a.when_lines.rsplit(":", 1)
    n = complete_lines(path)
    if n < int(need):
        return False
    if a.count_to:
        with open(a.count_to, "w") as f:
            f.write(f"{n}\n")
    return True


proc = subprocess.Popen(cmd, env=env)
wanted = bool(a.interrupt_when or a.when_lines)
sent = False
if wanted:
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if reached():
            proc.send_signal(getattr(signal, "SIG" + a.signal))
            sent = True
            break
        time.sleep(0.01 if a.when_lines else 0.05)
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
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue  # a zombie is already dead, only not yet reaped
        except OSError:
            continue
        if a.marker in line and "supervise.py" not in line:
            found.append((int(pid), line.strip()))
    return found


left = leftovers()
if sent and a.signal == "KILL":
    end = time.monotonic() + 20
    while left and time.monotonic() < end:
        time.sleep(0.1)
        left = leftovers()
for pid, line in left:
    print(f"LEFTOVER pid {pid}: {line}", flush=True)
    try:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    except OSError:
        pass
if not left:
    print("no process left", flush=True)
if wanted and not sent:
    what = a.interrupt_when or f"{a.when_lines} (the file had {complete_lines(a.when_lines.rsplit(':', 1)[0])} lines)"
    print(f"the signal point was never reached: {what}", flush=True)
    sys.exit(1)
sys.exit(1 if left else 0)
