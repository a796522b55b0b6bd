"""Checks, from a cell directory, that a simulated router kept every session
on one backend: the router's log names the backend of each new session key
(`session KEY -> backend I (URL)`) and, at exit, how many requests it routed
to each backend; the client's records.jsonl names the session of each
request it sent. Every session the client sent must have been assigned
once, and each backend's routed count must be exactly the requests of the
sessions assigned to it -- a session split over two backends would break
that sum. Prints one line per backend and 'sticky: ok' or the mismatch."""
import collections
import json
import re
import sys

cell = sys.argv[1]
assigned = {}
routed = None
with open(f"{cell}/router.log") as f:
    for line in f:
        m = re.search(r"session (\S+) -> backend (\d+) ", line)
        if m:
            if m.group(1) in assigned:
                sys.exit(f"session {m.group(1)} assigned twice")
            assigned[m.group(1)] = int(m.group(2))
        m = re.search(r"routed (\d+) requests \((\d+) failed, (\d+) sessions\): (.*)", line)
        if m:
            routed = {int(b): int(n) for b, n in re.findall(r"backend (\d+) \S+: (\d+)", m.group(4))}
if routed is None:
    sys.exit("the router's log has no 'routed' line")
sent = collections.Counter()
with open(f"{cell}/records.jsonl") as f:
    for line in f:
        sent[json.loads(line)["session_id"]] += 1
missing = sorted(s for s in sent if s not in assigned)
if missing:
    sys.exit(f"sessions the router never assigned: {missing}")
expected = collections.Counter()
for session, n in sent.items():
    expected[assigned[session]] += n
for b in sorted(routed):
    print(f"backend {b}: routed {routed[b]}, sessions {sum(1 for s in sent if assigned[s] == b)}, their requests {expected[b]}")
if any(routed[b] != expected[b] for b in routed) or set(expected) - set(routed):
    sys.exit("sticky: a backend's routed count differs from its sessions' requests")
print(f"sticky: ok ({len(sent)} sessions on {len([b for b in routed if routed[b]])} backends)")
