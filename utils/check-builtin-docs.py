#!/usr/bin/env python3
"""Fails when docs/language.md §6.7 and the compiler's built-ins differ.

The compiler's table comes from `arecipec --list-builtins` (one
"name<TAB>signature<TAB>doc" line per built-in function or constructor).
The documentation's is the markdown table under "### 6.7 Built-in
functions": one row per name, `name` | `signature` | meaning. Every name
must be in both, with the same signature and the same meaning, word for
word.

usage: check-builtin-docs.py LANGUAGE_MD LISTING
exit status: 0 same, 1 different, 2 usage or I/O problems.
"""

import re
import sys

HEADING = "### 6.7 Built-in functions"


def cells(row):
    # Split a markdown table row on '|' that is not escaped as '\|'.
    parts = re.split(r"(?<!\\)\|", row.strip())
    return [p.strip().replace("\\|", "|") for p in parts[1:-1]]


def unquote(text):
    if len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        return text[1:-1]
    return text


def documented(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    try:
        start = lines.index(HEADING)
    except ValueError:
        raise SystemExit(f"{path}: no '{HEADING}' heading")
    rows = {}
    in_table = False
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            if in_table:
                break
            continue
        in_table = True
        fields = cells(line)
        if len(fields) != 3 or fields[0] == "function" or set(fields[0]) <= set("-"):
            continue
        name = unquote(fields[0])
        if name in rows:
            print(f"{path}: '{name}' is documented twice")
            rows[name] = None
            continue
        rows[name] = (unquote(fields[1]), fields[2])
    return rows


def listed(path):
    rows = {}
    for line in open(path, encoding="utf-8").read().splitlines():
        fields = line.split("\t")
        if len(fields) != 3:
            raise SystemExit(f"{path}: unexpected line {line!r}")
        rows[fields[0]] = (fields[1], fields[2])
    return rows


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    try:
        docs = documented(sys.argv[1])
        compiler = listed(sys.argv[2])
    except OSError as e:
        print(e, file=sys.stderr)
        return 2
    problems = []
    for name in compiler:
        if name not in docs:
            problems.append(f"'{name}' is a built-in but not in the table")
    for name, row in docs.items():
        if name not in compiler:
            problems.append(f"'{name}' is in the table but not a built-in")
        elif row is not None and row != compiler[name]:
            for what, doc, real in zip(("signature", "meaning"), row, compiler[name]):
                if doc != real:
                    problems.append(f"'{name}': the table's {what} is {doc!r}, "
                                    f"the compiler's {real!r}")
        elif row is None:
            problems.append(f"'{name}' has two rows")
    for p in problems:
        print(f"{sys.argv[1]}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
