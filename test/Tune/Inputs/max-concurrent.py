"""Runs COMMAND and watches, every 10 ms, how many arecipe-run processes
whose command line names MARKER it has as children at once (the runtime's
own helpers, forked with the same command line, are not children of
COMMAND): `arecipe-tune --jobs N` must have several in flight, and never
more than N. Prints the exit status and the largest number seen; an
arecipe-run left behind after COMMAND ended is reported and killed.

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


def processes(marker):
    """(pid, parent pid, argv) of every other process naming marker."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if marker in b" ".join(words):
            yield int(pid), ppid, words


def runs(marker, parent=None):
    return [pid for pid, ppid, words in processes(marker)
            if words[0].endswith(b"/arecipe-run") and parent in (None, ppid)]


if sys.argv[1] == "--left":
    print("left", len(list(processes(sys.argv[2].encode()))))
    sys.exit(0)

marker, argv = sys.argv[1].encode(), sys.argv[2:]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
most = 0
while p.poll() is None:
    most = max(most, len(runs(marker, p.pid)))
    time.sleep(0.01)
print("exit", p.returncode)
print("max arecipe-run at once:", most)
time.sleep(0.2)  # a helper the runtime forked ends with it
left = runs(marker)
print("arecipe-run left:", len(left))
for pid in left:
    os.kill(pid, signal.SIGKILL)
