#!/usr/bin/env python3
"""Checks that every `-verify` directive of the recipe tests carries the
whole message of the diagnostic it matches (test/README.md): the verifier
itself accepts any substring, so `expected-error {{expected}}` would pass
for any message that contains the word.

usage: check-verify-directives.py --arecipec PATH [--fix] DIR...

For each .arecipe file under DIR whose RUN line runs `arecipec ... -verify`,
runs that command without -verify and with `--diagnostics-format=json`, and
compares each `expected-<level>[@line] [count] {{text}}` directive with the
diagnostics of that level on its line (notes included; any line for `@*`):
text must equal a whole message. Fails (exit 1) listing each directive that
is only part of a message, with the message. `--fix` rewrites such a
directive to the whole message when exactly one message on its line
contains it. Exit 2 on a file it cannot run.
"""
import argparse
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"expected-(error|warning|note|remark)(@[-+]?\d+|@\*)?(?:\s+(\d+))?\s*\{\{(.*?)\}\}")


def run_line(text):
    for line in text.splitlines():
        m = re.search(r"RUN:\s*(.*)$", line)
        if m and re.search(r"(^|\s)--?verify(\s|$)", m.group(1)):
            return m.group(1)
    return None


def diagnostics(stderr):
    out = []

    def walk(d):
        out.append(d)
        for n in d.get("notes", []):
            walk(n)

    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("{"):
            walk(json.loads(line))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arecipec", required=True)
    ap.add_argument("--fix", action="store_true")
    ap.add_argument("--std-root", help="what %%std and %%examples are relative to")
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    if "/" in args.arecipec:
        args.arecipec = str(pathlib.Path(args.arecipec).resolve())
    files = sorted(f for d in args.dirs for f in pathlib.Path(d).rglob("*.arecipe")
                   if "Inputs" not in f.parts)
    problems, checked, tests = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            # Latin-1 maps bytes to characters one to one, so files with
            # invalid UTF-8 (tests of it) are rewritten byte for byte.
            text = f.read_bytes().decode("latin-1")
            cmd = run_line(text)
            if cmd is None:
                continue
            words = shlex.split(cmd)
            cwd = None
            if words[:1] == ["cd"] and len(words) > 3 and words[2] == "&&":
                cwd, words = words[1], words[3:]
            if words[:1] == ["timeout"] and len(words) > 2:
                words = words[2:]
            # The memory cap lit adds for the value-size tests: the message
            # is the same without it.
            if words[:1] == ["%limit_memory"]:
                words = words[1:]
            if not words or words[0] != "arecipec" or any(w in ("|", "&&", ";") for w in words):
                sys.stderr.write(f"check-verify-directives: {f}: cannot run '{cmd}'\n")
                return 2
            subst = {"%s": str(f.resolve()), "%S": str(f.parent.resolve()),
                     "%t": str(pathlib.Path(tmp) / "out")}
            if args.std_root:
                subst["%std"] = str(pathlib.Path(args.std_root) / "std")
                subst["%examples"] = str(pathlib.Path(args.std_root) / "examples")
            argv = [args.arecipec]
            for w in words[1:]:
                if w in ("-verify", "--verify"):
                    continue
                for k in sorted(subst, key=len, reverse=True):
                    w = w.replace(k, subst[k])
                argv.append(w)
            argv.append("--diagnostics-format=json")
            # -verify sees every error; so must this run.
            argv.append("--error-limit=0")
            if cwd:
                for k in sorted(subst, key=len, reverse=True):
                    cwd = cwd.replace(k, subst[k])
            r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               cwd=cwd)
            diags = diagnostics(r.stderr)
            for d in diags:  # compared with the file's text, read as Latin-1
                d["message"] = d["message"].encode("utf-8").decode("latin-1")
            tests += 1
            lines = text.split("\n")
            changed = False
            for i, line in enumerate(lines, 1):
                def replace(m):
                    nonlocal changed, checked
                    checked += 1
                    level, where, want = m.group(1), m.group(2), m.group(4)
                    if where == "@*":
                        pool = [d for d in diags if d["level"] == level]
                    else:
                        target = i
                        if where:
                            off = where[1:]
                            target = i + int(off) if off[0] in "+-" else int(off)
                        pool = [d for d in diags if d["level"] == level and d.get("line") == target
                                and pathlib.Path(d.get("file") or "").name == f.name]
                    messages = sorted({d["message"] for d in pool})
                    if want in messages:
                        return m.group(0)
                    holders = [msg for msg in messages if want in msg]
                    if args.fix and len(holders) == 1 and "}}" not in holders[0]:
                        changed = True
                        return m.group(0)[: m.start(4) - m.start(0)] + holders[0] + "}}"
                    problems.append(f"{f}:{i}: expected-{level} {{{{{want}}}}} is not a whole message"
                                    + (f"; the message is '{holders[0]}'" if len(holders) == 1
                                       else f"; messages there: {messages}"))
                    return m.group(0)
                lines[i - 1] = DIRECTIVE.sub(replace, line)
            if changed:
                f.write_bytes("\n".join(lines).encode("latin-1"))
    for p in problems:
        print(p)
    if problems:
        print(f"check-verify-directives: {len(problems)} of {checked} directives in {tests} "
              f"-verify tests are part of a message, not the whole message (test/README.md)")
        return 1
    print(f"check-verify-directives: {checked} directives in {tests} -verify tests, "
          f"each the whole message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
