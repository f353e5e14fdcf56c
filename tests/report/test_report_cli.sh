#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ktune report on the command line: usage and exit codes, each kind of
# results file (a tune summary with its journal named or found, a journal, a
# compare record), the work taken from the plugin for the roofline, output
# to a file (atomically) or stdout, and refusals naming the file. No GPU:
# the summaries and compare records are made here by replaying the H200
# recordings.
source "$KT_SOURCE_DIR/tests/cli/lib.sh"
data="$KT_SOURCE_DIR/tests/data"
rdata="$KT_SOURCE_DIR/tests/report/data"
rm -rf ./*

# Usage.
expect_exit 0 "$KTUNE" report --help
expect_text "usage: ktune report RESULTS"
expect_exit 2 "$KTUNE" report
expect_text "RESULTS is missing"
expect_exit 2 "$KTUNE" report a b
expect_text "one RESULTS expected, found 2 operands"
expect_exit 2 "$KTUNE" report --bogus x
expect_exit 2 "$KTUNE" report --top 0 x
expect_text "--top: 0, expected 1 to 100000"
expect_exit 2 "$KTUNE" report --journal j --no-journal x
expect_exit 0 "$KTUNE" --help
expect_text "report"

# Files that are not results.
expect_exit 2 "$KTUNE" report missing.json
expect_text "missing.json: cannot open"
echo '{"kind": "ktune.bench"}' >bench.json
expect_exit 2 "$KTUNE" report bench.json
expect_text 'bench.json: kind "ktune.bench" is not one ktune report reads'
printf '{"kind":"ktune.journal","format":1,"operator":"b","sizes":{"n":1},"plugin_spec":"a:b"}\n{broken\n{}\n' >bad.jsonl
expect_exit 2 "$KTUNE" report bad.jsonl
expect_text "bad.jsonl:2: expected a JSON record"
[ -e report.html ] && { echo "FAIL: a refused input left report.html"; failures=$((failures + 1)); }

# A replayed one-at-a-time run: its summary names its journal, which the
# report finds by itself; the default output is report.html.
"$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --quiet \
    --replay "$data/vector_add-h200-n16777216.jsonl" \
    --journal run.jsonl --json run.json >/dev/null 2>&1 ||
    { echo "FAIL: the replayed tuning run failed"; exit 1; }
expect_exit 0 "$KTUNE" report run.json
expect_text "report written to report.html"
[ -s report.html ] || { echo "FAIL: no report.html"; failures=$((failures + 1)); }
out=$(cat report.html)
expect_text "<!DOCTYPE html>"
expect_text "with the journal <code>run.jsonl</code>"
expect_text "<section id=\"search\">"
expect_text "<td>block</td><td>256</td>"
# The work came from the vector_add plugin: the roofline is drawn.
expect_text "0.0833 flop/B"
expect_text "computed by the plugin vector_add"
expect_text "(theoretical)"
[ "$(stat -c %a report.html)" = 644 ] ||
    { echo "FAIL: report.html is not readable by others"; failures=$((failures + 1)); }
ls report.html.tmp.* >/dev/null 2>&1 &&
    { echo "FAIL: a temporary file was left"; failures=$((failures + 1)); }

# --no-journal: the summary's top list only, and it says so.
expect_exit 0 "$KTUNE" report run.json --no-journal -o top.html
out=$(cat top.html)
expect_text "Only the summary's top configurations"

# --no-plugins: no work, so the roofline says why instead.
expect_exit 0 "$KTUNE" report run.json --no-plugins -o nowork.html
out=$(cat nowork.html)
expect_text "The roofline needs the operator&#39;s work"

# The real H200 summary of the main job with an exhaustive journal of
# another run at the same size: accepted with a note.
expect_exit 0 "$KTUNE" report "$rdata/vector_add-h200-main.summary.json" \
    --journal "$data/vector_add-h200-n268435456.jsonl" -o main.html \
    --title "main <job>"
expect_text "note: per-point data from"
out=$(cat main.html)
expect_text "<h1>main &lt;job&gt;</h1>"
expect_text "vec4 block=1024 items=1"
# ... but a journal of another size or operator is refused.
expect_exit 2 "$KTUNE" report "$rdata/vector_add-h200-main.summary.json" \
    --journal "$data/vector_add-h200-n1048576.jsonl"
expect_text "the journal is at sizes"
expect_exit 2 "$KTUNE" report "$data/vector_add-h200-n1048576.jsonl" \
    --journal "$data/vector_add-h200-n1048576.jsonl"
expect_text "--journal goes with a tune summary"

# A journal alone, to stdout.
expect_exit 0 "$KTUNE" report "$data/vector_add-h200-n1048576.jsonl" -o -
expect_text "Fastest by its own measurement"
expect_text "</html>"

# A compare record, made here by replaying a recording.
"$KTUNE" compare vector_add:add --from "$data/vector_add-h200-n16777216.jsonl" \
    --replay "$data/vector_add-h200-n16777216.jsonl" --json cmp.json \
    >/dev/null 2>&1 || { echo "FAIL: the replayed comparison failed"; exit 1; }
expect_exit 0 "$KTUNE" report cmp.json -o cmp.html
out=$(cat cmp.html)
expect_text "<section id=\"compare\">"
expect_text "speed-up against the reference"
expect_text ">reference: coalesced</text>"

# The documents are well formed: every element closed in order.
for f in report.html top.html nowork.html main.html cmp.html; do
    python3 - "$f" <<'PY' || failures=$((failures + 1))
import html.parser, sys
VOID = {"meta", "br", "circle", "path", "rect", "line", "img", "hr"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.bad = [], []
    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.bad.append(f"</{tag}> at {self.getpos()}, open: "
                            f"{self.stack[-1] if self.stack else None}")
        else:
            self.stack.pop()
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
p.close()
if p.bad or p.stack:
    print(f"FAIL: {sys.argv[1]} is not well formed:", p.bad[:3], p.stack[:3])
    sys.exit(1)
PY
done
# --- recorded numbers are read as strictly as they were written ----------
python3 - <<'PY'
import json
lines = open("run.jsonl").read().splitlines()
head, rest = json.loads(lines[0]), lines[1:]
def write(name, h, recs):
    with open(name, "w") as f:
        f.write(json.dumps(h) + "\n")
        for r in recs:
            f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
evals = [json.loads(l) for l in rest if '"kind": "eval"' in l or '"kind":"eval"' in l]
ok = next(r for r in evals if r["status"] == "ok")
neg = json.loads(json.dumps(ok)); neg["timing"]["kernel"]["median"] = -16946.0
write("negative.jsonl", head, [neg])
for name, fmt in (("fmt99.jsonl", 99), ("fmtneg.jsonl", -1), ("fmtstr.jsonl", "1")):
    h = dict(head); h["format"] = fmt; write(name, h, rest)
h = dict(head); h["sizes"] = {k: 0 for k in head["sizes"]}; write("size0.jsonl", h, rest)
h = dict(head); h["sizes"] = {k: -5 for k in head["sizes"]}; write("sizeneg.jsonl", h, rest)
nopoint = dict(ok); del nopoint["point"]; write("nopoint.jsonl", head, [nopoint])
PY
for j in negative fmt99 fmtneg fmtstr size0 sizeneg nopoint; do
    expect_exit 2 "$KTUNE" report $j.jsonl -o $j.html
done
expect_exit 2 "$KTUNE" report negative.jsonl -o x.html
expect_text "timing: median is -16946, expected a time > 0"
expect_exit 2 "$KTUNE" report fmt99.jsonl -o x.html
expect_text "fmt99.jsonl:1: journal format 99; this ktune reads formats 1 to 2"
expect_exit 2 "$KTUNE" report size0.jsonl -o x.html
expect_text "size n is not an integer >= 1"
expect_exit 2 "$KTUNE" report nopoint.jsonl -o x.html
expect_text "nopoint.jsonl:2: eval record: expected a point"
# The tuner's replay refuses the same.
expect_exit 2 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --quiet \
    --replay negative.jsonl --journal none
expect_text "median is -16946"
expect_exit 2 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --quiet \
    --replay sizeneg.jsonl --journal none

# --- -o renames only over regular files ------------------------------------
echo old >target.html
ln -sf target.html link.html
expect_exit 0 "$KTUNE" report run.json --no-journal -o link.html
[ -L link.html ] || { echo "FAIL: -o replaced a symlink"; failures=$((failures + 1)); }
grep -q "<!DOCTYPE html>" target.html ||
    { echo "FAIL: -o did not write through the symlink"; failures=$((failures + 1)); }
expect_exit 0 "$KTUNE" report run.json --no-journal -o /dev/null
[ -c /dev/null ] || { echo "FAIL: -o replaced /dev/null"; failures=$((failures + 1)); }
mkdir -p adir
expect_exit 2 "$KTUNE" report run.json --no-journal -o adir
expect_text "-o adir: is a directory"
# Inputs that are not files are refused, not waited on.
rm -f fifo.json; mkfifo fifo.json
expect_exit 2 timeout 10 "$KTUNE" report fifo.json
expect_text "is a FIFO"
expect_exit 2 "$KTUNE" report /dev/zero
expect_text "is a character device"
finish
