#!/usr/bin/env bash
# A/B of two trainsim binaries on a shared 2-core machine whose speed drifts ±10 % from one run
# to the next: both run at once, one thread each (--threads 1), each pinned to its own core, then
# the cores are swapped; the figure is each binary's mean over the two rounds (one core can run
# ~5 % slower than the other for a whole session, so one round alone misleads). Also checks that
# both print the same output.
#
# Usage: bench/ab_pair.sh OLD_TRAINSIM NEW_TRAINSIM COMMAND [ARGS...]   (a command taking
# --threads: training-time, plan, isoefficiency, sweep, ...)
#   e.g. bench/ab_pair.sh /tmp/old/trainsim build/bin/trainsim training-time \
#          scenarios/llama3/llama3-405b.yaml --tokens 15.6e12 --max-gpus 16384 --no-failures
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 OLD_TRAINSIM NEW_TRAINSIM COMMAND [ARGS...]" >&2
  exit 2
fi
old="$1"
new="$2"
shift 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

round() {  # round CORE_OF_OLD CORE_OF_NEW COMMAND [ARGS...]
  local old_core="$1" new_core="$2"
  shift 2
  taskset -c "$old_core" /usr/bin/time -f "%e" -o "$work/old.time" "$old" "$@" --threads 1 \
    >"$work/old.out" 2>/dev/null &
  local old_pid=$!
  taskset -c "$new_core" /usr/bin/time -f "%e" -o "$work/new.time" "$new" "$@" --threads 1 \
    >"$work/new.out" 2>/dev/null &
  wait "$old_pid" "$!"
  cmp -s "$work/old.out" "$work/new.out" || echo "outputs differ (round on cores $old_core/$new_core)" >&2
  local old_wall new_wall
  old_wall="$(tail -1 "$work/old.time")"
  new_wall="$(tail -1 "$work/new.time")"
  echo "old on core $old_core: $old_wall s   new on core $new_core: $new_wall s"
  echo "$old_wall $new_wall" >>"$work/walls"
}
round 0 1 "$@"
round 1 0 "$@"
awk '{ o += $1; n += $2 } END {
  printf "mean of the two rounds: old %.1f s, new %.1f s: %+.1f %%\n", o / 2, n / 2, 100 * (n / o - 1)
}' "$work/walls"
