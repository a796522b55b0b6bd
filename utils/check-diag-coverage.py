#!/usr/bin/env python3
"""Fails when a declared diagnostic is exercised by no test.

Every process that uses arecipe's diagnostics engine with
ARECIPE_DIAG_COVERAGE_DIR set appends the ids it emitted, one per line, to
DIR/diag-<pid>.txt. This script unions those files and compares them with
the declared table, read from `arecipec --list-diagnostics` (one "id level"
per line). See docs/diagnostics.md.

usage: check-diag-coverage.py --arecipec PATH --dir DIR [--allow-unused ID...]
exit status: 0 all covered, 1 some unexercised, 2 usage or I/O problems.
"""

import argparse
import pathlib
import subprocess
import sys


def declared_ids(arecipec):
    out = subprocess.run([arecipec, "--list-diagnostics"], check=True,
                         capture_output=True, text=True).stdout
    ids = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"unexpected --list-diagnostics line: {line!r}")
        ids.append(fields[0])
    return ids


def emitted_ids(directory):
    seen = set()
    files = sorted(pathlib.Path(directory).glob("diag-*.txt"))
    for path in files:
        seen.update(line.strip() for line in path.read_text().splitlines()
                    if line.strip())
    return seen, len(files)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arecipec", required=True)
    parser.add_argument("--dir", required=True,
                        help="the ARECIPE_DIAG_COVERAGE_DIR of the test run")
    parser.add_argument("--allow-unused", nargs="*", default=[],
                        help="ids known to be untestable (say why in a comment "
                             "where this is invoked)")
    args = parser.parse_args()
    try:
        declared = declared_ids(args.arecipec)
        seen, nfiles = emitted_ids(args.dir)
    except (OSError, subprocess.CalledProcessError, ValueError) as err:
        print(f"check-diag-coverage: error: {err}", file=sys.stderr)
        return 2
    if nfiles == 0:
        print(f"check-diag-coverage: error: no coverage files in '{args.dir}'; "
              "were the tests run with ARECIPE_DIAG_COVERAGE_DIR set?",
              file=sys.stderr)
        return 2

    unknown = sorted(seen - set(declared))
    missing = [i for i in declared
               if i not in seen and i not in args.allow_unused]
    for name in unknown:
        print(f"check-diag-coverage: warning: emitted id '{name}' is not "
              "declared (stale coverage files?)", file=sys.stderr)
    if missing:
        print(f"check-diag-coverage: error: {len(missing)} of {len(declared)} "
              "declared diagnostics are exercised by no test:", file=sys.stderr)
        for name in missing:
            print(f"  {name}", file=sys.stderr)
        return 1
    print(f"check-diag-coverage: all {len(declared)} declared diagnostics "
          "are exercised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
