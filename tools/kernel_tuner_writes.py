#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Has Kernel Tuner itself write T4 results from one of our cache files:
kernel_tuner.tune_cache (its simulation mode, on the cache as it is, with
the restrictions it infers from it) runs STRATEGY, and
kernel_tuner.file_utils.store_output_file writes what it returned. Run it
with a Python that has kernel_tuner installed (pip install
kernel_tuner==1.5.0); it prints the simulated time Kernel Tuner counted
(ms) and its best time (ms) on one line.

usage: kernel_tuner_writes.py CACHE OUT_T4 [STRATEGY]
"""
import json
import sys
import warnings

import kernel_tuner
from kernel_tuner.file_utils import store_output_file


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    cache, out = sys.argv[1], sys.argv[2]
    strategy = sys.argv[3] if len(sys.argv) == 4 else "brute_force"
    with open(cache, encoding="utf-8") as f:
        tune_params = json.load(f)["tune_params"]
    warnings.simplefilter("ignore")
    results, env = kernel_tuner.tune_cache(cache, strategy=strategy,
                                           quiet=True, verbose=False)
    store_output_file(out, results, tune_params)
    best = min(r["time"] for r in results if not isinstance(r["time"], str))
    print(env["simulated_time"], repr(best))


if __name__ == "__main__":
    main()
