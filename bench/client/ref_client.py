#!/usr/bin/python3
"""Reference asyncio/aiohttp streaming client, for comparison with arecipe-load.

Written the way Python benchmark clients are (vLLM bench serve style): one
event loop, aiohttp, the SSE body split into lines by hand, one json.loads per
chunk. Configured without the known distortions: no connection-pool cap
(limit=0) and a 4 MiB read buffer. Closed loop at --concurrency, or open loop
at --request-rate (Poisson) where the send lag (actual start - scheduled
time) is recorded. Prints one JSON line of results.
"""
import argparse
import asyncio
import json
import random
import resource
import time

import aiohttp


def percentile(values, p):
    if not values:
        return 0.0
    v = sorted(values)
    rank = p / 100 * (len(v) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (rank - lo)


async def one_request(session, url, body, scheduled, stats):
    start = time.perf_counter()
    stats["lag"].append(start - scheduled)
    first = None
    tokens = 0
    async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as resp:
        if resp.status != 200:
            stats["failed"] += 1
            await resp.read()
            return
        buf = b""
        async for chunk in resp.content.iter_any():
            buf += chunk
            while b"\n\n" in buf:
                event, buf = buf.split(b"\n\n", 1)
                for line in event.split(b"\n"):
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        continue
                    obj = json.loads(data)
                    usage = obj.get("usage")
                    if usage:
                        stats["tokens"] += usage["completion_tokens"]
                    for c in obj.get("choices", []):
                        if c.get("text") or c.get("delta", {}).get("content"):
                            if first is None:
                                first = time.perf_counter()
                            tokens += 1
    stats["ok"] += 1
    stats["chunks"] += tokens


async def run(args):
    url = args.url.rstrip("/") + "/v1/completions"
    words = " ".join(f"w{i % 997}" for i in range(args.isl))
    body = json.dumps({"model": "m", "prompt": words, "max_tokens": args.osl, "stream": True,
                       "stream_options": {"include_usage": True}, "ignore_eos": True})
    stats = {"ok": 0, "failed": 0, "tokens": 0, "chunks": 0, "lag": []}
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout,
                                     read_bufsize=4 << 20) as session:
        t0 = time.perf_counter()
        if args.request_rate > 0:
            rng = random.Random(args.seed)
            tasks = []
            at = t0
            for _ in range(args.num_requests):
                delay = at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(one_request(session, url, body, at, stats)))
                at += rng.expovariate(args.request_rate)
            await asyncio.gather(*tasks)
        else:
            remaining = [args.num_requests]

            async def lane():
                while remaining[0] > 0:
                    remaining[0] -= 1
                    await one_request(session, url, body, time.perf_counter(), stats)

            await asyncio.gather(*(lane() for _ in range(args.concurrency)))
        wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "ok": stats["ok"], "failed": stats["failed"], "tokens": stats["tokens"],
        "wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime,
        "lag_p50_s": percentile(stats["lag"], 50), "lag_p99_s": percentile(stats["lag"], 99),
    }))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--num-requests", type=int, default=640)
    ap.add_argument("--request-rate", type=float, default=0)
    ap.add_argument("--isl", type=int, default=128)
    ap.add_argument("--osl", type=int, default=256)
    ap.add_argument("--seed", type=int, default=42)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
