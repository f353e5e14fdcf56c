# SPDX-License-Identifier: Apache-2.0
# Every journal record is tied to its run and says only what a measurement
# can: --resume and --replay refuse (exit 2, path:line) records spliced in
# from another journal of the same operator, a second header, a repeated
# record, an environment that was never written, and numbers no
# measurement produces (env, elapsed_s, grid, samples, rounds, a numeric
# parameter as text, device and calibration numbers, the seed), and a gap
# in the call numbers (a record deleted); the journal is left as it was. A journal of the same run resumes.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

K=$KTUNE
JOB=$KT_SOURCE_DIR/configs/vector_add.ini
BIG=$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl
SMALL=$KT_SOURCE_DIR/tests/data/vector_add-h200-n16777216.jsonl
rm -f ./*.jsonl

expect_exit 0 "$K" tune "$JOB" --replay "$BIG" --journal big.jsonl --quiet \
    --set strategy.max_evals=8
expect_exit 0 "$K" tune "$JOB" --replay "$SMALL" --journal small.jsonl \
    --quiet --set job.n=2^24 --set strategy.max_evals=8
cp big.jsonl resumed.jsonl
expect_exit 0 "$K" tune "$JOB" --replay "$BIG" --journal resumed.jsonl \
    --resume --quiet --set strategy.max_evals=8

# mutate NAME PYTHON: NAME.jsonl, big.jsonl changed by PYTHON acting on
# recs (the parsed lines), h (the header) and e (the first eval record).
mutate() {
    python3 - "$1" "$2" <<'PY'
import json, sys
name, code = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open("big.jsonl")]
small = [json.loads(l) for l in open("small.jsonl")]
h = recs[0]
evals = [r for r in recs if r.get("kind") == "eval"]
e = evals[0]
exec(code)
with open(name + ".jsonl", "w") as f:
    for r in recs:
        f.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
}
# refused NAME TEXT: --resume and --replay exit 2 with TEXT, the file as
# it was.
refused() {
    cp "$1.jsonl" "$1.before"
    expect_exit 2 "$K" tune "$JOB" --replay "$BIG" --journal "$1.jsonl" \
        --resume --quiet
    expect_text "$1.jsonl:"
    expect_text "$2"
    expect_exit 2 "$K" tune "$JOB" --replay "$1.jsonl" --quiet
    expect_text "$2"
    cmp -s "$1.jsonl" "$1.before" ||
        { echo "FAIL: $1: a refused resume changed the journal"; failures=$((failures + 1)); }
}

mutate splice '
last = max(r["call"] for r in evals)
for r in small:
    if r.get("kind") == "eval":
        last += 1; r["call"] = last; recs.append(r)'
refused splice "a record of another run"
mutate header2 'recs.append(dict(h))'
refused header2 "a second header"
mutate repeated 'recs.append(dict(evals[-1]))'
refused repeated "a record repeated or out of place"
mutate env7 'e["env"] = 7'
refused env7 "env 7 names no environment record"
mutate envneg 'e["env"] = -1'
refused envneg "env -1 names no environment"
mutate envbig 'e["env"] = 2**40'
refused envbig "names no environment"
mutate elapsed_neg 'e["elapsed_s"] = -100'
refused elapsed_neg "elapsed_s -100 is no run's clock"
mutate elapsed_huge 'e["elapsed_s"] = 1e308'
refused elapsed_huge "is no run's clock"
mutate grid 'e["shape"]["grid"][0] = 2**40'
refused grid "'shape' needs grid, block"
mutate sample_huge 'e["timing"]["samples_us"][0] = 1e308'
refused sample_huge "sample 1 is 1e+308 us"
mutate sample_tiny 'e["timing"]["samples_us"][0] = 5e-324'
refused sample_tiny "sample 1 is"
mutate block_text 'e["point"]["params"]["block"] = str(e["point"]["params"]["block"])'
refused block_text "parameter 'block' is text"
mutate copy_gbs 'h["environment"]["calibration"]["copy_gbs"] = -1'
refused copy_gbs "calibration copy_gbs: -1 is not a value a GPU has"
mutate threads 'h["environment"]["device"]["limits"]["max_threads_per_block"] = 0'
refused threads "max_threads_per_block: 0 is not a value a GPU has"
mutate sms 'h["environment"]["device"]["sm_count"] = -5'
refused sms "sm_count: -5 is not a value a GPU has"
mutate seed 'h["seed"] = "x"'
refused seed "seed: expected an integer >= 0"
mutate run_bad 'h["run"] = "zz"'
refused run_bad "run: expected 16 hexadecimal digits"
# D17: a record that claims a billion rounds (its samples hold fewer), a
# record deleted from the middle, a gap in the call numbers.
mutate rounds 'e["timing"]["rounds"] = 10 ** 9'
refused rounds "timing: rounds 1000000000"
mutate deleted 'recs.remove(evals[3])'
refused deleted "calls are numbered with no gap (a record deleted?)"
mutate gap '
for r in evals[4:]:
    r["call"] += 1'
refused gap "call 6 follows call 4: calls are numbered with no gap"
mutate first 'recs.remove(evals[0])'
refused first "call 2 follows the header, not call 1"
finish
