#!/usr/bin/python3
"""Client benchmark: arecipe-load vs the reference aiohttp client, same server, same run.

  run_bench.py --build BUILD_DIR [--repeat N] [--tokens-per-chunk K] [--pin]
               [--only tokens,conc,lag]

Starts bench/client's fast streaming server (its own process, 127.0.0.1,
ephemeral port), then for each scenario runs arecipe-load and ref_client.py
one after the other against it, measuring each client's process CPU time with
wait4(2). With --repeat N every measurement is taken N times (the two clients
alternating) and the table shows medians, the notes every run. --pin puts the
server on CPU 0 and the clients on CPU 1, so neither steals the other's core.
--tokens-per-chunk K makes the server put K tokens in each SSE chunk, as
speculative decoding does. Prints a markdown table. Kills the server on exit.

Scenarios:
  tokens/CPU-s  closed loop, C=256, 2560 requests, ISL 128, OSL 256
  concurrency   closed loop at C in (256, 512, 1024), OSL 64: all requests
                succeed and C are in flight at once (arecipe: peak_in_flight)
  send lag      open loop, Poisson 400 req/s, 4000 requests, OSL 16:
                p99 of (actual send - scheduled send)
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_CPUS = None  # set by --pin


def pinned(cpus):
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def run_measured(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=pinned(CLIENT_CPUS))
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    return out.decode(), err.decode(), os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    rank = p / 100 * (len(v) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)


def arecipe(build, port_file, out, conc, n, isl, osl, rate=0.0):
    cmd = [os.path.join(build, "bin", "arecipe-load"), "fixed", "--port-file", port_file,
           "--model", "m", "--api", "completions", "--isl", str(isl), "--osl", str(osl),
           "--concurrency", str(conc), "--num-prompts", str(n), "--warmup", "0",
           "--metrics-url", "none", "--quiet", "--request-timeout-s", "300", "--out", out]
    if rate:
        cmd += ["--request-rate", str(rate), "--arrival", "poisson"]
    _, err, rc, cpu = run_measured(cmd)
    summary = json.load(open(os.path.join(out, "summary.json")))
    tokens = 0
    sent_lag = []
    with open(os.path.join(out, "records.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            tokens += r["output_tokens"]
            if r["sent_ns"]:
                sent_lag.append((r["sent_ns"] - r["scheduled_ns"]) / 1e9)
    c = summary["arecipe_client"]
    return {"ok": summary["num_requests_successful"], "tokens": tokens, "cpu_s": cpu,
            "wall_s": summary["request_metrics"]["throughput"]["duration_seconds"],
            "peak": c["peak_in_flight"], "lag_p99_s": c["send_lag"]["p99"],
            "lag_p50_s": c["send_lag"]["p50"], "sent_lag_p99_s": percentile(sent_lag, 99),
            "rc": rc, "err": err.strip()[-300:]}


def reference(url, conc, n, isl, osl, rate=0.0):
    cmd = [sys.executable, os.path.join(HERE, "ref_client.py"), "--url", url,
           "--concurrency", str(conc), "--num-requests", str(n), "--isl", str(isl),
           "--osl", str(osl), "--request-rate", str(rate)]
    out, err, rc, cpu = run_measured(cmd)
    if rc != 0:
        return {"ok": 0, "tokens": 0, "cpu_s": cpu, "rc": rc, "err": err.strip()[-300:]}
    r = json.loads(out.strip().splitlines()[-1])
    r["cpu_s"] = cpu
    r["rc"] = rc
    return r


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    global CLIENT_CPUS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--tick-us", type=int, default=5000)
    ap.add_argument("--tokens-per-chunk", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--only", default="tokens,conc,lag")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if args.pin:
        CLIENT_CPUS = {1}
    tmp = tempfile.mkdtemp(prefix="client-bench-")
    port_file = os.path.join(tmp, "port")
    server = subprocess.Popen(
        [os.path.join(args.build, "bench", "client", "arecipe-bench-stream-server"),
         "--tick-us", str(args.tick_us), "--tokens-per-chunk", str(args.tokens_per_chunk),
         "--port-file", port_file],
        start_new_session=True, preexec_fn=pinned({0} if args.pin else None))
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(port_file).read().strip()
        rows = []
        notes = []

        def both(a_fn, p_fn):
            a_runs, p_runs = [], []
            for _ in range(args.repeat):
                a_runs.append(a_fn())
                p_runs.append(p_fn())
            return a_runs, p_runs

        if "tokens" in only:
            a_runs, p_runs = both(
                lambda: arecipe(args.build, port_file, os.path.join(tmp, "t"), 256, 2560, 128, 256),
                lambda: reference(url, 256, 2560, 128, 256))
            for r in a_runs + p_runs:
                r["tps"] = r["tokens"] / r["cpu_s"] if r["cpu_s"] else 0
            ta, tp = median_of(a_runs, "tps"), median_of(p_runs, "tps")
            rows.append(("streamed tokens per client CPU-second (C=256, OSL 256)",
                         f"{ta:,.0f} ({a_runs[0]['tokens']:,} tok / "
                         f"{median_of(a_runs, 'cpu_s'):.2f} s)",
                         f"{tp:,.0f} ({p_runs[0]['tokens']:,} tok / "
                         f"{median_of(p_runs, 'cpu_s'):.2f} s)",
                         f"{ta / tp:.1f}x" if tp else "-"))
            notes.append("tokens/CPU-s runs: arecipe " +
                         ", ".join(f"{r['tps']:,.0f}" for r in a_runs) + "; reference " +
                         ", ".join(f"{r['tps']:,.0f}" for r in p_runs))

        if "conc" in only:
            best_a = best_p = 0
            for conc in (256, 512, 1024):
                a = arecipe(args.build, port_file, os.path.join(tmp, f"c{conc}"), conc, 2 * conc,
                            32, 64)
                p = reference(url, conc, 2 * conc, 32, 64)
                if a["ok"] == 2 * conc and a["peak"] == conc:
                    best_a = conc
                if p.get("ok") == 2 * conc:
                    best_p = conc
                notes.append(f"C={conc}: arecipe {a['ok']}/{2*conc} ok, peak {a['peak']}, "
                             f"{a['cpu_s']:.2f} CPU-s; reference {p.get('ok', 0)}/{2*conc} ok, "
                             f"{p['cpu_s']:.2f} CPU-s")
            rows.append(("highest concurrency tried with every request successful (256/512/1024)",
                         str(best_a), str(best_p), "-"))

        if "lag" in only:
            a_runs, p_runs = both(
                lambda: arecipe(args.build, port_file, os.path.join(tmp, "r"), 0, 4000, 32, 16,
                                rate=400),
                lambda: reference(url, 0, 4000, 32, 16, rate=400))
            la, lp = median_of(a_runs, "lag_p99_s"), median_of(p_runs, "lag_p99_s")
            rows.append(("send lag p99, Poisson 400 req/s (actual - scheduled)",
                         f"{la * 1e3:.3f} ms (p50 {median_of(a_runs, 'lag_p50_s') * 1e3:.3f})",
                         f"{lp * 1e3:.3f} ms (p50 {median_of(p_runs, 'lag_p50_s') * 1e3:.3f})",
                         f"{lp / la:.0f}x lower" if la else "-"))
            notes.append("arecipe first body byte written - scheduled, p99 runs (ms): " +
                         ", ".join(f"{r['sent_lag_p99_s'] * 1e3:.3f}" for r in a_runs))
            notes.append("send lag p99 runs (ms): arecipe " +
                         ", ".join(f"{r['lag_p99_s'] * 1e3:.3f}" for r in a_runs) +
                         "; reference " +
                         ", ".join(f"{r['lag_p99_s'] * 1e3:.3f}" for r in p_runs))

        print("| measure | arecipe-load | ref_client.py (aiohttp) | ratio |")
        print("|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        print()
        for n in notes:
            print("- " + n)
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


if __name__ == "__main__":
    main()
