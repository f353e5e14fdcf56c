#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Mutable file-scope statics in the libraries: at most 15, each with a
comment saying why (on its line or ending just above it). Process state
lives in few, named places (docs/hacking.md, Code rules). The injected
*/trace/ libraries, which link nothing of ktune, are not counted. A planted
uncommented static and one too many must be caught, so the gate can fail.

usage: test_mutable_statics.py SOURCE_DIR"""
import os
import re
import sys
import tempfile

MAX = 15
LIBRARIES = ("core declared engine isolation metrics records tuner compare "
             "report timeline capture select").split()


def statics(root):
    """(file, line, text, commented) of every mutable file-scope static."""
    found = []
    for lib in LIBRARIES:
        for folder, _, files in sorted(os.walk(os.path.join(root, lib))):
            if "/trace" in folder[len(root):]:
                continue
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    found += scan(root, os.path.join(folder, name))
    return found


def scan(root, path):
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("static"):
            continue
        head = re.split(r"[=;{]", line)[0]
        if re.search(r"\((?!\s*\*)", head):
            continue  # a function
        if "*" in head:
            if "const" in head.rsplit("*", 1)[1]:
                continue  # a const pointer
        elif re.search(r"\bconst\b", head):
            continue  # a const object
        above = lines[i - 1].strip() if i else ""
        commented = ("/*" in line or "//" in line or above.endswith("*/")
                     or above.startswith("//"))
        out.append((os.path.relpath(path, root), i + 1, line.strip(),
                    commented))
    return out


def verdict(found):
    """The complaints about found, one a line."""
    bad = ["%s:%d: %s: no comment says why it is mutable" % (f, n, t)
           for f, n, t, c in found if not c]
    if len(found) > MAX:
        bad.append("%d mutable file-scope statics, at most %d"
                   % (len(found), MAX))
    return bad


def planted_are_caught():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "core"))
        os.makedirs(os.path.join(d, "timeline", "trace"))
        with open(os.path.join(d, "core", "a.c"), "w") as f:
            f.write("static int bare;\nstatic const int fixed = 1;\n"
                    "static int f(void) { return 0; }\n"
                    "/* why */\nstatic int *kept;\n")
            f.write("".join("static int n%d; /* why */\n" % i
                            for i in range(MAX)))
        with open(os.path.join(d, "timeline", "trace", "t.c"), "w") as f:
            f.write("static int traced;\n")
        found = statics(d)
        bad = verdict(found)
        return (len(found) == MAX + 2 and len(bad) == 2
                and "core/a.c:1: static int bare;" in bad[0])


def main():
    root = sys.argv[1]
    if not planted_are_caught():
        print("FAIL: planted statics are not caught as they should be")
        return 1
    found = statics(root)
    for f, n, t, _ in found:
        print("%s:%d: %s" % (f, n, t))
    bad = verdict(found)
    if bad:
        print("FAIL:\n" + "\n".join(bad))
        return 1
    print("ok: %d mutable file-scope statics in %d files (at most %d), each "
          "commented" % (len(found), len({f for f, *_ in found}), MAX))
    return 0


if __name__ == "__main__":
    sys.exit(main())
