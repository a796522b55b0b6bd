#!/usr/bin/env python3
"""Prints what trace-formats-sim.test checks about a replay's records.

  check_trace_replay.py RECORDS PROMPT_LENGTHS

PROMPT_LENGTHS: comma-separated prompt lengths the trace recorded. Every
successful request's server-side prompt must be one of them plus one token
(the replay's cache-bust marker on a session's first message).
"""
import json
import sys

records = [json.loads(line) for line in open(sys.argv[1])]
lengths = {int(x) for x in sys.argv[2].split(",")}
ok = [r for r in records if r["error"] == "none"]
print("all successful:", len(ok) == len(records) and len(ok) > 0)
print("prompts are recorded lengths + 1:", all(r["input_tokens"] - 1 in lengths for r in ok))
print("outputs as recorded:", all(r["output_tokens"] == r["max_output_tokens"] for r in ok))
sessions = sorted({r["session_id"].split("#")[0] for r in ok})
print("sessions:", " ".join(sessions))
