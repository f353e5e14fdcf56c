# SPDX-License-Identifier: Apache-2.0
# `ktune tune FILE.json` with a T1 file runs it as `kernel_tuner FILE.json`
# does (core/t1_job.c), told by content: --check prints the file's own
# count (product and after its Conditions), the space ktune will search
# (the same count after require), the strategy of its Search by Kernel
# Tuner's name, its Budget, the pinned ProblemSize; the kernel file is
# found beside the T1 file from any folder; the declaration made of it is
# removed after a good run and kept (and named) after a failure. What
# Kernel Tuner would not run either, or ktune cannot, is refused with exit
# 2 naming the file and the JSON field, the count still printed; JSON that
# is no T1 job is refused by what it is, not as a broken INI. The hub's
# files: test_t1_job_hub.sh.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

src=$KT_SOURCE_DIR/tests/declared/t1job
export TMPDIR=$PWD/tmp
rm -rf tmp elsewhere ./*.json ./*.cu
mkdir -p tmp elsewhere
cp "$src/scale.json" "$src/scale.cu" .

cd elsewhere || exit 1
expect_exit 0 "$KTUNE" tune ../scale.json --check
expect_text "T1 file ../scale.json: 12 point(s) in its Cartesian product, 11 after its Conditions"
expect_text "space 12 point(s) before device limits, 11 after require"
expect_text "block_size_x {32, 64, 128, 256}, items {1, 2, 4}"
expect_text "strategy brute_force -> exhaustive, seed 1, max_evals 20,"
expect_text "size_x=1000"
expect_text "journal scale.journal.jsonl"
cd .. || exit 1
[ -z "$(ls tmp)" ] || {
    echo "FAIL: a good run left its declaration: $(ls tmp)"
    failures=$((failures + 1))
}

# mutate NAME PYTHON: NAME.json, scale.json with one change (d: the doc,
# k: its KernelSpecification).
mutate() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open("scale.json"))
k = d["KernelSpecification"]
exec(sys.argv[2])
json.dump(d, open(sys.argv[1] + ".json", "w"))
PY
}
# refused NAME TEXT: --check prints the count, then exit 2 with TEXT.
refused() {
    expect_exit 2 "$KTUNE" tune "$1.json" --check
    expect_text "T1 file $1.json: 12 point(s) in its Cartesian product, 11 after its Conditions"
    expect_text "$2"
}

mutate opencl 'k["Language"] = "OpenCL"'
refused opencl "opencl.json: KernelSpecification.Language: ktune compiles CUDA (NVRTC); expected \"CUDA\", found \"OpenCL\""
mutate nofile 'k["KernelFile"] = "nope.cu"'
refused nofile "nofile.json: KernelSpecification.KernelFile: 'nope.cu' is neither where the command runs"
mutate double 'k["Arguments"][1]["Type"] = "double"'
refused double "KernelSpecification.Arguments[1]: Kernel Tuner's T1 reader takes Vector arguments of Type \"float\" only, found"
mutate long 'k["Arguments"][3]["Type"] = "int64"'
refused long "KernelSpecification.Arguments[3]: Kernel Tuner's T1 reader takes Scalars of Type \"float\" or \"int32\""
mutate seq 'k["Arguments"][1]["FillType"] = "Sequence"'
refused seq "KernelSpecification.Arguments[1]: expected FillType Random or Constant with a FillValue"
mutate size 'k["Arguments"][1]["Size"] = [4]'
expect_exit 2 "$KTUNE" tune size.json --check
expect_text "size.json: KernelSpecification.Arguments[1].Size: expected an integer or an expression, found a list"
mutate budget 'd["Budget"] = [{"Type": "Energy", "BudgetValue": 3}]'
refused budget "budget.json: Budget[0]: expected Type ConfigurationCount or TuningDuration"
mutate search 'd["Search"] = {"Name": "brute_forse"}'
refused search "did you mean 'brute_force'?"
expect_text "the declaration ktune made of search.json is kept: $TMPDIR/ktune-t1-"
mutate attrs 'd["Search"] = {"Name": "brute_force", "Attributes": [{"Name": "popsize", "Value": 8}]}'
refused attrs "[strategy] popsize: unknown key; known: name, max_evals"
mutate empty 'k["Arguments"][1]["Size"] = "ProblemSize[0] * 0"'
refused empty "[operator] buffer.in: at the defaults the element count is 0"

# JSON that is no T1 job: said so, not an INI syntax error.
echo '{"cache": {}}' >other.json
expect_exit 2 "$KTUNE" tune other.json --check
expect_text "other.json is JSON, not a tuning job (INI, docs/configs.md); another tool's recording replays with --replay other.json"
mutate spaceonly 'del d["KernelSpecification"]'
expect_exit 2 "$KTUNE" tune spaceonly.json --check
expect_text "a T1 file with a ConfigurationSpace and no KernelSpecification is a space, which a declaration imports (space = FILE"

finish
