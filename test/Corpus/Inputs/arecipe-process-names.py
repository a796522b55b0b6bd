#!/usr/bin/env python3
"""Copies a corpus expectation with its router's process name in arecipe's
naming (docs/language.md, "Processes, ports and the render context"), so
that a test can compare everything else of the router while the two names
differ:

  frontend (a Dynamo router)          -> router

usage: arecipe-process-names.py EXPECTED.json OUT.json
"""

import json
import sys


def rename(name):
    return {"frontend": "router"}.get(name, name)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        doc = json.load(f)
    for cell in doc["cells"]:
        for process in cell["processes"]:
            process["name"] = rename(process["name"])
    with open(argv[1], "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
