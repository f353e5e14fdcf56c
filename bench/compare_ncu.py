#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cross-check table of bench/compare_ncu.sh: for every variant of one
operator, every raw counter ktune reports next to Nsight Compute's value
for the same kernel(s), and ktune's diagnosis next to the truth.

  compare_ncu.py table KTUNE_JSON NCU_CSV OPERATOR TRUTH_FILE [--md]
                [--drop NAME,NAME...] [--again NCU_CSV2]
                [--kernel-replay NCU_CSV3]
  compare_ncu.py launches KTUNE_JSON   (prints the kernel count)

--again: a second ncu run of the same launches; its values are shown next
to the first (ncu's own run-to-run spread). A value that misses the first
run passes as "within ncu's spread" when it lies within the check's
allowance of the range the two runs span (for a count: between them):
where ncu does not repeat itself, no closer match can be asked for. The
summary counts both ways.

--kernel-replay: an ncu run in kernel replay mode (NCU_CSV being an
application-replay run), shown beside the others for information only:
its memory restore before the kernel adds DRAM writes and L2 hits that
the kernel's own launch does not make.

A percentage of peak over the elapsed time that still misses passes as
"within 2 at ncu's launch time" when the two launches did the same work
(every count equal) and only their durations differ, by at most 5%:
ktune's value scaled by its duration over ncu's is within 2 points of
ncu's, and ktune's profiled launch is within 2% of its own unprofiled
median (so its duration is the application's, not an accident of
profiling). The check says by how much ncu's launch was longer or shorter.

--drop: the CSV holds every launch (ncu had no name filter): rows whose
kernel is one of NAMES (ktune's own) are dropped and the last rows, one
round's worth, are the timed round.

The ncu CSV (--page raw --csv --print-units base) holds one row per
profiled kernel, in launch order, for one round of `ktune compare` (every
variant once, in the JSON's order); variant i owns the next
counters.cost.kernels rows. A variant of several kernels is combined as
ktune combines them (metrics/ranges.h): ".sum" adds up, ".max"/".min" keep
the extreme, anything else is weighted by gpu__time_duration.sum.

Checks: counts (request, sector and requested-byte sums) exactly equal,
the store sectors to ncu's L1TEX count or to its instruction-level one
(SASS_SECTORS below); percentages (pct suffixes) within 2 points, of ncu's
spread or at ncu's launch time as above; the rest is shown for
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
# ncu's instruction-level (SASS-patched, exact) count of the global sectors
# its load, store and atomic instructions touched, which compare_ncu.sh
# asks for beside the L1TEX counters: ncu's L1TEX store-sector count moves
# between its own runs (by up to 10% on saxpy vec4 under application
# replay) while its load-sector count never has, so the sectors stores
# touched are this total less the load sectors (exact for kernels without
# atomics; with them the fallback cannot match and the check stands).
SASS_SECTORS = "smsp__sass_sectors_mem_global.sum"
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
ST_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
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
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r]
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


ELAPSED = ".pct_of_peak_sustained_elapsed"
# ktune's profiled launch against its unprofiled median: the share within
# which ktune's own diagnosis calls the launch typical (KT_DIAG_PROFILED_OFF,
# metrics/diagnose.h).
TYPICAL = 0.02
# The most ncu's launch may differ from ktune's for the comparison at ncu's
# launch time (the H200's largest, vector_add strided under ncu: 3.7%); a
# larger gap is left for a person to look at.
LAUNCH_GAP = 0.05


def launch_scale(v, raw, ncu_duration, counts_equal):
    """ktune's profiled duration over ncu's, when a percentage over the
    elapsed time may be compared at ncu's launch time; NaN when not."""
    kd = raw.get(DURATION)
    prof = ((v.get("diagnosis") or {}).get("profiled") or {}).get("vs_timed")
    if not counts_equal or kd is None or prof is None:
        return math.nan
    if math.isnan(ncu_duration) or ncu_duration <= 0:
        return math.nan
    if abs(prof - 1.0) > TYPICAL or abs(ncu_duration / kd - 1.0) > LAUNCH_GAP:
        return math.nan
    return kd / ncu_duration


def check(name, k, n, n2=math.nan, note=None, scale=math.nan,
          exact=math.nan):
    """The check column and whether it passes; n2 is ncu's second run (NaN
    without one); note ktune's own word on why the value cannot compare;
    scale ktune's launch time over ncu's (launch_scale); exact ncu's
    instruction-level count of the same quantity (SASS_SECTORS)."""
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
        if k == exact:
            return ("equal to ncu's instruction-level count (its L1TEX "
                    "count %+.3f%%)" % (100 * (n / k - 1))), True
        return ("within ncu's spread", True) if lo <= k <= hi else (
            "DIFFERS", False)
    if ".pct" in name or name.endswith("_pct"):
        if abs(k - n) <= POINTS:
            return "within %.0f" % POINTS, True
        if lo - POINTS <= k <= hi + POINTS:
            return "within %.0f of ncu's spread" % POINTS, True
        if name.endswith(ELAPSED) and abs(k * scale - n) <= POINTS:
            return ("within %.0f at ncu's launch time (ncu's launch %+.1f%%; "
                    "ktune %.4g there)" % (POINTS, 100 * (1 / scale - 1),
                                           k * scale)), True
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


def paired(path, drop, total, like):
    """Another ncu run's timed round, or None when it does not pair."""
    if not path:
        return None
    rows = last_round(ncu_rows(path), drop, total)
    return rows if len(rows) == len(like) else None


def row_value(metric, rows):
    weights = [number(r.get(DURATION, "nan")) for r in rows]
    return combine(metric, [number(r.get(metric, "nan")) for r in rows],
                   weights) if rows else math.nan


def exact_store_sectors(rows):
    """ncu's instruction-level count of the sectors stores touched."""
    return row_value(SASS_SECTORS, rows) - row_value(LD_SECTORS, rows)


def counts_equal(raw, rows):
    """Every exact count of the variant equal to ncu's (the same work), the
    store sectors to ncu's L1TEX or its instruction-level figure."""
    keys = [m for m in EXACT if m in raw]
    return bool(keys) and all(
        raw[m] == row_value(m, rows) or
        (m == ST_SECTORS and raw[m] == exact_store_sectors(rows))
        for m in keys)


def table(kjson, ncsv, prefix, md, drop, again=None, kreplay=None):
    with open(kjson) as f:
        k = json.load(f)
    rows = ncu_rows(ncsv)
    variants = k["variants"]
    counts = []
    for v in variants:
        counts.append(kernels_of(v))
    rows = last_round(rows, drop, sum(counts))
    rows2 = paired(again, drop, sum(counts), rows)
    rows3 = paired(kreplay, drop, sum(counts), rows)
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
        mine3 = rows3[at:at + n_k] if n_k and rows3 else []
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
        heads = ["counter", "ncu"] + (["ncu again"] if rows2 else []) + (
            ["ncu kernel replay"] if rows3 else []) + ["ktune", "check"]
        if md:
            out.append("")
            out.append("| " + " | ".join(heads) + " |")
            out.append("|---|" + "--:|" * (len(heads) - 2) + "---|")
        note = (v.get("diagnosis") or {}).get("l2_hit_rate_note")
        scale = launch_scale(v, raw, row_value(DURATION, mine),
                             counts_equal(raw, mine))
        vfail = 0
        for metric in sorted(raw):
            nv = row_value(metric, mine)
            nv2 = row_value(metric, mine2)
            kv = raw[metric]
            exact = exact_store_sectors(mine) if metric == ST_SECTORS else (
                math.nan)
            text, ok = check(metric, kv, nv, nv2, note, scale, exact)
            vfail += not ok
            cells = [metric, show(nv)] + ([show(nv2)] if rows2 else []) + (
                [show(row_value(metric, mine3))] if rows3 else []) + [
                    show(kv), text]
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
        kreplay = None
        if "--kernel-replay" in sys.argv:
            kreplay = sys.argv[sys.argv.index("--kernel-replay") + 1]
        return 1 if table(sys.argv[2], sys.argv[3], sys.argv[4],
                          "--md" in sys.argv, drop, again, kreplay) else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
