# SPDX-License-Identifier: Apache-2.0
# The hub run's plan (bench/hub/run_h200.py) on the CPU with a stand-in
# ktune (fake_ktune.py): a declaration that fails --check is reported and
# its GPU steps skipped; the count after constraints is compared with the
# T1 file's; the whole-space recording resumes in a later call with its
# clock continued; the default run's winner is profiled with its
# parameters; BAT's declaration gets check and default; Kernel Tuner
# missing is reported; a failed check is retried in the next call; a step
# that does not fit the deadline is skipped with the reason and runs in the
# next call; the recordings for tests/data (the sample merged with the live
# default run's points) get their sidecars; the page ends with its table.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

fail() {
    echo "FAIL: $1"
    failures=$((failures + 1))
}

RUN=$KT_SOURCE_DIR/bench/hub/run_h200.py
FAKE=$KT_SOURCE_DIR/tests/bench/fake_ktune.py
rm -rf decls o1 o2 o3 o4 o5 o6 o7 o8 o*-cache calls*.log && mkdir decls
cat >decls/convolution.ini <<'INI'
; fake feasible = 4362
; fake no class
[operator]
source = ${KTUNE_HUB_DIR}/kernels/convolution_milo.cu
INI
cat >decls/gemm.ini <<'INI'
; fake fails
[operator]
source = ${KTUNE_HUB_DIR}/kernels/gemm_milo/xgemm_part1.opencl
INI
cat >decls/bat_nbody.ini <<'INI'
; fake feasible = 96
[operator]
source = ${KTUNE_BAT_DIR}/batbench/benchmarks/nbody/nbody.cu
INI
export FAKE_KTUNE_LOG=$PWD/calls.log
common=(--ktune "$FAKE" --decl-dir decls --no-kt --sweep-s 2 --default-s 1 --reserve 0 --gpu-tag h200)
# The recordings screen (--record-screen); a resumed or seeded one keeps
# its journal's screen without being told.
expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" --out o1 --deadline 200 \
    --record-screen 3
expect_text "gemm: its declaration failed --check; its GPU steps are skipped"
expect_text "Kernel Tuner: Kernel Tuner switched off (--no-kt)"
# The second call names its tree (a device machine's copy may carry a
# stale .git): the state and the page say which tree each call ran.
expect_exit 0 env -u KTUNE_HUB_DIR KTUNE_COMMIT=feedc0ffee1234 python3 "$RUN" "${common[@]}" \
    --out o2 --resume o1 --deadline 200
python3 - <<'PY' || fail "the second call's tree is not recorded"
import json
s = json.load(open("o2/state.json"))
assert s["commit"] == "feedc0ffee12", s["commit"]
assert s["sessions"][-1]["commit"] == "feedc0ffee12", s["sessions"]
assert s["sessions"][0]["commit"] != "feedc0ffee12", s["sessions"]
PY
python3 "$KT_SOURCE_DIR/bench/hub/results.py" o2 -o o2/page.md &&
    grep -q "tree \`feedc0ffee12\`" o2/page.md || fail "the page does not name the second call's tree"
# A call with too little time left: the default runs of a fresh folder are
# skipped, with the reason, and left for the next call.
FAKE_KTUNE_LOG=$PWD/calls3.log expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" \
    --out o3 --deadline 10
# A fresh folder seeded from the recordings for tests/data: the sample part
# alone (not the live default's records merged after it) resumes.
FAKE_KTUNE_LOG=$PWD/calls4.log expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" \
    --out o4 --deadline 200 \
    --seed-from o2/rec/tests-data --steps check,record
# Seeded and not extended: its sidecar keeps the seed's command and says
# how many points the sample holds, not the merged count.
FAKE_KTUNE_LOG=$PWD/calls5.log expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" \
    --out o5 --deadline 200 --seed-from o2/rec/tests-data --steps check
# A recording started afresh (--restart) after it was resumed: its old
# journal moves aside, the new one is not resumed and compiles afresh.
FAKE_KTUNE_LOG=$PWD/calls6.log expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" \
    --out o6 --resume o2 --deadline 200 --restart convolution --steps check,record
expect_exit 2 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" --out o7 --restart conv
expect_text "--restart conv: not a hub recording (expected some of"
python3 - <<'PY' || fail "the plan's record says something else"
import json, os
s1 = json.load(open("o1/state.json"))["steps"]
st = json.load(open("o2/state.json"))
s2 = st["steps"]
c = s2["check:convolution"]
assert c["count"] == 4362 and c["count_is"] == "after constraints" and c["matches_t1"], c
assert not s2["check:gemm"]["ok"] and "record:gemm" not in s2 and "default:gemm" not in s2, s2.keys()
assert "no declaration of dedispersion" in s2["missing:dedispersion"]["skipped"]
assert s1["record:convolution"]["points"] == 20, s1["record:convolution"]
r = s2["record:convolution"]
assert r["points"] == 40 and r["resumed"] and r["sessions"] == 2 and not r["done"], r
assert abs(r["total_wall_s"] - s1["record:convolution"]["wall_s"] - r["wall_s"]) < 1e-6, r
assert "strategy.max_seconds=4" in r["cmd"] and "--resume" in r["cmd"], r["cmd"]
assert "measure.screen_samples=3" in s1["record:convolution"]["cmd"] and r["screen_samples"] == 3, r
# the resumed recording found its own compiles, kept beside (not in) the
# run folder; a journal started afresh (o1, the seeded o4) starts empty
assert not s1["record:convolution"]["cache_kept"] and r["cache_kept"], r
assert os.listdir("o2-cache/convolution") == ["fake-entry"], os.listdir("o2-cache/convolution")
d = s2["default:convolution"]["facts"]["best"]["params"]
p = s2["profile:convolution:ktune"]
# the roofline's line, then the counters' diagnosis even when it names no
# class (it has no "bound" in it)
assert p["rc"] == 0 and p["params"] == d and "bounds this kernel" in p["diagnosis"][0], p
assert "no single bottleneck" in p["diagnosis"][1], p["diagnosis"]
for k, v in d.items():
    assert f"--set {k}={v}" in p["cmd"], p["cmd"]
assert s2["default:bat_nbody"]["rc"] == 0 and s2["check:bat_nbody"]["count"] == 96
assert "switched off" in st["kt_missing"]
# the second call retries the failed check only, then continues the recording
assert all(s.get("cuda_cache_disable") for s in st["sessions"]), st["sessions"]
assert len(st["sessions"]) == 2 and st["sessions"][1]["ran"] == ["check:gemm", "record:convolution"], st["sessions"]
# the recording for tests/data: the sample and the live default run's points
m = json.load(open("o2/rec/tests-data/convolution-h200.meta.json"))
assert m["recording"] == "convolution-h200.jsonl.gz" and m["recorded"] == 40, m
assert "the 12 records of the live default run" in m["order"] and m["needs"] == ["KTUNE_HUB_DIR"], m
assert m["config"].endswith("decls/convolution.ini") and not m["synthetic"], m
s4 = json.load(open("o4/state.json"))
r4 = s4["steps"]["record:convolution"]
assert r4["seeded_from"].endswith("convolution-h200.jsonl.gz") and r4["resumed"], r4
assert r4["points"] == 60 and r4["sessions"] == 2 and "--resume" in r4["cmd"], r4
assert not r4["cache_kept"], r4
assert "measure.screen_samples=3" in r4["cmd"], r4["cmd"]
assert s4["sessions"][0]["ran"] == ["check:convolution", "check:gemm", "check:bat_nbody", "record:convolution"]
seeded = [json.loads(x) for x in open("o4/rec/convolution-h200.jsonl") if '"eval"' in x]
assert len({json.dumps(e["point"], sort_keys=True) for e in seeded}) == 60, len(seeded)
seed = json.load(open("o2/rec/tests-data/convolution-h200.meta.json"))
m5 = json.load(open("o5/rec/tests-data/convolution-h200.meta.json"))
assert m5["command"] and m5["command"] == seed["command"], (m5["command"], seed["command"])
assert m5["commit"] == seed["commit"], m5
assert "the first 40 points of it" in m5["order"] and m5["recorded_sample"] == 40, m5
s6 = json.load(open("o6/state.json"))
r6, gone = s6["steps"]["record:convolution"], s6["superseded"]["record:convolution.s3"]
assert r6["points"] == 20 and not r6["resumed"] and not r6["cache_kept"], r6
assert "--resume" not in r6["cmd"] and gone["points"] == 40, (r6["cmd"], gone)
assert os.path.exists("o6/superseded/s3/convolution-h200.jsonl"), os.listdir("o6")
assert "convolution-h200.jsonl" in gone["files"] and gone["moved_to"] == "superseded/s3", gone
s3 = json.load(open("o3/state.json"))["steps"]
assert "no time left" in s3["default:convolution"]["skipped"], s3["default:convolution"]
assert not s3["default:convolution"]["done"]
PY
# A recording whose record the state lost (dropped by hand to force the
# step): it resumes under its journal's own screen, read from the journal.
cp -r o2 o8
python3 - <<'PY'
import json
s = json.load(open("o8/state.json"))
del s["steps"]["record:convolution"]
json.dump(s, open("o8/state.json", "w"))
PY
FAKE_KTUNE_LOG=$PWD/calls8.log expect_exit 0 env -u KTUNE_HUB_DIR python3 "$RUN" "${common[@]}" \
    --out o8 --resume o8 --deadline 200 --steps check,record
python3 - <<'PY' || fail "a recording without its state record did not resume under its screen"
import json
r = json.load(open("o8/state.json"))["steps"]["record:convolution"]
assert r["rc"] == 0 and r["resumed"] and r["screen_samples"] == 3, r
assert "measure.screen_samples=3" in r["cmd"] and r["points"] > 40, r
PY
grep -q "^tune .*/convolution.ini --check$" calls.log || fail "no --check of the declaration"
# three, then gemm's failed check retried
[ "$(grep -c -- '--check' calls.log)" = 4 ] || fail "checks: $(grep -c -- --check calls.log), expected 4"
expect_exit 0 tail -n 12 o2/results.md
expect_text "## Summary"
expect_text "| convolution | 40 (4,362) |"
grep -q "bat_nbody" o2/results.md || fail "BAT's declaration is not on the page"
finish
