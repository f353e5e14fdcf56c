#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kt_expr's Python syntax against python3 itself: random expressions over
ints, floats and bools (arithmetic, // % / **, comparisons chained and not,
and/or/not, min/max/abs), each evaluated by both; every value, its type
(int or float) and every error must agree. Python's unbounded ints are
the one documented difference: a power whose int64 result overflows is an
error in ktune. Usage: expr_vs_python.py EXPR_DRIVER [COUNT]"""
import math
import random
import subprocess
import sys

ATOMS = ["a", "b", "c", "0", "1", "2", "3", "-1", "2.5", "0.5", "-1.5",
         "True", "False", "7", "100"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==",
          "!=", "and", "or"]


def gen(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(ATOMS)
    r = rng.random()
    if r < 0.1:
        return "(not %s)" % gen(rng, depth - 1)
    if r < 0.2:
        return "-(%s)" % gen(rng, depth - 1)
    if r < 0.27:
        return "%s(%s, %s)" % (rng.choice(["min", "max"]), gen(rng, depth - 1),
                               gen(rng, depth - 1))
    if r < 0.3:
        return "abs(%s)" % gen(rng, depth - 1)
    if r < 0.4:
        return "%s %s %s %s %s" % (
            gen(rng, depth - 1), rng.choice(["<", "<=", "==", "!="]),
            gen(rng, depth - 1), rng.choice(["<", "<=", ">"]),
            gen(rng, depth - 1))
    return "(%s %s %s)" % (gen(rng, depth - 1), rng.choice(BINARY),
                           gen(rng, depth - 1))


def python_says(text):
    try:
        v = eval(text, {"__builtins__": {"min": min, "max": max, "abs": abs}},
                 {"a": 7, "b": -3, "c": 12})
    except (ArithmeticError, TypeError):  # TypeError: complex results
        return "ERR"
    if isinstance(v, complex):
        return "ERR"
    if isinstance(v, float):
        return "F %r" % v if math.isfinite(v) else "ERR"
    v = int(v)
    return "I %d" % v if -2**63 <= v < 2**63 else "ERR"


def main():
    driver = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    rng = random.Random(28)
    exprs = [gen(rng, 4) for _ in range(count)]
    out = subprocess.run([driver], input="\n".join(exprs) + "\n",
                         capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert len(out) == len(exprs), "the driver answered %d of %d" % (
        len(out), len(exprs))
    bad = overflowed = 0
    for text, got in zip(exprs, out):
        want = python_says(text)
        if got.startswith("F "):
            got = "F %r" % float(got[2:])
        if got.startswith("PARSE"):
            bad += 1
            print("refused: %s: %s" % (text, got))
            continue
        if got != want and got == "ERR" and "**" in text:
            overflowed += 1  # an int64 power; Python's ints are unbounded
            continue
        if got != want:
            bad += 1
            if bad <= 20:
                print("differs: %s  python %s  ktune %s" % (text, want, got))
    print("%d expressions, %d differ, %d int64 overflows of powers" %
          (len(exprs), bad, overflowed))
    if overflowed > len(exprs) // 50:
        bad += 1
        print("too many overflows to be only large powers")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
