"""Runs a command whose standard output is a pipe nobody reads (its read
end closed before the command starts) and prints the command's exit status
and then its standard error.

usage: closed-pipe.py COMMAND [ARGS...]
"""
import os
import subprocess
import sys

r, w = os.pipe()
os.close(r)
# restore_signals (the default) gives the command SIGPIPE's default action,
# as a shell pipeline does, although Python itself ignores it.
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
os.close(w)
print(f"status {p.returncode}")
sys.stdout.write(p.stderr.decode(errors="replace"))
