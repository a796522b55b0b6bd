#!/usr/bin/env python3
"""Checks two runs of the same cells under --sim-clock virtual (different
time scales): the summaries' figures are identical, records.jsonl is the
same in both but for the lane numbers, and each record's TTFT and E2E are
the ones the simulated engine logged for that request (its debug line names
the client's sequence number, which is the record's id).

usage: check-virtual-clock.py OUT_A OUT_B CELL...
"""
import json, re, sys

a_dir, b_dir, cells = sys.argv[1], sys.argv[2], sys.argv[3:]
LINE = re.compile(r"request \d+ \(seq (\d+)\) finished: simulated ttft ([0-9.]+) s "
                  r"e2e ([0-9.]+) s tokens (\d+)")


def load(out, cell):
    d = f"{out}/cells/{cell}"
    summary = json.load(open(f"{d}/summary.json"))
    records = [json.loads(l) for l in open(f"{d}/records.jsonl")]
    engine = {}
    for l in open(f"{d}/server.log"):
        m = LINE.search(l)
        if m:
            engine[int(m[1])] = (float(m[2]), float(m[3]), int(m[4]))
    forced = sum('"forced_step"' in l for l in open(f"{d}/sim-timeline.jsonl"))
    return summary, records, engine, forced


def without_lane(r):
    # Which lane sends a request depends on which of two requests that end
    # at one virtual instant the client reads first; nothing else may.
    r = dict(r)
    r.pop("lane")
    return r


for cell in cells:
    sa, ra, ea, fa = load(a_dir, cell)
    sb, rb, eb, fb = load(b_dir, cell)
    run_a, run_b = sa["arecipe_run"], sb["arecipe_run"]
    print(cell, "time scales", run_a["time_scale"], run_b["time_scale"],
          "basis", run_a["time_basis"], run_b["time_basis"],
          "exact", run_a["virtual_clock"]["exact"], run_b["virtual_clock"]["exact"],
          "forced steps", fa, fb)
    m = sa["request_metrics"]
    print(cell, "request_metrics identical", m == sb["request_metrics"],
          "throughput total > 0", m["throughput"]["total"] > 0,
          "ttft p90 > 0", m["latency"]["ttft"]["p90"] > 0)
    print(cell, "records identical", list(map(without_lane, ra)) == list(map(without_lane, rb)),
          "count", len(ra))
    for recs, engine, name in ((ra, ea, "a"), (rb, eb, "b")):
        agree = 0
        for r in recs:
            e = engine.get(r["id"])
            ttft = (r["first_token_ns"] - r["scheduled_ns"]) / 1e9
            e2e = (r["end_ns"] - r["scheduled_ns"]) / 1e9
            if e and abs(e[0] - ttft) <= 1e-6 and abs(e[1] - e2e) <= 1e-6 and \
                    e[2] == r["output_tokens"]:
                agree += 1
            elif e:
                print(cell, name, "record", r["id"], "ttft", ttft, "e2e", e2e, "engine", e)
        print(cell, name, "records agreeing with the engine's own figures", agree, "of",
              len(recs))
