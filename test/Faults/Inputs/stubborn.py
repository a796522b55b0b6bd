#!/usr/bin/env python3
"""A process that will not go quietly: it ignores SIGTERM, starts a child
that ignores it too, writes READY once both run, then sleeps. Both stay in
the process group they were started in. Used to show that arecipe-run
leaves nothing behind even when it is killed with SIGKILL.

usage: stubborn.py READY
"""
import os, signal, sys, time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)
time.sleep(0.2)
with open(sys.argv[1], "w") as f:
    f.write("ready\n")
while True:
    time.sleep(1)
