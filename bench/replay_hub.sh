#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Replays every Kernel Tuner cache file and T4 results file of the benchmark
# hub's convolution_milo and dedispersion_milo folders exhaustively and
# checks that each gives the file's own optimum, read independently here
# (Python's json, not ktune's reader): the fastest correct configuration and
# its recorded time, bit for bit; every configuration evaluated; and the
# run's simulated clock the recorded times plus ktune's own seconds. Prints one row per file: its format, the
# configurations it records of those it declares, the optimum, whether
# ktune's answer is it, the simulated time of the whole brute force (the
# sum of the recorded compile, verification and benchmark times), and the
# CPU seconds of loading alone (--check) and of the exhaustive replay.
#
#   KTUNE_HUB_DIR=$HOME/src/benchmark_hub bench/replay_hub.sh [build/ktune]
#
# Exit 0 when every file loads and gives its optimum, 1 otherwise, 77 when
# KTUNE_HUB_DIR is not set or holds no such folders.
set -u
ktune=${1:-build/ktune}
hub=${KTUNE_HUB_DIR:-}
if [ -z "$hub" ] || [ ! -d "$hub/cachefiles/convolution_milo" ]; then
    echo "replay_hub: set KTUNE_HUB_DIR to a benchmark_hub checkout" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds (user + sys) of a command, on stdout; its output goes to $2.
cpu_of() {
    local out=$1
    shift
    TIMEFORMAT='%U %S'
    { time "$@" >"$out" 2>&1; } 2>"$tmp/time"
    local rc=$?
    awk '{printf "%.3f", $1 + $2}' "$tmp/time"
    return $rc
}

# The file's own optimum, read with Python: "config-json time-ms simulated-s
# records declared format".
optimum_of() {
    python3 - "$1" <<'EOF'
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f:
    d = json.load(f)
best = None
if "cache" in d:
    keys = d["tune_params_keys"]
    declared = 1
    for k in keys:
        declared *= len(d["tune_params"][k])
    sim = 0.0
    for e in d["cache"].values():
        sim += e["compile_time"] + e["verification_time"] + e["benchmark_time"]
        t = e["time"]
        if not isinstance(t, str) and (best is None or t < best[1]):
            best = ({k: e[k] for k in keys}, t)
    n, fmt = len(d["cache"]), "cache"
else:
    res = d["results"]
    keys = list(res[0]["configuration"])
    declared = 1
    for k in keys:
        declared *= len({json.dumps(r["configuration"][k]) for r in res})
    sim = 0.0
    for r in res:
        t = r["times"]
        bench = t.get("benchmark", sum(t.get("runtimes", [])))
        sim += t["compilation"] + t["validation"] + bench
        if r["invalidity"] != "correct":
            continue
        v = [m["value"] for m in r["measurements"] if m["name"] == "time"][0]
        if best is None or v < best[1]:
            best = (r["configuration"], v)
    n, fmt = len(res), "T4"
print(json.dumps(best[0], separators=(",", ":")), repr(best[1]), sim / 1e3,
      n, declared, fmt)
EOF
}

# Whether ktune's --json answer is the optimum: "yes" or what differs.
compare() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
want, want_ms, sim = json.loads(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
best = doc["best"]
got = {k: best["params"][k] for k in want}
same = all(str(got[k]) == str(want[k]) or got[k] == want[k] for k in want)
same_t = best["median_us"] == want_ms * 1e3 or abs(best["median_us"] / (want_ms * 1e3) - 1) < 1e-12
# The simulated clock: the recorded times plus ktune's own seconds.
clock = doc["elapsed_s"] - sim
if not (same and same_t):
    print("NO: %s %.6g us" % (best["config"], best["median_us"]))
elif doc["replay"]["fraction_evaluated"] != 1.0 or not 0 <= clock < 5:
    print("NO: evaluated %g, clock %+.3f s off" %
          (doc["replay"]["fraction_evaluated"], clock))
else:
    print("yes")
EOF
}

printf '%-36s %-5s %13s %-9s %12s %-4s %10s %7s %7s\n' file format \
    "recorded/of" "optimum" "ms" "ok" "sim s" "load s" "run s"
fail=0
count=0
for f in "$hub"/cachefiles/convolution_milo/*.json.gz \
    "$hub"/cachefiles/dedispersion_milo/*.json.gz; do
    name=${f#"$hub"/cachefiles/}
    count=$((count + 1))
    read -r conf ms sim n declared fmt < <(optimum_of "$f")
    load=$(cpu_of "$tmp/check" "$ktune" tune --replay "$f" --check) || {
        printf '%-36s does not load: %s\n' "$name" "$(tail -1 "$tmp/check")"
        fail=1
        continue
    }
    run=$(cpu_of "$tmp/run" "$ktune" tune --replay "$f" --quiet \
        --set strategy.name=exhaustive --json "$tmp/out.json") || {
        printf '%-36s replay failed: %s\n' "$name" "$(tail -1 "$tmp/run")"
        fail=1
        continue
    }
    verdict=$(compare "$tmp/out.json" "$conf" "$ms" "$sim")
    [ "$verdict" = yes ] || fail=1
    printf '%-36s %-5s %6s/%-6s %-9s %12.6f %-4s %10.1f %7s %7s\n' "$name" \
        "$fmt" "$n" "$declared" "$(echo "$conf" | md5sum | cut -c1-8)" "$ms" \
        "$verdict" "$sim" "$load" "$run"
done
echo "$count files; optimum column: a digest of the optimum's configuration"
exit $fail
