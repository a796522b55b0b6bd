#!/usr/bin/env python3
"""Peak memory, wall time and output size of arecipec on very many cells.

usage: scale-bench.py --arecipec PATH [--cells N ...] [--emit KIND ...]

The input is examples/kimik3-mi355x-atom.arecipe with its concurrency list
replaced by [1, 2, 4, 8, 12, 14, 16, 32 .. M], N cells in all. Its
cudagraph_capture_sizes = [2 .. graph_max] grows with the concurrency, so
the output grows with the square of N (finding 20 of issue 15). Each
compilation is one fresh process writing to /dev/null except for the size,
which is counted; CPU time (user + system) and peak resident memory are
the child's (wait4). CPU time is the figure to compare on a loaded machine.
Prints one line per (cells, emit).
"""
import argparse
import os
import pathlib
import re
import subprocess
import tempfile
import time

SRC = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = SRC / "examples" / "kimik3-mi355x-atom.arecipe"
LIST = "concurrency = [1, 2, 4, 8, 12, 14, 16, 32, 40, 56, 64]"


def recipe(cells):
    text = EXAMPLE.read_text()
    assert LIST in text, "the example's concurrency list changed"
    return text.replace(LIST, f"concurrency = [1, 2, 4, 8, 12, 14, 16, 32 .. {cells + 24}]")


def run(arecipec, path, emit):
    start = time.perf_counter()
    proc = subprocess.Popen([arecipec, path, "--emit", emit], cwd=SRC,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    size = 0
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return code, seconds, cpu, usage.ru_maxrss, size, err.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arecipec", required=True)
    ap.add_argument("--cells", type=int, nargs="+", default=[2000, 3000, 10000])
    ap.add_argument("--emit", nargs="+", default=["plan", "cells", "table"])
    args = ap.parse_args()
    arecipec = os.path.abspath(args.arecipec)
    with tempfile.TemporaryDirectory() as tmp:
        for cells in args.cells:
            path = pathlib.Path(tmp, f"kimik3-{cells}.arecipe")
            path.write_text(recipe(cells))
            for emit in args.emit:
                code, seconds, cpu, rss_kb, size, err = run(arecipec, str(path), emit)
                note = "" if code == 0 else f", exit {code}: " + \
                    re.sub(r"\s+", " ", err.strip())[:120]
                print(f"{cells} cells --emit {emit}: {seconds:.1f} s wall, {cpu:.1f} s CPU, "
                      f"peak RSS {rss_kb / 1024:.0f} MB, output {size / 1e6:.1f} MB{note}",
                      flush=True)


if __name__ == "__main__":
    main()
