"""Reads a sweep's InferenceX result files the way InferenceX's processing does.

Usage: inferencex_results.py fixed|agentic OUT

Written from the rules in docs/inferencex-results.md, independently of
arecipe's C++:
  (a) every cell has its files, named by the suite's convention, and each
      file has every field of the documented list with the documented type;
  (b) fixed-seq-len: the processing rules (per-GPU throughput from the
      client result and the plan's TP x PP x PCP, `*_ms` to seconds, tpot to
      interactivity) re-derive arecipe's agg_ row from its client result;
      the client result's statistics are re-computed from records.jsonl;
      agentic-coding: the aggregation rules (drop warm-up and failed
      records, duration from the first start to the last end, latency
      statistics, interactivity as reciprocals of ITL statistics) re-derive
      the aggregate from records.jsonl;
  (c) the figures agree with arecipe's own summary.json.
Then it collects the rows (every result file into one list, as the suite's
collector does) and prints the dashboard's table, one row per cell.
"""

import glob
import json
import math
import os
import re
import statistics
import sys

NUM = (int, float)
STR = (str,)
BOOL = (bool,)
OBJ = (dict,)

FIXED_IDENTITY = [
    ("hw", STR), ("conc", (int,)), ("image", STR), ("model", STR),
    ("infmax_model_prefix", STR), ("framework", STR), ("precision", STR),
    ("spec_decoding", STR), ("disagg", BOOL), ("recipe_fingerprint", STR),
    ("isl", (int,)), ("osl", (int,)), ("is_multinode", BOOL),
]
SINGLE_NODE = [("tp", (int,)), ("pp", (int,)), ("dcp_size", (int,)),
               ("pcp_size", (int,)), ("ep", (int,)), ("dp_attention", STR)]
PER_GPU = [("tput_per_gpu", NUM), ("output_tput_per_gpu", NUM),
           ("input_tput_per_gpu", NUM)]
STATS = ["mean", "median", "std", "p90", "p99", "p99.9"]
LATENCY = [f"{s}_{m}" for m in ("ttft", "tpot", "itl", "e2el") for s in STATS]
INTVTY = [f"{s}_intvty" for s in STATS]
FIXED_FIELDS = (FIXED_IDENTITY + SINGLE_NODE + PER_GPU
                + [(k, NUM) for k in LATENCY + INTVTY])
BENCH_FIELDS = ([("model_id", STR), ("max_concurrency", (int,)), ("duration", NUM),
                 ("completed", (int,)), ("total_input_tokens", (int,)),
                 ("total_output_tokens", (int,)), ("output_throughput", NUM),
                 ("total_token_throughput", NUM)]
                + [(k + "_ms", NUM) for k in LATENCY])

AGENTIC_FIELDS = [
    ("hw", STR), ("conc", (int,)), ("image", STR), ("recipe_fingerprint", STR),
    ("model", STR), ("infmax_model_prefix", STR), ("framework", STR),
    ("precision", STR), ("spec_decoding", STR), ("disagg", BOOL),
    ("scenario_type", STR), ("is_multinode", BOOL), ("tp", (int,)), ("ep", (int,)),
    ("dp_attention", STR), ("kv_offloading", STR),
    ("kv_offload_backend", (dict, type(None))), ("allocated_cpu_dram_gb", (int,)),
    ("num_requests_total", (int,)), ("num_requests_successful", (int,)),
    ("request_accounting", OBJ), ("pp", (int,)), ("dcp_size", (int,)),
    ("pcp_size", (int,)), ("request_metrics", OBJ), ("server_metrics", OBJ),
    ("kv_cache_pool_tokens", (int, type(None))),
]
AGENTIC_STATS = ["mean", "p50", "p75", "p90", "p95", "std"]
AGENTIC_NESTED = (
    [(f"latency.{m}.{s}", NUM) for m in ("ttft", "e2el", "itl", "tpot", "intvty",
                                         "e2e_norm_intvty") for s in AGENTIC_STATS]
    + [(f"tokens.{t}.{s}", NUM) for t in ("input", "output_actual", "output_expected")
       for s in AGENTIC_STATS]
    + [("qps.mean", NUM), ("throughput.input.tokens_per_second", NUM),
       ("throughput.output.tokens_per_second", NUM),
       ("throughput.total.tokens_per_second", NUM),
       ("throughput.duration_seconds", NUM),
       ("throughput.per_gpu.total_tput_tps", NUM),
       ("throughput.per_gpu.output_tput_tps", NUM),
       ("throughput.per_gpu.input_tput_tps", NUM)])

NAME = re.compile(
    r"^(?P<exp>.+)_(?P<precision>[^_]+)_(?P<framework>[^_]+)"
    r"_tp(?P<tp>\d+)-pp(?P<pp>\d+)-dcp(?P<dcp>\d+)-pcp(?P<pcp>\d+)-ep(?P<ep>\d+)"
    r"-dpa(?P<dpa>true|false)_disagg-(?P<disagg>true|false)"
    r"_spec-(?P<spec>mtp|draft_model|none)_conc(?P<conc>\d+)_(?P<runner>[^_]+)"
    r"_recipe-(?P<fp>[0-9a-f]{16})$")

problems = []


def problem(cell, text):
    problems.append(f"{cell}: {text}")


def percentile(data, p):
    """Linear interpolation on sorted data (numpy's default)."""
    if not data:
        return 0.0
    s = sorted(data)
    k = (len(s) - 1) * (p / 100)
    f = int(k)
    if f + 1 >= len(s):
        return s[f]
    return s[f] + (k - f) * (s[f + 1] - s[f])


def close(a, b):
    if not isinstance(a, NUM) or not isinstance(b, NUM):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_fields(cell, doc, fields, what, nested=False):
    for name, types in fields:
        value = dig(doc, name) if nested else doc.get(name, KeyError)
        if value is KeyError or (nested and value is None):
            problem(cell, f"{what}: missing field {name}")
        elif not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            problem(cell, f"{what}: field {name} has type {type(value).__name__}")


def dig(doc, path):
    for part in path.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def knobs(cell):
    return {k["name"]: k["value"] for k in cell["knobs"]}


def measured_ok(records):
    return [r for r in records if r["phase"] == "measured" and r["error"] == "none"]


def process_fixed(bench, env):
    """The fixed-seq-len processing rules, single node."""
    gpus = env["TP"] * env["PP_SIZE"] * env["PCP_SIZE"]
    total = float(bench["total_token_throughput"])
    output = float(bench["output_throughput"])
    data = {
        "conc": int(bench["max_concurrency"]), "model": bench["model_id"],
        "tput_per_gpu": total / gpus, "output_tput_per_gpu": output / gpus,
        "input_tput_per_gpu": (total - output) / gpus,
    }
    for key, value in bench.items():
        if key.endswith("ms"):
            data[key.replace("_ms", "")] = float(value) / 1000.0
        if "tpot" in key:
            data[key.replace("_ms", "").replace("tpot", "intvty")] = 1000.0 / float(value)
    return data


def bench_from_records(records):
    """The client result's statistics, from the request records."""
    ok = measured_ok(records)
    ttft = [(r["first_token_ns"] - r["scheduled_ns"]) / 1e9 for r in ok]
    e2el = [(r["end_ns"] - r["scheduled_ns"]) / 1e9 for r in ok]
    tpot = [(e - t) / (r["output_tokens"] - 1)
            for r, t, e in zip(ok, ttft, e2el) if r["output_tokens"] > 1]
    itl = [(b - a) / 1e9 for r in ok for a, b in zip(r["chunk_ns"], r["chunk_ns"][1:])]
    out = {}
    for name, values in (("ttft", ttft), ("tpot", tpot), ("itl", itl), ("e2el", e2el)):
        out[f"mean_{name}_ms"] = statistics.fmean(values) * 1000
        out[f"median_{name}_ms"] = percentile(values, 50) * 1000
        out[f"std_{name}_ms"] = statistics.pstdev(values) * 1000
        for p in (90, 99, 99.9):
            out[f"p{p:g}_{name}_ms"] = percentile(values, p) * 1000
    return out


def stats_for(values):
    if not values:
        return {}
    return {"mean": statistics.fmean(values), "p50": percentile(values, 50),
            "p75": percentile(values, 75), "p90": percentile(values, 90),
            "p95": percentile(values, 95),
            "std": statistics.pstdev(values) if len(values) > 1 else 0.0}


def aggregate_agentic(records, num_gpus):
    """The agentic aggregation rules, from the request records."""
    kept = measured_ok(records)
    ttft = [x for x in ((r["first_token_ns"] - r["scheduled_ns"]) / 1e9 for r in kept) if x > 0]
    e2el = [x for x in ((r["end_ns"] - r["scheduled_ns"]) / 1e9 for r in kept) if x > 0]
    itl = [((r["end_ns"] - r["first_token_ns"]) / 1e9) / (r["output_tokens"] - 1)
           for r in kept if r["output_tokens"] > 1]
    itl = [x for x in itl if x > 0]
    itl_stats = stats_for(itl)
    duration = (max(r["end_ns"] for r in kept) - min(r["scheduled_ns"] for r in kept)) / 1e9
    total = sum(r["input_tokens"] + r["output_tokens"] for r in kept) / duration
    output = sum(r["output_tokens"] for r in kept) / duration
    return {
        "num_requests_total": len(records),
        "num_requests_successful": len(kept),
        "latency.ttft": stats_for(ttft), "latency.e2el": stats_for(e2el),
        "latency.itl": itl_stats,
        "latency.intvty.p50": 1 / itl_stats["p50"], "latency.intvty.p90": 1 / itl_stats["p90"],
        "throughput.per_gpu.total_tput_tps": total / num_gpus,
        "throughput.per_gpu.output_tput_tps": output / num_gpus,
        "throughput.per_gpu.input_tput_tps": (total - output) / num_gpus,
    }


def fixed_cell(out, cell):
    cid, d = cell["id"], os.path.join(out, "cells", cell["id"])
    aggs = glob.glob(os.path.join(d, "agg_*.json"))
    if len(aggs) != 1:
        problem(cid, f"{len(aggs)} agg_*.json files")
        return None
    name = os.path.basename(aggs[0])[len("agg_"):-len(".json")]
    m = NAME.match(name)
    if not m:
        problem(cid, f"name does not follow the convention: {name}")
    k = knobs(cell)
    wl = cell["client"]["workload"]
    if m and (int(m["conc"]) != cell["conc"] or int(m["tp"]) != k.get("tp", 1)
              or not m["exp"].endswith(f"_{wl['isl']}_{wl['osl']}")):
        problem(cid, f"name disagrees with the plan: {name}")
    bench_path = os.path.join(d, name + ".json")
    if not os.path.exists(bench_path):
        problem(cid, "no client result next to the agg_ row")
        return None
    agg = json.load(open(aggs[0]))
    bench = json.load(open(bench_path))
    check_fields(cid, agg, FIXED_FIELDS, "agg_ row")
    check_fields(cid, bench, BENCH_FIELDS, "client result")
    # (b) the processing rules re-derive the row from the client result.
    env = {"TP": k.get("tp", 1), "PP_SIZE": k.get("pp", 1), "PCP_SIZE": k.get("pcp", 1)}
    for key, value in process_fixed(bench, env).items():
        if not close(agg.get(key), value):
            problem(cid, f"agg_ {key} = {agg.get(key)}, the processing rules give {value}")
    records = [json.loads(line) for line in open(os.path.join(d, "records.jsonl"))]
    for key, value in bench_from_records(records).items():
        if not close(bench.get(key), value):
            problem(cid, f"client result {key} = {bench.get(key)}, the records give {value}")
    # (c) agreement with arecipe's own summary.
    s = json.load(open(os.path.join(d, "summary.json")))
    t, lat = s["request_metrics"]["throughput"], s["request_metrics"]["latency"]
    def per_gpu(key):
        value = agg.get(key)
        return value * cell["gpus"] if isinstance(value, NUM) else value

    for mine, theirs in ((per_gpu("tput_per_gpu"), t["total"]),
                         (per_gpu("output_tput_per_gpu"), t["output"]),
                         (per_gpu("input_tput_per_gpu"), t["input"]),
                         (agg.get("median_ttft"), lat["ttft"]["p50"]),
                         (agg.get("p90_ttft"), lat["ttft"]["p90"]),
                         (agg.get("median_intvty"), lat["intvty"]["p50"]),
                         (agg.get("p90_intvty"), lat["intvty"]["p90"]),
                         (agg.get("median_e2el"), lat["e2el"]["p50"]),
                         (agg.get("conc"), s["conc"])):
        if not close(mine, theirs):
            problem(cid, f"disagrees with summary.json: {mine} != {theirs}")
    if s.get("scenario_type") != "fixed-seq-len":
        problem(cid, f"summary scenario_type {s.get('scenario_type')!r}")
    return aggs[0]


def agentic_cell(out, cell):
    cid, d = cell["id"], os.path.join(out, "cells", cell["id"])
    files = [f for f in glob.glob(os.path.join(d, "*.json"))
             if NAME.match(os.path.basename(f)[:-len(".json")])]
    if len(files) != 1:
        problem(cid, f"{len(files)} result files named by the convention")
        return None
    name = os.path.basename(files[0])[:-len(".json")]
    m = NAME.match(name)
    k = knobs(cell)
    backend = "lmcache" if k.get("lmcache") else ""
    kv = f"kvdram-{backend}" if backend else "kvnone"
    if not m["exp"].startswith(f"{m['exp'].split('_')[0]}_tp{k['tp']}_conc{cell['conc']}_{kv}"):
        problem(cid, f"experiment name disagrees with the plan: {m['exp']}")
    doc = json.load(open(files[0]))
    check_fields(cid, doc, AGENTIC_FIELDS, "aggregate")
    check_fields(cid, doc["request_metrics"], AGENTIC_NESTED, "request_metrics", nested=True)
    if doc["scenario_type"] != "agentic-coding":
        problem(cid, f"scenario_type {doc['scenario_type']!r}")
    if doc["kv_offloading"] != ("dram" if backend else "none") or (
            doc["kv_offload_backend"] != ({"name": backend} if backend else None)):
        problem(cid, "KV offload fields disagree with the plan")
    # (b) the aggregation rules re-derive the figures from the records.
    records = [json.loads(line) for line in open(os.path.join(d, "records.jsonl"))]
    gpus = k.get("tp", 1) * k.get("pp", 1) * k.get("pcp", 1)
    for key, value in aggregate_agentic(records, gpus).items():
        mine = dig(doc, key) if "." not in key or key.split(".")[0] not in (
            "latency", "throughput") else dig(doc["request_metrics"], key)
        if isinstance(value, dict):
            for sk, sv in value.items():
                if not close((mine or {}).get(sk), sv):
                    problem(cid, f"{key}.{sk} = {(mine or {}).get(sk)}, the rules give {sv}")
        elif not close(mine, value):
            problem(cid, f"{key} = {mine}, the rules give {value}")
    # (c) agreement with arecipe's own summary.
    s = json.load(open(os.path.join(d, "summary.json")))
    t, rm = s["request_metrics"]["throughput"], doc["request_metrics"]
    for mine, theirs in ((rm["throughput"]["total"]["tokens_per_second"], t["total"]),
                         (rm["throughput"]["per_gpu"]["total_tput_tps"] * cell["gpus"], t["total"]),
                         (rm["latency"]["ttft"]["p50"], s["request_metrics"]["latency"]["ttft"]["p50"]),
                         (1 / rm["latency"]["itl"]["p90"], s["request_metrics"]["latency"]["intvty"]["p90"]),
                         (doc["num_requests_successful"], s["num_requests_successful"])):
        if not close(mine, theirs):
            problem(cid, f"disagrees with summary.json: {mine} != {theirs}")
    if s.get("scenario_type") != "agentic-coding":
        problem(cid, f"summary scenario_type {s.get('scenario_type')!r}")
    return files[0]


def dashboard_row(row):
    """A collected row as the dashboard reads it: flat keys for fixed-seq-len,
    the agentic aggregate's nested figures (p50 as median, interactivity as
    the reciprocal of the matching ITL percentile) otherwise."""
    if "request_metrics" not in row:
        return {k: row.get(k) for k in ("conc", "tput_per_gpu", "output_tput_per_gpu",
                                    "input_tput_per_gpu", "median_ttft", "p90_ttft",
                                    "median_intvty", "p90_intvty", "median_e2el")}
    rm = row["request_metrics"]
    per_gpu, lat = rm["throughput"]["per_gpu"], rm["latency"]
    return {"conc": row["conc"], "tput_per_gpu": per_gpu["total_tput_tps"],
            "output_tput_per_gpu": per_gpu["output_tput_tps"],
            "input_tput_per_gpu": per_gpu["input_tput_tps"],
            "median_ttft": lat["ttft"]["p50"], "p90_ttft": lat["ttft"]["p90"],
            "median_intvty": 1 / lat["itl"]["p50"], "p90_intvty": 1 / lat["itl"]["p90"],
            "median_e2el": lat["e2el"]["p50"]}


def main():
    scenario, out = sys.argv[1], sys.argv[2]
    plan = json.load(open(os.path.join(out, "plan.json")))
    read = fixed_cell if scenario == "fixed" else agentic_cell
    # Every measured cell: each one with a summary.
    cells = [c for c in plan["cells"]
             if os.path.exists(os.path.join(out, "cells", c["id"], "summary.json"))]
    paths = [p for p in (read(out, c) for c in cells) if p]
    # The suite's collector: every result file loaded into one list.
    rows = [json.load(open(p)) for p in paths]
    print(f"cells: {len(cells)} rows collected: {len(rows)}")
    print("conc tput_per_gpu output_tput_per_gpu input_tput_per_gpu median_ttft "
          "p90_ttft median_intvty p90_intvty median_e2el")
    for row in sorted((dashboard_row(r) for r in rows), key=lambda r: r["conc"] or 0):
        ok = all(isinstance(v, NUM) and v > 0 for v in row.values())
        print(" ".join([str(row["conc"])] + [f"{v:.6g}" if isinstance(v, NUM) else "missing"
                                             for k, v in row.items() if k != "conc"])
              + ("" if ok else " NOT-POSITIVE"))
    for p in problems:
        print("problem:", p)
    print(f"problems: {len(problems)}")


if __name__ == "__main__":
    main()
