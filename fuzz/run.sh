#!/usr/bin/env bash
# Runs libFuzzer targets for a fixed time each, one worker, on a working copy
# of their seed corpus (docs/reliability.md).
#
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#     TARGET: parse parsediff sema plan sse trace sim
#
# BUILD_DIR is a -DARECIPE_FUZZ=ON build. Each target starts from
# fuzz/corpus/<target>/ (parsediff: fuzz/corpus/parse/) plus whatever
# earlier runs kept in fuzz/corpus-work/<target>/ (git-ignored); sema,
# parse and parsediff use fuzz/sema.dict.
# A crash, leak, timeout or sanitizer report leaves its input in
# fuzz/corpus-work/artifacts/<target>/ and makes the script exit 1 after the other
# targets have run. The last line of each run is libFuzzer's final stats.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
seconds=$2
shift 2
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(parse parsediff sema plan sse trace sim)
status=0
for t in "${targets[@]}"; do
  bin=$build/bin/arecipe-fuzz-$t
  work=$root/fuzz/corpus-work/$t
  artifacts=$root/fuzz/corpus-work/artifacts/$t
  mkdir -p "$work" "$artifacts"
  seeds=$t
  [[ $t == parsediff ]] && seeds=parse
  cp -n "$root"/fuzz/corpus/"$seeds"/* "$work"/ 2>/dev/null
  extra=()
  case $t in
    parse | parsediff | sema) extra=(-dict="$root/fuzz/sema.dict" -max_len=4096) ;;
    plan) extra=(-max_len=16384) ;;
    *) extra=(-max_len=4096) ;;
  esac
  echo "== arecipe-fuzz-$t: ${seconds} s"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]}" "$work" 2>&1 |
    grep -E '^(stat::|#[0-9]+ *DONE|==[0-9]+==ERROR|SUMMARY|Done|INFO: Running with)|artifact_prefix|Test unit written' ||
    true
  if compgen -G "$artifacts/*" > /dev/null; then
    echo "arecipe-fuzz-$t: findings in $artifacts"
    status=1
  fi
done
exit $status
