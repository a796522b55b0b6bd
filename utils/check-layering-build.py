#!/usr/bin/env python3
"""Builds the layering probes of test/Build and checks each outcome.

usage: check-layering-build.py --build DIR PROBE:EXPECT:HEADER...

EXPECT is `compiles` (a control: the header is reachable through the
target's links) or `missing` (the target does not link the header's layer,
so the compiler must stop with "file not found" on exactly that header --
any other failure is reported as a failure of the test, not as a pass).
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("probes", nargs="+")
    args = ap.parse_args()
    failures = 0
    for spec in args.probes:
        target, expect, header = spec.split(":", 2)
        r = subprocess.run([args.cmake, "--build", args.build, "--target", target],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = r.stdout
        not_found = re.search(re.escape(header) + r"'?: No such file or directory|'"
                              + re.escape(header) + r"' file not found", out)
        if expect == "compiles":
            ok = r.returncode == 0
            what = "compiles" if ok else "does not compile"
        else:
            ok = r.returncode != 0 and not_found is not None
            what = ("fails: header not found" if ok else
                    "compiles" if r.returncode == 0 else "fails for another reason")
        print(f"{'ok  ' if ok else 'FAIL'} {target}: #include \"{header}\" {what} "
              f"(expected: {'compiles' if expect == 'compiles' else 'header not found'})")
        if not ok:
            failures += 1
            sys.stdout.write(out[-3000:])
    print(f"check-layering-build: {len(args.probes) - failures} of {len(args.probes)} probes as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
