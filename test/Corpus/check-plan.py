#!/usr/bin/env python3
"""Compares an arecipe launch plan with a corpus expectation file.

The files in test/Corpus/expected/ pin down, per InferenceX corpus entry and
independently of arecipe's syntax, what every cell of the real benchmark
starts: each process's argv and env, the files written before launch, GPU
and node counts, ports and the client's load. This script checks that
`arecipec --emit plan` output reproduces them exactly.

usage:
  check-plan.py PLAN.json EXPECTED.json [--arm ARM] [--mode bench|eval]
  check-plan.py --validate EXPECTED.json...

What is compared, per expected cell of the selected mode (and arm):
  - the cell exists in the plan (matched by arm and concurrency) and the plan
    has no cell the expectation lacks;
  - cell `gpus` and `nodes`;
  - every expected process: argv as the engine's argument parser reads it
    (the command words in order, then each option with its values, options
    in any order, `--x=v` as `--x v`, JSON words as JSON values), every
    expected env entry
    with its exact value, every `env_unset` name absent from the plan's env,
    `port`, `node_rank`, and its GPU count (the plan lists device indexes);
  - every expected file, byte for byte, or for a YAML or JSON file as the
    value it holds; a file's path in an expected argv word or env value
    (`path` of the expected file) is the plan's `{file:NAME}` where the plan
    cell has that file;
  - the client: concurrency, isl, osl, range_ratio, num_prompts, warmups,
    duration_s, served_model_name, and the port of the process it targets.
Not compared: `matrix`, `setup`, process `cwd`, and the client's own argv
and env (InferenceX's AIPerf / benchmark_serving.py command lines; arecipe
has its own load client). They are in the expectation files for reference.
Nor the processes and files an entry lists in `upstream_orchestration`,
each with the reason: the upstream launcher's own inputs and helpers (its
recipe file, cluster config, batch script), which arecipe has no use for
because it starts the processes itself; a match names them.

Placeholders in expected values: `{model_path}` stands for the plan's
`model.path`; `{log_dir}` (the launcher's log directory of the job, where
its processes write their own files) for the plan's `{dir:logs}`, the
directory the runtime gives the cell's processes for that; an expected file's `path` (`{result_dir}/mooncake_config.json`)
stands for the plan's `{file:NAME}` of that file, which the runtime resolves
to the path of the file it writes into the cell's directory, provided the
plan cell has a file of that name; an expected file whose name holds a
run-time placeholder (`hicache_mc_{job_id}.env`, named after the Slurm job
only to keep jobs apart) pairs with the one plan file whose name matches it,
the placeholder standing for any non-empty run of file-name characters; a
run-time probe `{NAME}` (the expectation's notes say what it probes) stands
for the plan's `{capture:NAME}` where the plan cell runs a `capture` step of
that name, and the container image's own value of a variable,
`{image_env:VAR}`, for `{capture:image_env.VAR}`;
every other `{...}` form (`{result_dir}`, `{node_addr:K}`, ...) must appear
literally in the plan, because only the runtime can resolve it.

exit status: 0 the plan matches, 1 some difference (each printed as
`EXPECTED: cell ID: field: reason`), 2 usage error or unreadable input.
"""

import argparse
import json
import re
import sys


class InputError(Exception):
    """Unreadable or malformed input: exit status 2."""


# ---------------------------------------------------------------------------
# Where things live in a plan. The plan schema is growing (roles, routers,
# files, arms); only these functions know its field names.

def plan_mode(plan):
    return (plan.get("recipe") or {}).get("mode") or "bench"


def plan_cells(plan):
    """The plan's cells, after checking that the parts this script reads
    have the JSON types it reads them as."""
    cells = plan.get("cells")
    if not isinstance(cells, list):
        raise InputError("plan: field 'cells' is missing or not a list")
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise InputError("plan: cells[%d] is not an object" % i)
        for field, kind in (("processes", list), ("files", list), ("client", dict)):
            if cell.get(field) is not None and not isinstance(cell[field], kind):
                raise InputError("plan: cells[%d].%s has the wrong type" % (i, field))
        for j, p in enumerate(cell.get("processes") or []):
            if not isinstance(p, dict):
                raise InputError("plan: cells[%d].processes[%d] is not an object" % (i, j))
            if p.get("env") is not None and not isinstance(p["env"], dict):
                raise InputError("plan: cells[%d].processes[%d].env is not an object" % (i, j))
        for j, f in enumerate(cell.get("files") or []):
            if not isinstance(f, dict):
                raise InputError("plan: cells[%d].files[%d] is not an object" % (i, j))
        client = cell.get("client") or {}
        if client.get("workload") is not None and not isinstance(client["workload"], dict):
            raise InputError("plan: cells[%d].client.workload is not an object" % i)
    return cells


def plan_cell_arm(cell):
    """The arm a plan cell belongs to: a `arm` field, or the prefix of an id
    written `<arm>.c<conc>`; None when the plan does not say."""
    if isinstance(cell.get("arm"), str):
        return cell["arm"]
    cid = cell.get("id")
    if isinstance(cid, str) and "." in cid:
        return cid.rsplit(".", 1)[0]
    return None


def plan_cell_id(cell):
    return str(cell.get("id", "c%s" % cell.get("conc")))


def plan_process(cell, name):
    for p in cell.get("processes") or []:
        if p.get("name") == name:
            return p
    return None


def plan_files(cell):
    """Files the plan writes before launch, as {name: content}; a file is
    known by its `name`, and by the base name of its `path` if it has one."""
    out = {}
    for f in cell.get("files") or []:
        content = f.get("content")
        for key in (f.get("name"), f.get("path")):
            if isinstance(key, str):
                out[key] = content
                out[key.rsplit("/", 1)[-1]] = content
    return out


def expected_file_pattern(name):
    """An expected file name as a pattern: each run-time placeholder in it
    (`hicache_mc_{job_id}.env`) stands for a non-empty run of file-name
    characters, everything else for itself."""
    parts = re.split(r"(\{[^{}]*\})", name)
    return re.compile("".join("[A-Za-z0-9._-]+" if part.startswith("{") else re.escape(part)
                              for part in parts if part) + r"\Z")


def matching_files(name, files):
    """The plan files an expected file `name` may pair with: the file of
    that name; for a name with a run-time placeholder, every plan file whose
    name matches it."""
    if name in files or "{" not in name:
        return [name] if name in files else []
    pattern = expected_file_pattern(name)
    return sorted(set(key for key in files if "/" not in key and pattern.match(key)))


def paired_file(name, files):
    """The plan file an expected file `name` pairs with, or None when no
    plan file or several match it."""
    matches = matching_files(name, files)
    return matches[0] if len(matches) == 1 else None


def plan_captures(cell):
    """Names of the cell's `capture` pre-flight steps (`{capture:NAME}`)."""
    return [a.get("name") for a in cell.get("preflight") or []
            if isinstance(a, dict) and a.get("action") == "capture" and
            isinstance(a.get("name"), str)]


def plan_client_values(plan, cell):
    """The client fields the expectation names, read from the plan."""
    client = cell.get("client") or {}
    workload = client.get("workload") or {}
    target = plan_process(cell, client.get("target"))
    return {
        "concurrency": client.get("concurrency"),
        "isl": workload.get("isl"),
        "osl": workload.get("osl"),
        "range_ratio": workload.get("range_ratio"),
        "num_prompts": workload.get("num_prompts"),
        "warmups": workload.get("warmup"),
        "duration_s": workload.get("duration_s"),
        "served_model_name": client.get("served_model_name"),
        "target_port": target.get("port") if target else None,
    }


# ---------------------------------------------------------------------------
# The comparison rules, all in one place.

CLIENT_FIELDS = ["concurrency", "isl", "osl", "range_ratio", "num_prompts",
                 "warmups", "duration_s", "served_model_name", "target_port"]


def orchestration(doc):
    """The entry's expected processes and files that belong to the upstream
    launcher's own orchestration (`upstream_orchestration`), as a set of
    ("process" | "file", NAME): not compared."""
    return {(kind, item[kind]) for item in doc.get("upstream_orchestration") or []
            for kind in ("process", "file") if kind in item}


def compare_cell(exp, got, plan, subst, report, skip=frozenset()):
    """Reports every difference between expected cell `exp` and plan cell
    `got` through report(field, reason); the expected processes and files
    in `skip` are not compared."""
    # A process refers to a file the runtime writes by `{file:NAME}`: the
    # expected file's path reads as that, where the plan cell has the file;
    # and to a probe's output by `{capture:NAME}`.
    files = plan_files(got)
    paired = {ef["name"]: paired_file(ef["name"], files) for ef in exp["files"]}
    paths = [(ef["path"], "{file:%s}" % paired[ef["name"]]) for ef in exp["files"]
             if isinstance(ef.get("path"), str) and paired[ef["name"]]]
    # A run-time probe the plan runs as a capture step of the same name;
    # the image's own value of a variable, `{image_env:VAR}`, is the probe
    # `image_env.VAR`.
    for name in plan_captures(got):
        paths.append(("{%s}" % name, "{capture:%s}" % name))
        if name.startswith("image_env."):
            paths.append(("{image_env:%s}" % name[len("image_env."):], "{capture:%s}" % name))
    if paths:
        outer = subst

        def subst(value):
            value = outer(value)
            if isinstance(value, list):
                return [subst(v) for v in value]
            if isinstance(value, str):
                for path, ref in paths:
                    value = value.replace(path, ref)
            return value

    for field in ("gpus", "nodes"):
        if got.get(field) != exp[field]:
            report(field, "expected %s, got %s" % (show(exp[field]), show(got.get(field))))

    for ep in exp["processes"]:
        name = ep["name"]
        if ("process", name) in skip:
            continue
        gp = plan_process(got, name)
        where = "process '%s'" % name
        if gp is None:
            names = [p.get("name") for p in got.get("processes") or []]
            report(where, "missing from the plan (plan has %s)" % ", ".join(map(show, names)))
            continue
        compare_argv(subst(ep["argv"]), gp.get("argv"), lambda r: report(where + ": argv", r))
        genv = gp.get("env") or {}
        for key, value in ep["env"].items():
            value = subst(value)
            if key not in genv:
                report(where + ": env " + key, "missing (expected %s)" % show(value))
            elif genv[key] != value:
                report(where + ": env " + key, "expected %s, got %s" % (show(value), show(genv[key])))
        for key in ep.get("env_unset") or []:
            if key in genv:
                report(where + ": env " + key, "must be unset, the plan sets %s" % show(genv[key]))
        for field in ("port", "node_rank"):
            if ep.get(field) is not None and gp.get(field) != ep[field]:
                report(where + ": " + field,
                       "expected %s, got %s" % (show(ep[field]), show(gp.get(field))))
        devices = gp.get("gpus")
        count = len(devices) if isinstance(devices, list) else devices
        if count != ep.get("gpus"):
            report(where + ": gpus", "expected %s, got %s (%s)" % (
                show(ep.get("gpus")), show(count), show(devices)))

    for ef in exp["files"]:
        if ("file", ef["name"]) in skip:
            continue
        where = "file '%s'" % ef["name"]
        name = paired[ef["name"]]
        if name is None:
            several = matching_files(ef["name"], files)
            report(where, "several plan files match it (%s)" % ", ".join(map(show, several))
                   if several else "missing from the plan")
            continue
        compare_text(ef["content"], files[name], lambda r: report(where, r),
                     structured_kind(ef["name"]), subst)

    ec = exp.get("client")
    if ec:
        values = plan_client_values(plan, got)
        for field in CLIENT_FIELDS:
            want = subst(ec.get(field))
            if want is not None and values[field] != want:
                report("client: " + field, "expected %s, got %s" % (show(want), show(values[field])))


def is_option(word):
    """An option word as an argument parser reads one: `--name` or `-x`
    (not a negative number such as `-1`)."""
    return word.startswith("--") and len(word) > 2 or \
        len(word) > 1 and word[0] == "-" and word[1].isalpha()


def json_value(word):
    """A word that is a JSON object or list compares as that value, so the
    spacing and member order of `{"a": 1}` do not matter."""
    if word[:1] in ("{", "["):
        try:
            return ("json", json.dumps(json.loads(word), sort_keys=True))
        except ValueError:
            pass
    return ("word", word)


def parse_argv(argv):
    """argv as the engine's parser reads it: the command words before the
    first option, in order, then each option with the words up to the next
    option (`--x=v` is `--x v`), in order of appearance per option name."""
    i = 0
    while i < len(argv) and not is_option(argv[i]):
        i += 1
    command = argv[:i]
    options = {}
    while i < len(argv):
        name, values = argv[i], []
        if name.startswith("--") and "=" in name:
            name, value = name.split("=", 1)
            values.append(value)
        i += 1
        while i < len(argv) and not is_option(argv[i]):
            values.append(argv[i])
            i += 1
        options.setdefault(name, []).append([json_value(v) for v in values])
    return command, options


def show_values(values):
    return " ".join(show(v[1] if v[0] == "word" else json.loads(v[1])) for v in values) or "no value"


def compare_argv(want, got, report):
    """Equal when the command words are equal in order and every option has
    the same values; options may come in any order (how the engine reads
    them), a repeated option's occurrences in order."""
    if not isinstance(got, list) or not all(isinstance(w, str) for w in got):
        report("expected a list of %d words, got %s" % (len(want), show(got)))
        return
    if want == got:
        return
    wc, wo = parse_argv(want)
    gc, go = parse_argv(got)
    if wc != gc:
        i = 0
        while i < min(len(wc), len(gc)) and wc[i] == gc[i]:
            i += 1
        if i < len(wc) and i < len(gc):
            report("command word %d: expected %s, got %s" % (i, show(wc[i]), show(gc[i])))
        elif i < len(wc):
            report("command word %d: expected %s, the plan has an option there" % (i, show(wc[i])))
        else:
            report("command word %d: unexpected %s" % (i, show(gc[i])))
    for name in wo:
        if name not in go:
            report("option %s: missing (expected %s)" % (name, show_values(wo[name][0])))
        elif wo[name] != go[name]:
            if len(wo[name]) != len(go[name]):
                report("option %s: expected %d times, the plan has it %d times" %
                       (name, len(wo[name]), len(go[name])))
            else:
                for a, b in zip(wo[name], go[name]):
                    if a != b:
                        report("option %s: expected %s, got %s" % (name, show_values(a), show_values(b)))
                        break
    for name in go:
        if name not in wo:
            report("option %s: only in the plan (%s)" % (name, show_values(go[name][0])))


def structured_kind(name):
    """'yaml' or 'json' for a config file the engine parses, else None."""
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    if name.endswith(".json"):
        return "json"
    return None


def parse_structured(kind, text):
    try:
        if kind == "json":
            return json.loads(text)
        import yaml  # python3-yaml
        return yaml.safe_load(text)
    except Exception:  # not parseable (or no YAML reader): compare bytes
        return None


def compare_text(raw, got, report, kind=None, subst=lambda v: v):
    """Byte for byte; a YAML or JSON file that differs in bytes but holds
    the same value (what the engine reads: spacing, a trailing blank, quoting
    that does not change a value) is equal. The expected file's placeholders
    (`subst`) are replaced in its text for the byte comparison, and in the
    strings of its value for the value comparison: a path replaced in the
    text (`path: /tmp/x.yaml` -> `path: {file:x.yaml}`) would read as a YAML
    mapping."""
    if not isinstance(got, str):
        report("content: expected text, got %s" % show(got))
        return
    want = subst(raw)
    if want == got:
        return
    if kind is not None:
        a, b = parse_structured(kind, raw), parse_structured(kind, got)
        if a is not None and map_strings(a, subst) == b:
            return
    wl, gl = want.split("\n"), got.split("\n")
    for n, (a, b) in enumerate(zip(wl, gl), start=1):
        if a != b:
            report("content line %d: expected %s, got %s" % (n, show(a), show(b)))
            return
    report("content: expected %d lines, got %d" % (len(wl), len(gl)))


def map_strings(value, f):
    """`value` with f applied to every string in it, keys included."""
    if isinstance(value, dict):
        return {map_strings(k, f): map_strings(v, f) for k, v in value.items()}
    if isinstance(value, list):
        return [map_strings(v, f) for v in value]
    if isinstance(value, str):
        return f(value)
    return value


def show(value):
    return json.dumps(value)


# ---------------------------------------------------------------------------
# Driver

def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise InputError("%s: not valid JSON: %s" % (path, e))


def validate_expected(doc, path):
    """Shape of an expectation file; raises InputError naming the field."""
    def need(obj, field, kind, where):
        if not isinstance(obj, dict) or field not in obj:
            raise InputError("%s: %s: field '%s' is missing" % (path, where, field))
        value = obj[field]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # JSON true/false are Python ints too; a count is never a boolean.
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise InputError("%s: %s: field '%s' has the wrong type" % (path, where, field))
        return value

    for field, kind in (("entry", str), ("config_key", str), ("how", str), ("notes", list),
                        ("master", dict), ("arms", list), ("cells", list)):
        need(doc, field, kind, "top level")
    arms = set()
    for i, arm in enumerate(doc["arms"]):
        arms.add(need(arm, "arm", str, "arms[%d]" % i))
        arms.add(need(arm, "name", str, "arms[%d]" % i))
    seen = set()
    for i, cell in enumerate(doc["cells"]):
        where = "cells[%d]" % i
        arm = need(cell, "arm", str, where)
        if arm not in arms:
            raise InputError("%s: %s: arm '%s' is not declared in 'arms'" % (path, where, arm))
        mode = need(cell, "mode", str, where)
        if mode not in ("bench", "eval"):
            raise InputError("%s: %s: mode must be bench or eval, not '%s'" % (path, where, mode))
        conc = need(cell, "conc", int, where)
        if (arm, mode, conc) in seen:
            raise InputError("%s: %s: a second %s cell for arm %s at conc %d" % (path, where, mode, arm, conc))
        seen.add((arm, mode, conc))
        need(cell, "gpus", int, where)
        need(cell, "nodes", int, where)
        for j, p in enumerate(need(cell, "processes", list, where)):
            pw = "%s.processes[%d]" % (where, j)
            need(p, "name", str, pw)
            argv = need(p, "argv", list, pw)
            if not all(isinstance(w, str) for w in argv):
                raise InputError("%s: %s: field 'argv' must hold strings only" % (path, pw))
            env = need(p, "env", dict, pw)
            if not all(isinstance(v, str) for v in env.values()):
                raise InputError("%s: %s: field 'env' must map names to strings" % (path, pw))
            need(p, "env_unset", list, pw)
            need(p, "port", (int, type(None)), pw)
            need(p, "gpus", (int, type(None)), pw)
        for j, f in enumerate(need(cell, "files", list, where)):
            need(f, "name", str, "%s.files[%d]" % (where, j))
            need(f, "content", str, "%s.files[%d]" % (where, j))
        need(cell, "client", (dict, type(None)), where)
    names = {(kind, item["name"]) for cell in doc["cells"]
             for kind, items in (("process", cell["processes"]), ("file", cell["files"]))
             for item in items}
    for i, item in enumerate(doc.get("upstream_orchestration") or []):
        where = "upstream_orchestration[%d]" % i
        kinds = [kind for kind in ("process", "file") if kind in item] if isinstance(item, dict) else []
        if len(kinds) != 1:
            raise InputError("%s: %s: name one 'process' or one 'file'" % (path, where))
        name = need(item, kinds[0], str, where)
        if not need(item, "why", str, where):
            raise InputError("%s: %s: field 'why' is empty" % (path, where))
        if (kinds[0], name) not in names:
            raise InputError("%s: %s: no cell has the %s '%s'" % (path, where, kinds[0], name))


def select_cells(doc, mode, arm):
    arms = {a["arm"]: a["name"] for a in doc["arms"]}
    if arm is not None and arm not in arms and arm not in arms.values():
        raise InputError("--arm %s: the expectation has arms %s" % (
            arm, ", ".join("%s (%s)" % kv for kv in arms.items())))
    return [c for c in doc["cells"] if c["mode"] == mode and
            (arm is None or arm in (c["arm"], arms[c["arm"]]))], arms


def check(plan, doc, arm, mode, out):
    mode = mode or plan_mode(plan)
    expected, arm_names = select_cells(doc, mode, arm)
    if not expected:
        raise InputError("the expectation has no %s cells%s" % (
            mode, "" if arm is None else " for arm %s" % arm))
    model_path = (plan.get("model") or {}).get("path")

    def subst(value):
        if isinstance(value, list):
            return [subst(v) for v in value]
        if isinstance(value, str) and "{log_dir}" in value:
            value = value.replace("{log_dir}", "{dir:logs}")
        if isinstance(value, str) and "{model_path}" in value:
            if model_path is None:
                return value  # reported below as a difference, word by word
            return value.replace("{model_path}", model_path)
        return value

    errors = []
    entry = doc["entry"]

    def reporter(cell_name):
        def report(field, reason):
            errors.append("%s: cell %s: %s: %s" % (entry, cell_name, field, reason))
        return report

    # Pair expected cells with plan cells by (arm, conc). A plan without arms
    # is paired by conc alone, which needs one arm selected (or only one).
    cells = plan_cells(plan)
    plan_arms = any(plan_cell_arm(c) is not None for c in cells)
    if not plan_arms and len({c["arm"] for c in expected}) > 1:
        raise InputError("the plan's cells carry no arm and the expectation has %d arms here; "
                         "pass --arm" % len({c["arm"] for c in expected}))
    used = set()
    for exp in expected:
        name = "%s/c%d" % (exp["arm"], exp["conc"])
        match = None
        for i, c in enumerate(cells):
            if c.get("conc") != exp["conc"]:
                continue
            if plan_arms and plan_cell_arm(c) not in (exp["arm"], arm_names[exp["arm"]]):
                continue
            match = i
            break
        if match is None:
            errors.append("%s: cell %s: missing from the plan" % (entry, name))
            continue
        used.add(match)
        compare_cell(exp, cells[match], plan, subst, reporter(name), orchestration(doc))
    for i, c in enumerate(cells):
        if i in used:
            continue
        if arm is not None and plan_arms and plan_cell_arm(c) not in (arm, arm_names.get(arm)):
            continue
        errors.append("%s: plan cell %s: no expected %s cell has this arm and concurrency" % (
            entry, plan_cell_id(c), mode))
    for e in errors:
        print(e, file=out)
    if not errors:
        skipped = orchestration(doc)
        print("%s: %d %s cells match%s" % (
            entry, len(expected), mode,
            " (not compared, the upstream launcher's own: %s)" % ", ".join(
                "%s '%s'" % item for item in sorted(skipped)) if skipped else ""), file=out)
    return 1 if errors else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--validate", action="store_true",
                    help="only check the shape of the given expectation files")
    ap.add_argument("--arm", help="compare only this arm (letter or name)")
    ap.add_argument("--mode", choices=["bench", "eval"],
                    help="which expected cells (default: the plan's recipe.mode)")
    ap.add_argument("files", nargs="+", metavar="FILE")
    args = ap.parse_args(argv)
    try:
        if args.validate:
            for path in args.files:
                doc = load(path)
                validate_expected(doc, path)
                print("%s: valid, %d cells" % (path, len(doc["cells"])))
            return 0
        if len(args.files) != 2:
            ap.error("expected PLAN.json EXPECTED.json")
        plan, doc = load(args.files[0]), load(args.files[1])
        if not isinstance(plan, dict):
            raise InputError("%s: the plan is not a JSON object" % args.files[0])
        validate_expected(doc, args.files[1])
        return check(plan, doc, args.arm, args.mode, sys.stdout)
    except InputError as e:
        print("check-plan.py: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
