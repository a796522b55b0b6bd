#!/usr/bin/env python3
"""Freezes a live arecipe-sim in the middle of a measurement (stdlib only).

  stop_engine.py --marker TEXT --when-lines PATH:N
                 [--sim 'SIM ARGS' --port-file P] [--within S] -- COMMAND...

Runs COMMAND; as soon as PATH holds at least N complete lines (records of
finished requests), sends SIGSTOP to every arecipe-sim whose command line
contains TEXT (the test's output directory), so the engine stays alive and
keeps its sockets but never answers again. With --sim, the simulator is
started here first (its own process group, port written to P, COMMAND runs
once /health answers); without it, COMMAND starts the simulator itself
(arecipe-run).

Prints "stopped: True" once the engine was frozen and "exit: N" for
COMMAND's status. Afterwards every process whose command line contains TEXT
is a leftover: reported, continued and killed, and the harness exits 1, so
a leak cannot pass unnoticed. A command still running after --within
seconds is killed and reported as hanging.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request


def processes_with(marker, name=None):
    """Live processes (pid, command line) whose command line names marker."""
    ps = subprocess.run(["ps", "-e", "-o", "pid=,stat=,comm=,args="], capture_output=True,
                        text=True, check=True).stdout
    found = []
    for row in ps.splitlines():
        pid, stat, comm, args = (row.split(None, 3) + ["", "", "", ""])[:4]
        if int(pid) == os.getpid() or stat.startswith("Z") or "stop_engine.py" in args:
            continue
        if marker in args and (name is None or comm == name[:15]):
            found.append((int(pid), args))
    return found


def lines(path):
    """Complete lines in path so far; -1 while it does not exist."""
    return open(path, "rb").read().count(b"\n") if os.path.exists(path) else -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--marker", required=True)
    ap.add_argument("--when-lines", required=True)
    ap.add_argument("--sim")
    ap.add_argument("--port-file")
    ap.add_argument("--within", type=float, default=180)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    path, need = a.when_lines.rsplit(":", 1)
    sim = None
    if a.sim:
        sim = subprocess.Popen(["arecipe-sim", "--sim-port-file", a.port_file] + shlex.split(a.sim),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                port = int(open(a.port_file).read().strip())
                with urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=2) as r:
                    if r.status == 200:
                        break
            except Exception:
                pass
            if time.monotonic() > deadline or sim.poll() is not None:
                print("stop_engine: the simulator never became healthy", file=sys.stderr)
                return 1
            time.sleep(0.1)
    rc = 1
    try:
        proc = subprocess.Popen(cmd)
        stopped = False
        deadline = time.monotonic() + a.within
        while proc.poll() is None and time.monotonic() < deadline:
            if not stopped and lines(path) >= int(need):
                engines = processes_with(a.marker, "arecipe-sim")
                for pid, _ in engines:
                    os.kill(pid, signal.SIGSTOP)
                stopped = bool(engines)
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
            print("stop_engine: the command was still running after %g s" % a.within)
            return 1
        print("stopped: %s" % stopped)
        print("exit: %d" % proc.returncode)
        rc = 0 if stopped else 1
    finally:
        if sim is not None:
            try:
                os.killpg(sim.pid, signal.SIGCONT)
                os.killpg(sim.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            sim.wait()
    leftovers = processes_with(a.marker)
    for pid, text in leftovers:
        print("LEFTOVER %d %s" % (pid, text))
        try:
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if leftovers:
        return 1
    print("no process left")
    return rc


if __name__ == "__main__":
    sys.exit(main())
