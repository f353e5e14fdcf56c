# SPDX-License-Identifier: Apache-2.0
# A sampled recording merged with a live run's journal
# (bench/hub/hub.py merge_journals, what run_h200.py writes for tests/data)
# is a recording ktune replays: the live run's path, replayed with its seed
# and budget from the merged file, gives the live run's answer, and the
# merged file holds the sample's points and the live run's.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

DATA=$KT_SOURCE_DIR/tests/data
DECL=$DATA/t1like/t1like.ini
rm -f ./*.json ./*.jsonl ./*.gz
# a 1,000-point sample of the T1-like recording (its header, the first
# 1,000 points of its permutation, its closing record)
python3 - "$DATA/t1like-synthetic-n4096.jsonl.gz" <<'PY'
import gzip, sys
lines = gzip.open(sys.argv[1], "rt").read().splitlines()
open("sample.jsonl", "w").write("\n".join(lines[:1001] + [lines[-1]]) + "\n")
PY
# the "live" default run: on the whole recording, its journal kept
expect_exit 0 "$KTUNE" tune "$DECL" --replay "$DATA/t1like-synthetic-n4096.jsonl.gz" \
    --journal live.jsonl --quiet --set strategy.max_evals=300 \
    --set strategy.max_seconds=0 --json live.json
python3 - "$KT_SOURCE_DIR/bench/hub" <<'PY' || fail "the merge's counts"
import sys
sys.path.insert(0, sys.argv[1])
import hub
base, extra, points = hub.merge_journals("sample.jsonl", ["live.jsonl"], "merged.jsonl.gz")
assert base == 1000 and extra >= 300 and 1000 < points <= 1300, (base, extra, points)
PY
expect_exit 0 "$KTUNE" tune "$DECL" --replay merged.jsonl.gz --journal none --quiet \
    --set strategy.max_evals=300 --set strategy.max_seconds=0 --json replayed.json
python3 - <<'PY' || fail "the merged recording does not replay the live run"
import json
a, b = json.load(open("live.json")), json.load(open("replayed.json"))
assert a["best"]["config"] == b["best"]["config"], (a["best"]["config"], b["best"]["config"])
assert a["evaluations"] == b["evaluations"] == 300, (a["evaluations"], b["evaluations"])
assert not [x for x in b["invalid"] if "not in the recording" in x["reason"]], b["invalid"][:3]
PY
finish
