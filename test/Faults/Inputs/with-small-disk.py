#!/usr/bin/env python3
"""Runs a command with a tiny tmpfs mounted at DIR, so writes fail for real.

usage: with-small-disk.py --size 128k DIR -- COMMAND...

Mounts a fresh tmpfs of the given size at DIR (root only), runs COMMAND, copies
what it wrote to DIR.after (for the checks that follow) and always unmounts,
whatever COMMAND did. Prints "exit: N" and exits 0, so the test checks the
status itself.
"""
import argparse, shutil, subprocess, sys

p = argparse.ArgumentParser()
p.add_argument("--size", required=True)
p.add_argument("dir")
p.add_argument("command", nargs=argparse.REMAINDER)
a = p.parse_args()
cmd = a.command[1:] if a.command and a.command[0] == "--" else a.command

subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={a.size}", "tmpfs", a.dir], check=True)
try:
    rc = subprocess.call(cmd)
    shutil.rmtree(a.dir + ".after", ignore_errors=True)
    shutil.copytree(a.dir, a.dir + ".after", symlinks=True)
finally:
    subprocess.run(["umount", a.dir], check=True)
print(f"exit: {rc}", flush=True)
