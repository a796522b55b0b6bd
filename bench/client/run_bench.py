#!/usr/bin/python3
"""Client benchmark: arecipe-load vs the reference aiohttp client, same server, same run.

  run_bench.py --build BUILD_DIR [--repeat N] [--tokens-per-chunk K] [--pin]
               [--load N] [--only tokens,conc,scale,lag] [--baseline ARECIPE_LOAD]

Starts bench/client's fast streaming server (its own process, 127.0.0.1,
ephemeral port), then for each scenario runs arecipe-load and ref_client.py
one after the other against it, measuring each client's process CPU time with
wait4(2). With --repeat N every measurement is taken N times (the two clients
alternating) and the table shows medians, the notes every run. --pin puts the
server on CPU 0 and the clients on CPU 1, so neither steals the other's core.
--tokens-per-chunk K makes the server put K tokens in each SSE chunk, as
speculative decoding does. --load N adds N busy-looping processes for the
whole run, for a loaded machine on demand. Prints a markdown table and the
load average before and after. Kills the server and the load on exit.
--baseline ARECIPE_LOAD (a saved copy of an older arecipe-load) adds it to
the tokens/CPU-s scenario, each repeat running the baseline, the build's
arecipe-load and the reference one after the other, so a before/after
comparison on a shared machine sees the same load in both.

Scenarios:
  tokens/CPU-s  closed loop, C=256, 2560 requests, ISL 128, OSL 256
  concurrency   closed loop at C in (256, 512, 1024), OSL 64: all requests
                succeed and C are in flight at once (arecipe: peak_in_flight)
  scale         closed loop at C=10,000, 20,000 requests, ISL 32, OSL 64:
                every request successful, 10,000 in flight at once, every
                record written; arecipe's own saturation verdict
  send lag      open loop, Poisson 400 req/s, 4000 requests, OSL 16:
                p99 of (actual send - scheduled send); arecipe-load twice,
                with normal scheduling and with --realtime-priority 10
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


def arecipe(build, port_file, out, conc, n, isl, osl, rate=0.0, extra=(), binary=None):
    cmd = [binary or os.path.join(build, "bin", "arecipe-load"), "fixed", "--port-file", port_file,
           "--model", "m", "--api", "completions", "--isl", str(isl), "--osl", str(osl),
           "--concurrency", str(conc), "--num-prompts", str(n), "--warmup", "0",
           "--metrics-url", "none", "--quiet", "--request-timeout-s", "300", "--out", out]
    if rate:
        cmd += ["--request-rate", str(rate), "--arrival", "poisson"]
    cmd += list(extra)
    _, err, rc, cpu = run_measured(cmd)
    summary = json.load(open(os.path.join(out, "summary.json")))
    tokens = 0
    records = 0
    sent_lag = []
    with open(os.path.join(out, "records.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            records += 1
            tokens += r["output_tokens"]
            if r["sent_ns"]:
                sent_lag.append((r["sent_ns"] - r["scheduled_ns"]) / 1e9)
    c = summary["arecipe_client"]
    return {"ok": summary["num_requests_successful"], "tokens": tokens, "cpu_s": cpu,
            "records": records,
            "wall_s": summary["request_metrics"]["throughput"]["duration_seconds"],
            "peak": c["peak_in_flight"], "lag_p99_s": c["send_lag"]["p99"],
            "lag_p50_s": c["send_lag"]["p50"], "sent_lag_p99_s": percentile(sent_lag, 99),
            "bound": c.get("client_bound"), "bound_reason": c.get("client_bound_reason", ""),
            "loop_lag_p99_s": c.get("loop_lag", {}).get("p99", 0),
            "loop_cpu": c.get("loop_cpu_fraction", 0),
            "loop_cpu_s": c.get("client_cpu_seconds", 0), "rt": c.get("loop_realtime_priority", 0),
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
    ap.add_argument("--only", default="tokens,conc,scale,lag")
    ap.add_argument("--load", type=int, default=0)
    ap.add_argument("--baseline", default="",
                    help="an older arecipe-load to compare in the tokens scenario")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if args.pin:
        CLIENT_CPUS = {1}
    tmp = tempfile.mkdtemp(prefix="client-bench-")
    load_before = open("/proc/loadavg").read().split()[:3]
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                start_new_session=True) for _ in range(args.load)]
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
            b_runs = []

            def tokens_run():
                if args.baseline:
                    b_runs.append(arecipe(args.build, port_file, os.path.join(tmp, "tb"), 256,
                                          2560, 128, 256, binary=args.baseline))
                return arecipe(args.build, port_file, os.path.join(tmp, "t"), 256, 2560, 128, 256)

            a_runs, p_runs = both(tokens_run, lambda: reference(url, 256, 2560, 128, 256))
            if b_runs:
                for r in b_runs:
                    r["tps"] = r["tokens"] / r["cpu_s"] if r["cpu_s"] else 0
                tb = median_of(b_runs, "tps")
                rows.append(("streamed tokens per client CPU-second, baseline arecipe-load",
                             f"{tb:,.0f} ({b_runs[0]['tokens']:,} tok / "
                             f"{median_of(b_runs, 'cpu_s'):.3f} s)", "-", "-"))
                notes.append("tokens/CPU-s runs: baseline " +
                             ", ".join(f"{r['tps']:,.0f} ({r['cpu_s']:.3f} s)" for r in b_runs))
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
                         ", ".join(f"{r['tps']:,.0f} ({r['cpu_s']:.3f} s)" for r in a_runs) +
                         "; reference " +
                         ", ".join(f"{r['tps']:,.0f}" for r in p_runs))
            # The loop's CPU in seconds next to the process's: what is not the
            # loop is start-up, prompt synthesis, metrics and teardown. (The
            # fraction is of one core over the measured window, not seconds.)
            notes.append("tokens runs, arecipe loop CPU of process CPU (loop's share of a core) "
                         "/ loop lag p99 / client_bound: " +
                         ", ".join(f"{r['loop_cpu_s']:.3f} s of {r['cpu_s']:.3f} s "
                                   f"({r['loop_cpu'] * 100:.0f} %) / "
                                   f"{r['loop_lag_p99_s'] * 1e3:.2f} ms / {r['bound']}"
                                   for r in a_runs))

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

        if "scale" in only:
            a_runs, p_runs = both(
                lambda: arecipe(args.build, port_file, os.path.join(tmp, "s"), 10000, 20000, 32,
                                64),
                lambda: reference(url, 10000, 20000, 32, 64))
            for r in a_runs:
                notes.append(f"C=10,000: arecipe {r['ok']}/20000 ok, {r['records']} records, "
                             f"peak {r['peak']}, {r['cpu_s']:.2f} CPU-s, "
                             f"{r['tokens'] / r['cpu_s']:,.0f} tok/CPU-s, loop CPU "
                             f"{r['loop_cpu']:.2f}, loop lag p99 {r['loop_lag_p99_s'] * 1e3:.2f} ms"
                             f", client_bound {r['bound']} {r['bound_reason']}")
            for r in p_runs:
                notes.append(f"C=10,000: reference {r.get('ok', 0)}/20000 ok, "
                             f"{r['cpu_s']:.2f} CPU-s" + (f", failed: {r.get('err')}"
                                                         if r.get("rc") else ""))
            a_all = all(r["ok"] == 20000 and r["records"] == 20000 and r["peak"] == 10000
                        for r in a_runs)
            p_all = all(r.get("ok") == 20000 for r in p_runs)
            rows.append(("10,000 concurrent streams, 20,000 requests: all successful",
                         f"{'yes' if a_all else 'NO'} ({median_of(a_runs, 'cpu_s'):.2f} CPU-s)",
                         f"{'yes' if p_all else 'NO'} ({median_of(p_runs, 'cpu_s'):.2f} CPU-s)",
                         f"{median_of(p_runs, 'cpu_s') / median_of(a_runs, 'cpu_s'):.1f}x less CPU"))

        if "lag" in only:
            runs = {"normal": [], "rt": [], "ref": []}
            for _ in range(args.repeat):
                runs["normal"].append(arecipe(args.build, port_file, os.path.join(tmp, "r"), 0,
                                              4000, 32, 16, rate=400))
                runs["rt"].append(arecipe(args.build, port_file, os.path.join(tmp, "rt"), 0, 4000,
                                          32, 16, rate=400, extra=["--realtime-priority", "10"]))
                runs["ref"].append(reference(url, 0, 4000, 32, 16, rate=400))
            lp = median_of(runs["ref"], "lag_p99_s")
            for key, label in (("normal", "normal scheduling"),
                               ("rt", "--realtime-priority 10")):
                la = median_of(runs[key], "lag_p99_s")
                granted = all(r["rt"] for r in runs[key]) if key == "rt" else True
                rows.append((f"send lag p99, Poisson 400 req/s, arecipe with {label}"
                             + ("" if granted else " (REFUSED: ran normally)"),
                             f"{la * 1e3:.3f} ms (p50 {median_of(runs[key], 'lag_p50_s') * 1e3:.3f})",
                             f"{lp * 1e3:.3f} ms (p50 {median_of(runs['ref'], 'lag_p50_s') * 1e3:.3f})",
                             f"{lp / la:.0f}x lower" if la else "-"))
                notes.append(f"send lag p99 runs (ms), {label}: " +
                             ", ".join(f"{r['lag_p99_s'] * 1e3:.3f}" for r in runs[key]) +
                             "; first body byte written - scheduled, p99: " +
                             ", ".join(f"{r['sent_lag_p99_s'] * 1e3:.3f}" for r in runs[key]) +
                             "; loop lag p99: " +
                             ", ".join(f"{r['loop_lag_p99_s'] * 1e3:.2f}" for r in runs[key]))
            notes.append("send lag p99 runs (ms), reference: " +
                         ", ".join(f"{r['lag_p99_s'] * 1e3:.3f}" for r in runs["ref"]))

        print("| measure | arecipe-load | ref_client.py (aiohttp) | ratio |")
        print("|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        print()
        for n in notes:
            print("- " + n)
        print("- load average before: %s; after: %s; extra busy processes: %d" %
              (" ".join(load_before), " ".join(open("/proc/loadavg").read().split()[:3]),
               args.load))
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        for b in burners:
            os.killpg(b.pid, signal.SIGKILL)
            b.wait()


if __name__ == "__main__":
    main()
