# SPDX-License-Identifier: Apache-2.0
# The search's path is pinned: the shipped gemv:ax, gemv:atx (65536x4096)
# and reduce jobs, replayed from the H200 recordings with their own seed and
# budget, evaluate exactly the points listed in tests/data/paths (in that
# order, with the same purpose and outcome) and give the same answer. A
# change meant to make the tuner faster must not change a decision; one
# that changes the search on purpose rewrites these files with
# KT_WRITE_PATHS=1 and says why. max_seconds is lifted so that a slow
# machine cannot cut a path short. About 2 s.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
CFG=$KT_SOURCE_DIR/configs
rm -f ./*.json ./*.jsonl

run() { # NAME CONFIG RECORDING [ARGS...]
    local name=$1 ini=$2 rec=$3
    shift 3
    expect_exit 0 "$KTUNE" tune "$CFG/$ini" --replay "$DATA/$rec.jsonl.gz" \
        --set strategy.max_seconds=0 --quiet --journal "$name.jsonl" \
        --json "$name.json" "$@"
    python3 - "$name" "$DATA/paths/$name.txt.gz" "${KT_WRITE_PATHS:-0}" <<'PY' ||
import gzip, json, sys
name, pinned, write = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
lines = []
for text in open(name + ".jsonl"):
    r = json.loads(text)
    if r.get("kind") != "eval":
        continue
    p = r["point"]
    params = " ".join("%s=%s" % kv for kv in p["params"].items())
    lines.append("%s %s/%s %s %s %s %s" % (r["call"], r["slot"], r["of"],
                 r["purpose"], r["status"], p["variant"], params))
s = json.load(open(name + ".json"))
lines.append("answer %s (%d evaluations, %s)" % (s["best"]["config"],
             s["evaluations"], s["stop_reason"]))
if write:
    with gzip.open(pinned, "wt") as f:
        f.write("\n".join(lines) + "\n")
    sys.exit(0)
want = gzip.open(pinned, "rt").read().splitlines()
for i, (w, g) in enumerate(zip(want, lines)):
    if w != g:
        print("%s: line %d differs:\n  pinned: %s\n  now:    %s" %
              (name, i + 1, w, g))
        sys.exit(1)
if len(want) != len(lines):
    print("%s: %d lines pinned, %d now" % (name, len(want), len(lines)))
    sys.exit(1)
print("%s: %d evaluations as pinned" % (name, len(lines) - 1))
PY
        failures=$((failures + 1))
}

run gemv_ax-h200-m16384-n16384 gemv_ax.ini gemv_ax-h200-m16384-n16384
run gemv_atx-h200-m65536-n4096 gemv_atx.ini gemv_atx-h200-m65536-n4096 \
    --set job.m=65536 --set job.n=4096
run reduce-h200-n268435456 reduce.ini reduce-h200-n268435456
finish
