# SPDX-License-Identifier: Apache-2.0
# `ktune bench` on a GPU with "-" outputs: --json - and --markdown - put the
# document alone on stdout (the report goes to stderr), and two bench
# records of one configuration diff as a tie or a change with an interval
# from their samples (exit 0 or 1, never 2), with no environment warning.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

"$KT_HAS_GPU" || { echo "no CUDA device: skipped"; exit 77; }
B="bench vector_add:add --variant vec4 --size n=2^22 --min-time 0.05 --no-calibration"
# shellcheck disable=SC2086
"$KTUNE" $B --json - >a.json 2>report.txt ||
    { echo "FAIL: bench --json - exited $?"; cat report.txt; failures=$((failures + 1)); }
python3 -c 'import json,sys; d=json.load(open("a.json")); assert d["kind"] == "ktune.bench"' ||
    { echo "FAIL: bench --json - stdout is not the JSON alone"; head -3 a.json; failures=$((failures + 1)); }
grep -q "effective bandwidth" report.txt ||
    { echo "FAIL: the report is not on stderr"; failures=$((failures + 1)); }
# shellcheck disable=SC2086
"$KTUNE" $B --markdown - --json b.json >b.md 2>/dev/null ||
    { echo "FAIL: bench --markdown - exited $?"; failures=$((failures + 1)); }
head -1 b.md | grep -q "^## vector_add:add$" && grep -q "^| NVIDIA" b.md ||
    { echo "FAIL: bench --markdown - is not the table alone"; cat b.md; failures=$((failures + 1)); }
"$KTUNE" diff a.json b.json >diff.txt 2>diff.err
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] ||
    { echo "FAIL: diff of two bench records exited $rc"; cat diff.err; failures=$((failures + 1)); }
grep -q "WARNING" diff.err && { echo "FAIL: one session warned:"; cat diff.err; failures=$((failures + 1)); }
grep -q "vec4 block=" diff.txt || { echo "FAIL: no row"; cat diff.txt; failures=$((failures + 1)); }
cat diff.txt
rm -f a.json b.json b.md report.txt diff.txt diff.err
finish
