# SPDX-License-Identifier: Apache-2.0
# The report of a Kernel Tuner replay (issue 53) shows what such data can
# show and no advice that cannot be followed: every point measured (the
# summary of an external replay lists them all), the distribution of their
# times, time against each parameter; no --journal advice (refused for
# such replays), no --plugin advice (there is no plugin), no "0 GB/s" (the
# work is not known), no "1x the optimum". And a roofline whose range fits
# its marks and roofs (vector_add, 0.08 flop/B: up to 10^5 GFLOP/s, where
# it drew up to 10^6).
. "$KT_SOURCE_DIR/tests/cli/lib.sh"
KT=$KT_SOURCE_DIR/tests/data/kt
rm -f ./*.json ./*.html

expect_exit 0 "$KTUNE" tune --replay "$KT/transpose-h200-rows8192-cols8192.cache.json" \
    --set strategy.name=exhaustive --json kt.json --quiet
python3 - <<'PY' || { echo "FAIL: the summary does not list every point"; failures=$((failures + 1)); }
import json
d = json.load(open("kt.json"))
assert len(d["top"]) == d["measured"] == 45, (len(d["top"]), d["measured"])
PY
expect_exit 0 "$KTUNE" report kt.json -o kt.html
case "$out" in *"--plugin"*) echo "FAIL: report advises --plugin: $out"; failures=$((failures + 1)) ;; esac
text=$(python3 - <<'PY'
import html, re
t = open("kt.html").read()
t = re.sub(r"<svg.*?</svg>|<style.*?</style>|<script.*?</script>", " ", t, flags=re.S)
print(html.unescape(re.sub(r"<[^>]+>", " ", t)))
PY
)
out=$text
expect_text "The 45 configurations measured: median kernel time from 143.4 to 2531"
expect_text "the answer is that point"
expect_text "Median kernel time against tile"
expect_text "the recording keeps one time per configuration"
expect_text "which another tool's recording does not carry"
for bad in "--journal" "--plugin" " 0 GB/s" "1× the optimum" "give the journal"; do
    if grep -qF -- "$bad" <<<"$text"; then
        echo "FAIL: the report of a Kernel Tuner replay says '$bad'"
        failures=$((failures + 1))
    fi
done

expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" \
    --replay "$KT_SOURCE_DIR/tests/data/vector_add-h200-n268435456.jsonl" \
    --json va.json --quiet
expect_exit 0 "$KTUNE" report va.json -o va.html
python3 - <<'PY' || { echo "FAIL: the roofline's range"; failures=$((failures + 1)); }
import re
t = open("va.html").read()
i = t.index('id="roofline"')
seg = t[i:t.index("</section>", i)]
ticks = [l.strip() for l in re.findall(r"<text[^>]*>([^<]*)</text>", seg)]
assert "100k" in ticks and "1M" not in ticks, ticks
PY
finish
