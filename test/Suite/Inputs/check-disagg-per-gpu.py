#!/usr/bin/env python3
"""Checks a disaggregated cell's InferenceX result files against the suite's
per-GPU rule, recomputed from the cell's own benchmark result.

  check-disagg-per-gpu.py CELL_DIR PREFILL_TP DECODE_TP PREFILL_GPUS DECODE_GPUS

The suite divides total throughput by all GPUs, output throughput by the
decode GPUs and input throughput (total - output) by the prefill GPUs, and
records each side's own parallelism. Prints one line per figure; exits 1 on
the first disagreement.
"""
import glob
import json
import math
import sys

cell, ptp, dtp, pg, dg = sys.argv[1], *map(int, sys.argv[2:6])
agg = glob.glob(cell + "/agg_*.json")
bench = [f for f in glob.glob(cell + "/*_conc*.json")
         if "/agg_" not in f and not f.endswith(("summary.json", "rank0.json"))]
if len(agg) != 1 or len(bench) != 1:
    sys.exit(f"expected one agg_ and one benchmark result file, got {agg} {bench}")
a, b = json.load(open(agg[0])), json.load(open(bench[0]))
total, output = b["total_token_throughput"], b["output_throughput"]
if not (total > output > 0):
    sys.exit(f"implausible throughputs: total {total}, output {output}")
want = {
    "prefill_tp": ptp, "decode_tp": dtp,
    "num_prefill_gpu": pg, "num_decode_gpu": dg,
    "prefill_num_workers": 1, "decode_num_workers": 1,
    "tput_per_gpu": total / (pg + dg),
    "output_tput_per_gpu": output / dg,
    "input_tput_per_gpu": (total - output) / pg,
}
for k, v in want.items():
    got = a.get(k)
    ok = got == v if isinstance(v, int) else (
        isinstance(got, float) and math.isclose(got, v, rel_tol=1e-9))
    print(f"{k}: {'ok' if ok else f'got {got!r}, want {v!r}'}")
    if not ok:
        sys.exit(1)
