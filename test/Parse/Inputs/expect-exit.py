"""Runs a command and fails unless it exits with the given status.

usage: expect-exit.py STATUS COMMAND [ARGS...]
Output of the command passes through, so FileCheck can read it.
"""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    sys.stderr.write(f"expected exit status {want}, got {got}\n")
    sys.exit(1)
