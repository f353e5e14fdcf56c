#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Cross-checks ktune's counters and diagnosis against Nsight Compute on
# every variant of every built-in operator and of the diagnosis corpus
# (tests/fixtures/diag_corpus.so), each at its default configuration.
#
# For each operator:
#   1. `ktune compare OP` profiles every variant (default counter set, one
#      CUPTI range per kernel) and diagnoses it; its JSON says how many
#      kernels each variant's launch ran;
#   2. `ncu --clock-control none --replay-mode application` runs `ktune
#      compare OP --no-counters --in-process --warmups 0` (one verification
#      launch and one timed launch per variant, in variant order) once per
#      counter pass and profiles every launch but ktune's own kernels
#      (filtered by mangled name); the last round's worth of rows is the
#      timed round. Application replay because kernel replay saves and
#      restores the kernel's memory around its passes: on the H200 2.3-3.1
#      MB of writes the kernel does not make land in its range (+1.3 points
#      of DRAM throughput on a 45 us stream) and its L2 hit rate rises
#      (diag_corpus fma 55% against 53%), which neither an application's
#      launch nor ktune's sees.
#      REPLAY=kernel picks kernel replay; KERNEL_REPLAY=1 also shows a
#      kernel-replay run beside it, for information;
#   3. bench/compare_ncu.py pairs the kernels with the variants and prints
#      every raw counter side by side: counts must be equal, percentages
#      within 2 points; and ktune's diagnosis against the truth of
#      bench/diagnosis_truth.txt (read from each kernel's source).
# The report goes to OUT_DIR/DATE-metrics-vs-ncu.md; the last lines
# printed are one line per variant.
#
# Time: about 20-40 s per operator (ktune compare ~2-4 s, ncu's
# application replay one ~2 s process per pass); 13 operators. BUDGET_S
# (default 480) stops starting operators when less than 12 s are left; the
# report says which were skipped.
#
# usage: bench/compare_ncu.sh [BUILD_DIR] [OUT_DIR] [BUDGET_S]
# (PROFILE_LAUNCHES=N: ktune profiles each variant N times per pass and
# reports each counter's median; ncu always profiles one launch;
# REPLAY=application|kernel, KERNEL_REPLAY=0|1: see step 2)
# (from the repository root; NCU=/path/to/ncu to pick another ncu)
set -u
BUILD=${1:-build}
OUT=${2:-docs/results}
BUDGET=${3:-480}
HERE=$(cd "$(dirname "$0")" && pwd)
KTUNE=$BUILD/ktune
CORPUS=$BUILD/tests/fixtures/diag_corpus.so
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
STAMP=$(date -u +%Y-%m-%d)
T0=$SECONDS
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
REPORT=$OUT/$STAMP-metrics-vs-ncu.md
RAWDIR=$OUT/$STAMP-metrics-vs-ncu
mkdir -p "$RAWDIR"

[ -x "$KTUNE" ] || { echo "no $KTUNE; build first" >&2; exit 2; }
[ -x "$NCU" ] || { echo "no ncu at '$NCU'; set NCU=" >&2; exit 2; }

# Most telling first (the budget may stop the list); OPS="a b" picks.
# The corpus's stream operator last: its setup makes each of application
# replay's processes slow (~100 s in all).
read -r -a OPS <<<"${OPS:-gemv:ax gemv:atx vector_add:add matrix_add:add \
saxpy:saxpy copy:copy reduce:sum empty:launch diag_corpus:fma \
diag_corpus:chase diag_corpus:reread diag_corpus:transpose diag_corpus:stream}"
# Operators whose ncu run is repeated (ncu's own spread shown beside it;
# REPEAT= for none).
REPEAT=${REPEAT-gemv:ax vector_add:add saxpy:saxpy reduce:sum}
# ktune's own kernels, by name (the fallback's filter).
CORE_KERNELS=$(grep -ho '__global__ void [A-Za-z_0-9]*' engine/*.cu 2>/dev/null |
    awk '{print $3}' | sort -u | paste -sd,)
# The same as a mangled-name filter: core's kernels are file-static at
# global scope (_Z<len>name...), a plugin's sit in its anonymous namespace
# (_ZN..._GLOBAL__N_...), so a plugin kernel that shares a core kernel's
# name (empty_kernel) is still profiled. Every launch that passes is
# profiled (the problem's reference kernels, verification, the timed
# round) and compare_ncu.py keeps the last round: a fixed --launch-skip
# cannot know how many reference launches an operator's setup makes.
NOT_CORE="^(?!_Z[0-9]+(${CORE_KERNELS//,/|})[^A-Za-z0-9_])"
# One timed launch is enough: nothing here is a time.
QUICK=(--no-boundaries --min-time 0 --no-probe)
# ktune's launches per replay pass (PROFILE_LAUNCHES, default 3, ktune's
# own default; ncu profiles one); each of ktune's counters is the median
# over them.
LAUNCHES=${PROFILE_LAUNCHES:-3}
REPLAY=${REPLAY:-application}
case $REPLAY in application | kernel) ;; *)
    echo "REPLAY must be application or kernel, not '$REPLAY'" >&2
    exit 2
    ;;
esac
KERNEL_REPLAY=${KERNEL_REPLAY:-0}
[ "$REPLAY" = kernel ] && KERNEL_REPLAY=0
# ncu's instruction-level count of global sectors, the exact reference for
# the store-sector counter (compare_ncu.py, SASS_SECTORS), when this ncu
# has it.
SASS_SECTORS=smsp__sass_sectors_mem_global.sum
"$NCU" --query-metrics 2>/dev/null |
    grep -qE '^smsp__sass_sectors_mem_global([[:space:]]|$)' || SASS_SECTORS=
# One ncu process on the timed round of the loop's operator ($op, $plugin,
# $raw): ncu_run REPLAY_MODE CSV LOG LIMIT_S [NCU_ARGS...]
ncu_run() {
    local mode=$1 csv=$2 log=$3 lim=$4
    shift 4
    timeout "$lim" "$NCU" --clock-control none --replay-mode "$mode" \
        --metrics "$raw${SASS_SECTORS:+,$SASS_SECTORS}" --csv --page raw \
        --print-units base --log-file "$csv" "$@" \
        "$KTUNE" compare "${plugin[@]}" "$op" "${QUICK[@]}" --no-counters \
        --in-process --warmups 0 --min-samples 1 --max-samples 1 \
        --cache hot > "$log" 2>&1
}

{
    echo "# ktune profile vs Nsight Compute: every variant at its defaults"
    echo
    echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S')"
    echo "- commit: $(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)"
    echo "- ktune launches per replay pass: $LAUNCHES (PROFILE_LAUNCHES)"
    echo "- ncu replay mode: $REPLAY (REPLAY); kernel replay beside it: $KERNEL_REPLAY (KERNEL_REPLAY)"
    echo "- ncu's instruction-level sector count: ${SASS_SECTORS:-not available}"
    echo "- ncu: $("$NCU" --version 2>/dev/null | tail -1)"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm \
        --format=csv,noheader 2>/dev/null | sed 's/^/- gpu: /'
    echo "- command: bench/compare_ncu.sh $*"
    echo
    echo "Counts must be equal and percentages within 2 points; the rest is"
    echo "information. Each variant's diagnosis is checked against"
    echo "bench/diagnosis_truth.txt (what its source says)."
} > "$REPORT"

status=0
for op in "${OPS[@]}"; do
    tag=${op//:/_}
    left=$((BUDGET - (SECONDS - T0)))
    if [ "$left" -lt 12 ]; then
        echo "skipped (time budget): $op" | tee -a "$REPORT"
        continue
    fi
    plugin=()
    [[ $op == diag_corpus:* ]] && plugin=(--plugin "$CORPUS")
    kjson=$RAWDIR/ktune-$tag.json
    timeout $((left < 40 ? left : 40)) "$KTUNE" compare "${plugin[@]}" "$op" \
        "${QUICK[@]}" --warmups 1 --min-samples 3 --max-samples 3 \
        --profile-launches "$LAUNCHES" \
        --json "$kjson" > "$RAWDIR/ktune-$tag.txt" 2>&1
    krc=$?
    if [ ! -s "$kjson" ]; then
        echo "ktune compare $op failed (rc $krc); see $RAWDIR/ktune-$tag.txt" |
            tee -a "$REPORT"
        status=1
        continue
    fi
    kernels=$(python3 "$HERE/compare_ncu.py" launches "$kjson")
    raw=$(python3 -c 'import json,sys
k=json.load(open(sys.argv[1]))
names=set()
for v in k["variants"]:
    names.update(((v.get("counters") or {}).get("raw") or {}).keys())
print(",".join(sorted(names)))' "$kjson")
    if [ -z "$raw" ] || [ "$kernels" = 0 ]; then
        echo "$op: ktune collected no counters; nothing to compare" |
            tee -a "$REPORT"
        status=1
        continue
    fi
    left=$((BUDGET - (SECONDS - T0)))
    ncsv=$RAWDIR/ncu-$tag.csv
    ncu_run "$REPLAY" "$ncsv" "$RAWDIR/ncu-$tag.out" \
        $((left < 120 ? left : 120)) \
        --kernel-name-base mangled -k "regex:$NOT_CORE"
    nrc=$?
    {
        echo
        echo "## $op"
        echo
        echo "ktune compare rc $krc, ncu rc $nrc ($kernels kernels)"
        echo
    } >> "$REPORT"
    drop=()
    if [ ! -s "$ncsv" ] && [ $((BUDGET - (SECONDS - T0))) -ge 12 ]; then
        # No name filter (a regex this ncu refuses?): every launch, then
        # ktune's own kernels dropped by name and the last round kept.
        echo "ncu with the name filter failed (rc $nrc); every launch instead" |
            tee -a "$REPORT"
        left=$((BUDGET - (SECONDS - T0)))
        ncu_run "$REPLAY" "$ncsv" "$RAWDIR/ncu-$tag.out" \
            $((left < 120 ? left : 120)) --launch-count $((3 * kernels + 40))
        nrc=$?
        drop=(--drop "$CORE_KERNELS")
    fi
    if [ ! -s "$ncsv" ]; then
        echo "ncu failed on $op (rc $nrc); see $RAWDIR/ncu-$tag.out" |
            tee -a "$REPORT"
        status=1
        continue
    fi
    again=()
    if [[ " $REPEAT " == *" $op "* ]] && [ ${#drop[@]} -eq 0 ] &&
        [ $((BUDGET - (SECONDS - T0))) -ge 30 ]; then
        # ncu once more on the same launches: its own run-to-run spread.
        ncu_run "$REPLAY" "$RAWDIR/ncu2-$tag.csv" "$RAWDIR/ncu2-$tag.out" 120 \
            --kernel-name-base mangled -k "regex:$NOT_CORE" &&
            again=(--again "$RAWDIR/ncu2-$tag.csv")
    fi
    beside=()
    if [ "$KERNEL_REPLAY" = 1 ] && [ ${#drop[@]} -eq 0 ] &&
        [ $((BUDGET - (SECONDS - T0))) -ge 20 ]; then
        ncu_run kernel "$RAWDIR/ncuk-$tag.csv" "$RAWDIR/ncuk-$tag.out" 60 \
            --kernel-name-base mangled -k "regex:$NOT_CORE" &&
            beside=(--kernel-replay "$RAWDIR/ncuk-$tag.csv")
    fi
    python3 "$HERE/compare_ncu.py" table "$kjson" "$ncsv" "$op" \
        "$HERE/diagnosis_truth.txt" --md "${drop[@]}" "${again[@]}" \
        "${beside[@]}" >> "$REPORT" || status=1
done
echo >> "$REPORT"
echo "elapsed: $((SECONDS - T0)) s" >> "$REPORT"
grep -E "^(RESULT|diagnosis:|skipped|ncu failed|ktune compare .* failed)" "$REPORT" |
    sed 's/^diagnosis: /  diagnosis: /'
echo "written: $REPORT and $RAWDIR/"
exit $status
