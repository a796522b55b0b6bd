#!/usr/bin/env python3
"""Whole-process wall time of `arecipec --emit plan`.

usage: compile-bench.py --arecipec PATH [--runs N]
                        [--jsonnet-file FILE [--jsonnet PATH]] [--no-generated]

Times (median of N runs, each a fresh process, output to /dev/null):
  1. examples/kimik3-mi355x-atom.arecipe (11 cells); with --jsonnet-file,
     side by side with `jsonnet FILE` (FILE: the Jsonnet encoding of the
     same recipe, which is not part of this repository), the commands
     alternating run by run so all see the same machine load; prints the
     wall and CPU (user + system, wait4) medians of each and the ratio, and
     for reference `arecipec --version` (process start-up) and
     `arecipec FILE --syntax-only` (start-up and parsing the main file);
  2. unless --no-generated, generated recipes with 125, 250, 500 and 1,000 concurrencies, four
     bands, 20 knobs per band (10 engine knobs, 10 env.*; every cell the
     same size, so output grows linearly), to show how the
     cost grows with the number of cells.
Prints one line per input: cells, median ms, ms per cell.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

SRC = pathlib.Path(__file__).resolve().parents[2]

ENGINE_KNOBS = [
    ("max_num_seqs", "2 * conc"), ("max_num_batched_tokens", "8192"),
    ("gpu_memory_utilization", "0.86"), ("dcp", "8"), ("block_size", "128"),
    ("compile_level", "3"), ("state_checkpoint_interval_tokens", "-1"),
    ("prefix_caching", "true"), ("replay_ssm", "conc % 2 == 0"),
    ("cudagraph_capture_sizes", "[2 .. 64]"),
]


def generated_recipe(cells):
    lines = ['import "std/hardware/mi355x"', 'import "std/engines/atom"',
             'import "std/models/kimi_k3"', "",
             "recipe generated {",
             "  model = kimi_k3; hardware = mi355x; engine = atom; tp = 8",
             '  scenario = agentic(duration = 1h, trace = "t")',
             "  concurrency = [" + ", ".join(str(c) for c in range(1, cells + 1)) + "]"]
    quarter = cells // 4
    for band in range(4):
        lo, hi = band * quarter + 1, (cells if band == 3 else (band + 1) * quarter)
        lines.append(f"  band b{band} when conc in {lo}..{hi} {{")
        for name, value in ENGINE_KNOBS:
            lines.append(f"    {name} = {value}")
        for k in range(10):
            lines.append(f"    env.BENCH_{k} = conc * {k + 1} + {band}")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def median_ms(arecipec, recipe, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([arecipec, recipe, "--emit", "plan", "-o", os.devnull],
                       check=True, cwd=SRC)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def timed(argv):
    """Wall and CPU (user + system) milliseconds of one fresh process whose
    standard output goes to /dev/null."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=SRC, stdout=null)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"compile-bench: {' '.join(argv)} failed")
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def side_by_side(arecipec, jsonnet, jsonnet_file, runs):
    example = "examples/kimik3-mi355x-atom.arecipe"
    commands = {
        "arecipec --emit plan": [arecipec, example, "--emit", "plan", "-o", os.devnull],
        "jsonnet": [jsonnet, jsonnet_file],
        # Where the process's time goes: start-up alone, and start-up plus
        # parsing the main file (no imports, no Sema).
        "arecipec --version": [arecipec, "--version"],
        "arecipec --syntax-only": [arecipec, example, "--syntax-only"],
    }
    print(f"{example}, side by side ({runs} fresh processes each):")
    samples = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(timed(argv))
    medians = {}
    for name, rows in samples.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        medians[name] = (wall, cpu)
        print(f"  {name}: median {wall:.1f} ms wall, "
              f"{cpu:.1f} ms CPU (min wall {min(w for w, _ in rows):.1f} ms)")
    (aw, ac), (jw, jc) = medians["arecipec --emit plan"], medians["jsonnet"]
    print(f"  jsonnet / arecipec --emit plan: {jw / aw:.1f}x wall, {jc / ac:.1f}x CPU")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arecipec", required=True)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--jsonnet-file",
                    help="the Jsonnet encoding of the example, timed side by side")
    ap.add_argument("--jsonnet", default="jsonnet", help="the jsonnet binary")
    ap.add_argument("--no-generated", action="store_true",
                    help="skip the generated recipes")
    args = ap.parse_args()
    arecipec = os.path.abspath(args.arecipec)
    if args.jsonnet_file:
        side_by_side(arecipec, args.jsonnet, os.path.abspath(args.jsonnet_file),
                     args.runs)
    else:
        ms = median_ms(arecipec, "examples/kimik3-mi355x-atom.arecipe", args.runs)
        print(f"kimik3-mi355x-atom: 11 cells, median {ms:.1f} ms, {ms / 11:.2f} ms/cell")
    if args.no_generated:
        return
    with tempfile.TemporaryDirectory() as tmp:
        for cells in (125, 250, 500, 1000):
            path = pathlib.Path(tmp, f"gen{cells}.arecipe")
            path.write_text(generated_recipe(cells))
            runs = args.runs if cells <= 250 else max(5, args.runs // 3)
            ms = median_ms(arecipec, str(path), runs)
            print(f"generated: {cells} cells x 20 knobs/band, median {ms:.1f} ms, "
                  f"{ms / cells:.2f} ms/cell ({runs} runs)")


if __name__ == "__main__":
    main()
