#!/usr/bin/env python3
"""Starts a server, lists every TCP socket it listens on, and stops it.

usage: listen-addresses.py PORTFILE -- COMMAND...

Waits (up to 60 s) for COMMAND to write its port to PORTFILE, then asks the
kernel -- `ss -H -ltnp`, not the server's own log -- for every listening
socket owned by the server's pid and prints one "listening: ADDRESS:PORT"
line each, sorted. SIGTERM then stops the server; exits 1 if it never
listened or did not stop.
"""
import os, signal, subprocess, sys, time

portfile, cmd = sys.argv[1], sys.argv[2:]
if cmd and cmd[0] == "--":
    cmd = cmd[1:]
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    deadline = time.monotonic() + 60
    while not (os.path.exists(portfile) and open(portfile).read().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            print("the server never reported a port", flush=True)
            sys.exit(1)
        time.sleep(0.05)
    ss = subprocess.run(["ss", "-H", "-ltnp"], capture_output=True, text=True, check=True)
    mine = [l.split() for l in ss.stdout.splitlines() if f"pid={proc.pid}," in l]
    for addr in sorted(fields[3] for fields in mine):
        print(f"listening: {addr}", flush=True)
    if not mine:
        print("no listening socket found for the server", flush=True)
        sys.exit(1)
finally:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            print("the server ignored SIGTERM", flush=True)
            sys.exit(1)
