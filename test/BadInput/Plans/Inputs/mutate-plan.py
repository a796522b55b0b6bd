#!/usr/bin/env python3
"""Writes a copy of a valid plan with fields changed, for the bad-plan tests.

usage: mutate-plan.py BASE OUT EDIT...
EDIT is PATH=JSON (set, creating a missing object key), PATH! (delete) or
PATH+=JSON (append to a list); JSON may be @PATH, a copy of another field. PATH is the loader's own notation, e.g.
cells[0].processes[0].env["BAD-NAME"]; a key in ["..."] may hold any
character. One bad field per test keeps each test about one diagnostic.
"""
import json, re, sys

TOKEN = re.compile(r'\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\.?([^.\[\]]+)')


def parse_path(text):
    steps, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            sys.exit(f"bad path {text!r} at {pos}")
        if m.group(1) is not None:
            steps.append(int(m.group(1)))
        elif m.group(2) is not None:
            steps.append(json.loads('"' + m.group(2) + '"'))
        else:
            steps.append(m.group(3))
        pos = m.end()
    return steps


def split_edit(edit):
    """PATH, operator and value: the path is read token by token, so a key
    in ["..."] may contain '=' or '!'."""
    pos = 0
    while pos < len(edit) and not edit.startswith(("=", "+=", "!"), pos):
        m = TOKEN.match(edit, pos)
        if not m or m.end() == pos:
            sys.exit(f"bad edit {edit!r} at {pos}")
        # A bare name stops before an operator character.
        if m.group(3) is not None:
            name = re.match(r"\.?[^.\[\]=!+]+", edit[pos:])
            pos += name.end()
        else:
            pos = m.end()
    for op in ("+=", "=", "!"):
        if edit.startswith(op, pos):
            return edit[:pos], op, edit[pos + len(op):]
    sys.exit(f"bad edit {edit!r}: no operator")


def value_of(doc, text):
    """JSON, or @PATH for a deep copy of another part of the plan."""
    if text.startswith("@"):
        v = doc
        for s in parse_path(text[1:]):
            v = v[s]
        return json.loads(json.dumps(v))
    return json.loads(text)


def apply(doc, edit):
    path, op, value = split_edit(edit)
    steps = parse_path(path)
    parent = doc
    for s in steps[:-1]:
        parent = parent[s]
    last = steps[-1]
    if op == "!":
        del parent[last]
    elif op == "+=":
        parent[last].append(value_of(doc, value))
    else:
        parent[last] = value_of(doc, value)


base, out, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(base) as f:
    doc = json.load(f)
for e in edits:
    apply(doc, e)
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
