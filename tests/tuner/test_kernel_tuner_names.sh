# SPDX-License-Identifier: Apache-2.0
# Kernel Tuner's strategy names (tuner/strategy_names.c): every name `tune
# --help` lists runs the ktune strategy it maps to, on a Kernel Tuner cache
# replayed without a GPU, and the summary says which ("strategy brute_force
# -> exhaustive"); brute_force finds what exhaustive finds; a misspelt name
# of either list is refused (exit 2) with the close one suggested, and a
# name close to none lists both.
. "$KT_SOURCE_DIR/tests/cli/lib.sh"

REC=$KT_SOURCE_DIR/tests/data/kt/vector_add-h200-n1048576.cache.json.gz

expect_exit 0 "$KTUNE" tune --help
expect_text "brute_force -> exhaustive"
expect_text "bayes_opt -> ~tpe"
help=$out
# "name -> target" pairs from the help, the table's own words.
pairs=$(sed -n '/^Kernel Tuner.s names/,$p' <<<"$help" |
    grep -oE '[a-z_]+ -> ~?[a-z_]+' | tr -d '~' | sed 's/ -> /:/')
[ "$(wc -l <<<"$pairs")" -ge 17 ] || {
    echo "FAIL: fewer than 17 Kernel Tuner names in the help: $pairs"
    failures=$((failures + 1))
}
for pair in $pairs; do
    kt=${pair%%:*}
    ours=${pair#*:}
    expect_exit 0 "$KTUNE" tune --replay "$REC" --set "strategy.name=$kt" \
        --set strategy.max_evals=12
    expect_text "strategy $kt -> $ours, seed"
done

# The same search under both names: the same answer.
expect_exit 0 "$KTUNE" tune --replay "$REC" --set strategy.name=exhaustive \
    --json ex.json
expect_exit 0 "$KTUNE" tune --replay "$REC" --set strategy.name=brute_force \
    --json bf.json --markdown bf.md
grep -qF 'Strategy `brute_force -> exhaustive`' bf.md || {
    echo "FAIL: the Markdown summary does not name brute_force"
    failures=$((failures + 1))
}
python3 - <<'PY' || failures=$((failures + 1))
import json
a, b = json.load(open("ex.json")), json.load(open("bf.json"))
assert a["best"] == b["best"], (a["best"], b["best"])
assert a["evaluations"] == b["evaluations"]
PY

# Misspelt: the close name of either list, exit 2.
expect_exit 2 "$KTUNE" tune --replay "$REC" --set strategy.name=brute_forse
expect_text "unknown strategy 'brute_forse'; did you mean 'brute_force'?"
expect_exit 2 "$KTUNE" tune --replay "$REC" --set strategy.name=simulated_anealing
expect_text "did you mean 'simulated_annealing'?"
expect_exit 2 "$KTUNE" tune --replay "$REC" --set strategy.name=exhaustiv
expect_text "did you mean 'exhaustive'?"
# Close to nothing: both lists, so no name is hidden.
expect_exit 2 "$KTUNE" tune --replay "$REC" --set strategy.name=xyzzyplugh
expect_text "known: auto,"
expect_text "firefly_algorithm"
# A job file takes the names too.
expect_exit 0 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --check \
    --set strategy.name=random_sample
expect_exit 2 "$KTUNE" tune "$KT_SOURCE_DIR/configs/vector_add.ini" --check \
    --set strategy.name=randm_sample
expect_text "did you mean 'random_sample'?"
finish
