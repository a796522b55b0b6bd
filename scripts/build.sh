#!/usr/bin/env bash
# Configures and builds arecipe into ${ARECIPE_BUILD_DIR:-build} with Ninja.
# Arguments are CMake cache settings (e.g. -DARECIPE_WERROR=ON); given any,
# an existing build is reconfigured with them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ARECIPE_BUILD_DIR:-$root/build}
if [[ ! -f $build/build.ninja || $# -gt 0 ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
fi
cmake --build "$build"
