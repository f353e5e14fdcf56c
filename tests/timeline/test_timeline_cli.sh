# SPDX-License-Identifier: Apache-2.0
# ktune timeline without a GPU: the bad cases (nothing here starts CUDA, so
# the tracer is never loaded), the exit status passed through, and the
# summary, JSON and CSV of committed record files (--records).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
F=$KT_FIXTURES_TL

expect_exit 2 "$KTUNE" timeline
expect_text "PROGRAM is missing"
expect_exit 2 "$KTUNE" timeline -- no-such-program-here
expect_text "no such program in PATH"
printf 'not a program\n' >plain.txt
chmod -x plain.txt
expect_exit 2 "$KTUNE" timeline -- ./plain.txt
expect_text "not executable"
mkdir -p afolder
expect_exit 2 "$KTUNE" timeline -- ./afolder
expect_text "is a folder"
expect_exit 2 "$KTUNE" timeline --top -1 -- true
expect_text "--top"
expect_exit 2 "$KTUNE" timeline --records "$F/program" -- true
expect_text "takes no PROGRAM"

# No CUDA: said so, and the program's own status passed through.
expect_exit 0 "$KTUNE" timeline -- true
expect_text "made no CUDA call"
expect_exit 3 "$KTUNE" timeline -- sh -c 'exit 3'
expect_exit 139 "$KTUNE" timeline -- sh -c 'kill -SEGV $$'
expect_text "ended by signal 11"
# --no-trace: the wall time of an untraced run, the status passed through.
expect_exit 5 "$KTUNE" timeline --no-trace --json u.json -- sh -c 'sleep 0.05; exit 5'
expect_text "untraced: nothing recorded"
python3 -c 'import json; d = json.load(open("u.json")); assert not d["traced"] and d["wall_ns"] >= 5e7 and d["exit"]["code"] == 5, d' ||
    { echo "FAIL: u.json"; failures=$((failures + 1)); }
expect_exit 2 "$KTUNE" timeline --no-trace --records "$F/program"
rm -rf kept
expect_exit 0 "$KTUNE" timeline --keep kept -- true
[ -d kept ] || { echo "FAIL: --keep did not make its folder"; failures=$((failures + 1)); }

# A recorded run of the test program: the tables nsys stats prints, then
# launch order, the 20 ms gap, copy against kernel time and the reading.
expect_exit 0 "$KTUNE" timeline --records "$F/program" --json t.json --csv t.csv
for text in "CUDA runtime API summary" "CUDA driver API summary" \
    "do not add the two" "GPU kernel summary" \
    "k_combine(float const*, float const*, float*, int, int)" \
    "GPU memory operations by time" "GPU memory operations by size" \
    "24.00 MiB         2" "Kernels in launch order (first 4 of 4" \
    "16384x1x1        256x1x1" "32768x1x1        128x1x1        18     512 B" \
    "20.1 ms at" "after k_offset(float*, int, int), before k_combine" \
    "Copy time against kernel time" "Reading" \
    "is outside the GPU" "do not add them"; do
    expect_text "$text"
done
python3 - <<'PY' || failures=$((failures + 1))
import json
t = json.load(open("t.json"))
assert t["format"] == "ktune-timeline" and t["version"] == 1, t["format"]
kinds = [o["kind"] for o in t["ops"]]
assert kinds.count("kernel") == 4 and kinds.count("memcpy") == 3, kinds
assert kinds.count("memset") == 1, kinds
names = [o["name"] for o in t["ops"] if o["kind"] == "kernel"]
assert names[0] == "k_scale(float*, int, int)", names
assert t["ops"][0]["start_ns"] >= 0
gap = t["gpu"]["largest_gaps"][0]
assert 20e6 <= gap["length_ns"] <= 21e6, gap
assert t["gpu"]["kernel_ns"] == 1830000, t["gpu"]
assert sum(m["bytes"] for m in t["memory"] if m["operation"] == "Host-to-Device") == 24 << 20
assert t["processes"][0]["ended"] == "exit"
print("json ok")
PY
# ktune report draws it: a lane per stream, a bar per operation, the gap.
expect_exit 0 "$KTUNE" report t.json -o t.svg
python3 - <<'PY' || failures=$((failures + 1))
import xml.dom.minidom
d = xml.dom.minidom.parse("t.svg")
texts = [t.firstChild.data for t in d.getElementsByTagName("text") if t.firstChild]
assert "GPU 0 stream 13" in texts and "GPU 0 stream 14" in texts, texts
titles = [t.firstChild.data for t in d.getElementsByTagName("title") if t.firstChild]
bars = [t for t in titles if " at " in t and "ms" in t]
assert len(bars) == 8, bars
assert any(t.startswith("idle 20.1") for t in titles), titles
print("svg ok")
PY
lines=$(wc -l <t.csv)
[ "$lines" -gt 9 ] || { echo "FAIL: t.csv has $lines lines"; failures=$((failures + 1)); }
grep -q '^kernel,4242,0,13,' t.csv || { echo "FAIL: no k_scale row in t.csv"; failures=$((failures + 1)); }

# A crash: what was recorded is shown, the cut-short last record left out.
expect_exit 0 "$KTUNE" timeline --records "$F/crash"
expect_text "ended without its exit handlers"
expect_text "cut short"
expect_text "first 4 of 4"
# Another profiler holding CUPTI: named.
expect_exit 0 "$KTUNE" timeline --records "$F/profiler"
expect_text "another profiler holds CUPTI"
expect_text "Nsight Systems (nsys) (libToolsInjection64.so)"
expect_exit 0 "$KTUNE" timeline --records "$F/profiler" --json p.json
expect_exit 2 "$KTUNE" report p.json -o p.svg
expect_text "nothing to draw"
# A parent whose child does the GPU work: both processes.
expect_exit 0 "$KTUNE" timeline --records "$F/children"
expect_text "process 4545 (/usr/bin/ktune): 0 kernels"
expect_text "process 4546 (/usr/bin/ktune): 4 kernels"
# A broken record names its file and line.
mkdir -p broken
printf 'ktune-trace\t1\nK\t12\tx\n' >broken/trace-1.tsv
expect_exit 2 "$KTUNE" timeline --records broken
expect_text "broken/trace-1.tsv:2"
printf 'ktune-trace\t9\n' >broken/trace-1.tsv
expect_exit 2 "$KTUNE" timeline --records broken
expect_text "this ktune reads version 1"
# The layering rule: only the tracer includes CUPTI.
if grep -l 'cupti' "$KT_SOURCE_DIR"/timeline/*.[ch] "$KT_SOURCE_DIR"/report/fig_timeline.c \
    "$KT_SOURCE_DIR"/app/cmd_timeline.c | xargs -r grep -l '#include <cupti'; then
    echo "FAIL: pure timeline code includes a CUPTI header"
    failures=$((failures + 1))
fi
finish
