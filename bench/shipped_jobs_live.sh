#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every shipped job as shipped (the default strategy and the job's own
# budget), each followed at once by another strategy on the same shape:
# random search for 8 s on the gemv shapes, exhaustive on the small spaces
# (reduce, copy, vector_add). The table says how far the default's answer
# is from the faster of the two and what it gained against the operator's
# reference variant (cublas, cub, memcpy). About 160 s on an H200.
#
#   OUT=/path/to/out bash bench/shipped_jobs_live.sh [BUILD_DIR]
#
# Writes OUT/NAME-default.json and OUT/NAME-other.json (summaries), their
# logs, and OUT/shipped_jobs_live.md (the table, printed last).
set -u
build=${1:-build}
out=${OUT:?set OUT to the folder for the results}
ktune=$build/ktune
mkdir -p "$out"
x=(--set strategy.name=exhaustive --set strategy.max_evals=0 --set strategy.max_seconds=30)
r=(--set strategy.name=random --set strategy.seed=1 --set strategy.max_evals=0 --set strategy.max_seconds=8)
# name | job file and sizes | the other strategy: x or r
jobs=("gemv_ax-16384|configs/gemv_ax.ini --set job.m=16384 --set job.n=16384|r"
    "gemv_ax-65536x4096|configs/gemv_ax.ini --set job.m=65536 --set job.n=4096|r"
    "gemv_ax-4096x65536|configs/gemv_ax.ini --set job.m=4096 --set job.n=65536|r"
    "gemv_ax-1024|configs/gemv_ax.ini --set job.m=1024 --set job.n=1024|r"
    "gemv_atx-16384|configs/gemv_atx.ini --set job.m=16384 --set job.n=16384|r"
    "gemv_atx-65536x4096|configs/gemv_atx.ini --set job.m=65536 --set job.n=4096|r"
    "gemv_atx-4096x65536|configs/gemv_atx.ini --set job.m=4096 --set job.n=65536|r"
    "gemv_atx-1024|configs/gemv_atx.ini --set job.m=1024 --set job.n=1024|r"
    "reduce-2^28|configs/reduce.ini --set job.n=2^28|x"
    "reduce-2^20|configs/reduce.ini --set job.n=2^20|x"
    "copy|configs/copy.ini|x"
    "vector_add|configs/vector_add.ini|x")
names=()
for j in "${jobs[@]}"; do
    IFS='|' read -r name args other <<<"$j"
    names+=("$name")
    # shellcheck disable=SC2086 # args holds the job file and its --set pairs
    timeout 25 "$ktune" tune $args --journal none --json "$out/$name-default.json" \
        >"$out/$name-default.log" 2>&1 || echo "$name default: exit $?"
    if [ "$other" = r ]; then more=("${r[@]}"); else more=("${x[@]}"); fi
    # shellcheck disable=SC2086
    timeout 45 "$ktune" tune $args "${more[@]}" --journal none \
        --json "$out/$name-other.json" >"$out/$name-other.log" 2>&1 ||
        echo "$name other: exit $?"
done
python3 - "$out" "${names[@]}" <<'PY' | tee "$out/shipped_jobs_live.md"
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
print("| job (shape) | default: evals | s | stopped | answer | µs | other strategy (same run) "
      "| its µs | default vs best of both | answer vs reference (interval) |")
print("|---|--:|--:|---|---|--:|---|--:|--:|---|")
for n in names:
    try:
        d = json.load(open(os.path.join(out, n + "-default.json")))
        o = json.load(open(os.path.join(out, n + "-other.json")))
    except Exception as e:
        print(f"| {n} | no summary: {e} |")
        continue
    bd, bo = d["best"]["median_us"], o["best"]["median_us"]
    r = d.get("reference") or {}
    q = r.get("speedup_vs_reference") or r.get("tuned_vs_reference") or {}
    ref = (f"{r.get('variant')}: {q.get('ratio', 0):.3f}x [{q.get('lo', 0):.3f}, "
           f"{q.get('hi', 0):.3f}], {r.get('winner')} wins") if r else "no reference variant"
    s = o["strategy"]
    oname = s["name"] if isinstance(s, dict) else s
    print(f"| {n} | {d['evaluations']} | {d['elapsed_s']:.1f} | {d['stop_reason'][:48]} | "
          f"{d['best']['config']} | {bd:.3f} | {oname} ({o['evaluations']} evals, "
          f"{o['elapsed_s']:.1f} s) | {bo:.3f} | {(bd / min(bd, bo) - 1) * 100:+.2f}% | {ref} |")
PY
