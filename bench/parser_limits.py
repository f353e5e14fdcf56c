#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile-size inputs timed (issue 53, N22-N24, D26; no GPU): `ktune tune
DECL --check` over a T1 space of N conditions, and other inputs the
benchmark is given cases for. Each case is run once under /usr/bin/time
(wall seconds, peak resident memory) and printed as a Markdown table with
the command, date, machine and commit, for docs/results/.

usage: bench/parser_limits.py [--build DIR] [--conditions N ...]
                              [--report-points N ...] [--sections N ...]
                              [--kt-report-points N ...]

--kt-report-points: `ktune report` of a Kernel Tuner replay's summary of N
points: the summary of tests/data/kt's transpose recording replayed (45
points), its top list and trace grown to N points (each with 5 samples), as
a replay of an N-point recording writes them (that replay itself is timed
by the replay benchmarks, not here).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def conditions_space(n, path):
    """tests/core/t1/space.json with n distinct conditions, each over one
    or two parameters and true for many points."""
    with open(os.path.join(SRC, "tests/core/t1/space.json")) as f:
        s = json.load(f)
    forms = ["BX * BY <= %d", "TILE + UNROLL < %d", "BX != %d", "MODE < %d",
             "SPARE <= %d", "NEG < %d", "BY * TILE <= %d"]
    base = [512, 20, 1000, 3, 1, 3, 64]
    s["ConfigurationSpace"]["Conditions"] = [
        {"Expression": forms[i % 7] % (base[i % 7] + i)} for i in range(n)]
    with open(path, "w") as f:
        json.dump(s, f)


def declaration(space, path):
    with open(os.path.join(SRC, "tests/declared/t1/scale.ini")) as f:
        text = f.read()
    text = text.replace("${KT_T1_TEST_DIR}/space.json", space)
    text = text.replace("source = scale.cu", "source = " +
                        os.path.join(SRC, "tests/declared/t1/scale.cu"))
    with open(path, "w") as f:
        f.write(text)


def timed(argv):
    """(exit status, wall s, CPU s, peak KiB, last output line); the
    1-minute load average before the run goes to stderr."""
    sys.stderr.write("load average %.2f before %s\n" % (os.getloadavg()[0],
                                                       " ".join(argv[:2])))
    p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + argv,
                       capture_output=True, text=True)
    wall, user, sys_s, kib = p.stderr.strip().splitlines()[-1].split()
    last = (p.stdout.strip().splitlines() or
            p.stderr.strip().splitlines()[:-1] or [""])[-1]
    return (p.returncode, float(wall), float(user) + float(sys_s), int(kib),
            last)


def report_journal(n, path):
    """A journal of n evaluated points with energy (the report's Pareto
    front and parameter charts), each a copy of
    tests/report/data/vector_add-energy-synthetic.jsonl's first record with
    its own block, time and joules (3 samples kept)."""
    import random
    rnd = random.Random(1)
    with open(os.path.join(
            SRC, "tests/report/data/vector_add-energy-synthetic.jsonl")) as f:
        lines = f.read().splitlines()
    rec = json.loads(lines[1])
    rec["timing"]["samples_us"] = rec["timing"]["samples_us"][:3]
    with open(path, "w") as f:
        f.write(lines[0] + "\n")
        for i in range(n):
            t = rnd.uniform(10, 1000)
            rec["call"] = i + 1
            rec["timing"]["kernel"]["median"] = t
            rec["energy"]["joules_per_launch"] = 1.0 / t + rnd.uniform(0, 0.01)
            rec["point"]["params"]["block"] = 32 + i
            f.write(json.dumps(rec) + "\n")


def kt_summary(ktune, n, tmp, path):
    """A Kernel Tuner replay's summary (kind ktune.tune, replay external)
    with n measured points."""
    import copy
    import random
    rnd = random.Random(1)
    small = os.path.join(tmp, "kt45.json")
    subprocess.run([ktune, "tune", "--replay", os.path.join(
        SRC, "tests/data/kt/transpose-h200-rows8192-cols8192.cache.json"),
        "--set", "strategy.name=exhaustive", "--json", small, "--quiet"],
        check=True)
    with open(small) as f:
        d = json.load(f)
    tmpl, top, best = d["top"][0], [], float("inf")
    for i in range(n):
        e = copy.deepcopy(tmpl)
        t = rnd.uniform(100, 3000)
        e["params"] = dict(tmpl["params"], bx=str(i % 50),
                           by=str(i // 50 % 50), tile=str(i // 2500))
        e["config"] = "transpose " + " ".join(
            "%s=%s" % kv for kv in e["params"].items())
        e.update(median_us=t, ci_lo_us=0.99 * t, ci_hi_us=1.01 * t,
                 samples=5, samples_us=[t] * 5)
        top.append(e)
        best = min(best, t)
        d["trace"].append(best)
    d["top"] = sorted(top, key=lambda e: e["median_us"])
    d["trace"] = d["trace"][-n:]
    d["measured"] = d["evaluations"] = n
    with open(path, "w") as f:
        json.dump(d, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--conditions", type=int, nargs="*",
                    default=[100000, 300000, 1000000])
    ap.add_argument("--report-points", type=int, nargs="*",
                    default=[10000, 100000])
    ap.add_argument("--sections", type=int, nargs="*", default=[100000])
    ap.add_argument("--kt-report-points", type=int, nargs="*", default=[])
    args = ap.parse_args()
    ktune = os.path.join(args.build, "ktune")
    commit = subprocess.run(["git", "-C", SRC, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print("%s UTC, commit %s, %s, %d cores (%s)\n" % (
        datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M"), commit, platform.node(), os.cpu_count(),
        platform.processor() or platform.machine()))
    print("| input | command | exit | wall s | CPU s | peak MiB | "
          "last line |")
    print("|---|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.conditions:
            space = os.path.join(tmp, "space.json")
            decl = os.path.join(tmp, "scale.ini")
            conditions_space(n, space)
            declaration(space, decl)
            rc, wall, cpu, kib, last = timed([ktune, "tune", decl,
                                              "--check"])
            print("| T1 space, %d conditions | `ktune tune DECL --check` "
                  "| %d | %.2f | %.2f | %.0f | %s |" % (
                      n, rc, wall, cpu, kib / 1024, last[:60]))
            sys.stdout.flush()
        for n in args.report_points:
            journal = os.path.join(tmp, "points.jsonl")
            report_journal(n, journal)
            rc, wall, cpu, kib, last = timed([
                ktune, "report", journal, "-o", os.path.join(tmp, "r.html")])
            print("| journal of %d points with energy (%.0f MB) | "
                  "`ktune report J -o r.html` | %d | %.2f | %.2f | %.0f | %s |"
                  % (n, os.path.getsize(journal) / 1e6, rc, wall, cpu,
                     kib / 1024, last[:60]))
            sys.stdout.flush()
        for n in args.kt_report_points:
            summary = os.path.join(tmp, "kt.json")
            kt_summary(ktune, n, tmp, summary)
            rc, wall, cpu, kib, last = timed([
                ktune, "report", summary, "-o", os.path.join(tmp, "r.html")])
            print("| Kernel Tuner replay summary of %d points (%.0f MB) | "
                  "`ktune report S -o r.html` | %d | %.2f | %.2f | %.0f | %s |"
                  % (n, os.path.getsize(summary) / 1e6, rc, wall, cpu,
                     kib / 1024, last[:60]))
            sys.stdout.flush()
        for n in args.sections:
            job = os.path.join(tmp, "job.ini")
            with open(os.path.join(SRC, "configs/vector_add.ini")) as f:
                text = f.read()
            with open(job, "w") as f:
                f.write(text + "".join("[extra%d]\nk = 1\n" % i
                                       for i in range(n)))
            rc, wall, cpu, kib, last = timed([ktune, "tune", "--check", job])
            print("| job of %d sections | `ktune tune --check JOB` | %d | "
                  "%.2f | %.2f | %.0f | %s |" % (n, rc, wall, cpu,
                                                 kib / 1024, last[-60:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
