# SPDX-License-Identifier: Apache-2.0
# Printed tables fit the terminal (issue 30 item 16): the width is the
# terminal's, else COLUMNS, else 80. At 80 no line of the tune summary or
# of a sweep's table is wider, the low-priority columns left out are named
# and every number of the wide form is still there; at 200 the wide form.
. "$(dirname "$0")/lib.sh"

DATA=$KT_SOURCE_DIR/tests/data
CFG=$KT_SOURCE_DIR/configs/vector_add.ini
R=$DATA/vector_add-h200-n268435456.jsonl
GEMV=$DATA/gemv_ax-h200-m16384-n16384.jsonl.gz

# stdout_of COLUMNS CMD...: runs CMD with COLUMNS set, its stdout in $out
# (the progress on stderr is not a table); exit 0 expected.
stdout_of() {
    local cols=$1 got
    shift
    out=$(COLUMNS=$cols "$@" 2>/dev/null)
    got=$?
    [ "$got" = 0 ] || {
        echo "FAIL: '$*' exited $got at COLUMNS=$cols"
        failures=$((failures + 1))
    }
}
# Columns, not bytes: a UTF-8 character (list's em dash) takes one.
widest() {
    python3 -c 'import sys; print(max((len(l) for l in sys.stdin.read().splitlines()), default=0))' <<<"$out"
}
fits() { # fits WIDTH WHAT
    local w
    w=$(widest)
    [ "$w" -le "$1" ] || {
        echo "FAIL: $2: a line of $w columns at COLUMNS=$1:"
        python3 -c 'import sys; [print("    " + l) for l in sys.stdin.read().splitlines() if len(l) > int(sys.argv[1])]' "$1" <<<"$out"
        failures=$((failures + 1))
    }
}

for w in 80 60; do
    stdout_of $w "$KTUNE" tune "$CFG" --replay "$R" --journal none --json s.json
    fits "$w" "tune --replay vector_add"
    expect_text "(left out to fit $w columns: "
    [ "$w" != 80 ] || expect_text "(left out to fit 80 columns: bandwidth;"
done
# A space of long configurations (gemv's): they wrap under their column.
# max_seconds counts from the command's start, and reading the 16384^2
# recording takes seconds in a sanitizer build: the job's 7 s could end the
# search before its first point, which is not what this test is about.
stdout_of 80 "$KTUNE" tune "$KT_SOURCE_DIR/configs/gemv_ax.ini" \
    --replay "$GEMV" --journal none --set strategy.max_evals=60 \
    --set strategy.max_seconds=600
fits 80 "tune --replay gemv_ax"
# Nothing cut: every configuration and median of the top table is there.
stdout_of 80 "$KTUNE" tune "$CFG" --replay "$R" --journal none
narrow=$out
stdout_of 200 "$KTUNE" tune "$CFG" --replay "$R" --journal none
fits 200 "tune --replay vector_add"
[ "$(widest)" -gt 80 ] || {
    echo "FAIL: at COLUMNS=200 the summary is no wider than 80 columns"
    failures=$((failures + 1))
}
expect_text "  rank  median us              95% CI  noise  bandwidth"
grep -q "left out to fit" <<<"$out" && {
    echo "FAIL: a column was left out at COLUMNS=200"
    failures=$((failures + 1))
}
for m in $(sed -n '/^top/,/^$/p' <<<"$out" | awk '$1 ~ /^[0-9]+$/ { print $2 }'); do
    grep -qF " $m " <<<"$narrow" || {
        echo "FAIL: the median $m of the wide table is missing at 80 columns"
        failures=$((failures + 1))
    }
done
# A value COLUMNS cannot take is 80 (not a crash, not 0).
stdout_of abc "$KTUNE" tune "$CFG" --replay "$R" --journal none
fits 80 "COLUMNS=abc"
# A sweep's table fits too.
stdout_of 80 "$KTUNE" tune "$CFG" --replay "$DATA/vector_add-h200-n1048576.jsonl" \
    --replay "$DATA/vector_add-h200-n16777216.jsonl" --replay "$R" --journal none
fits 80 "a sweep"
expect_text "sweep: vector_add:add on NVIDIA H200, 3 size(s)"
# Every other printed table: list, diff, wisdom show and check.
stdout_of 80 "$KTUNE" list
fits 80 "list"
expect_text "variant vec4"
D=$DATA/diff
"$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json" >/dev/null 2>&1 # warm
out=$(COLUMNS=80 "$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json" 2>/dev/null)
fits 80 "diff"
expect_text "  A median us  B median us  change                verdict     configuration"
expect_text "      732.864      769.507  +5.0% [+4.9%, +5.1%]  regression  vec4 block=1024"
out=$(COLUMNS=200 "$KTUNE" diff "$D/a.tune.json" "$D/b-slower.tune.json" 2>/dev/null)
expect_text "  vec4 block=1024 items=1                    732.864      769.507  +5.0% ["
stdout_of 80 "$KTUNE" tune "$CFG" --replay "$DATA/vector_add-h200-n1048576.jsonl" \
    --replay "$R" --journal none --wisdom w.jsonl
for verb in show check; do
    out=$(COLUMNS=80 "$KTUNE" wisdom $verb w.jsonl 2>/dev/null)
    fits 80 "wisdom $verb"
    expect_text "vector_add:add"
done
out=$(COLUMNS=80 "$KTUNE" wisdom show w.jsonl 2>/dev/null)
expect_text "(left out to fit 80 columns: "
out=$(COLUMNS=200 "$KTUNE" wisdom show w.jsonl 2>/dev/null)
expect_text "  vector_add:add     NVIDIA H200"
rm -f s.json ./*.jsonl
finish
