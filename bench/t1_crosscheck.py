#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks ktune's T1 counts against Python's own.

For every T1 space file of the benchmark hub ($KTUNE_HUB_DIR/kernels/*.json)
and of BAT ($KTUNE_BAT_DIR/batbench/benchmarks/*/*-CAFF.json), or the files
given, Python evaluates the Values strings and every Condition over the
Cartesian product (itertools.product; a condition that raises counts as
false), and compares the count with

  - ktune's T1 reader (build/bench/bench_t1_count), and
  - `ktune tune DECL --check` ("N after require") for each declaration in
    examples/hub whose space is that file, when the check runs here.

Prints one line per file and exits 1 on any difference. The files are
third-party: this is a tool, not a CI test (docs/declared.md, "Importing
a T1 space"). Usage:

  KTUNE_HUB_DIR=$HOME/src/benchmark_hub KTUNE_BAT_DIR=$HOME/src/BAT bench/t1_crosscheck.py [--build build] [FILE.json...]
"""
import argparse
import glob
import itertools
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_count(path):
    """Feasible points by brute force, as Kernel Tuner's Python sees them."""
    with open(path) as f:
        doc = json.load(f)
    space = doc["ConfigurationSpace"]
    params = space["TuningParameters"]
    names = [p["Name"] for p in params]
    values = [eval(p["Values"]) if isinstance(p["Values"], str)
              else p["Values"] for p in params]
    conds = []
    for c in space.get("Conditions", []):
        used = [n for n in names if re.search(r"\b%s\b" % re.escape(n),
                                               c["Expression"])]
        conds.append((compile(c["Expression"], path, "eval"),
                      [names.index(n) for n in used]))
    # Each condition as soon as its last parameter is set would be faster;
    # brute force keeps this independent of ktune's pruning.
    count = 0
    for combo in itertools.product(*values):
        env = dict(zip(names, combo))
        ok = True
        for code, _ in conds:
            try:
                if not eval(code, {}, env):
                    ok = False
                    break
            except ArithmeticError:
                ok = False
                break
        count += ok
    product = 1
    for v in values:
        product *= len(v)
    return product, count


def ktune_counts(build, files):
    out = subprocess.run([os.path.join(build, "bench", "bench_t1_count")] +
                         files, capture_output=True, text=True)
    counts = {}
    for line in out.stdout.splitlines():
        path, _, _, _, n, seconds = line.split("\t")
        counts[path] = (int(n), float(seconds))
    if out.stderr:
        sys.stderr.write(out.stderr)
    return counts


def check_counts(build, files):
    """(declaration, count or error) for each examples/hub declaration."""
    found = {}
    for decl in sorted(glob.glob(os.path.join(ROOT, "examples", "hub",
                                              "*.ini"))):
        text = open(decl).read()
        m = re.search(r"^space\s*=\s*(\S+)", text, re.M)
        if not m:
            continue
        target = os.path.expandvars(m.group(1))
        target = os.path.realpath(os.path.join(os.path.dirname(decl), target))
        out = subprocess.run([os.path.join(build, "ktune"), "tune", decl,
                              "--check"], capture_output=True, text=True,
                             cwd="/")
        n = re.search(r"^space \d+ point\(s\)[^,]*, (\d+) after require",
                      out.stdout, re.M)
        found[target] = (os.path.relpath(decl, ROOT),
                         int(n.group(1)) if n else
                         (out.stderr.strip().splitlines() or ["?"])[-1])
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    files = a.files
    hub, bat = os.environ.get("KTUNE_HUB_DIR"), os.environ.get("KTUNE_BAT_DIR")
    if not files:
        if hub:
            files += sorted(glob.glob(os.path.join(hub, "kernels", "*.json")))
        if bat:
            files += sorted(glob.glob(os.path.join(
                bat, "batbench", "benchmarks", "*", "*-CAFF.json")))
    if not files:
        sys.exit("no files: set KTUNE_HUB_DIR and/or KTUNE_BAT_DIR, or name "
                 "T1 files")
    ours = ktune_counts(a.build, files)
    decls = check_counts(a.build, files)
    bad = 0
    print("%-48s %10s %9s %9s %8s  %s" % ("file", "product", "python",
                                          "ktune", "ktune s", "--check"))
    for f in files:
        t0 = time.time()
        product, want = python_count(f)
        py_s = time.time() - t0
        got, secs = ours.get(f, (None, 0))
        decl = decls.get(os.path.realpath(f))
        shown = "-"
        if decl and isinstance(decl[1], int):
            shown = "%s: %d" % decl
            bad += decl[1] != want
        elif decl:
            shown = "%s: not checked here: %.100s" % decl
        if got != want:
            bad += 1
        print("%-48s %10d %9d %9s %8.3f  %s   (python %.0f s)" % (
            os.path.relpath(f, hub or bat or "."), product, want, got, secs,
            shown, py_s))
    print("all counts agree" if not bad else "%d difference(s)" % bad)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
