#!/usr/bin/env python3
"""Runs one command against a server started for it (python3 stdlib only).

  with_sim.py --port-file P [--info-out F] --sim 'SIM ARGS' -- COMMAND...
  with_sim.py --port-file P --server 'SERVER COMMAND' [--report]
              [--max-rss-mb N] -- COMMAND...

--sim starts arecipe-sim on an ephemeral 127.0.0.1 port (written to P) and
waits for /health to answer 200; --server starts any command that writes
its port to P and waits for the file. Either runs in its own process group
and is killed with its whole group before exiting, whatever happened, so no
test leaves a process behind. COMMAND then runs (reading the port from P);
--info-out saves the simulator's /sim/info to F.

Exits with COMMAND's status; with --report it prints "exit: N" instead and
exits 0, and with --max-rss-mb it also prints whether COMMAND's peak
resident memory stayed within N MiB. A COMMAND still running after --within
seconds is killed, so a hang fails the test instead of stalling the suite.
"""
import argparse
import os
import resource
import shlex
import signal
import subprocess
import sys
import time
import urllib.request


def wait_ready(args, server):
    deadline = time.monotonic() + args.within
    while time.monotonic() < deadline and server.poll() is None:
        try:
            port = int(open(args.port_file).read().strip())
            if args.server:
                return port
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return port
        except Exception:
            pass
        time.sleep(0.1)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--info-out")
    started = ap.add_mutually_exclusive_group(required=True)
    started.add_argument("--sim")
    started.add_argument("--server")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--max-rss-mb", type=int)
    ap.add_argument("--within", type=float, default=120)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if os.path.exists(args.port_file):
        os.unlink(args.port_file)
    argv = (["arecipe-sim", "--sim-port-file", args.port_file] + shlex.split(args.sim)
            if args.sim else shlex.split(args.server))
    server = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        port = wait_ready(args, server)
        if port is None:
            print("with_sim: the server never became ready", file=sys.stderr)
            return 1
        proc = subprocess.Popen(command)
        try:
            rc = proc.wait(timeout=args.within)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            print("with_sim: the command was still running after %g s" % args.within)
            return 1
        if args.info_out:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/sim/info", timeout=5) as r:
                open(args.info_out, "wb").write(r.read())
        if args.max_rss_mb:
            rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print("exit: %d" % rc)
            print("peak memory within %d MiB: %s" % (args.max_rss_mb, rss_mb <= args.max_rss_mb))
            return 0
        if args.report:
            print("exit: %d" % rc)
            return 0
        return rc
    finally:
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
