#!/usr/bin/env python3
"""Runs one command against a server started for it (stdlib only).

  with_server.py --port-file P [--max-rss-mb N] -- SERVER... -- COMMAND...

Starts SERVER (which writes its port to P) in its own process group, waits
for the port file, runs COMMAND, and kills the server's whole group before
exiting, whatever happened, so no test leaves a process behind. Prints
"exit: N" for COMMAND's status and, with --max-rss-mb, whether COMMAND's
peak resident memory stayed within N MiB. A command still running after
--within seconds is killed and reported, so a hang fails the test instead of
stalling the suite.
"""
import argparse
import os
import resource
import signal
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--max-rss-mb", type=int)
    ap.add_argument("--within", type=float, default=120)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    split = rest.index("--")
    server_cmd, command = rest[:split], rest[split + 1:]
    if os.path.exists(args.port_file):
        os.unlink(args.port_file)
    server = subprocess.Popen(server_cmd, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(args.port_file):
            if time.monotonic() > deadline or server.poll() is not None:
                print("with_server: the server never wrote its port", file=sys.stderr)
                return 1
            time.sleep(0.05)
        proc = subprocess.Popen(command)
        try:
            rc = proc.wait(timeout=args.within)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            print("with_server: the command was still running after %g s" % args.within)
            return 1
        print("exit: %d" % rc)
        if args.max_rss_mb:
            rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print("peak memory within %d MiB: %s" % (args.max_rss_mb, rss_mb <= args.max_rss_mb))
            if rss_mb > args.max_rss_mb:
                print("with_server: peak RSS %.0f MiB" % rss_mb, file=sys.stderr)
        return 0
    finally:
        try:
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
