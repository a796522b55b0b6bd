#!/usr/bin/env python3
"""Generates arecipe-sim's profile catalogue from the standard library.

std/hardware/*.arecipe and std/models/*.arecipe are the one description of
every GPU and model arecipe knows. arecipe-sim can also be started by hand
with `--sim-hardware NAME` / `--sim-model NAME`; the profiles it reads then
are these files, written at build time from std by the compiler itself: for
each declaration, a throwaway recipe is compiled and the plan's top-level
`hardware` (or `model`) object -- the figures exactly as a recipe's plan
carries them -- is written to OUT/hardware/NAME.json (OUT/models/NAME.json).
A model without a shape (no `layers`) cannot be simulated and gets no
profile. Nothing here is edited by hand (docs/simulator.md, "Profiles").

usage: gen-sim-profiles.py --arecipec BIN --std DIR --out DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DECL = re.compile(r"^(hardware|model)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)

# What the throwaway recipe pairs each declaration with: any shaped model and
# any GPU will do, the profile takes only its own half of the plan.
PAIR_MODEL = ("std/models/kimi_k3", "kimi_k3")
PAIR_HARDWARE = ("std/hardware/mi355x", "mi355x")


def declarations(std, kind):
    folder = "hardware" if kind == "hardware" else "models"
    out = []
    for name in sorted(os.listdir(os.path.join(std, folder))):
        if not name.endswith(".arecipe"):
            continue
        with open(os.path.join(std, folder, name), encoding="utf-8") as f:
            text = f.read()
        module = "std/%s/%s" % (folder, name[: -len(".arecipe")])
        for k, decl in DECL.findall(text):
            if k == kind:
                out.append((module, decl))
    return out


def plan_of(arecipec, tmp, model, hardware):
    src = os.path.join(tmp, "profile.arecipe")
    with open(src, "w", encoding="utf-8") as f:
        f.write(
            'import "%s"\nimport "%s"\nimport "std/engines/vllm"\n\n'
            "recipe profile {\n  model = %s\n  hardware = %s\n"
            "  engine = vllm\n  scenario = fixed(isl = 1024, osl = 128)\n"
            "  tp = 1\n  concurrency = [1]\n  max_model_len = 2048\n}\n"
            % (model[0], hardware[0], model[1], hardware[1]))
    out = os.path.join(tmp, "plan.json")
    r = subprocess.run([arecipec, src, "--emit", "plan", "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        sys.exit("gen-sim-profiles: %s with %s does not compile:\n%s"
                 % (model[1], hardware[1], r.stdout))
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def write(path, obj):
    text = json.dumps(obj, indent=2, sort_keys=False) + "\n"
    # Rewrite only on change, so the build does not see new files each time.
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arecipec", required=True)
    ap.add_argument("--std", required=True, help="the std/ directory")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for sub in ("hardware", "models"):
        os.makedirs(os.path.join(a.out, sub), exist_ok=True)
    written = set()
    with tempfile.TemporaryDirectory() as tmp:
        # `import "std/..."` resolves next to the arecipec binary (its
        # share/arecipe/std), which is --std in the build and install trees.
        for hw in declarations(a.std, "hardware"):
            plan = plan_of(a.arecipec, tmp, PAIR_MODEL, hw)
            write(os.path.join(a.out, "hardware", hw[1] + ".json"),
                  plan["hardware"])
            written.add(os.path.join("hardware", hw[1] + ".json"))
        for m in declarations(a.std, "model"):
            plan = plan_of(a.arecipec, tmp, m, PAIR_HARDWARE)
            if "layers" not in plan.get("model", {}):
                continue  # no shape: nothing to simulate it from
            write(os.path.join(a.out, "models", m[1] + ".json"), plan["model"])
            written.add(os.path.join("models", m[1] + ".json"))
    # A declaration removed from std takes its profile with it.
    for sub in ("hardware", "models"):
        for name in os.listdir(os.path.join(a.out, sub)):
            if os.path.join(sub, name) not in written:
                os.remove(os.path.join(a.out, sub, name))
    stamp = os.path.join(a.out, ".stamp")
    with open(stamp, "w", encoding="utf-8") as f:
        f.write("%d profiles\n" % len(written))


if __name__ == "__main__":
    main()
