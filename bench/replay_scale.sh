#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Replays that scale (issue 54 part 4), no GPU: a synthetic Kernel Tuner
# cache of 1e6 points (tools/gen_kt_cache.py, about 600 MB, made here and
# removed after, never committed) replayed exhaustively, and the default
# strategy's proposals on a 100k-point one. Prints one line per run: wall
# and CPU seconds, peak memory, and for the strategy runs the proposals
# per second of its own time (--json phases.strategy_s) and of CPU beyond
# loading the file (the run of 1 proposal). The load average before is
# printed: on a shared machine wall time is the CPU's times the load.
# The 1e6 exhaustive replay runs twice: without --json (the replay alone)
# and with it (a replay of another tool's recording lists every point
# measured there, with its samples: a 1.3 GB file at 1e6).
#
# usage: bench/replay_scale.sh [BUILD] [WORK]
set -eu
build=${1:-build}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
[ -s "$work/c100k.json" ] || python3 "$here/tools/gen_kt_cache.py" 100000 "$work/c100k.json"
[ -s "$work/c1m.json" ] || python3 "$here/tools/gen_kt_cache.py" 1000000 "$work/c1m.json"
run() { # LABEL FILE ARGS...: one line
    local label=$1 file=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$build/ktune" tune --replay "$file" \
        --quiet --json "$work/out.json" "$@" >/dev/null
    python3 - "$label" "$work/time" "$work/out.json" <<'PY'
import json, sys
label, t, out = sys.argv[1], open(sys.argv[2]).read().split(), json.load(open(sys.argv[3]))
wall, user, sys_, kb = float(t[0]), float(t[1]), float(t[2]), int(t[3])
print("%-28s evals %7d  wall %6.2f s  cpu %6.2f s  peak %5.0f MB  strategy %6.2f s"
      % (label, out["evaluations"], wall, user + sys_, kb / 1024, out["phases"]["strategy_s"]))
PY
}
bare() { # LABEL FILE ARGS...: the replay without --json, one line
    local label=$1 file=$2
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$build/ktune" tune --replay "$file" \
        --quiet "$@" >/dev/null
    read -r wall user sys_ kb <"$work/time"
    printf "%-28s evals       -  wall %6.2f s  cpu %6.2f s  peak %5.0f MB\n" \
        "$label" "$wall" "$(echo "$user + $sys_" | bc)" "$(echo "$kb / 1024" | bc)"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bare "1e6 exhaustive, no --json" "$work/c1m.json" --set strategy.name=exhaustive
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
run "1e6 exhaustive" "$work/c1m.json" --set strategy.name=exhaustive
for n in 1 1000 10000 30000; do
    run "100k default, $n proposals" "$work/c100k.json" --set strategy.max_evals=$n
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
