#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A synthetic Kernel Tuner cache file of N points for the replay benchmarks
(issue 54 part 4): six integer parameters of 10 values each (1e6 points in
all; N <= 1e6 takes the first N in Kernel Tuner's key order), each entry as
Kernel Tuner 1.5 writes one (the parameters, time, times with 32 runs,
compile/verification/benchmark/framework/strategy times), with a smooth
bowl of times and 1% run noise. Deterministic. Never committed: made by the
benchmark that uses it.

  python3 tools/gen_kt_cache.py N OUT.json
"""
import itertools
import json
import random
import sys


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    names = ["p%d" % i for i in range(6)]
    values = list(range(1, 11))
    rng = random.Random(1)
    with open(out, "w") as f:
        f.write('{\n"device_name": "synthetic", "kernel_name": "bowl",\n')
        f.write('"problem_size": [1024], "tune_params_keys": %s,\n' % json.dumps(names))
        f.write('"tune_params": %s,\n"objective": "time",\n"cache": {\n'
                % json.dumps({k: values for k in names}))
        for i, cfg in enumerate(itertools.islice(itertools.product(values, repeat=6), n)):
            t = 1.0 + sum((v - 5.5) ** 2 for v in cfg) / 50.0
            runs = [round(t * (1 + 0.01 * rng.gauss(0, 1)), 6) for _ in range(32)]
            e = dict(zip(names, cfg))
            e.update(time=sum(runs) / 32, times=runs, compile_time=1200.5,
                     verification_time=0, benchmark_time=sum(runs),
                     framework_time=0.5, strategy_time=0.1, timestamp="2026-12-07 00:00:00.000000")
            f.write('%s"%s": %s' % (",\n" if i else "", ",".join(map(str, cfg)), json.dumps(e)))
        f.write("\n}\n}\n")


if __name__ == "__main__":
    main()
