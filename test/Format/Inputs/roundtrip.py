"""Checks arecipe-fmt on each FILE from the outside, without trusting the
checks the formatter runs on itself (lib/Format/Check.cpp):

  - formatting succeeds, and formatting its output again gives the same bytes
    (idempotence), as does a second run on the file (determinism);
  - the output's syntax tree, as `arecipec --emit ast` dumps it with the
    locations left out, is the input's;
  - the output has the input's comments, in the same order;
  - with --already-formatted, the output is the file itself.

usage: roundtrip.py [--already-formatted] FILE|DIR...
(a DIR stands for every .arecipe file under it, in sorted order)
Prints one line per file checked and fails at the first file that breaks a
rule, naming the file and the rule.
"""
import json
import os
import re
import subprocess
import sys

LOCATION_KEYS = {"range", "file", "lbrace", "rbrace"}


def run(args, stdin=None):
    p = subprocess.run(args, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k not in LOCATION_KEYS}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def tree(text, name):
    # arecipec reads the text from standard input under the name '-'.
    code, out, err = run(["arecipec", "--emit", "ast", "-"], stdin=text)
    if code != 0:
        fail(name, "arecipec cannot dump the tree:\n" + err.decode())
    return strip(json.loads(out))


# A comment is found by scanning the text as the lexer does: strings (with
# escapes) are skipped, so a '//' inside one is not a comment.
TOKEN = re.compile(rb'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.S)


def comments(text):
    out = []
    for m in TOKEN.finditer(text):
        s = m.group(0)
        if s.startswith(b"//"):
            out.append(s.rstrip())
        elif s.startswith(b"/*"):
            out.append(s.replace(b"\r\n", b"\n"))
    return out


def fail(name, why):
    sys.stderr.write(f"{name}: {why}\n")
    sys.exit(1)


def main():
    args = sys.argv[1:]
    formatted = "--already-formatted" in args
    files = []
    for a in args:
        if a == "--already-formatted":
            continue
        if os.path.isdir(a):
            files += sorted(os.path.join(d, f) for d, _, fs in os.walk(a)
                            for f in fs if f.endswith(".arecipe"))
        else:
            files.append(a)
    if not files:
        fail("roundtrip.py", "no files")
    for name in files:
        with open(name, "rb") as f:
            original = f.read()
        code, once, err = run(["arecipe-fmt", name])
        if code != 0:
            fail(name, "arecipe-fmt refused it:\n" + err.decode())
        code, again, err = run(["arecipe-fmt", name])
        if code != 0 or again != once:
            fail(name, "a second run gives other bytes")
        code, twice, err = run(["arecipe-fmt"], stdin=once)
        if code != 0:
            fail(name, "arecipe-fmt refused its own output:\n" + err.decode())
        if twice != once:
            fail(name, "not idempotent: formatting the output changes it")
        if tree(original, name) != tree(once, name):
            fail(name, "the formatted syntax tree differs from the input's")
        if comments(original) != comments(once):
            fail(name, "the comments differ: %r != %r"
                 % (comments(original), comments(once)))
        if formatted and once != original:
            fail(name, "not formatted (run: bash scripts/format.sh)")
        print(f"ok {name} ({len(comments(original))} comments)")


main()
