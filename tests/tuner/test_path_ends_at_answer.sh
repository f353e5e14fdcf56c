# SPDX-License-Identifier: Apache-2.0
# The search path is true on every recording in tests/data (issue 52): the
# summary's path, --json .path (and so the report's "Search path") start at
# the first configuration that ran, each step's configuration is one the
# run evaluated and beat the step before it, and the last is the answer
# (the finalists' re-measurement's winner, .best). Every recording is
# replayed by the default strategy with no budget: it stops by itself,
# naming its convergence rule, in fewer evaluations than the space holds.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

DATA=$KT_SOURCE_DIR/tests/data
rm -rf runs && mkdir runs

# check_path JSON TEXT_SUMMARY NAME
check_path() {
    python3 - "$@" <<'PY' || fail "$3: the path does not end at the answer"
import json, sys
s = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
name = sys.argv[3]
path = s["path"]
assert path, f"{name}: no path"
assert path[0]["dim"] == "start", f"{name}: the path does not begin at its start"
last = path[-1]["config"]
best = s["best"]
cfg = lambda c: c["config"] if isinstance(c, dict) else c
assert cfg(last) == cfg(best), f"{name}: path ends at {cfg(last)}, the answer is {cfg(best)}"
assert cfg(best) in text.split("\npath", 1)[1], f"{name}: the summary's path lacks the answer"
print(f"{name}: {len(path) - 1} step(s) from {cfg(path[0]['config'])} to {cfg(best)}; "
      f"{s['evaluations']} evaluations, stopped: {s['stop_reason']}")
PY
}

# check_stop JSON NAME: with no budget the default converged by itself.
check_stop() {
    python3 - "$@" <<'PY' || fail "$2: the default did not stop by itself"
import json, sys
s = json.load(open(sys.argv[1]))
size = s["space"]["feasible"] or s["space"]["size"]
reason = s["stop_reason"]
# A walk that ends by itself (one_at_a_time on several variants) or the
# convergence rule; never a budget, and fewer evaluations than the space
# holds (a space of 100 points or fewer may be walked whole).
assert "max_" not in reason, reason
assert s["evaluations"] < size or size <= 100, \
    f"{sys.argv[2]}: {s['evaluations']} of {size} evaluated"
PY
}

run() {
    local name=$1
    shift
    expect_exit 0 "$KTUNE" tune "$@" \
        --set strategy.max_seconds=0 --set strategy.max_evals=0 \
        --json "runs/$name.json"
    echo "$out" >"runs/$name.txt"
    check_path "runs/$name.json" "runs/$name.txt" "$name"
    check_stop "runs/$name.json" "$name"
}

for meta in "$DATA"/*.meta.json; do
    name=$(basename "$meta" .meta.json)
    read -r config sets < <(python3 - "$meta" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
# A synthetic sidecar names no job: its operator's shipped one.
config = m.get("config") or "configs/%s.ini" % m["spec"].replace(":", "_")
print(config, " ".join(f"--set job.{k}={v}" for k, v in (m.get("sizes") or {}).items()))
PY
    )
    var=$(missing_source_dir "$KT_SOURCE_DIR/$config")
    if [ -n "$var" ]; then
        echo "SKIPPED: $name: its declaration needs $var"
        continue
    fi
    # shellcheck disable=SC2086
    run "$name" "$KT_SOURCE_DIR/$config" $sets --journal none \
        --replay "$DATA/$name.jsonl.gz"
done
for rec in "$DATA"/vector_add-*.jsonl; do
    name=$(basename "$rec" .jsonl)
    n=${name##*-n}
    run "$name" "$KT_SOURCE_DIR/configs/vector_add.ini" --set job.n="$n" \
        --journal none \
        --replay "$rec"
done
for rec in "$DATA"/kt/*.cache.json* "$DATA"/kt/*.t4.json*; do
    name=kt-$(basename "$rec")
    run "$name" --replay "$rec"
done

finish
