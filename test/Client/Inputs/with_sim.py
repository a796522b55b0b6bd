#!/usr/bin/env python3
"""Runs one command against a live arecipe-sim (python3 stdlib only).

  with_sim.py --port-file P [--info-out F] --sim 'SIM ARGS' -- COMMAND...

Starts arecipe-sim on an ephemeral 127.0.0.1 port in its own process group,
waits for /health to answer 200, runs COMMAND (which reads the port from P),
saves /sim/info to F, and kills the simulator's whole group before exiting,
whatever happened, so no test leaves a process behind. Exits with COMMAND's
status.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--info-out")
    ap.add_argument("--sim", required=True)
    ap.add_argument("--within", type=float, default=120)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if os.path.exists(args.port_file):
        os.unlink(args.port_file)
    sim = subprocess.Popen(
        ["arecipe-sim", "--sim-port-file", args.port_file] + shlex.split(args.sim),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        deadline = time.monotonic() + args.within
        port = None
        while time.monotonic() < deadline and sim.poll() is None:
            try:
                port = int(open(args.port_file).read().strip())
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except Exception:
                pass
            time.sleep(0.1)
        else:
            print("with_sim: the simulator never became healthy", file=sys.stderr)
            return 1
        rc = subprocess.run(command, timeout=args.within).returncode
        if args.info_out:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/sim/info", timeout=5) as r:
                open(args.info_out, "wb").write(r.read())
        return rc
    finally:
        try:
            os.killpg(sim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        sim.wait()


if __name__ == "__main__":
    sys.exit(main())
