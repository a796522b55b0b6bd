"""Runs COMMAND and watches, every 10 ms, how many arecipe-run processes
whose command line names MARKER it has as children at once (the runtime's
own helpers, forked with the same command line, are not children of
COMMAND): `arecipe-tune --jobs N`
must have several in flight, and never more than N. Prints the exit status
and the largest number seen; a process left behind after COMMAND ended is
reported and killed.

usage: max-concurrent.py MARKER COMMAND...
       max-concurrent.py --left MARKER   (prints how many processes of any
                                          kind name MARKER: after an
                                          interrupted run, 0)
"""
import os
import signal
import subprocess
import sys
import time

if sys.argv[1] == "--left":
    mark, n = sys.argv[2].encode(), 0
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    n += mark in f.read()
            except OSError:
                pass
    print("left", n)
    sys.exit(0)

marker, argv = sys.argv[1].encode(), sys.argv[2:]


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def runs(of=None):
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if words and words[0].endswith(b"/arecipe-run") and marker in b" ".join(words):
            if of is None or parent(pid) == of:
                pids.append(int(pid))
    return pids


p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
most = 0
while p.poll() is None:
    most = max(most, len(runs(p.pid)))
    time.sleep(0.01)
print("exit", p.returncode)
print("max arecipe-run at once:", most)
time.sleep(0.2)  # a helper the runtime forked ends with it
left = runs()
print("arecipe-run left:", len(left))
for pid in left:
    os.kill(pid, signal.SIGKILL)
