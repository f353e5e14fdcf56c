#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Synthetic tuning journals for the replay tests, until real exhaustive
recordings from the H200 are committed next to them.

Each file is what `ktune tune --set strategy.name=exhaustive` would journal
(format 1, docs/configs.md): a header with the H200's device record and
calibration, then one record per point, raw samples included. Timings come
from a model of the H200 (va_bandwidth() and good_time() below: anchored on
the H200's published figures, not measured); every header
says "synthetic": true.

  vector_add-synthetic-n<N>.jsonl  the vector_add space at n = 2^20, 2^24,
                                   2^28: one-element mappings, grid-stride,
                                   float4 with items per thread
  good-synthetic.jsonl             the good test plugin's space: a smooth
                                   bowl with points that fail verification,
                                   fault, error, and one that is missing
  vector_add-synthetic-counters-n<N>.jsonl
  good-synthetic-counters.jsonl    the same runs recorded with a [metrics]
                                   section (journal format 2): after each
                                   point that ran, a profile record with the
                                   kernel facts and the default counter set
                                   from a model (counters_va(), counters_
                                   good() below; shaped like the H200's, not
                                   measured), at n = 2^24 and 2^28 for
                                   vector_add

Deterministic: the same files on every run. Usage:
  python3 tools/gen_synthetic.py [OUTPUT_DIR]
  python3 tools/gen_synthetic.py --add-requested FILE...   (see add_requested)
"""
import json
import math
import random
import sys
from pathlib import Path

SM_COUNT = 132
H200 = {
    "name": "NVIDIA H200", "uuid": "GPU-5ynth371-c000-0000-0000-000000000000",
    "pci_bus_id": "0000:19:00.0", "compute_capability": "9.0",
    "cc_major": 9, "cc_minor": 0, "sm_count": SM_COUNT,
    "l2_bytes": 62914560, "global_mem_bytes": 150754820096,
    "sm_clock_mhz": 1980.0, "mem_clock_mhz": 3201.0, "bus_width_bits": 6016,
    "peak_bw_gbs": 4814.6, "driver_version": 13000, "runtime_version": 13000,
    "ecc": 1, "compute_mode": 0,
    "limits": {
        "warp_size": 32, "max_threads_per_block": 1024,
        "max_threads_per_sm": 2048, "max_blocks_per_sm": 32,
        "regs_per_sm": 65536, "regs_per_block": 65536,
        "shared_mem_per_block": 49152, "shared_mem_per_block_optin": 232448,
        "shared_mem_per_sm": 233472, "max_grid": [2147483647, 65535, 65535],
        "max_block": [1024, 1024, 64]}}
CALIBRATION = {
    "version": 1, "uuid": H200["uuid"], "gpu": "NVIDIA H200",
    "driver_version": 13000, "date": "2026-01-01T00:00:00Z",
    "copy_bytes": 1073741824.0, "copy_gbs": 4185.0, "peak_bw_gbs": 4814.6,
    "launch_floor_us": 6.7, "launch_sync_us": 9.5, "l2_bytes": 62914560.0,
    "sweep": []}
PROTOCOL = {
    "timing_scope": "kernel interval: CUDA events recorded in the launch "
    "stream, a clock probe kernel queued before each sample",
    "statistic": "per-sample median (min, mean, stddev, quartiles kept)",
    "warmups": 2, "min_samples": 10, "max_samples": 300, "min_time_s": 0.05,
    "max_time_s": 3.0, "target_noise": 0.01, "cache": "cold", "batch": 0,
    "end_to_end": False, "probe_ns": 20000, "throttle_ratio": 0.75,
    "noise_estimate": "1.4826 * MAD / median"}


# ------------------------------------------------------------ statistics
# The same definitions as core/stats.c, so replayed timings look measured.

def quantile(s, p):
    h = p * (len(s) - 1)
    lo = math.floor(h)
    if lo + 1 >= len(s):
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def ci_ranks(n, level=0.95):
    alpha, tail, j = (1 - level) / 2, 0.0, 0
    for k in range(n // 2):
        tail += math.exp(math.lgamma(n + 1) - math.lgamma(k + 1)
                         - math.lgamma(n - k + 1) - n * math.log(2))
        if tail > alpha:
            break
        j = k
    return j, n - 1 - j


def stats(x):
    s = sorted(x)
    n = len(s)
    mean = sum(s) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0
    med = quantile(s, 0.5)
    q1, q3 = quantile(s, 0.25), quantile(s, 0.75)
    mad = quantile(sorted(abs(v - med) for v in s), 0.5)
    lo, hi = ci_ranks(n)
    return {"n": n, "median": med, "min": s[0], "max": s[-1], "mean": mean,
            "stddev": sd, "q1": q1, "q3": q3, "rel_spread": (q3 - q1) / med,
            "rel_stddev": sd / mean, "noise": 1.4826 * mad / med,
            "ci_lo": s[lo], "ci_hi": s[hi]}


def timing(rng, true_us, sigma):
    """Samples as the stopping rule would take them: at least 10 and 0.05 s
    of kernel time, at most 300."""
    n = max(10, min(300, math.ceil(0.05e6 / true_us)))
    samples = []
    for _ in range(n):
        t = true_us * math.exp(rng.gauss(0, sigma))
        if rng.random() < 0.02:  # an occasional slow sample
            t *= 1 + rng.uniform(0.03, 0.15)
        samples.append(round(t, 4))
    return {"unit": "us", "kernel": stats(samples), "rounds": n,
            "discarded": 0, "min_clock_mhz": 1755.0,
            "median_clock_mhz": 1980.0, "stop_reason":
            "noise target" if n < 300 else "max samples",
            "gpu_time_s": sum(samples) * 1e-6,
            "wall_time_s": sum(samples) * 1e-6 * 1.8 + 0.002,
            "samples_us": samples}


def ruggedness(key, amount):
    """A fixed pseudo-random factor per point: real spaces are not smooth."""
    return 1 + amount * (random.Random(key).random() - 0.5)


# ------------------------------------------------------------- vector_add

POW2 = [32, 64, 128, 256, 512, 1024]
VA_VARIANTS = [
    ("coalesced", {"block": POW2}),
    ("strided", {"block": POW2}),
    ("grid_stride", {"block": POW2, "blocks_per_sm": [1, 2, 4, 8, 16, 32]}),
    ("vec4", {"block": POW2, "items": [1, 2, 4, 8]}),
]


def va_shape(variant, p, n):
    b = p["block"]
    if variant in ("coalesced", "strided"):
        grid = -(-n // b)
    elif variant == "grid_stride":
        grid = p["blocks_per_sm"] * SM_COUNT
    else:
        n4, tail = n // 4, n % 4
        grid = -(-n4 // (b * p["items"]))
        if grid * b < tail:
            grid = -(-tail // b)
        grid = max(grid, 1)
    return {"grid": [grid, 1, 1], "block": [b, 1, 1],
            "dynamic_smem_bytes": 0}


def va_check(variant, p):
    if variant != "grid_stride":
        return None
    b, per = p["block"], p["blocks_per_sm"]
    if per * b > 2048 or per > 32:
        return ("constraint: %d blocks of %d threads do not fit on one SM "
                "(2048 threads, 32 blocks at most)" % (per, b))
    return None


def va_bandwidth(variant, p, n):
    """GB/s of the algorithm's 12 n bytes at 2^28, H200-like: the one-
    element mapping follows the measured 2515 / 3454 / 3249 / 2971 GB/s at
    block 128 / 256 / 512 / 1024 (the H200's published figures)."""
    b = p["block"]
    if variant == "coalesced":
        bw = {32: 1420, 64: 2230, 128: 2515, 256: 3454, 512: 3249,
              1024: 2971}[b]
    elif variant == "strided":
        bw = {32: 262, 64: 251, 128: 236, 256: 216, 512: 203, 1024: 194}[b]
    elif variant == "grid_stride":
        resident = b * p["blocks_per_sm"]
        bw = 3760 * (1 - math.exp(-resident / 520.0))
        bw *= {32: 0.80, 64: 0.93}.get(b, 1.0)
    else:
        fb = {32: 0.72, 64: 0.90, 128: 0.985, 256: 1.0, 512: 0.995,
              1024: 0.972}[b]
        fi = {1: 0.955, 2: 1.0, 4: 0.996, 8: 0.984}[p["items"]]
        bw = 4205 * fb * fi
        # Few blocks at small n leave SMs idle.
        blocks = (n // 4) / (b * p["items"])
        if blocks < 4 * SM_COUNT:
            bw *= max(0.25, blocks / (4 * SM_COUNT))
    return bw


def va_time(variant, p, n):
    bytes_moved = 12.0 * n
    bw = va_bandwidth(variant, p, n)
    if n <= 1 << 20:
        # 12.6 MB: launch and ramp-up dominate; bandwidth matters less.
        bw = 0.55 * bw + 600
        floor = 3.2
    elif n <= 1 << 24:
        bw *= 0.93
        floor = 2.6
    else:
        floor = 2.5
    key = "%s %s %d" % (variant, sorted(p.items()), n)
    return (floor + bytes_moved / (bw * 1e3)) * ruggedness(key, 0.012)


# ------------------------------------------------------------- good:scale

GOOD_VARIANTS = [
    ("tiled", {"block": POW2, "unroll": [1, 2, 4], "pad": [0, 4, 8],
               "layout": ["rows", "cols"]}),
    ("plain", {"block": [64, 128, 256, 512]}),
]


def good_check(variant, p):
    if variant == "tiled" and p["block"] * p["unroll"] > 2048:
        return "constraint: block x unroll > 2048"
    return None


def good_shape(variant, p, n):
    return {"grid": [-(-n // p["block"]), 1, 1],
            "block": [p["block"], 1, 1], "dynamic_smem_bytes": 0}


def good_outcome(variant, p):
    """Failures placed where a careless strategy would look: the fastest
    looking corner fails verification."""
    if variant == "tiled" and p["pad"] == 8 and p["layout"] == "cols" and \
            p["block"] >= 512:
        return "mismatch", "verification failed: c[17] = nan, expected 0.25"
    if variant == "tiled" and p["block"] == 32 and p["unroll"] == 1 and \
            p["pad"] == 8 and p["layout"] == "rows":
        return ("execution-error",
                "an illegal memory access was encountered")
    if variant == "plain" and p["block"] == 512:
        return "error", "launch(): the plugin reported a failure"
    if variant == "plain" and p["block"] == 64:
        return "missing", ""
    return "ok", ""


def good_time(variant, p, n):
    # A separable bowl, optimum at tiled block=256 unroll=2 pad=4 rows.
    if variant == "plain":
        return 30.0 + 4 * abs(math.log2(p["block"]) - 7)
    b = abs(math.log2(p["block"]) - 8)
    return 10.0 * (1 + 0.09 * b * b) * (1 + 0.07 * abs(p["unroll"] - 2)) \
        * (1 + 0.05 * abs(p["pad"] - 4) / 4) \
        * (1.0 if p["layout"] == "rows" else 1.06)


# ------------------------------------------------------------- counters
# The default counter set of metrics/catalog.c, in the order the tuner asks
# for it, and a model of what the H200 would count. The tuner reads "raw"
# and "kernel"; the other fields are there for people.

DEFAULT_ITEMS = [
    ("achieved_occupancy", "%"), ("global_load_requests", "requests"),
    ("global_load_sectors", "sectors"),
    ("global_load_sectors_per_request", "sectors/request"),
    ("global_store_requests", "requests"),
    ("global_store_sectors", "sectors"),
    ("global_store_sectors_per_request", "sectors/request"),
    ("dram_bytes_read", "bytes"), ("dram_bytes_written", "bytes"),
    ("dram_throughput", "% of peak"), ("memory_throughput", "% of peak"),
    ("sm_throughput", "% of peak"), ("l1_hit_rate", "%"),
    ("l2_hit_rate", "%"), ("long_scoreboard_stalls", "% of warp cycles"),
    ("global_load_bytes_requested", "bytes"),
    ("global_store_bytes_requested", "bytes"),
    ("global_load_efficiency", "%"), ("global_store_efficiency", "%"),
    ("profiled_duration", "ns")]
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
LD_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
LD_SECT = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
ST_REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
ST_SECT = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
DRAM_RD = "dram__bytes_read.sum"
DRAM_WR = "dram__bytes_write.sum"
DRAM_TP = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_TP = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
SM_TP = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
L1_HIT = "l1tex__t_sector_hit_rate.pct"
L2_HIT = "lts__t_sector_hit_rate.pct"
STALL = "smsp__warps_issue_stalled_long_scoreboard.sum"
ACTIVE = "smsp__warps_active.sum"
LD_BYTES = "smsp__sass_data_bytes_mem_global_op_ld.sum"
ST_BYTES = "smsp__sass_data_bytes_mem_global_op_st.sum"
LD_EFF = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
ST_EFF = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
DURATION = "gpu__time_duration.sum"
DEFAULT_RAW = [OCC, LD_REQ, LD_SECT, ST_REQ, ST_SECT, DRAM_RD, DRAM_WR,
               DRAM_TP, MEM_TP, SM_TP, L1_HIT, L2_HIT, STALL, ACTIVE,
               LD_BYTES, ST_BYTES, LD_EFF, ST_EFF, DURATION]
ITEM_RAW = {
    "achieved_occupancy": [OCC], "global_load_requests": [LD_REQ],
    "global_load_sectors": [LD_SECT],
    "global_load_sectors_per_request": [LD_SECT, LD_REQ],
    "global_store_requests": [ST_REQ], "global_store_sectors": [ST_SECT],
    "global_store_sectors_per_request": [ST_SECT, ST_REQ],
    "dram_bytes_read": [DRAM_RD], "dram_bytes_written": [DRAM_WR],
    "dram_throughput": [DRAM_TP], "memory_throughput": [MEM_TP],
    "sm_throughput": [SM_TP], "l1_hit_rate": [L1_HIT],
    "l2_hit_rate": [L2_HIT], "long_scoreboard_stalls": [STALL, ACTIVE],
    "global_load_bytes_requested": [LD_BYTES],
    "global_store_bytes_requested": [ST_BYTES],
    "global_load_efficiency": [LD_EFF], "global_store_efficiency": [ST_EFF],
    "profiled_duration": [DURATION]}


def requested(raw, t_us, width):
    """The SASS counters of a kernel whose every warp-wide request asks
    for 32 threads x `width` bytes, and the profiled duration. (Added to
    the committed recordings in place by --add-requested.)"""
    raw[LD_BYTES] = raw[LD_REQ] * 32 * width
    raw[ST_BYTES] = raw[ST_REQ] * 32 * width
    raw[LD_EFF] = 100.0 * raw[LD_BYTES] / (32 * raw[LD_SECT])
    raw[ST_EFF] = 100.0 * raw[ST_BYTES] / (32 * raw[ST_SECT])
    raw[DURATION] = 1e3 * t_us
    return raw
METRICS_HEADER = {"counters": [name for name, _ in DEFAULT_ITEMS],
                  "raw": DEFAULT_RAW, "points": "every", "top": None,
                  "collect_counters": True}


def occupancy(block, regs, grid):
    """Theoretical occupancy on sm_90 (metrics/occupancy.c's arithmetic
    for kernels without shared memory) and the occupancy the grid can
    reach (the resident blocks capped by the blocks the grid gives each
    SM), in percent."""
    warps = -(-block // 32)
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = (4 * (16384 // per_warp)) // warps if per_warp else 32
    blocks = min(64 // warps, by_regs, 32)
    limit = "warps" if blocks == 64 // warps else \
        "registers" if blocks == by_regs else "blocks per SM"
    reach = min(blocks, -(-grid // SM_COUNT))
    return 100.0 * blocks * warps / 64, limit, 100.0 * reach * warps / 64, \
        blocks


def profile_record(variant, params, shape, t_us, raw, regs, n_passes=10):
    block, grid = shape["block"][0], shape["grid"][0]
    theo, limit, _, blocks = occupancy(block, regs, grid)
    metrics = []
    for name, unit in DEFAULT_ITEMS:
        r = ITEM_RAW[name]
        if len(r) == 1:
            v = raw[r[0]]
        elif name == "long_scoreboard_stalls":
            v = 100.0 * raw[r[0]] / raw[r[1]]
        else:
            v = raw[r[0]] / raw[r[1]]
        metrics.append({"name": name, "value": v, "unit": unit, "raw": r,
                        "kind": "catalog"})
    setup = 0.28
    passes = n_passes * (t_us * 1e-6 + 150e-6)
    return {"point": {"variant": variant, "params": params},
            "config": "%s %s" % (variant, " ".join(
                "%s=%s" % kv for kv in params.items())),
            "status": "ok", "reason": "", "shape": shape, "counters": "ok",
            "note": "", "raw": {k: raw[k] for k in DEFAULT_RAW},
            "metrics": metrics,
            "kernel": {"available": True, "num_regs": regs,
                       "block_threads": block, "max_threads_per_block": 1024,
                       "ptx_version": 90, "binary_version": 90,
                       "api_blocks_per_sm": blocks,
                       "reserved_smem_per_block": 1024,
                       "static_smem_bytes": 0, "dynamic_smem_bytes": 0,
                       "max_dynamic_smem_bytes": 232448,
                       "local_bytes_per_thread": 0, "const_bytes": 0},
            "occupancy": {"theoretical_pct": theo, "blocks_per_sm": blocks,
                          "warps_per_block": -(-block // 32),
                          "limited_by": limit},
            "cost": {"passes": n_passes, "setup_s": setup,
                     "passes_s": passes, "evaluate_s": 0.004,
                     "total_s": setup + passes + 0.004,
                     "per_pass_s": passes / n_passes}}


VA_REGS = {"coalesced": 16, "strided": 16, "grid_stride": 22,
           ("vec4", 1): 26, ("vec4", 2): 32, ("vec4", 4): 40,
           ("vec4", 8): 56}


def counters_va(variant, p, n, shape, t_us):
    """vector_add's counters: requests and sectors follow from the mapping
    exactly (4 sectors per request for 4-byte words, 32 when neighbouring
    threads are a row apart, 16 for float4); DRAM bytes from the algorithm
    plus a mapping-dependent excess; occupancy from the occupancy the grid
    can reach; throughputs from bytes over time. Range-based percentages
    include the launch around the kernel, as they do on the H200."""
    key = "%s %s %d counters" % (variant, sorted(p.items()), n)
    rng = random.Random(key)
    block, grid = shape["block"][0], shape["grid"][0]
    regs = VA_REGS[(variant, p["items"])] if variant == "vec4" \
        else VA_REGS[variant]
    theo, _, reach, _ = occupancy(block, regs, grid)
    if variant == "vec4":
        ld_req, st_req, per_req = 2 * n // 128, n // 128, 16
    else:
        ld_req, st_req = 2 * n // 32, n // 32
        per_req = 32 if variant == "strided" else 4
    excess = 1.0
    if variant == "strided":
        excess = 1.35 if n <= 1 << 24 else 2.1
    rd = 8.0 * n * excess * (1 + 0.004 * rng.random())
    wr = 4.0 * n * (0.96 if n <= 1 << 24 else 0.995)
    dram = (rd + wr) / (t_us * 1e-6) / (H200["peak_bw_gbs"] * 1e9) * 100
    ranged = dram * t_us / (t_us + 9.0)
    mem = ranged if variant != "strided" else min(92.0, 55 + 30 * rng.random())
    achieved = min(reach, theo) * (0.93 - 0.1 * rng.random())
    active = 1e4 * t_us * achieved
    stall = 0.62 + 0.2 * rng.random() if achieved < 50 or dram < 50 \
        else 0.45 + 0.1 * rng.random()
    raw = {OCC: achieved, LD_REQ: float(ld_req),
           LD_SECT: float(ld_req * per_req), ST_REQ: float(st_req),
           ST_SECT: float(st_req * per_req), DRAM_RD: rd, DRAM_WR: wr,
           DRAM_TP: ranged, MEM_TP: mem,
           SM_TP: 6 + 12 * rng.random(),
           L1_HIT: 0.0 if variant != "strided" else 20 * rng.random(),
           L2_HIT: 30 + 20 * rng.random(), STALL: active * stall,
           ACTIVE: active}
    requested(raw, t_us, 16 if variant == "vec4" else 4)
    return profile_record(variant, p, shape, t_us, raw, regs)


def counters_good(variant, p, n, shape, t_us):
    """good:scale is tiny (n = 1024, a few blocks on 132 SMs): every point
    is latency-bound; layout = cols reads a column of a row-major tile, 32
    sectors per request against the ideal 4."""
    key = "%s %s %d counters" % (variant, sorted(p.items()), n)
    rng = random.Random(key)
    block, grid = shape["block"][0], shape["grid"][0]
    theo, _, reach, _ = occupancy(block, 32, grid)
    per_req = 32 if p.get("layout") == "cols" else 4
    rd, wr = 4.0 * n * (8 if per_req == 32 else 1), 4.0 * n
    ranged = (rd + wr) / ((t_us + 9.0) * 1e-6) / (H200["peak_bw_gbs"] * 1e9)
    achieved = min(reach, theo) * (0.9 - 0.1 * rng.random())
    active = 1e4 * t_us * achieved
    raw = {OCC: achieved, LD_REQ: n / 32.0, LD_SECT: n / 32.0 * per_req,
           ST_REQ: n / 32.0, ST_SECT: n / 32.0 * 4, DRAM_RD: rd,
           DRAM_WR: wr, DRAM_TP: 100 * ranged,
           MEM_TP: 100 * ranged + (25 if per_req == 32 else 5),
           SM_TP: 3 + 3 * rng.random(), L1_HIT: 0.0, L2_HIT: 40.0,
           STALL: active * (0.7 + 0.1 * rng.random()), ACTIVE: active}
    requested(raw, t_us, 4)
    return profile_record(variant, p, shape, t_us, raw, 32)


def with_counters(head, records, model, n):
    """The records of a run with [metrics] points = every: a profile record
    after each point that ran, the header in format 2."""
    head = dict(head, format=2, metrics=METRICS_HEADER)
    out = []
    for r in records:
        out.append(r)
        if r["kind"] != "eval" or r["status"] != "ok" or \
                r["purpose"] != "measure":
            continue
        rec = model(r["point"]["variant"], r["point"]["params"], n,
                    r["shape"], r["timing"]["kernel"]["median"])
        rec.update({"kind": "profile", "env": 0,
                    "elapsed_s": round(r["elapsed_s"] +
                                       rec["cost"]["total_s"], 6),
                    "time": "2026-01-01T00:00:00Z"})
        out.append(rec)
    return head, out


# ------------------------------------------------------ hard gemv spaces
# The gemv plugin's declared spaces (plugins/gemv/gemv.cu) with a model that
# is hard on purpose, for the strategy benchmark: each variant a bowl in the
# indices of its parameter values, with ridges (pairs of parameters whose
# best values move together, so that no single change from the default
# helps: d_i = d_j two steps off the optimum costs more to break than it
# saves), a second basin for the float4 variant's other schedule, a fixed
# per-point ruggedness of +-1.5%, 0.4% sample noise, and the cuBLAS
# reference fastest at the defaults but beaten by the tuned float4 variant.
# Anchored on the H200 figures (gemv:atx 65536 x 4096: float4
# default 294.8 us, cuBLAS 258.3 us, best 238.0 us), not measured point by
# point. Points the plugin refuses on the host are recorded too; replay
# never sends them.

def pow2(lo, hi):
    v, out = lo, []
    while v <= hi:
        out.append(v)
        v *= 2
    return out


UNROLL = [1, 2, 4, 8]
GEMV_SPACES = {
    "ax": [
        ("vec4", {"block": pow2(32, 1024), "threads_per_row": pow2(1, 1024),
                  "rows_per_thread": [1, 2, 4], "unroll": UNROLL,
                  "split": [1, 2, 4, 8, 16], "cache": [0, 1],
                  "schedule": [0, 1]}),
        ("thread_row", {"block": pow2(32, 1024)}),
        ("warp_row", {"block": pow2(32, 1024), "unroll": UNROLL}),
        ("block_rows", {"block": pow2(32, 1024),
                        "rows_per_block": pow2(1, 1024)}),
        ("cublas", {})],
    "atx": [
        ("vec4", {"block": pow2(32, 1024), "col_threads": pow2(8, 1024),
                  "unroll": UNROLL,
                  "split": [1, 2, 4, 8, 16, 32, 64, 128, 256],
                  "cache": [0, 1], "schedule": [0, 1]}),
        ("thread_col", {"block": pow2(32, 1024)}),
        ("warp_col", {"block": pow2(32, 1024)}),
        ("col_split_atomic", {"block": pow2(32, 1024), "unroll": UNROLL,
                              "split": [1, 2, 4, 8, 16, 32, 64, 128, 256]}),
        ("col_split_2pass", {"block": pow2(32, 1024), "unroll": UNROLL,
                             "split": [1, 2, 4, 8, 16, 32, 64]}),
        ("cublas", {})],
}
# Per variant: best time (us), the optimum as value per parameter, the
# bowl's curvature per index step, ridges (i, j, weight), and a second
# basin (parameter, value, its best time, its optimum overrides).
GEMV_MODEL = {
    "ax": {
        "vec4": (248.6, {"block": 128, "threads_per_row": 128,
                         "rows_per_thread": 1, "unroll": 8, "split": 1,
                         "cache": 0, "schedule": 0}, 0.012,
                 [("block", "threads_per_row", 0.06),
                  ("unroll", "rows_per_thread", 0.05)],
                 ("schedule", 1, 250.9, {"block": 512, "unroll": 4,
                                         "threads_per_row": 64})),
        "warp_row": (256.6, {"block": 1024, "unroll": 8}, 0.015, [], None),
        "block_rows": (262.0, {"block": 512, "rows_per_block": 4}, 0.02,
                       [("block", "rows_per_block", 0.05)], None),
        "thread_row": (2900.0, {"block": 128}, 0.03, [], None),
        "cublas": (252.1, {}, 0, [], None)},
    "atx": {
        "vec4": (238.0, {"block": 512, "col_threads": 16, "unroll": 8,
                         "split": 256, "cache": 0, "schedule": 0}, 0.010,
                 [("block", "col_threads", 0.05), ("unroll", "split", 0.04)],
                 ("schedule", 1, 240.6, {"block": 256, "col_threads": 32,
                                         "split": 64})),
        "col_split_atomic": (262.5, {"block": 256, "unroll": 8,
                                     "split": 128}, 0.012,
                             [("unroll", "split", 0.04)], None),
        "col_split_2pass": (268.0, {"block": 256, "unroll": 4, "split": 32},
                            0.012, [], None),
        "thread_col": (610.0, {"block": 256}, 0.03, [], None),
        "warp_col": (1900.0, {"block": 256}, 0.03, [], None),
        "cublas": (258.3, {}, 0, [], None)},
}


BPS = [1, 2, 4, 8, 16, 32]
VEC4 = {"block": pow2(32, 1024), "items": [1, 2, 4, 8], "blocks_per_sm": BPS,
        "schedule": [0, 1]}
REDUCE_SPACE = [
    ("last_block", VEC4),
    ("interleaved_divergent", {"block": pow2(32, 1024)}),
    ("interleaved", {"block": pow2(32, 1024)}),
    ("sequential", {"block": pow2(32, 1024)}),
    ("first_add", {"block": pow2(32, 1024)}),
    ("unroll_warp", {"block": pow2(32, 1024)}),
    ("shuffle", {"block": pow2(32, 1024), "items": [1, 2, 4, 8, 16]}),
    ("two_pass", VEC4), ("atomic", VEC4), ("cub", {})]
# The float4 variants within 1-2% of each other at their best, their
# in-flight loads (items x blocks_per_sm) a ridge; CUB 2.4% off the best
# and ahead of every variant at its defaults (block 256, items 4,
# blocks_per_sm 4, occupancy).
REDUCE_MODEL = {
    "last_block": (246.0, {"block": 512, "items": 8, "blocks_per_sm": 16,
                           "schedule": 1}, 0.008,
                   [("items", "blocks_per_sm", 0.03)], None),
    "two_pass": (248.5, {"block": 256, "items": 8, "blocks_per_sm": 8,
                         "schedule": 1}, 0.008,
                 [("items", "blocks_per_sm", 0.03)], None),
    "atomic": (250.0, {"block": 1024, "items": 4, "blocks_per_sm": 16,
                       "schedule": 0}, 0.008,
               [("items", "blocks_per_sm", 0.03)], None),
    "shuffle": (268.0, {"block": 256, "items": 8}, 0.02, [], None),
    "unroll_warp": (330.0, {"block": 256}, 0.03, [], None),
    "first_add": (420.0, {"block": 256}, 0.03, [], None),
    "sequential": (600.0, {"block": 256}, 0.03, [], None),
    "interleaved": (800.0, {"block": 256}, 0.03, [], None),
    "interleaved_divergent": (1200.0, {"block": 256}, 0.03, [], None),
    "cub": (252.0, {}, 0, [], None)}
GEMV_SPACES["sum"] = REDUCE_SPACE
GEMV_MODEL["sum"] = REDUCE_MODEL


def gemv_defaults(op, variant):
    """The declared defaults (gemv.cu), as values."""
    d = {"block": 256, "threads_per_row": 32, "rows_per_thread": 1,
         "unroll": 4, "split": 1 if op == "ax" else 16, "cache": 0,
         "schedule": 0, "rows_per_block": 8, "col_threads": 64}
    if variant in ("thread_row", "thread_col", "warp_col"):
        d["block"] = 128
    return d


def bowl(params, p, best, opt, curv, ridges):
    d = {k: params[k].index(p[k]) - params[k].index(opt[k]) for k in opt}
    pen = sum(curv * v * v for v in d.values())
    pen += sum(w * (d[i] - d[j]) ** 2 for i, j, w in ridges)
    return best * (1 + pen)


def gemv_time(op, variant, params, p):
    best, opt, curv, ridges, second = GEMV_MODEL[op][variant]
    if not params:
        return best
    t = bowl(params, p, best, opt, curv, ridges)
    if second and p[second[0]] == second[1]:
        # The other schedule: a basin of its own, its optimum elsewhere.
        key, value, best2, moved = second
        opt2 = dict(opt, **moved)
        opt2[key] = value
        t = bowl(params, p, best2, opt2, curv, ridges)
    key = "%s:%s:%s" % (op, variant, sorted(p.items()))
    return t * ruggedness(key, 0.03)


def gemv_shape(variant, p):
    return {"grid": [1, 1, 1], "block": [p.get("block", 256), 1, 1],
            "dynamic_smem_bytes": 0}


def gemv(out_dir, op, m, n, samples=12, plugin="gemv"):
    rng = random.Random("%s-%d-%d" % (op, m, n))
    records, call, elapsed = [], 0, 0.0
    for variant, p in points(GEMV_SPACES[op]):
        true_us = gemv_time(op, variant, dict(GEMV_SPACES[op])[variant], p)
        xs = sorted(round(true_us * math.exp(rng.gauss(0, 0.004)), 4)
                    for _ in range(samples))
        rng.shuffle(xs)
        t = {"unit": "us", "kernel": stats(xs), "rounds": samples,
             "discarded": 0, "min_clock_mhz": 1755.0,
             "median_clock_mhz": 1980.0, "stop_reason": "noise target",
             "gpu_time_s": max(0.05, sum(xs) * 1e-6),
             "wall_time_s": max(0.05, sum(xs) * 1e-6) * 1.3 + 0.01,
             "samples_us": xs}
        call += 1
        elapsed += t["wall_time_s"] + 0.02
        records.append(eval_record(call, 0, 1, "measure", elapsed, variant,
                                   p, "ok", "", gemv_shape(variant, p), t))
    labels = {"cache": ["default", "streaming"],
              "schedule": ["occupancy", "loads_first"]}
    space = [(v, {k: (labels[k] if k in labels else vals)
                  for k, vals in prm.items()}) for v, prm in GEMV_SPACES[op]]
    for r in records:
        for k, names in labels.items():
            if k in r["point"]["params"]:
                r["point"]["params"][k] = names[r["point"]["params"][k]]
    sizes = {"m": m, "n": n} if plugin == "gemv" else {"n": n}
    head = header(plugin, "1.0.0", op, sizes, space,
                  {"model": "hard %s-like space with ridges, basins and the "
                   "vendor reference fastest at the defaults, see "
                   "gen_synthetic.py" % plugin})
    path = out_dir / ("%s_%s-synthetic-%s.jsonl" % (
        plugin, op, "-".join("%s%d" % kv for kv in sizes.items())))
    write_journal(path, head, records)
    return path


# --------------------------------------------------------------- writing

def points(variants):
    for vid, params in variants:
        names = list(params)
        total = 1
        for k in names:
            total *= len(params[k])
        for idx in range(total):
            rest, point = idx, {}
            for k in reversed(names):
                point[k] = params[k][rest % len(params[k])]
                rest //= len(params[k])
            yield vid, {k: point[k] for k in names}


def header(plugin, version, op, sizes, variants, extra):
    space_size = 0
    space = []
    for vid, params in variants:
        count = 1
        for values in params.values():
            count *= len(values)
        space_size += count
        space.append({"id": vid, "points": count, "params": params})
    env = {"device": H200, "plugin": {
        "name": plugin, "version": version, "path": "synthetic",
        "abi": "1.0", "cuda_runtime_version": 13000, "cuda_archs": "900",
        "compiler": "synthetic", "build_date": "synthetic"},
        "host": {"ktune_version": "0.1.0", "git_commit": "synthetic",
                 "build_flags": "synthetic", "date": "2026-01-01T00:00:00Z",
                 "host": "synthetic", "command_line":
                 "python3 tools/gen_synthetic.py"},
        "protocol": PROTOCOL, "calibration": CALIBRATION, "id": 0}
    h = {"kind": "ktune.journal", "format": 1,
         "created": "2026-01-01T00:00:00Z",
         "plugin_spec": "%s:%s" % (plugin, op),
         "plugin": {k: v for k, v in env["plugin"].items() if k != "path"},
         "operator": op, "sizes": sizes, "seed": 1,
         "space": {"size": space_size, "variants": space},
         "protocol": PROTOCOL,
         "strategy": {"name": "exhaustive", "seed": 1, "max_evals": 0,
                      "max_seconds": 0.0, "finalists": 3,
                      "min_gain": 0.005, "options": {}},
         "environment": env, "synthetic": True}
    h.update(extra)
    return h


def write_journal(path, head, records):
    with open(path, "w") as f:
        f.write(json.dumps(head, separators=(",", ":")) + "\n")
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def eval_record(call, slot, of, purpose, elapsed, variant, params, status,
                reason, shape, tim):
    r = {"point": {"variant": variant, "params": params}, "status": status,
         "reason": reason, "shape": shape, "kind": "eval", "call": call,
         "slot": slot, "of": of, "purpose": purpose, "env": 0,
         "elapsed_s": round(elapsed, 6), "time": "2026-01-01T00:00:00Z"}
    if tim is not None:
        r["timing"] = tim
    return r


def vector_add(out_dir, log2n):
    n = 1 << log2n
    rng = random.Random(1000 + log2n)
    sigma = {20: 0.012, 24: 0.005, 28: 0.003}[log2n]
    records, call, elapsed, valid = [], 0, 0.0, []
    for variant, p in points(VA_VARIANTS):
        why = va_check(variant, p)
        if why:
            records.append({"kind": "check", "point": {
                "variant": variant, "params": p}, "status": "invalid",
                "reason": why, "env": 0})
            continue
        call += 1
        t = timing(rng, va_time(variant, p, n), sigma)
        elapsed += t["wall_time_s"] + 0.35
        records.append(eval_record(call, 0, 1, "measure", elapsed, variant,
                                   p, "ok", "", va_shape(variant, p, n), t))
        valid.append((t["kernel"]["median"], variant, p))
    # The closing re-measurement of the three best, as a real run ends.
    valid.sort(key=lambda v: v[0])
    call += 1
    for slot, (_, variant, p) in enumerate(valid[:3]):
        t = timing(rng, va_time(variant, p, n), sigma)
        elapsed += t["wall_time_s"]
        records.append(eval_record(call, slot, 3, "final", elapsed, variant,
                                   p, "ok", "", va_shape(variant, p, n), t))
    head = header("vector_add", "1.0.0", "add", {"n": n}, VA_VARIANTS,
                  {"model": "H200-like vector_add, see gen_synthetic.py"})
    write_journal(out_dir / ("vector_add-synthetic-n%d.jsonl" % n), head,
                  records)
    if log2n in (24, 28):
        head, records = with_counters(head, records, counters_va, n)
        write_journal(out_dir / ("vector_add-synthetic-counters-n%d.jsonl"
                                 % n), head, records)


def good(out_dir):
    n = 1024
    rng = random.Random(7)
    records, call, elapsed = [], 0, 0.0
    for variant, p in points(GOOD_VARIANTS):
        why = good_check(variant, p)
        if why:
            records.append({"kind": "check", "point": {
                "variant": variant, "params": p}, "status": "invalid",
                "reason": why, "env": 0})
            continue
        status, reason = good_outcome(variant, p)
        if status == "missing":
            continue
        call += 1
        t = timing(rng, good_time(variant, p, n), 0.004) \
            if status == "ok" else None
        elapsed += 0.01
        records.append(eval_record(call, 0, 1, "measure", elapsed, variant,
                                   p, status, reason,
                                   good_shape(variant, p, n), t))
    head = header("good", "0.1", "scale", {"n": n}, GOOD_VARIANTS,
                  {"model": "separable bowl with failures, see "
                   "gen_synthetic.py"})
    write_journal(out_dir / "good-synthetic.jsonl", head, records)
    head, records = with_counters(head, records, counters_good, n)
    write_journal(out_dir / "good-synthetic-counters.jsonl", head, records)


def add_requested(path):
    """Adds the SASS data-bytes counters and the profiled duration to every
    profile record (and the header's metric set) of a synthetic recording
    made before they were part of the default set, leaving every other
    value as it was."""
    lines = Path(path).read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        r = json.loads(line)
        if i == 0 and "metrics" in r:
            r["metrics"] = METRICS_HEADER
        elif r.get("kind") == "profile" and r.get("counters") == "ok" and \
                LD_BYTES not in r["raw"]:
            width = 16 if r["point"]["variant"] == "vec4" else 4
            t_us = r["cost"]["per_pass_s"] * 1e6 - 150.0
            raw = requested(dict(r["raw"]), t_us, width)
            r["raw"] = {k: raw[k] for k in DEFAULT_RAW}
            for name in ("global_load_bytes_requested",
                         "global_store_bytes_requested",
                         "global_load_efficiency", "global_store_efficiency",
                         "profiled_duration"):
                item_raw = ITEM_RAW[name]
                r["metrics"].append({"name": name, "value": raw[item_raw[0]],
                                     "unit": dict(DEFAULT_ITEMS)[name],
                                     "raw": item_raw, "kind": "catalog"})
        out.append(json.dumps(r, separators=(",", ":")))
    Path(path).write_text("\n".join(out) + "\n")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--add-requested":
        for path in sys.argv[2:]:
            add_requested(path)
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--hard":
        # Large (7-15 MB each): written where asked, not committed.
        out_dir = Path(sys.argv[2])
        out_dir.mkdir(parents=True, exist_ok=True)
        print(gemv(out_dir, "atx", 65536, 4096))
        print(gemv(out_dir, "ax", 16384, 16384))
        print(gemv(out_dir, "sum", 0, 1 << 28, plugin="reduce"))
        return
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else \
        Path(__file__).resolve().parent
    for log2n in (20, 24, 28):
        vector_add(out_dir, log2n)
    good(out_dir)


if __name__ == "__main__":
    main()
