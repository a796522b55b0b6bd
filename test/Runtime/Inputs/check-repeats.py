#!/usr/bin/env python3
"""Checks `arecipe_repeats` of every cell of a results directory against the
repeats' own summaries, recomputed here independently of the runtime:
values = each repeat's figure in order (OUT/cells/<id> is repeat 1,
OUT/repeats/K/cells/<id> repeat K), mean, sample std (n - 1) and the 95 %
CI mean +- t * std / sqrt(n) with t from the published table.
Usage: check-repeats.py OUT N CELL... ; prints one line per cell."""
import json
import math
import sys

T975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 6: 2.4469, 7: 2.3646,
        8: 2.3060, 9: 2.2622}
FIGURES = {"total_tput_per_gpu": ("request_metrics", "throughput", "per_gpu", "total"),
           "p90_interactivity": ("arecipe_client", "p90_interactivity"),
           "median_e2el": ("request_metrics", "latency", "e2el", "p50")}

out, n, cells = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for cell in cells:
    summaries = []
    for k in range(1, n + 1):
        d = out if k == 1 else f"{out}/repeats/{k}"
        summaries.append(json.load(open(f"{d}/cells/{cell}/summary.json")))
    rep = summaries[0]["arecipe_repeats"]
    assert rep["runs"] == n, rep["runs"]
    assert rep["statuses"] == [s["arecipe_run"]["status"] for s in summaries], rep["statuses"]
    for key, path in FIGURES.items():
        values = []
        for s in summaries:
            for part in path:
                s = s[part]
            values.append(s)
        f = rep["figures"][key]
        mean = sum(values) / len(values)
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
        half = T975[len(values) - 1] * std / math.sqrt(len(values))
        for name, want in (("mean", mean), ("std", std), ("ci95_low", mean - half),
                           ("ci95_high", mean + half)):
            assert math.isclose(f[name], want, rel_tol=1e-9, abs_tol=1e-12), (cell, key, name,
                                                                                 f[name], want)
        assert f["values"] == values, (cell, key, f["values"], values)
        assert f["count"] == n
    print(f"{cell}: {rep['ok']} of {rep['runs']} ok, figures agree with the repeats")
