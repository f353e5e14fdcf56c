#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/methodology/orders.py on made-up score files (no package): each
--with adds its Kernel Tuner rows, --without leaves out the rows whose
name contains the text, and the verdict compares the default with the
best Kernel Tuner row that is left."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(os.environ.get("KT_SOURCE_DIR", Path(__file__).resolve()
                          .parents[2]))
ORDERS = SRC / "bench" / "methodology" / "orders.py"


def doc(rows):
    """A run.py --out document with one file; ROWS: name -> P."""
    return {"aggregate": {"evaluation": {n: {"P": p} for n, p in
                                         rows.items()}},
            "files": {"app/GPU": {n: {"P": p} for n, p in rows.items()}}}


def verdict_line(text, order):
    for line in text.splitlines():
        if line.startswith(f"| {order} | "):
            return line
    return ""


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        (t / "k-original.json").write_text(json.dumps(doc(
            {"ktune:auto": 0.75, "ktune:tpe": 0.70})))
        (t / "a-original.json").write_text(json.dumps(doc(
            {"kt:diff_evo": 0.40, "kt:pso+x0=declared": 0.60})))
        (t / "b-original.json").write_text(json.dumps(doc(
            {"kt:bayes_opt": 0.45})))

        def run(*extra):
            r = subprocess.run([sys.executable, str(ORDERS), str(t / "k"),
                                "original", *extra],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr)
            return r.stdout

        # (extra arguments, a text the output must not hold, the Kernel
        # Tuner row the verdict must name, the verdict's gap and lead)
        cases = [
            ([], "kt:none", "kt:pso+x0=declared 0.600",
             "| 0.150 | yes | yes | **no** |"),
            (["--without", "+x0="], "x0", "kt:bayes_opt 0.450",
             "| 0.300 | yes | yes | yes |"),
        ]
        for extra, absent, best, tail in cases:
            out = run("--with", str(t / "a"), "--with", str(t / "b"), *extra)
            line = verdict_line(out.split("Issue 52's lines")[-1],
                                "original")
            if "kt:bayes_opt" not in out or absent in out:
                print(f"FAIL {extra}: the rows kept are wrong:\n{out}")
                failures += 1
            if best not in line or not line.endswith(tail):
                print(f"FAIL {extra}: the verdict is not against {best}: "
                      + line)
                failures += 1
        r = subprocess.run([sys.executable, str(ORDERS), str(t / "k"),
                            "--with"], capture_output=True, text=True)
        refused = "--with: expected one argument" in r.stderr
        if r.returncode == 0 or not refused:
            print("FAIL: a --with without a value was taken")
            failures += 1
    print("ok" if failures == 0 else f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
