#!/usr/bin/env python3
"""Change -> diagnostics latency of arecipe-lsp, as an editor sees it.

Starts the server, opens a recipe, then sends N full-text didChange
notifications one at a time -- each a keystroke that changes a value
(`gpu_memory_utilization = 0.86` <-> `0.87`, so every one is a real
recompilation), waiting for the publishDiagnostics of that version before
the next -- and prints the distribution of the time from writing the change
to reading its diagnostics, and the server's CPU time per change (from
/proc: on a loaded machine the wall time also counts waiting for a core).
It runs on the Kimi-K3 example (11 cells) and
on the same recipe over 100 concurrencies (1-4, 8-16 and 32-118, which
its bands cover: 100 cells), or on the files given. With --distinct every
change writes a value not sent before (0.862, 0.863, ...), so a server
that keeps what it parsed cannot reuse the edited document's parse of two
keystrokes ago: what typing new text costs.

  python3 bench/lsp/lsp-latency.py --server build/bin/arecipe-lsp [--changes 200] [--distinct] [FILE...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def send(proc, obj):
    body = json.dumps(obj).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive(proc):
    length = None
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit("lsp-latency: the server closed its output")
        line = line.strip()
        if not line:
            break
        k, _, v = line.decode().partition(":")
        if k.lower() == "content-length":
            length = int(v)
    return json.loads(proc.stdout.read(length))


def cpu_seconds(pid):
    """The process's user + system CPU time so far (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(proc, pred):
    while True:
        m = receive(proc)
        if pred(m):
            return m


def bench(server, path, changes, distinct):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "gpu_memory_utilization = 0.86" not in text:
        sys.exit("lsp-latency: %s has no 'gpu_memory_utilization = 0.86' to edit" % path)
    uri = "file://" + os.path.abspath(path)
    proc = subprocess.Popen([server], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    wait_for(proc, lambda m: m.get("id") == 1)
    t0 = time.perf_counter()
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "arecipe", "version": 1, "text": text}}})
    first = wait_for(proc, lambda m: m.get("method") == "textDocument/publishDiagnostics")
    open_ms = (time.perf_counter() - t0) * 1000
    if first["params"]["diagnostics"]:
        sys.exit("lsp-latency: %s has diagnostics: %s" % (path, first["params"]["diagnostics"][0]["message"]))
    times = []
    cpu0 = cpu_seconds(proc.pid)
    for v in range(2, changes + 2):
        value = "0.86%d" % v if distinct else "0.8%d" % (6 + v % 2)
        new = text.replace("gpu_memory_utilization = 0.86",
                           "gpu_memory_utilization = " + value, 1)
        t0 = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": new}]}})
        m = wait_for(proc, lambda m: m.get("method") == "textDocument/publishDiagnostics"
                     and m["params"].get("version") == v)
        times.append((time.perf_counter() - t0) * 1000)
        if m["params"]["diagnostics"]:
            sys.exit("lsp-latency: an edit gave diagnostics")
    cpu_ms = (cpu_seconds(proc.pid) - cpu0) * 1000 / changes
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    wait_for(proc, lambda m: m.get("id") == 2)
    send(proc, {"jsonrpc": "2.0", "method": "exit"})
    proc.wait(timeout=10)
    times.sort()
    q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
    return open_ms, times, q, cpu_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--distinct", action="store_true",
                    help="every change a text not sent before")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="lsp-latency-")
    files = args.files
    if not files:
        example = os.path.join(ROOT, "examples", "kimik3-mi355x-atom.arecipe")
        with open(example, encoding="utf-8") as f:
            text = f.read()
        # 100 concurrencies that the example's bands cover: 1-4, 8-16, 32-118.
        concs = list(range(1, 5)) + list(range(8, 17)) + list(range(32, 119))
        assert len(concs) == 100
        big = re.sub(r"concurrency = \[[^\]]*\]",
                     "concurrency = [%s]" % ", ".join(map(str, concs)), text, count=1)
        files = [os.path.join(tmp, "kimik3-11-cells.arecipe"),
                 os.path.join(tmp, "kimik3-100-cells.arecipe")]
        for path, body in zip(files, [text, big]):
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
    print("change -> diagnostics, wall ms; server CPU ms per change")
    print("%-26s %6s %8s %8s %8s %8s %8s %8s %8s" % (
        "recipe", "edits", "open", "min", "median", "p90", "p99", "max", "CPU"))
    for path in files:
        open_ms, times, q, cpu_ms = bench(args.server, path, args.changes,
                                           args.distinct)
        print("%-26s %6d %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f" % (
            os.path.basename(path), len(times), open_ms, times[0],
            statistics.median(times), q(0.9), q(0.99), times[-1], cpu_ms))


if __name__ == "__main__":
    main()
