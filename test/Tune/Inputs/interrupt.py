"""Interrupts an arecipe-tune run once it has kept N measurements, then
checks what it left: exit status 130, the resume hint, N or more complete
measurements and no half-written one. Prints the kept measurements' names
and modification times, for the test to compare after the resume."""
import os
import signal
import subprocess
import sys
import time

out, n, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
evals = os.path.join(out, "evals")
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     start_new_session=True)
deadline = time.time() + 300
while time.time() < deadline and p.poll() is None:
    done = [f for f in os.listdir(evals) if f.endswith(".json")] if os.path.isdir(evals) else []
    if len(done) >= n:
        break
    time.sleep(0.05)
if p.poll() is not None:
    sys.exit("arecipe-tune ended before it was interrupted (status %d)" % p.returncode)
os.killpg(p.pid, signal.SIGINT)
_, err = p.communicate(timeout=120)
print("exit", p.returncode)
for line in err.decode().splitlines():
    if line.startswith("arecipe-tune: interrupted"):
        print(line.replace(out, "OUT"))
kept = sorted(f for f in os.listdir(evals))
assert all(f.endswith(".json") for f in kept), kept  # nothing half-written
for f in kept:
    print("kept", f, os.stat(os.path.join(evals, f)).st_mtime_ns)
