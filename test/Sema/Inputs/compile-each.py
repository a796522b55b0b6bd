"""Compiles every .arecipe file under a directory, each on its own, through
the whole front end (parse and semantic analysis, `--emit cells`), and fails
unless each one exits 0 with no diagnostic at all. Prints one line per file,
so a test can FileCheck which files were compiled; a directory with no
.arecipe file is a failure, not a pass.

usage: compile-each.py ARECIPEC DIR
"""
import pathlib
import subprocess
import sys

arecipec, root = sys.argv[1], pathlib.Path(sys.argv[2])
files = sorted(root.rglob("*.arecipe"))
if not files:
    sys.exit(f"compile-each: no .arecipe file under {root}")
failed = 0
for f in files:
    rel = f.relative_to(root.parent)
    r = subprocess.run([arecipec, str(f), "--emit", "cells", "-o", "/dev/null"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or r.stderr:
        failed += 1
        print(f"FAILED {rel} (exit {r.returncode})\n{r.stderr}", end="")
    else:
        print(f"compiled {rel}")
print(f"{len(files) - failed} of {len(files)} files compiled cleanly")
sys.exit(1 if failed else 0)
