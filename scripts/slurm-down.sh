#!/usr/bin/env bash
# Stops the test Slurm that scripts/slurm-up.sh started: cancels its jobs,
# then stops slurmd, slurmctld and munged by the PIDs recorded in the state
# directory (ARECIPE_SLURM_DIR, default /tmp/arecipe-slurm), and finally any
# slurmstepd still holding a file of that directory (job steps outlive
# slurmd). Only processes tied to this state directory are touched. Safe to
# run when nothing is up. --quiet: say nothing when there is nothing to stop.
set -uo pipefail

dir=${ARECIPE_SLURM_DIR:-/tmp/arecipe-slurm}
quiet=${1:-}
[ -d "$dir" ] || exit 0
export SLURM_CONF=$dir/slurm.conf

log() { [ "$quiet" = --quiet ] || echo "slurm-down: $*" >&2; }

# The PID in FILE if that process is alive and is PROGRAM.
alive_pid() {
  local file=$1 program=$2 pid
  [ -f "$file" ] || return 1
  pid=$(cat "$file" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] || return 1
  [ "$(cat "/proc/$pid/comm")" = "$program" ] || return 1
  echo "$pid"
}

# Stops the given PIDs together (slurmd takes a second or two to shut down,
# so one at a time would add up), SIGKILL after 5 s.
stop_pids() {
  local pid left
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null
  for _ in $(seq 1 50); do
    left=
    for pid in "$@"; do [ -d "/proc/$pid" ] && left=1; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  for pid in "$@"; do
    [ -d "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null && log "killed $pid after 5 s"
  done
  return 0
}

# slurmstepd processes holding a file under the state directory (their
# node's log): job steps escape slurmd, so they are found this way.
leftover_steps() {
  local pid
  for pid in $(pgrep -x slurmstepd); do
    ls -l "/proc/$pid/fd" 2>/dev/null | grep -q -- "-> $dir/" && echo "$pid"
  done
}

if ctld=$(alive_pid "$dir/slurmctld.pid" slurmctld); then
  if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    log "cancelling jobs: $(squeue -h -o %i | tr '\n' ' ')"
    scancel --full --quiet --user="$(id -un)" 2>/dev/null
    for _ in $(seq 1 100); do
      [ -z "$(squeue -h -t running,completing,pending -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
fi

daemons=()
for f in "$dir"/slurmd.*.pid "$dir/slurmctld.pid"; do
  [ -e "$f" ] || continue
  program=slurmd
  [ "$(basename "$f")" = slurmctld.pid ] && program=slurmctld
  if pid=$(alive_pid "$f" "$program"); then daemons+=("$pid"); fi
done
if [ ${#daemons[@]} -gt 0 ]; then
  stop_pids "${daemons[@]}"
  log "stopped slurmctld and slurmd (${daemons[*]})"
fi

steps=$(leftover_steps)
if [ -n "$steps" ]; then
  kill -KILL $steps 2>/dev/null
  log "killed leftover slurmstepd: $steps"
fi

if pid=$(alive_pid "$dir/munge/munged.pid" munged); then
  stop_pids "$pid"
  log "stopped munged ($pid)"
fi
exit 0
