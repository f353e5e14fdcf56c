#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Here, after a call of orders_device.sh: its chunks into .meth-orders/ORDER
# (the call's done lines appended to .meth-state/orders-done.txt, which the
# next call carries), then every ordering scored with the methodology
# package (run.py --stage score, build/mo-ORDER) and the orderings side by
# side (orders.py) in PREFIX-orders.md. FILES_AT may be left out to score
# what was collected before. METH_PYTHON: a Python with
# autotuning-methodology 1.1.0; KTUNE_HUB_DIR: the hub's checkout (or a
# folder of its cache files, .json or .json.gz, and kernels/). ORDERS_DIR
# (.meth-orders), STATE_DIR (.meth-state) and WORK_PREFIX (build/mo: the
# work folders WORK_PREFIX-ORDER) move the folders; EVAL_FILES,
# KT_STRATEGIES and KTUNE_STRATEGIES narrow what is scored.
#
#   KTUNE_HUB_DIR=HUB METH_PYTHON=.venv-meth/bin/python \
#       bash bench/methodology/orders_score.sh [FILES_AT] [PREFIX]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
src=${1:-}
prefix=${2:-build/orders-res}
py=${METH_PYTHON:-python3}
: "${KTUNE_HUB_DIR:?set KTUNE_HUB_DIR to the hub (its cache files and kernels/)}"
od=${ORDERS_DIR:-.meth-orders}
sd=${STATE_DIR:-.meth-state}
wp=${WORK_PREFIX:-build/mo}
if [ -n "$src" ]; then
    mkdir -p "$od" "$sd"
    cat "$src"/orders.tar.[0-9]* | tar xf - -C "$od"
    cat "$od/done-new.txt" >>"$sd/orders-done.txt"
    rm "$od/done-new.txt"
    echo "collected; $(sort -u "$sd/orders-done.txt" | wc -l) chunks done in all"
fi
eval_files=${EVAL_FILES:-convolution_milo/A6000,convolution_milo/MI250X,convolution_milo/W6600,convolution_milo/W7800,dedispersion_milo/A6000,dedispersion_milo/MI250X,dedispersion_milo/W6600,dedispersion_milo/W7800}
kt=${KT_STRATEGIES:-diff_evo,pso,firefly_algorithm,dual_annealing,bayes_opt}
kn=${KTUNE_STRATEGIES:-auto,tpe,one_at_a_time,annealing,genetic,random,coordinate,exhaustive}
for o in original reversed shuffle1 shuffle2 shuffle3; do
    [ -d "$od/$o/runs" ] || { echo "$o: no runs collected"; continue; }
    "$py" bench/methodology/run.py --build build --work "$wp-$o" \
        --order "$o" --import-runs "$od/$o" --stage score \
        --files "$eval_files" --kt-strategies "$kt" --ktune-strategies "$kn" \
        --repeats 20 --out "$prefix-$o"
done
python3 bench/methodology/orders.py "$prefix" | tee "$prefix-orders.md"
