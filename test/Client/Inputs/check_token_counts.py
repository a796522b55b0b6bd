#!/usr/bin/env python3
"""Prints what the token-exact tests check about records.jsonl.

  check_token_counts.py RECORDS [--delta N]

For every successful request: the server's prompt tokens (usage) minus the
length the workload asked for, which must be N (default 0); whether the
client's own count equals that length; the lengths seen (range ratio > 0
makes them vary); and how many records carry a token_mismatch flag.
"""
import json
import sys

records = [json.loads(line) for line in open(sys.argv[1])]
delta = int(sys.argv[sys.argv.index("--delta") + 1]) if "--delta" in sys.argv else 0
ok = [r for r in records if r["error"] == "none"]
print("requests:", len(records), "successful:", len(ok))
print("usage from server:", all(r["usage_from_server"] for r in ok))
print("server prompt tokens = isl %+d:" % delta,
      all(r["input_tokens"] - r["expected_input_tokens"] == delta for r in ok))
print("client count = isl:", all(r["client_input_tokens"] == r["expected_input_tokens"] for r in ok))
print("distinct lengths above 1:", len({r["expected_input_tokens"] for r in ok}) > 1)
print("flagged:", sum("token_mismatch" in r for r in records))
