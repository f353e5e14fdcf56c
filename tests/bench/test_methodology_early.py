#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/methodology/early.py on a made-up space and run (no hub, no
package): the normalized best after K evaluations and after T seconds of
recorded time (the TIME_KEYS summed, an evaluation counted once ended),
an invalid evaluation never the best, and a repeat that stopped earlier
keeping its last best."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(os.environ.get("KT_SOURCE_DIR", Path(__file__).resolve()
                          .parents[2]))
EARLY = SRC / "bench" / "methodology" / "early.py"


def result(value, ms, valid=True):
    return {"times": {"compilation": ms - 100.0, "runtimes": [50.0, 50.0]},
            "invalidity": "correct" if valid else "runtime",
            "measurements": [{"name": "time", "value": value}]}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cache = work / "hub" / "cachefiles" / "app"
        cache.mkdir(parents=True)
        # valid times 1..5: median 3, optimum 1
        json.dump({"cache": {str(i): {"time": float(i)} for i in range(1, 6)}
                   | {"x": {"time": "RuntimeFailed"}}},
                  open(cache / "G.json", "w"))
        runs = work / "runs" / "ktune"
        runs.mkdir(parents=True)
        reps = [{"seed": 1, "timeunit": "milliseconds", "results": [
            result(4.0, 1000), result(0.5, 1000, valid=False),
            result(1.0, 1000)]}]
        with gzip.open(runs / "app-G-s.json.gz", "wt") as f:
            json.dump({"app": "app", "gpu": "G", "strategy": "s",
                       "repeats": reps}, f)
        cases = [(["--evals", "1,2,3,9"], ["-0.500", "-0.500", "1.000",
                                           "1.000"]),
                 (["--seconds", "0.5,1.5,2.5,3.0"], ["-1.000", "-0.500",
                                                     "-0.500", "1.000"])]
        for args, want in cases:
            out = subprocess.run([sys.executable, str(EARLY), str(work)] +
                                 args, capture_output=True, text=True,
                                 check=True).stdout
            got = [line.split("|")[2].strip() for line in out.splitlines()
                   if line.startswith("| s |")]
            if got != want:
                print(f"early.py {args}: {got}, expected {want}\n{out}")
                failures += 1
    print("early.py: all checks passed" if not failures else
          f"{failures} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
