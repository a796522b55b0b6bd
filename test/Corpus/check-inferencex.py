#!/usr/bin/env python3
"""Compares `arecipec --emit inferencex` output with the master entry of a
corpus expectation (its `master` and `arms` fields).

usage: check-inferencex.py ENTRY.yaml EXPECTED.json

What is compared:
  - the master fields: image, model, model-prefix, precision, framework,
    runner, multinode, and where the expectation has them disagg,
    kv-p2p-transfer and router;
  - the entries' keys: an expectation that joins the arms of several master
    keys (`config_keys`) may be emitted as one entry per key; the entry of
    `config_key` holds the master fields above, another key's entry those
    its cells' matrix rows state (the upstream generator copies a key's
    master fields into each of its rows: image, ...), the rest as above;
  - the search space, one emitted item per expected arm, in order (the
    entries' items in the entries' order): every
    field either side has, where a field one side leaves out holds
    InferenceX's default (ep 1, pp 1, dcp-size 1, dp-attn false,
    spec-decoding none); the concurrencies as the list InferenceX runs
    (`conc-start`/`conc-end` doubling from the start, the end clamped and
    last, or `conc-list`); a worker pool's fields the same way; and an
    arm's `config-key` (an expectation that joins the arms of two master
    keys names each arm's) against the key of the entry holding its item.
Not compared: a pool's `additional-settings` (the upstream launcher's own
settings: node counts, its config-file names) and `dram-utilization`
(the expectation's arms do not carry it).

exit status: 0 the entry matches, 1 some difference (each printed as
`ENTRY: WHERE: FIELD: expected X, got Y`), 2 usage error or unreadable
input.
"""

import json
import sys

import yaml

MASTER_FIELDS = ["image", "model", "model-prefix", "precision", "framework",
                 "runner", "multinode"]
OPTIONAL_MASTER_FIELDS = ["disagg", "kv-p2p-transfer", "router"]
DEFAULTS = {"ep": 1, "pp": 1, "dcp-size": 1, "dp-attn": False, "spec-decoding": "none"}
NOT_COMPARED = {"additional-settings", "dram-utilization"}


def show(value):
    return json.dumps(value)


def concurrencies(item):
    """The concurrencies an item runs, as InferenceX's generator expands them."""
    if "conc-list" in item:
        return list(item["conc-list"])
    if "conc-start" in item:
        out, c = [], item["conc-start"]
        end = item.get("conc-end", c)
        while c < end:
            out.append(c)
            c *= 2
        return out + [end]
    return None


def compare_fields(want, got, where, report):
    for key in sorted(set(want) | set(got), key=lambda k: (k not in want, list(want).index(k) if k in want else 0, k)):
        if key in NOT_COMPARED or key in ("conc-list", "conc-start", "conc-end", "config-key"):
            continue
        w, g = want.get(key, DEFAULTS.get(key)), got.get(key, DEFAULTS.get(key))
        if isinstance(w, dict) and isinstance(g, dict) and key in ("prefill", "decode"):
            compare_fields(w, g, "%s: %s" % (where, key), report)
        elif w != g:
            report(where, key, "expected %s, got %s" % (show(w), show(g)))


def master_of(doc, key):
    """The master fields expected of the entry under key."""
    master = {k.replace("_", "-"): v for k, v in doc["master"].items()}
    if key == doc["config_key"]:
        return master
    rows = [c["matrix"] for c in doc.get("cells") or []
            if isinstance(c, dict) and c.get("config_key") == key
            and isinstance(c.get("matrix"), dict)]
    for field in MASTER_FIELDS + OPTIONAL_MASTER_FIELDS:
        if rows and field in rows[0]:
            master[field] = rows[0][field]
    return master


def search_space(entry):
    scenarios = entry.get("scenarios") or {}
    items = []
    for blocks in scenarios.values():
        for block in blocks or []:
            items.extend(block.get("search-space") or [])
    return items


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    try:
        with open(argv[0]) as f:
            emitted = yaml.safe_load(f)
        with open(argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError, yaml.YAMLError) as e:
        print("check-inferencex.py: error: %s" % e, file=sys.stderr)
        return 2
    if (not isinstance(emitted, dict) or not emitted
            or not all(isinstance(e, dict) for e in emitted.values())):
        print("check-inferencex.py: error: %s: expected master-config entries" % argv[0],
              file=sys.stderr)
        return 2
    name = doc["entry"]
    keys = doc.get("config_keys") or [doc["config_key"]]
    errors = []

    def report(where, field, reason):
        errors.append("%s: %s: %s: %s" % (name, where, field, reason))

    if doc["config_key"] not in emitted:
        report("master", "key", "expected %s, got %s" % (show(doc["config_key"]),
                                                       show(", ".join(emitted))))
    items = []
    for key, entry in emitted.items():
        if len(emitted) > 1 and key not in keys:
            report("master", "key", "%s is not one of the expected keys %s" % (
                show(key), show(keys)))
        where = "master" if len(emitted) == 1 or key == doc["config_key"] else "master " + key
        master = master_of(doc, key)
        for field in MASTER_FIELDS + [f for f in OPTIONAL_MASTER_FIELDS if f in master]:
            if entry.get(field) != master.get(field):
                report(where, field, "expected %s, got %s" % (show(master.get(field)),
                                                            show(entry.get(field))))
        items.extend((key, item) for item in search_space(entry))

    if len(items) != len(doc["arms"]):
        report("search-space", "items", "expected %d (one per arm), got %d" % (
            len(doc["arms"]), len(items)))
    for arm, (key, item) in zip(doc["arms"], items):
        where = "arm %s" % arm["arm"]
        want = arm["search_space"]
        compare_fields(want, item, where, report)
        if concurrencies(want) != concurrencies(item):
            report(where, "concurrencies", "expected %s, got %s" % (
                show(concurrencies(want)), show(concurrencies(item))))
        if "config-key" in want and want["config-key"] != key:
            report(where, "config-key", "expected %s, got %s" % (show(want["config-key"]), show(key)))
    for e in errors:
        print(e)
    if errors:
        return 1
    if len(emitted) == 1:
        print("%s: the master entry and its %d arms match" % (name, len(items)))
    else:
        print("%s: the %d master entries and their %d arms match" % (name, len(emitted),
                                                                  len(items)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
