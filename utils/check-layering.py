#!/usr/bin/env python3
"""Checks the #include graph of lib/, include/ and tools/ against the
dependency tables of docs/architecture.md.

usage: check-layering.py [--root DIR] [--antlr-include-dir DIR]

Every `#include` of a file under lib/<Layer>/, include/arecipe/<Layer>/ or
tools/<tool>/ is an edge from that layer (or tool) to the layer whose header
it names (`arecipe/<Layer>/...`, or a quoted path that resolves relative to
the including file into another layer's folder) or to a restricted
third-party library (llvm, antlr4, curl, event2). The edge must be in the
row of its source in the "Layers" or "Tools" table, or in the "Transitional
edges" table. Fails (exit 1), naming file, line and edge, on:
  - an edge the tables do not allow;
  - a quoted include of another layer's private header (lib/<Other>/x.h);
  - a folder of lib/ or tools/ that has no row;
  - a transitional edge that no longer occurs (delete its row);
  - a table that names an unknown layer.
A layer with a row but no folder yet is skipped. Exit 2: the tables cannot
be read.
"""
import argparse
import os
import pathlib
import re
import sys

RESTRICTED = ("llvm", "antlr4", "curl", "event2")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".def", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
GENERATED_ANTLR_RE = re.compile(r"^ARecipe(Lexer|Parser|Visitor|BaseVisitor)\.h$")


def fail_read(msg):
    sys.stderr.write(f"check-layering: {msg}\n")
    sys.exit(2)


def read_tables(doc):
    """Returns {section title: [row dicts]} for every table of the page."""
    tables, section, header = {}, None, None
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section, header = line[3:].strip(), None
            continue
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        else:
            tables.setdefault(section, []).append(dict(zip(header, cells)))
    return tables


def names(cell):
    cell = cell.strip()
    if cell in ("", "—", "-"):
        return set()
    return {n.strip().strip("`") for n in cell.split(",") if n.strip()}


def classify(inc, quoted, src, root, antlr_dir):
    """The layer or restricted library an include names, or None."""
    m = re.match(r"arecipe/([A-Za-z0-9_]+)/", inc)
    if m:
        return ("layer", m.group(1))
    for lib in ("llvm", "curl", "event2"):
        if inc.startswith(lib + "/") or (lib == "llvm" and inc.startswith("llvm-c/")):
            return ("lib", lib)
    if quoted:
        local = (src.parent / inc).resolve()
        if local.is_file():
            rel = local.relative_to(root) if local.is_relative_to(root) else None
            if rel is None:
                return None
            parts = rel.parts
            if parts[0] == "lib" and len(parts) > 2:
                return ("private", parts[1])
            if parts[:2] == ("include", "arecipe") and len(parts) > 3:
                return ("layer", parts[2])
            return None
    if inc == "antlr4-runtime.h" or GENERATED_ANTLR_RE.match(inc):
        return ("lib", "antlr4")
    if antlr_dir and (pathlib.Path(antlr_dir) / inc).is_file():
        return ("lib", "antlr4")
    return None


def main():
    ap = argparse.ArgumentParser()
    here = pathlib.Path(__file__).resolve().parent.parent
    ap.add_argument("--root", default=str(here))
    ap.add_argument("--antlr-include-dir", default="/usr/include/antlr4-runtime")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    doc = root / "docs" / "architecture.md"
    if not doc.is_file():
        fail_read(f"{doc} not found")
    tables = read_tables(doc)
    # A '## Transitional edges' section whose table has no rows (none today)
    # reads as no table.
    tables.setdefault("Transitional edges", [])
    for needed in ("Layers", "Tools"):
        if needed not in tables:
            fail_read(f"docs/architecture.md has no '## {needed}' table")

    allowed, third = {}, {}
    for kind, key in (("Layers", "layer"), ("Tools", "tool")):
        for row in tables[kind]:
            try:
                name = row[key].strip("`")
                allowed[name] = names(row["may depend on"])
                third[name] = names(row["third-party"])
            except KeyError as e:
                fail_read(f"table '{kind}' has no column {e}")
    layers = {r["layer"].strip("`") for r in tables["Layers"]}
    transitional = {}
    for row in tables["Transitional edges"]:
        transitional[(row["from"].strip("`"), row["to"].strip("`"))] = False

    errors = []
    for name, deps in allowed.items():
        for d in deps - layers:
            errors.append(f"docs/architecture.md: row '{name}' names '{d}', which is not a layer of the table")
        for t in third[name] - set(RESTRICTED):
            errors.append(f"docs/architecture.md: row '{name}' names third-party '{t}'; "
                          f"the restricted ones are {', '.join(RESTRICTED)}")
    for (a, b) in transitional:
        if a not in allowed or b not in layers:
            errors.append(f"docs/architecture.md: transitional edge {a} -> {b} names an unknown layer")

    # Every source folder, with the row it is checked against.
    folders = []
    for d in sorted((root / "lib").iterdir()) if (root / "lib").is_dir() else []:
        if d.is_dir():
            folders.append((d.name, d))
    inc_root = root / "include" / "arecipe"
    for d in sorted(inc_root.iterdir()) if inc_root.is_dir() else []:
        if d.is_dir():
            folders.append((d.name, d))
    for d in sorted((root / "tools").iterdir()) if (root / "tools").is_dir() else []:
        if d.is_dir():
            folders.append((d.name, d))

    edges = 0
    for name, folder in folders:
        rel_folder = folder.relative_to(root)
        if name not in allowed:
            errors.append(f"{rel_folder}/: '{name}' has no row in docs/architecture.md "
                          f"(add it to the Layers or Tools table with what it may depend on)")
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix not in SOURCE_SUFFIXES:
                continue
            rel = path.relative_to(root)
            for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = classify(m.group(2), m.group(1) == '"', path, root, args.antlr_include_dir)
                if target is None:
                    continue
                kind, dep = target
                if kind in ("layer", "private") and dep == name:
                    continue
                edges += 1
                if kind == "private":
                    errors.append(f"{rel}:{lineno}: {name} includes \"{m.group(2)}\", a private header "
                                  f"of lib/{dep}: only lib/{dep} may include it (use a public header "
                                  f"of include/arecipe/{dep}/)")
                    continue
                if kind == "layer":
                    if dep in allowed[name]:
                        continue
                    if (name, dep) in transitional:
                        transitional[(name, dep)] = True
                        continue
                    why = ("it is not a layer of the table" if dep not in layers
                           else f"'{name}' may depend on: {', '.join(sorted(allowed[name])) or 'nothing'}")
                    errors.append(f"{rel}:{lineno}: {name} -> {dep} (#include \"{m.group(2)}\") "
                                  f"is not allowed by docs/architecture.md: {why}")
                elif dep not in third[name]:
                    spelled = f'"{m.group(2)}"' if m.group(1) == '"' else f"<{m.group(2)}>"
                    errors.append(f"{rel}:{lineno}: {name} -> {dep} (#include {spelled}) "
                                  f"is not allowed by docs/architecture.md: '{name}' may include "
                                  f"third-party: {', '.join(sorted(third[name])) or 'none of ' + ', '.join(RESTRICTED)}")

    present = {name for name, _ in folders}
    for (a, b), seen in sorted(transitional.items()):
        if not seen and a in present:
            errors.append(f"docs/architecture.md: the transitional edge {a} -> {b} no longer occurs "
                          f"in the code: delete its row from 'Transitional edges'")

    for e in errors:
        print(e)
    if errors:
        print(f"check-layering: {len(errors)} problem(s); see docs/architecture.md")
        return 1
    skipped = sorted(set(allowed) - present)
    print(f"check-layering: {edges} cross-layer includes in {len(present)} folders conform "
          f"to docs/architecture.md" + (f" (no folder yet: {', '.join(skipped)})" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
