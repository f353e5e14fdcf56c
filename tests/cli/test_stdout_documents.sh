# SPDX-License-Identifier: Apache-2.0
# "-" as an output file: stdout carries that document and nothing else (the
# summary table, notes and progress go to stderr), for every command that
# runs without a GPU: tune in replay (--json, --t4, --csv, --markdown, not
# --quiet), compare in replay (--json, --csv), list --json, report -o -.
# Each stdout is parsed as what it claims to be.
. "$(dirname "$0")/lib.sh"

rec="$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl"
job="$KT_SOURCE_DIR/configs/vector_add.ini"

# check_stdout KIND CMD...: runs CMD with stdout to doc.out, stderr to
# err.out; doc.out must parse as KIND (json, csv, markdown, html).
check_stdout() {
    local kind=$1
    shift
    "$@" >doc.out 2>err.out || {
        echo "FAIL: '$*' exited $?"
        sed 's/^/    /' err.out
        failures=$((failures + 1))
        return
    }
    python3 - "$kind" doc.out <<'PY' || { echo "FAIL: '$*': stdout is not only $kind"; head -5 doc.out | sed 's/^/    /'; failures=$((failures + 1)); }
import csv, json, sys
kind, path = sys.argv[1], sys.argv[2]
text = open(path).read()
if kind == "json":
    json.loads(text)
elif kind == "csv":
    rows = list(csv.reader(text.splitlines()))
    assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), rows[:3]
elif kind == "markdown":
    lines = text.splitlines()
    assert lines[0].startswith("## "), lines[0]
    assert any(l.startswith("|---") for l in lines), "no table"
    # every line is a heading, a table row, a list item, a quote, a
    # sentence or blank
    for l in lines:
        assert l == "" or l[0] in "#|-*>" or l[0].isupper(), repr(l)
elif kind == "html":
    assert text.lstrip().lower().startswith("<!doctype html"), text[:40]
    assert text.rstrip().endswith("</html>"), text[-40:]
PY
    [ ! -e ./- ] || { echo "FAIL: '$*' created a file named -"; failures=$((failures + 1)); rm -f ./-; }
}

check_stdout json "$KTUNE" tune "$job" --replay "$rec" --json -
grep -q "^best" err.out || { echo "FAIL: tune --json -: the summary is not on stderr"; failures=$((failures + 1)); }
check_stdout json "$KTUNE" tune "$job" --replay "$rec" --t4 -
check_stdout csv "$KTUNE" tune "$job" --replay "$rec" --csv -
check_stdout markdown "$KTUNE" tune "$job" --replay "$rec" --markdown -
grep -qF "| **best** | \`vec4 block=1024 items=1\` |" doc.out ||
    { echo "FAIL: tune --markdown: no answer row"; cat doc.out; failures=$((failures + 1)); }
# --markdown FILE, with the summary table still on stdout
expect_exit 0 "$KTUNE" tune "$job" --replay "$rec" --markdown run.md
expect_text "best (statistical tie)  vec4 block=1024 items=1"
grep -q "^### Top 10 of 19 measured" run.md ||
    { echo "FAIL: run.md has no top table"; failures=$((failures + 1)); }
check_stdout json "$KTUNE" compare vector_add:add --from "$rec" --replay "$rec" --json -
check_stdout csv "$KTUNE" compare vector_add:add --from "$rec" --replay "$rec" --csv -
check_stdout json "$KTUNE" list --json
check_stdout json "$KTUNE" timeline --records "$KT_SOURCE_DIR/tests/timeline/fixtures/program" --json -
check_stdout csv "$KTUNE" timeline --records "$KT_SOURCE_DIR/tests/timeline/fixtures/program" --csv -
D="$KT_SOURCE_DIR/tests/data/diff"
check_stdout json "$KTUNE" diff "$D/a.tune.json" "$D/b-env.tune.json" --json -
check_stdout markdown "$KTUNE" diff "$D/a.tune.json" "$D/b-env.tune.json" --markdown -
"$KTUNE" tune "$job" --replay "$rec" --quiet --json summary.json 2>/dev/null
check_stdout html "$KTUNE" report summary.json --no-plugins -o -
# bench and tune refuse an output path they cannot write before measuring
expect_exit 2 "$KTUNE" bench vector_add:add --markdown /nonexistent/x.md
expect_text "--markdown /nonexistent/x.md"
expect_exit 2 "$KTUNE" tune "$job" --replay "$rec" --markdown /nonexistent/x.md
expect_text "--markdown /nonexistent/x.md"
rm -f doc.out err.out run.md summary.json
finish
