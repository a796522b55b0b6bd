#!/usr/bin/env bash
# The README's test command: installs the Debian packages (build and test),
# builds, brings up a private single-machine Slurm for the Slurm tests, and
# runs every test (lit suite, diagnostic coverage, unit tests) through ctest.
# Slurm is torn down on exit, whatever the outcome.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" --test
# CI builds warning-free or not at all (docs/build.md).
bash "$root/scripts/build.sh" -DARECIPE_WERROR=ON
build=${ARECIPE_BUILD_DIR:-$root/build}

trap 'bash "$root/scripts/slurm-down.sh" >/dev/null 2>&1 || true' EXIT
eval "$(bash "$root/scripts/slurm-up.sh")"
export ARECIPE_SLURM_UP=1
export ARECIPE_REQUIRE_BROWSER=1
export ARECIPE_REQUIRE_NEOVIM=1
export ARECIPE_REQUIRE_TEXTMATE=1

cd "$build"
ctest --output-on-failure -j2 "$@"
