# SPDX-License-Identifier: Apache-2.0
"""Kernel Tuner's own simulation mode over a cache file ktune wrote.

usage: kt_simulate.py CACHE SUMMARY_JSON [ties [RUN_OUTPUT]]

Runs kernel_tuner.tune_kernel(simulation_mode=True, cache=CACHE,
strategy="brute_force") with the cache's own kernel name, problem size and
tune_params, and checks that Kernel Tuner's best is ktune's (the --json
summary's best parameters); with "ties", a configuration ktune found
statistically tied with its best also agrees (Kernel Tuner ranks single
numbers, ktune its finalists by paired rounds; the cache holds the
finalists' closing medians). With RUN_OUTPUT (the tune run's output),
the configuration the run's --kt-cache note named also agrees: the file
could not lead Kernel Tuner to the answer (a point the search measured
below the answer's closing median) and the run said so. Exit 0 on
agreement, 1 otherwise.
"""
import re
import json
import sys

import kernel_tuner


def main():
    cache_path, summary_path = sys.argv[1], sys.argv[2]
    with open(cache_path) as f:
        cache = json.load(f)
    summary = json.load(open(summary_path))
    best = summary["best"]["params"]
    agree = [best]
    if len(sys.argv) > 3 and sys.argv[3] == "ties":
        agree += [t["params"] for t in summary.get("tie") or []]
    keys = cache["tune_params_keys"]
    if len(sys.argv) > 4:
        note = re.search(r"Kernel Tuner, which takes the lowest time, will pick "
                         r"(\S+) \(", open(sys.argv[4]).read())
        if note:
            print("the run noted Kernel Tuner's pick:", note.group(0))
            agree.append(dict(zip(keys, (int(v) if v.lstrip("-").isdigit() else v
                                         for v in note.group(1).split(",")))))
    tune_params = {k: cache["tune_params"][k] for k in keys}
    # The space is what the cache holds: a point ktune never recorded (a
    # constraint left it out) is outside it, as Kernel Tuner's
    # restrictions leave points out.
    cached = set(cache["cache"])

    def recorded(p):
        return ",".join(str(p[k]) for k in keys) in cached

    results, env = kernel_tuner.tune_kernel(
        cache["kernel_name"],
        "// simulated: Kernel Tuner compiles nothing in simulation mode",
        tuple(cache["problem_size"]),
        [],
        tune_params,
        restrictions=recorded,
        cache=cache_path,
        simulation_mode=True,
        strategy="brute_force",
        quiet=True,
    )
    valid = [r for r in results if isinstance(r.get("time"), float)]
    kt_best = min(valid, key=lambda r: r["time"])
    got = {k: kt_best[k] for k in keys}
    print("Kernel Tuner", kernel_tuner.__version__, "simulated",
          len(results), "configurations;", len(valid), "valid; best", got,
          "at", kt_best["time"], "ms; ktune's best", best)
    if len(results) != len(cache["cache"]):
        print("FAIL: Kernel Tuner evaluated", len(results), "of",
              len(cache["cache"]), "cached configurations")
        return 1
    if all(got != {k: a[k] for k in keys} for a in agree):
        print("FAIL: Kernel Tuner's best differs from ktune's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
