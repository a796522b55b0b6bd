#!/usr/bin/env python3
"""Drives a real arecipe-sim process for the lit tests (python3 stdlib only).

Every mode starts the simulator in its own process group on an ephemeral
port, prints what it observed in a stable form for FileCheck, and kills the
whole group before returning, whatever happened, so no test leaves a process
running.

  simctl.py serve [--do ACTION]... -- SIM_ARGS...   wait for /health 200, run actions
  simctl.py exit --within S -- SIM_ARGS...          wait for the process to exit
  simctl.py stall --quiet S --within S -- SIM_ARGS... expect a live process whose log stops

ACTIONS: "get PATH", "post PATH JSON [Header:Value]" (JSON may be @FILE), "term" (SIGTERM, wait,
print the exit code), "kill" (SIGKILL, wait, print the exit code), "wait-exit", "cat FILE",
"log" (print the log, once it holds the ready line and has been quiet for 0.2 s),
"raw BYTES" (BYTES is a Python bytes literal sent as the whole request on a fresh connection,
which should ask for "Connection: close"; prints the status line and body, or that the
connection closed), "alive" (whether the process still runs).
"""
import argparse
import ast
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


class Sim:
    def __init__(self, args, env_pairs, unset):
        self.dir = tempfile.mkdtemp(prefix="simctl-")
        self.port_file = os.path.join(self.dir, "port")
        env = dict(os.environ)
        for key in unset:
            env.pop(key, None)
        for pair in env_pairs:
            key, _, value = pair.partition("=")
            env[key] = value
        self.lines = []
        self.lock = threading.Lock()
        self.last_growth = time.monotonic()
        self.proc = subprocess.Popen(
            ["arecipe-sim", "--sim-port-file", self.port_file] + args,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, env=env, start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stderr:
            with self.lock:
                self.lines.append(raw.decode(errors="replace").rstrip("\n"))
                self.last_growth = time.monotonic()

    def log(self):
        with self.lock:
            return list(self.lines)

    def settled_log(self, expect=None, quiet=0.2, within=30):
        """The log once the reader has caught up: it holds a line containing
        `expect` (when given) and has not grown for `quiet` seconds. The
        process writes its lines before it answers, but this thread reads
        them on its own schedule, so a busy machine could otherwise print a
        log that lags what the process has already done."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self.lock:
                seen = expect is None or any(expect in l for l in self.lines)
                idle = time.monotonic() - self.last_growth
            if seen and idle >= quiet:
                break
            time.sleep(0.02)
        return self.log()

    def port(self, within):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if os.path.exists(self.port_file):
                return int(open(self.port_file).read())
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise SystemExit("simctl: no port file; log:\n" + "\n".join(self.log()))

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)
        self.reader.join(timeout=5)

    def wait_exit(self, within):
        try:
            code = self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            print("still running after %s s" % within)
            return None
        self.reader.join(timeout=5)
        print("exit code %d" % code)
        return code


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        ctype = resp.getheader("Content-Type", "")
        if ctype.startswith("text/event-stream"):
            print("%s %s -> %d sse" % (method, path, resp.status))
            print_sse(resp)
        else:
            data = resp.read().decode()
            print("%s %s -> %d" % (method, path, resp.status))
            print(normalise(data))
        return resp.status
    except (ConnectionError, http.client.HTTPException) as err:
        print("%s %s -> connection error: %s" % (method, path, type(err).__name__))
        return None
    finally:
        conn.close()


def raw_request(port, data):
    """Sends DATA as it is and prints what came back, read to EOF."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        reply = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    if not reply:
        print("raw -> connection closed without a reply")
        return
    head, _, body = reply.partition(b"\r\n\r\n")
    print("raw -> " + head.split(b"\r\n")[0].decode(errors="replace"))
    print(normalise(body.decode(errors="replace")))


def normalise(text):
    return re.sub(r'"created":\s*\d+', '"created":0', text)


def print_sse(resp):
    """Prints each event; checks every data line is JSON or [DONE]."""
    events = malformed = 0
    buffer = b""
    while True:
        chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            line = event.decode()
            events += 1
            if not line.startswith("data: "):
                malformed += 1
                print("bad event: %r" % line)
                continue
            payload = line[len("data: "):]
            if payload != "[DONE]":
                try:
                    json.loads(payload)
                except ValueError:
                    malformed += 1
                    print("malformed: %s" % normalise(payload))
                    continue
            print(normalise(line))
    print("events %d malformed %d trailing %r" % (events, malformed, buffer))


def serve(sim, actions, within):
    port = sim.port(within)
    deadline = time.monotonic() + within
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                break
        except OSError:
            pass
        if time.monotonic() > deadline or sim.proc.poll() is not None:
            if sim.proc.poll() is not None:
                sim.reader.join(timeout=5)  # every line it wrote, read
            raise SystemExit("simctl: never healthy; log:\n" + "\n".join(sim.log()))
        time.sleep(0.02)
    for action in actions:
        words = action.split(" ", 2)
        verb = words[0]
        if verb == "get":
            request(port, "GET", words[1])
        elif verb == "post":
            rest = words[2] if len(words) > 2 else ""
            headers = {"Content-Type": "application/json"}
            match = re.match(r"^(.*\})\s+([A-Za-z-]+):(\S+)$", rest)
            if match:
                rest = match.group(1)
                headers[match.group(2)] = match.group(3)
            if rest.startswith("@"):
                rest = open(rest[1:]).read()
            request(port, "POST", words[1], rest, headers)
        elif verb == "term":
            sim.proc.send_signal(signal.SIGTERM)
            sim.wait_exit(within)
        elif verb == "kill":
            sim.proc.send_signal(signal.SIGKILL)
            sim.wait_exit(within)
        elif verb == "raw":
            raw_request(port, ast.literal_eval(action.split(" ", 1)[1]))
        elif verb == "alive":
            print("alive" if sim.proc.poll() is None else
                  "exited with %d" % sim.proc.returncode)
        elif verb == "wait-exit":
            sim.wait_exit(within)
        elif verb == "cat":
            print("file %s:" % os.path.basename(words[1]))
            print(open(words[1]).read().rstrip("\n"))
        elif verb == "log":
            print("\n".join(sim.settled_log("ready on http", within=within)))
        else:
            raise SystemExit("simctl: unknown action " + action)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["serve", "exit", "stall"])
    parser.add_argument("--do", action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--unset", action="append", default=[])
    parser.add_argument("--within", type=float, default=60)
    parser.add_argument("--quiet", type=float, default=2)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    opts = parser.parse_args(argv[:split])
    args = argv[split + 1:]
    sim = Sim(args, opts.env, opts.unset)
    try:
        if opts.mode == "serve":
            serve(sim, opts.do, opts.within)
        elif opts.mode == "exit":
            sim.wait_exit(opts.within)
            print("\n".join(sim.log()))
        else:
            stall(sim, opts.quiet, opts.within)
    finally:
        sim.kill()
    sys.stdout.flush()


def stall(sim, quiet, within):
    """Succeeds when the process is alive, not healthy, and its log has not
    grown for `quiet` seconds; prints the log for FileCheck."""
    port = sim.port(within)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if sim.proc.poll() is not None:
            print("exited with %d" % sim.proc.returncode)
            break
        with sim.lock:
            idle = time.monotonic() - sim.last_growth
            have_lines = bool(sim.lines)
        if have_lines and idle >= quiet:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            status = conn.getresponse().status
            print("alive; log quiet for %.0f s; /health %d" % (quiet, status))
            break
        time.sleep(0.1)
    else:
        print("log still growing after %s s" % within)
    print("\n".join(sim.log()))


if __name__ == "__main__":
    main()
