"""Compares the generated profile catalogue with a std recipe's plan."""
import json
import os
import shutil
import sys

plan = json.load(open(sys.argv[1]))
sim = shutil.which("arecipe-sim")
catalogue = os.path.join(os.path.dirname(os.path.realpath(sim)), "..", "share",
                         "arecipe", "sim")
for rel, key in (("hardware/mi355x.json", "hardware"),
                 ("models/kimi_k3.json", "model")):
    profile = json.load(open(os.path.join(catalogue, rel)))
    if profile != plan[key]:
        sys.exit("%s differs from the plan's %s object:\n%s\n%s"
                 % (rel, key, json.dumps(profile, sort_keys=True),
                    json.dumps(plan[key], sort_keys=True)))
    print("%s: the plan's %s object" % (rel, key))
for sub in ("hardware", "models"):
    names = sorted(n[:-5] for n in os.listdir(os.path.join(catalogue, sub))
                   if n.endswith(".json"))
    print("%s: %s" % (sub, " ".join(names)))
