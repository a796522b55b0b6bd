#!/usr/bin/env bash
# The README's test command: installs the Debian packages, builds, and runs
# every test (lit suite + unit tests) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
build=${ARECIPE_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j2 "$@"
