#!/usr/bin/env python3
"""Drives several real arecipe-sim processes for the router tests: engine
backends and one router in front of them (python3 stdlib only).

  simnet.py --backend NAME=SIM_ARGS... --router ROUTER_ARGS [--do ACTION]...

Each backend starts as `arecipe-sim --sim-port-file F SIM_ARGS` (split like
a shell line) and must turn healthy; then the router starts with
ROUTER_ARGS, in which {NAME} stands for http://127.0.0.1:PORT of that
backend, and must turn healthy. ACTIONS are simctl.py's ("get PATH", "post
PATH JSON [Header:Value]", ...) sent to the router, or to backend NAME as
"get@NAME PATH"; "drop PATH JSON" sends a streaming request and closes the
connection after the first event; "sleep S" waits; "term" stops the router with SIGTERM and prints its exit
code; "log" prints the router's log; "log@NAME" a backend's. Every process
runs in its own process group and is killed before this returns, whatever
happened.
"""
import argparse
import os
import shlex
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simctl  # noqa: E402


def healthy(sim, within):
    port = sim.port(within)
    deadline = time.monotonic() + within
    while True:
        try:
            conn = simctl.http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return port
        except OSError:
            pass
        if time.monotonic() > deadline or sim.proc.poll() is not None:
            if sim.proc.poll() is not None:
                sim.reader.join(timeout=5)  # every line it wrote, read
            raise SystemExit("simnet: never healthy; log:\n" + "\n".join(sim.log()))
        time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", action="append", default=[])
    parser.add_argument("--router", required=True)
    parser.add_argument("--do", action="append", default=[])
    parser.add_argument("--within", type=float, default=60)
    opts = parser.parse_args()
    sims = {}
    try:
        urls = {}
        for spec in opts.backend:
            name, _, args = spec.partition("=")
            sims[name] = simctl.Sim(shlex.split(args), [], [])
        for name, sim in sims.items():
            urls[name] = "http://127.0.0.1:%d" % healthy(sim, opts.within)
        router_args = shlex.split(opts.router.format(**urls))
        router = sims["router"] = simctl.Sim(router_args, [], [])
        port = healthy(router, opts.within)
        for action in opts.do:
            verb, _, rest = action.partition(" ")
            target, at, name = verb.partition("@")
            sim = sims[name] if at else router
            if target == "log":
                print("\n".join(sim.settled_log(
                    "router ready on" if sim is router else "ready on http",
                    within=opts.within)))
            elif target == "term":
                sim.proc.send_signal(signal.SIGTERM)
                sim.wait_exit(opts.within)
            elif target == "sleep":
                time.sleep(float(rest))
            elif target == "drop":
                path, _, body = rest.partition(" ")
                conn = simctl.http.client.HTTPConnection(
                    "127.0.0.1", sim.port(opts.within), timeout=30)
                conn.request("POST", path, body=body,
                             headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                first = resp.read1(65536) if hasattr(resp, "read1") else resp.read(1)
                print("%s %s -> %d, dropped after %s" % (
                    "POST", path, resp.status,
                    "an event" if first.startswith(b"data: ") else repr(first[:20])))
                conn.sock.close()
                conn.close()
            elif target in ("get", "post"):
                words = rest.split(" ", 1)
                path = words[0]
                body = words[1] if len(words) > 1 else ""
                target_port = sim.port(opts.within)
                if target == "get":
                    simctl.request(target_port, "GET", path)
                else:
                    headers = {"Content-Type": "application/json"}
                    match = simctl.re.match(r"^(.*\})\s+([A-Za-z-]+):(\S+)$", body)
                    if match:
                        body = match.group(1)
                        headers[match.group(2)] = match.group(3)
                    simctl.request(target_port, "POST", path, body, headers)
            else:
                raise SystemExit("simnet: unknown action " + action)
    finally:
        for sim in sims.values():
            sim.kill()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
