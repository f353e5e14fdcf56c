#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cross-check table of bench/compare_ncu.sh: for every variant of one
operator, every raw counter ktune reports next to Nsight Compute's value
for the same kernel(s), and ktune's diagnosis next to the truth.

  compare_ncu.py table KTUNE_JSON NCU_CSV OPERATOR TRUTH_FILE [--md]
                [--drop NAME,NAME...] [--again NCU_CSV2]
  compare_ncu.py launches KTUNE_JSON   (prints the kernel count)

--again: a second ncu run of the same launches; its values are shown next
to the first (ncu's own run-to-run spread). A value that misses the first
run passes as "within ncu's spread" when it lies within the check's
allowance of the range the two runs span (for a count: between them):
where ncu does not repeat itself, no closer match can be asked for. The
summary counts both ways.

--drop: the CSV holds every launch (ncu had no name filter): rows whose
kernel is one of NAMES (ktune's own) are dropped and the last rows, one
round's worth, are the timed round.

The ncu CSV (--page raw --csv --print-units base) holds one row per
profiled kernel, in launch order, for one round of `ktune compare` (every
variant once, in the JSON's order); variant i owns the next
counters.cost.kernels rows. A variant of several kernels is combined as
ktune combines them (metrics/ranges.h): ".sum" adds up, ".max"/".min" keep
the extreme, anything else is weighted by gpu__time_duration.sum.

Checks: counts (request, sector and requested-byte sums) exactly equal;
percentages (pct suffixes) within 2 points; the rest is shown for
information (DRAM bytes depend on what the L2 still holds dirty when a
kernel ends, stall and warp sums are sampled cycle counts, the duration is
a profiled time). Exit status 1 when a check fails.
"""
import csv
import json
import math
import sys

EXACT = ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
         "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
         "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
         "smsp__sass_data_bytes_mem_global_op_ld.sum",
         "smsp__sass_data_bytes_mem_global_op_st.sum")
POINTS = 2.0
DURATION = "gpu__time_duration.sum"

# What each built-in kernel is, by reading its source (docs/metrics.md
# gives the reasons): bound in {memory, compute, latency, none, any} (a
# set of accepted classes), then the load and the store verdict (c:
# coalesced, u: uncoalesced, -: none or not judged). Filled for the
# corpus and the built-ins; a missing key shows "?" and fails nothing.
TRUTH = {}


def load_truth(path):
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, bound, ld, st = line.split()[:4]
            TRUTH[key] = (set(bound.split("|")), ld, st)


def number(text):
    text = str(text).replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return math.nan


def ncu_rows(path):
    rows = [r for r in csv.reader(open(path)) if r]
    start = next(i for i, r in enumerate(rows) if "ID" in r)
    header = rows[start]
    data = [dict(zip(header, r)) for r in rows[start + 1:]
            if len(r) == len(header) and r[0].strip().isdigit()]
    return data


def combine(name, values, weights):
    if any(math.isnan(v) for v in values):
        return math.nan
    if name.endswith(".sum"):
        return sum(values)
    if name.endswith(".max"):
        return max(values)
    if name.endswith(".min"):
        return min(values)
    total = sum(w for w in weights if w > 0)
    if total > 0 and all(w >= 0 for w in weights):
        return sum(v * w for v, w in zip(values, weights)) / total
    return sum(values) / len(values)


def show(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if abs(v) >= 1000 and v == int(v):
        return "{:,.0f}".format(v)
    return "%.4g" % v


L2_HIT = "lts__t_sector_hit_rate.pct"


def check(name, k, n, n2=math.nan, note=None):
    """The check column and whether it passes; n2 is ncu's second run (NaN
    without one); note ktune's own word on why the value cannot compare."""
    k_missing = k is None or (isinstance(k, float) and math.isnan(k))
    if k_missing and math.isnan(n):
        return "n/a in both", True  # e.g. bytes per sector without loads
    if k_missing or math.isnan(n):
        return "missing", False
    if name == L2_HIT and note:
        return "not comparable (ktune says why)", True
    lo, hi = (min(n, n2), max(n, n2)) if not math.isnan(n2) else (n, n)
    if name in EXACT:
        if k == n:
            return "equal", True
        return ("within ncu's spread", True) if lo <= k <= hi else (
            "DIFFERS", False)
    if ".pct" in name or name.endswith("_pct"):
        if abs(k - n) <= POINTS:
            return "within %.0f" % POINTS, True
        if lo - POINTS <= k <= hi + POINTS:
            return "within %.0f of ncu's spread" % POINTS, True
        return "OFF by %.1f" % (k - n), False
    return "info", True


def verdict(d, key):
    """ktune's diagnosis of a variant against the truth table."""
    if not d:
        return "no diagnosis", key not in TRUTH
    co = d.get("coalescing", {})

    def side(c):
        if not c or c.get("requests", 0) == 0:
            return "-"
        if c.get("ideal") is None:
            return "?"
        return "u" if c.get("uncoalesced") else "c"
    got = (d.get("bound", "?"), side(co.get("loads")), side(co.get("stores")))
    unit = d.get("unit")
    text = "%s%s, loads %s, stores %s" % (got[0], " (%s)" % unit if unit else "",
                                          got[1], got[2])
    if key not in TRUTH:
        return text + " [no truth]", True
    bounds, ld, st = TRUTH[key]
    short = {"memory-bound": "memory", "compute-bound": "compute",
             "latency-bound": "latency", "no single bottleneck": "none",
             "memory- and compute-bound": "both"}.get(got[0], got[0])
    if unit == "DRAM":
        short_unit = "memory-dram"
    elif unit:
        short_unit = "memory-cache"
    else:
        short_unit = short
    ok_bound = "any" in bounds or short in bounds or short_unit in bounds
    ok = ok_bound and (ld == "*" or ld == got[1]) and (st == "*" or st == got[2])
    return text + (" ok" if ok else " WRONG (truth %s, ld %s, st %s)" %
                   ("|".join(sorted(bounds)), ld, st)), ok


def base_name(kernel):
    """'void fma_peak<float>(float *, int, float, float)' -> 'fma_peak'."""
    name = kernel.replace("(anonymous namespace)::", "").split("(")[0].strip()
    if name.startswith("void "):
        name = name[5:]
    return name.split("<")[0].rsplit("::", 1)[-1].strip()


def kernels_of(v):
    """Kernels the variant's launch ran; 1 when ktune counted but did not
    say (an older worker), 0 without counters."""
    counters = v.get("counters") or {}
    cost = counters.get("cost") or {}
    return cost.get("kernels") or (1 if counters.get("raw") else 0)


def last_round(rows, drop, total):
    if drop:
        rows = [r for r in rows if base_name(r.get("Kernel Name", "")) not in drop]
    # The timed round is the last: earlier rows are the setup's reference
    # kernels and the verification launches.
    return rows[len(rows) - total:] if total <= len(rows) else rows


def table(kjson, ncsv, prefix, md, drop, again=None):
    k = json.load(open(kjson))
    rows = ncu_rows(ncsv)
    variants = k["variants"]
    counts = []
    for v in variants:
        counts.append(kernels_of(v))
    rows = last_round(rows, drop, sum(counts))
    rows2 = last_round(ncu_rows(again), drop, sum(counts)) if again else None
    if rows2 is not None and len(rows2) != len(rows):
        rows2 = None
    failed = 0
    out = []
    if sum(counts) != len(rows):
        out.append("%s: ncu profiled %d kernel(s); ktune's variants ran %s: "
                   "cannot pair them" % (prefix, len(rows), counts))
        failed += 1
    at = 0
    for v, n_k in zip(variants, counts):
        mine = rows[at:at + n_k] if n_k else []
        mine2 = rows2[at:at + n_k] if n_k and rows2 else []
        at += n_k
        name = v["variant"]
        key = "%s/%s" % (prefix, name)
        raw = (v.get("counters") or {}).get("raw") or {}
        kernels = ", ".join(r.get("Kernel Name", "?")[:60] for r in mine)
        out.append("")
        out.append("### %s %s (%d kernel%s: %s)" % (
            prefix, v.get("config", name), n_k, "" if n_k == 1 else "s",
            kernels or "none"))
        if not raw:
            why = (v.get("counters") or {}).get("why", "no counters")
            out.append("ktune collected no counters: %s" % why)
        if md:
            out.append("")
            if rows2:
                out.append("| counter | ncu | ncu again | ktune | check |")
                out.append("|---|--:|--:|--:|---|")
            else:
                out.append("| counter | ncu | ktune | check |")
                out.append("|---|--:|--:|---|")
        weights = [number(r.get(DURATION, "nan")) for r in mine]
        w2 = [number(r.get(DURATION, "nan")) for r in mine2]
        note = (v.get("diagnosis") or {}).get("l2_hit_rate_note")
        vfail = 0
        for metric in sorted(raw):
            nv = combine(metric, [number(r.get(metric, "nan")) for r in mine],
                         weights) if mine else math.nan
            nv2 = combine(metric, [number(r.get(metric, "nan"))
                                   for r in mine2], w2) if mine2 else math.nan
            kv = raw[metric]
            text, ok = check(metric, kv, nv, nv2, note)
            vfail += not ok
            cells = (metric, show(nv), show(kv), text)
            if rows2:
                cells = (metric, show(nv), show(nv2), show(kv), text)
            out.append("| " + " | ".join(cells) + " |" if md
                       else "%-66s " % cells[0] + " ".join(
                           "%16s" % c for c in cells[1:-1]) + "  " + cells[-1])
        text, ok = verdict(v.get("diagnosis"), key)
        vfail += not ok
        failed += vfail
        out.append("")
        out.append("diagnosis: %s" % text)
        out.append("RESULT %s: %s" % (key, "FAIL" if vfail else "PASS"))
    print("\n".join(out))
    return failed


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "launches":
        k = json.load(open(sys.argv[2]))
        print(sum(kernels_of(v) for v in k["variants"]))
        return 0
    if len(sys.argv) >= 6 and sys.argv[1] == "table":
        load_truth(sys.argv[5])
        drop = set()
        if "--drop" in sys.argv:
            drop = set(sys.argv[sys.argv.index("--drop") + 1].split(","))
        again = None
        if "--again" in sys.argv:
            again = sys.argv[sys.argv.index("--again") + 1]
        return 1 if table(sys.argv[2], sys.argv[3], sys.argv[4],
                          "--md" in sys.argv, drop, again) else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
