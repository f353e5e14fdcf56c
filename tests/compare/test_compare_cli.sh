# SPDX-License-Identifier: Apache-2.0
# `ktune compare` without a GPU: usage and input errors exit 2 with one
# line naming the option and close matches; results files of another
# operator or of no known kind are refused; a comparison replayed from the
# H200 recordings picks each variant's fastest record (from a journal and
# from a `ktune tune --json` summary), honours --variants, --config and
# --reference, and writes Markdown, JSON and CSV that agree; without a
# device the live command says how to replay instead.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
J28=$DATA/vector_add-h200-n268435456.jsonl
J24=$DATA/vector_add-h200-n16777216.jsonl
rm -f ./*.json ./*.csv ./*.md ./*.jsonl

# --- usage --------------------------------------------------------------------
expect_exit 0 "$KTUNE" compare --help
expect_text "usage: ktune compare PLUGIN:OPERATOR"
expect_text "--from RESULTS"
expect_text "--config V:N=X,..."
expect_exit 0 "$KTUNE" --help
expect_text "compare "
expect_exit 2 "$KTUNE" compare
expect_text "PLUGIN:OPERATOR is missing"
expect_lines 1
expect_exit 2 "$KTUNE" compare vector_add:add gemv:ax
expect_text "one PLUGIN:OPERATOR expected"
expect_exit 2 "$KTUNE" compare vector_add:add --bogus
expect_text "ktune compare: unknown option '--bogus'"
expect_exit 2 "$KTUNE" compare vector_add:add --access-bytes 0
expect_text "--access-bytes: expected 1..256, found 0"

# --- names: one line with close matches ---------------------------------------
expect_exit 2 "$KTUNE" compare vector_add:ad
expect_text "no operator 'ad'; did you mean 'add'?"
expect_lines 1
expect_exit 2 "$KTUNE" compare vector_add:add --variants vec4,coalesed
expect_text "--variants: operator 'add' has no variant 'coalesed'; did you mean 'coalesced'?"
expect_lines 1
expect_exit 2 "$KTUNE" compare vector_add:add --variants vec4,vec4
expect_text "'vec4' is listed twice"
expect_exit 2 "$KTUNE" compare vector_add:add --variants vec4 --variants coalesced
expect_text "--variants given twice"
expect_exit 2 "$KTUNE" compare vector_add:add --reference vec5
expect_text "--reference: operator 'add' has no variant 'vec5'; did you mean 'vec4'?"
expect_exit 2 "$KTUNE" compare vector_add:add --variants vec4 --reference coalesced
expect_text "--reference coalesced is not among the compared variants"
expect_exit 2 "$KTUNE" compare vector_add:add --config vec4:blok=64
expect_text "--config vec4:blok=64: variant 'vec4' has no parameter 'blok'; did you mean 'block'?"
expect_lines 1
expect_exit 2 "$KTUNE" compare vector_add:add --config vec4:block=100
expect_text "--config vec4:block=100: parameter 'block': 100 is not one of 32..1024 (powers of two)"
expect_exit 2 "$KTUNE" compare vector_add:add --config vec4:block
expect_text "--config vec4:block: "
expect_exit 2 "$KTUNE" compare vector_add:add --config vec5:block=64
expect_text "--config vec5:block=64: operator 'add' has no variant 'vec5'; did you mean 'vec4'?"
expect_exit 2 "$KTUNE" compare vector_add:add --config vec4:block=64 --config vec4:items=2
expect_text "variant 'vec4' is configured twice"
expect_exit 2 "$KTUNE" compare vector_add:add --variants vec4 --config coalesced:block=64
expect_text "--config names variant 'coalesced', which is not among --variants vec4"
expect_exit 2 "$KTUNE" compare vector_add:add --size q=2^20
expect_text "--size q=2^20: operator 'add' has no size 'q'; did you mean 'n'?"
expect_exit 2 "$KTUNE" compare vector_add:add --min-time x
expect_exit 2 "$KTUNE" compare vector_add:add --replay "$J24" --in-process
expect_text "--replay and --in-process exclude each other"

# --- results files ------------------------------------------------------------
expect_exit 2 "$KTUNE" compare vector_add:add --from missing.jsonl
expect_text "--from: missing.jsonl: cannot open"
expect_lines 1
expect_exit 2 "$KTUNE" compare vector_add:add --from "$DATA/good-synthetic.jsonl"
expect_text "records good:scale, not vector_add:add"
expect_exit 2 "$KTUNE" compare vector_add:add --from "$KT_SOURCE_DIR/configs/vector_add.ini"
expect_text "not a results file"
echo '{"kind": "ktune.bench"}' >bench.json
expect_exit 2 "$KTUNE" compare vector_add:add --from bench.json
expect_text "its kind is \"ktune.bench\""
expect_exit 2 "$KTUNE" compare gemv:ax --from "$J28"
expect_text "records vector_add:add, not gemv:ax"

# --- a replayed comparison from a journal ---------------------------------------
expect_exit 0 "$KTUNE" compare vector_add:add --from "$J28" --replay "$J28" \
    --json c.json --csv c.csv
expect_text "## vector_add:add at n=268435456 on NVIDIA H200"
expect_text "Replayed from a recording"
expect_text "Reference: **coalesced**"
expect_text "| vec4 | block=32 items=2 | \`vector_add-h200-n268435456.jsonl\` journal: fastest of 26 ok records, 730.0 µs there | 730.0 |"
expect_text "| grid_stride | block=256 blocks_per_sm=8 |"
expect_text "**1.290x ["
expect_text "0.124x ["
expect_text "slower"
expect_text "104.4%"
expect_text "Results files:"
expect_text "journal of vector_add:add at n=268435456 on NVIDIA H200"
python3 - <<'PY' || failures=$((failures + 1))
import csv, json
c = json.load(open("c.json"))
assert c["kind"] == "ktune.compare" and c["format"] == 1, c["kind"]
assert c["spec"] == "vector_add:add" and c["sizes"] == {"n": 268435456}
assert c["evaluator"] == "replay" and c["reference"] == "coalesced"
assert [v["variant"] for v in c["variants"]] == \
    ["coalesced", "strided", "grid_stride", "vec4"]
assert c["sources"][0]["kind"] == "journal"
assert "environment" in c and "protocol" in c and "command" in c
by = {v["variant"]: v for v in c["variants"]}
v = by["vec4"]
assert v["params"] == {"block": 32, "items": 2}, v["params"]
assert v["source"]["kind"] == "results" and v["source"]["file"] == 0
assert abs(v["stats"]["median_us"] - 730.0159931182861) < 1e-6
assert len(v["timing"]["samples_us"]) == v["timing"]["rounds"]
assert abs(v["vs_reference"]["speedup"] - 1.2895192992167621) < 1e-9
assert v["vs_reference"]["verdict"] == "faster"
assert by["coalesced"]["reference"] is True
assert by["strided"]["vs_reference"]["verdict"] == "slower"
rows = list(csv.DictReader(open("c.csv")))
assert [r["variant"] for r in rows] == \
    ["coalesced", "strided", "grid_stride", "vec4"]
for r in rows:
    x = by[r["variant"]]
    assert abs(float(r["median_us"]) - x["stats"]["median_us"]) < 1e-6
    assert abs(float(r["speedup"]) - x["vs_reference"]["speedup"]) < 1e-6
assert rows[3]["block"] == "32" and rows[3]["items"] == "2"
assert rows[0]["reference"] == "1" and rows[3]["reference"] == "0"
PY

# --variants order, --config over the journal, --reference.
expect_exit 0 "$KTUNE" compare vector_add:add --from "$J28" --replay "$J28" \
    --variants vec4,grid_stride --config grid_stride:block=512,blocks_per_sm=4 \
    --reference grid_stride --json v.json
expect_text "Reference: **grid_stride**"
expect_text "| **grid_stride** (reference) | block=512 blocks_per_sm=4 | --config |"
expect_text "speed-up vs grid_stride"
python3 - <<'PY' || failures=$((failures + 1))
import json
c = json.load(open("v.json"))
assert [v["variant"] for v in c["variants"]] == ["vec4", "grid_stride"]
g = c["variants"][1]
assert g["source"] == {"kind": "config"}, g["source"]
assert g["params"] == {"block": 512, "blocks_per_sm": 4}
assert c["variants"][0]["vs_reference"]["verdict"] == "faster"
PY

# A configuration a recording does not hold (a short replayed run records
# three points): replay answers "error", the comparison shows it and fails.
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$J28" --set strategy.max_evals=3 --journal three.jsonl --quiet
expect_exit 1 "$KTUNE" compare vector_add:add --replay three.jsonl \
    --variants coalesced,vec4 --config vec4:block=64,items=8
expect_text "| vec4 | block=64 items=8 | --config | **error** (see below)"
expect_text "- vec4: error: not in the recording"

# --- from a summary -------------------------------------------------------------
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$J24" --journal none --json s.json --quiet
expect_exit 0 "$KTUNE" compare vector_add:add --from s.json --replay "$J24" \
    --json cs.json
expect_text "\`s.json\` summary: best"
python3 - <<'PY' || failures=$((failures + 1))
import json
s = json.load(open("s.json"))
c = json.load(open("cs.json"))
vec4 = [v for v in c["variants"] if v["variant"] == "vec4"][0]
assert vec4["params"] == s["best"]["params"], (vec4["params"], s["best"])
assert vec4["source"]["detail"] == "best"
# Every compared variant is one the summary holds.
held = {e["variant"] for e in s["top"] + s["finalists"] + [s["best"]]}
assert {v["variant"] for v in c["variants"]} == held, held
assert c["sizes"] == {"n": 16777216}
PY
# Measured at 2^24, replayed at 2^24, asked at 2^20: the recording decides.
expect_exit 0 "$KTUNE" compare vector_add:add --from s.json --replay "$J24" \
    --size n=2^20
expect_text "is recorded at n=16777216; n=1048576 does not apply"

# The compare record is itself a results file.
expect_exit 0 "$KTUNE" compare vector_add:add --from c.json --replay "$J28" \
    --variants vec4
expect_text "\`c.json\` compare record: compared, 730.0 µs there"

# --- no GPU -----------------------------------------------------------------------
if ! "$KT_HAS_GPU"; then
    expect_exit 1 "$KTUNE" compare vector_add:add --from "$J28" --no-counters
    expect_text "no CUDA device"
    expect_text "--replay JOURNAL"
fi

finish
