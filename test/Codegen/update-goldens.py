#!/usr/bin/env python3
"""Regenerates the CHECK lines of the Codegen golden tests from the compiler.

usage: update-goldens.py --arecipec PATH TEST...

Each TEST's first RUN line is `cd %arecipe_src && arecipec ... --emit plan |
FileCheck %s`; the script runs the part before the pipe and rewrites every
line after the `GOLDEN:` marker with, per cell, a CHECK-LABEL on its id, its
GPU and node counts, and per process its name, node rank, argv and env, each
line exactly as the plan prints it. Review the diff: a golden is only as
right as the person who accepted it (docs/reference-recipe.md).
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parents[2]


def escape(line):
    # FileCheck reads {{ and [[ as regex and variable openers.
    return line.replace("{{", "{{[{][{]}}").replace("[[", "{{[[][[]}}")


def block(key, value, indent):
    """The lines nlohmann's dump(2) prints for `"key": value`."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    lines = text.split("\n")
    pad = " " * indent
    out = [pad + json.dumps(key) + ": " + lines[0]]
    out += [pad + l for l in lines[1:]]
    return out


def checks(plan):
    out = []
    for cell in plan["cells"]:
        out.append(f'CHECK-LABEL: "id": "{cell["id"]}",')
        out.append(f'CHECK:       "gpus": {cell["gpus"]},')
        out.append(f'CHECK-NEXT:  "nodes": {cell["nodes"]},')
        for proc in cell["processes"]:
            out.append(f'CHECK:       "name": "{proc["name"]}",')
            out.append(f'CHECK-NEXT:  "role": "{proc["role"]}",')
            out.append(f'CHECK-NEXT:  "node_rank": {proc["node_rank"]},')
            for key in ("argv", "env"):
                for line in block(key, proc[key], 0):
                    out.append("CHECK-NEXT:  " + escape(line.strip()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arecipec", required=True)
    ap.add_argument("tests", nargs="+")
    args = ap.parse_args()
    for test in args.tests:
        path = pathlib.Path(test)
        text = path.read_text()
        run = re.search(r"RUN: (.*?)\| FileCheck", text).group(1)
        run = run.replace("%arecipe_src", str(SRC))
        run = re.sub(r"\barecipec\b", args.arecipec, run, count=1)
        plan = json.loads(subprocess.run(["bash", "-c", run], check=True,
                                         capture_output=True, text=True).stdout)
        head = text[: text.index("GOLDEN:") + len("GOLDEN:")]
        path.write_text(head + "\n" + "".join("# " + c + "\n" for c in checks(plan)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
