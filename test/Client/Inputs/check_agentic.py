#!/usr/bin/env python3
"""Prints facts about an agentic run for FileCheck: records vs /sim/info."""
import json
import sys

records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
summary = json.load(open(sys.argv[2]))
info = json.load(open(sys.argv[3]))

by_session = {}
for r in records:
    by_session.setdefault(r["session_id"], []).append(r)
ordered = all(
    [r["turn"] for r in rs] == list(range(rs[0]["turn"], rs[0]["turn"] + len(rs)))
    and len({r["lane"] for r in rs}) == 1
    for rs in by_session.values())
multi = sum(1 for rs in by_session.values() if len(rs) >= 2)
later_cached = sum(1 for rs in by_session.values() for r in rs[1:]
                   if r["error"] == "none" and r["cached_tokens"] > 0)
print("distinct session ids match the simulator:", len(by_session) == info["sessions"])
print("turns in order on one lane per session:", ordered)
print("sessions with several turns:", multi > 0)
print("later turns served from the prefix cache:", later_cached > 0)
hit = summary["server_metrics"]["prefix_cache_hit_rate"]
print("window prefix cache hit rate above 0.5:", hit is not None and hit > 0.5)
