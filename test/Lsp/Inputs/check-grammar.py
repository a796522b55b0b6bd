#!/usr/bin/env python3
"""A structural check of a TextMate grammar, needing nothing from npm: the
file is JSON, names its scope and file type, every `include` names a rule
of the repository (or `$self`), every rule has a `match`, a `begin`/`end`
pair or `patterns`, and every regular expression compiles (the grammar
keeps to the part of Oniguruma's syntax Python's `re` shares)."""
import json
import re
import sys

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    g = json.load(f)
errors = []
if g.get("scopeName") != "source.arecipe":
    errors.append("scopeName is not source.arecipe")
if "arecipe" not in g.get("fileTypes", []):
    errors.append("fileTypes does not list arecipe")
repo = g.get("repository", {})
count = 0


def walk(rule, where):
    global count
    if not isinstance(rule, dict):
        errors.append("%s: a rule is not an object" % where)
        return
    inc = rule.get("include")
    if inc is not None:
        if inc != "$self" and not (inc.startswith("#") and inc[1:] in repo):
            errors.append("%s: include %s names no rule" % (where, inc))
        return
    if not any(k in rule for k in ("match", "begin", "patterns")):
        errors.append("%s: a rule without match, begin or patterns" % where)
    if ("begin" in rule) != ("end" in rule):
        errors.append("%s: begin without end" % where)
    for key in ("match", "begin", "end"):
        if key in rule:
            count += 1
            try:
                re.compile(rule[key])
            except re.error as e:
                errors.append("%s.%s: %s" % (where, key, e))
    for i, sub in enumerate(rule.get("patterns", [])):
        walk(sub, "%s.patterns[%d]" % (where, i))


for i, rule in enumerate(g.get("patterns", [])):
    walk(rule, "patterns[%d]" % i)
for name, rule in repo.items():
    walk(rule, "repository.%s" % name)
for e in errors:
    print("error: " + e)
print("%d rules in %d repository entries, %d regular expressions, %d errors"
      % (len(g.get("patterns", [])), len(repo), count, len(errors)))
sys.exit(1 if errors else 0)
