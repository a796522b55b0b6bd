#!/usr/bin/python3
"""Client benchmark: arecipe-load vs the reference aiohttp client, same server, same run.

  run_bench.py --build BUILD_DIR [--quick]

Starts bench/client's fast streaming server (its own process, 127.0.0.1,
ephemeral port), then for each scenario runs arecipe-load and ref_client.py
one after the other against it, measuring each client's process CPU time with
wait4(2). Prints a markdown table. Kills the server on exit.

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
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_measured(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    return out.decode(), err.decode(), os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime


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
    with open(os.path.join(out, "records.jsonl")) as f:
        for line in f:
            tokens += json.loads(line)["output_tokens"]
    c = summary["arecipe_client"]
    return {"ok": summary["num_requests_successful"], "tokens": tokens, "cpu_s": cpu,
            "wall_s": summary["request_metrics"]["throughput"]["duration_seconds"],
            "peak": c["peak_in_flight"], "lag_p99_s": c["send_lag"]["p99"],
            "lag_p50_s": c["send_lag"]["p50"], "rc": rc, "err": err.strip()[-300:]}


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--tick-us", type=int, default=5000)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="client-bench-")
    port_file = os.path.join(tmp, "port")
    server = subprocess.Popen(
        [os.path.join(args.build, "bench", "client", "arecipe-bench-stream-server"),
         "--tick-us", str(args.tick_us), "--port-file", port_file],
        start_new_session=True)
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        url = "http://127.0.0.1:%s" % open(port_file).read().strip()
        rows = []

        a = arecipe(args.build, port_file, os.path.join(tmp, "t"), 256, 2560, 128, 256)
        p = reference(url, 256, 2560, 128, 256)
        ta, tp = a["tokens"] / a["cpu_s"], p["tokens"] / p["cpu_s"] if p["cpu_s"] else 0
        rows.append(("streamed tokens per client CPU-second (C=256, OSL 256)",
                     f"{ta:,.0f} ({a['tokens']:,} tok / {a['cpu_s']:.2f} s)",
                     f"{tp:,.0f} ({p['tokens']:,} tok / {p['cpu_s']:.2f} s)",
                     f"{ta / tp:.1f}x" if tp else "-"))

        best_a = best_p = 0
        notes = []
        for conc in (256, 512, 1024):
            a = arecipe(args.build, port_file, os.path.join(tmp, f"c{conc}"), conc, 2 * conc, 32, 64)
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

        a = arecipe(args.build, port_file, os.path.join(tmp, "r"), 0, 4000, 32, 16, rate=400)
        p = reference(url, 0, 4000, 32, 16, rate=400)
        rows.append(("send lag p99, Poisson 400 req/s (actual - scheduled)",
                     f"{a['lag_p99_s'] * 1e3:.3f} ms (p50 {a['lag_p50_s'] * 1e3:.3f})",
                     f"{p['lag_p99_s'] * 1e3:.3f} ms (p50 {p['lag_p50_s'] * 1e3:.3f})",
                     f"{p['lag_p99_s'] / a['lag_p99_s']:.0f}x lower" if a["lag_p99_s"] else "-"))

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
