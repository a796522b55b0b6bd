#!/bin/sh
# Measures the streams and streamed tokens/s one arecipe-sim core sustains:
# the simulator pinned to CPU 0, the load generator to CPU 1.
#   [SIM_EXTRA_ARGS="engine flags"] bench/sim/run-stream-bench.sh BUILD_DIR TIME_SCALE [STREAMS] [SECONDS]
set -eu
build=$1
scale=$2
streams=${3:-1024}
seconds=${4:-20}
dir=$(mktemp -d)
trap 'kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true; rm -rf "$dir"' EXIT
ulimit -n 65536 2>/dev/null || true
taskset -c 0 "$build/bin/arecipe-sim" --sim-time-scale "$scale" --sim-port-file "$dir/port" \
  --sim-log-level warning -- \
  vllm serve /models/Kimi-K3 --port 0 --tensor-parallel-size 8 --max-num-seqs "$streams" \
  --max-num-batched-tokens 65536 ${SIM_EXTRA_ARGS:-} 2>"$dir/log" &
sim=$!
while [ ! -s "$dir/port" ]; do sleep 0.05; done
port=$(cat "$dir/port")
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.1; done
taskset -c 1 "$build/bench/sim-stream-bench" --port "$port" --streams "$streams" \
  --sim-pid "$sim" --warmup 5 --duration "$seconds" --max-tokens 200 --prompt-words 100
