#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UBSan, then every libFuzzer
# target for a short time (docs/reliability.md). CI runs it after
# scripts/test.sh; run it by hand the same way:
#
#   bash scripts/test-sanitized.sh [FUZZ_SECONDS]     # default 30 s per target
#
# One clang-14 build (${ARECIPE_SAN_BUILD_DIR:-build-san}, -DARECIPE_FUZZ=ON,
# which compiles everything with -fsanitize=address,undefined and adds the
# fuzz targets) serves both. Every sanitizer report of every process the
# tests start -- arecipec, arecipe-run, the simulators it launches, the
# client, the unit tests -- is written to a file under the build's
# sanitizer-reports/ (ASAN_OPTIONS/UBSAN_OPTIONS log_path), so a report
# cannot hide behind a test that expects a non-zero exit or swallows stderr:
# the script fails if any file appears there, and prints them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fuzz_seconds=${1:-30}
build=${ARECIPE_SAN_BUILD_DIR:-$root/build-san}

bash "$root/scripts/install-deps.sh" --test
# -Werror: clang 14 builds warning-free too (docs/build.md).
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DARECIPE_FUZZ=ON \
  -DARECIPE_BENCH=OFF -DARECIPE_WERROR=ON -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_C_COMPILER=clang-14 >/dev/null
cmake --build "$build"

reports=$build/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
# halt_on_error: a UBSan finding stops the process like an ASan one does.
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="log_path=$reports/lsan"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer

trap 'bash "$root/scripts/slurm-down.sh" >/dev/null 2>&1 || true' EXIT
eval "$(bash "$root/scripts/slurm-up.sh")"
export ARECIPE_SLURM_UP=1
export ARECIPE_REQUIRE_BROWSER=1
export ARECIPE_REQUIRE_NEOVIM=1
export ARECIPE_REQUIRE_TEXTMATE=1

status=0
export LIT_OPTS="-o $build/lit-results.json"
(cd "$build" && ctest --output-on-failure -j2) || status=1
# What ctest hides on success: how many lit tests ran and how (no results
# file after a passing ctest is a failure too).
/usr/bin/python3 - "$build/lit-results.json" <<'PY' || status=1
import collections, json, sys
tests = json.load(open(sys.argv[1]))["tests"]
counts = collections.Counter(t["code"] for t in tests)
print("== lit under ASan+UBSan:", ", ".join(f"{n} {c}" for c, n in sorted(counts.items())))
PY

if compgen -G "$reports/*" >/dev/null; then
  echo "== sanitizer reports ($(ls "$reports" | wc -l) files):"
  for f in "$reports"/*; do
    echo "--- $f"
    head -60 "$f"
  done
  status=1
else
  echo "== sanitizer reports: none"
fi

# The fuzzers report through libFuzzer, not through log files.
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
bash "$root/fuzz/run.sh" "$build" "$fuzz_seconds" || status=1
exit $status
