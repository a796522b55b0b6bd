#!/usr/bin/env python3
"""Copies a corpus expectation with its process names in arecipe's naming
(docs/language.md, "Processes, ports and the render context"), so that a
test can compare everything else of the processes while the two naming
schemes differ:

  prefill-0, decode-1                 -> prefill0, decode1
  prefill-0-node0, decode-2-node1     -> prefill0, decode2.n1
  frontend (a Dynamo router)          -> router

usage: arecipe-process-names.py EXPECTED.json OUT.json
"""

import json
import re
import sys


def rename(name):
    m = re.fullmatch(r"(prefill|decode)-(\d+)(?:-node(\d+))?", name)
    if m:
        role, replica, node = m.groups()
        return role + replica + ("" if node in (None, "0") else ".n" + node)
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
