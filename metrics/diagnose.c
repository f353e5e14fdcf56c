// SPDX-License-Identifier: Apache-2.0
#include "metrics/diagnose.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *kt_bound_name(kt_bound b)
{
    switch (b) {
    case KT_BOUND_UNKNOWN: return "unknown";
    case KT_BOUND_MEMORY: return "memory-bound";
    case KT_BOUND_COMPUTE: return "compute-bound";
    case KT_BOUND_LATENCY: return "latency-bound";
    case KT_BOUND_BOTH: return "memory- and compute-bound";
    case KT_BOUND_NONE: return "no single bottleneck";
    }
    return "?";
}

int kt_fp32_lanes_per_sm(int cc_major, int cc_minor)
{
    switch (cc_major) {
    case 7: return 64;
    case 8: return cc_minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12: return 128;
    }
    return 0;
}

double kt_peak_gflops_fp32(const kt_device *dev, double sm_clock_mhz)
{
    return 2.0 * kt_fp32_lanes_per_sm(dev->cc_major, dev->cc_minor) *
           dev->sm_count * sm_clock_mhz / 1e3;
}

double kt_ideal_sectors_per_request(int access_bytes, int warp_size)
{
    double s = (double)warp_size * access_bytes / KT_SECTOR_BYTES;
    return s < 1 ? 1 : ceil(s);
}

double kt_needed_sectors_per_request(double bytes_per_request)
{
    double s = bytes_per_request / KT_SECTOR_BYTES;
    return s < 1 ? 1 : s;
}

static int known(double v)
{
    return !isnan(v);
}

/* One direction's check. With the bytes the instructions asked for, the
 * ideal is what those bytes need per request; a vector re-read by every
 * warp, 16-byte loads and a store by one lane are each judged by their own
 * requests. --access-bytes replaces it with a fixed width. */
static void coalescing_of(double requests, double sectors, double bytes,
                          int access, int warp, kt_coalescing *c)
{
    memset(c, 0, sizeof *c);
    c->bytes = c->bytes_per_request = c->efficiency = NAN;
    if (!known(requests) || !known(sectors) || requests < 0)
        return;
    c->have = 1;
    if (requests == 0)
        return; /* no such instruction: nothing to judge */
    c->have = 1;
    c->requests = requests;
    c->sectors = sectors;
    c->measured = sectors / requests;
    if (known(bytes) && bytes >= 0) {
        c->bytes = bytes;
        c->bytes_per_request = bytes / requests;
        if (sectors > 0)
            c->efficiency = 100.0 * bytes / (sectors * KT_SECTOR_BYTES);
    }
    if (access > 0)
        c->ideal = kt_ideal_sectors_per_request(access, warp);
    else if (c->bytes_per_request > 0)
        c->ideal = kt_needed_sectors_per_request(c->bytes_per_request);
    if (c->ideal > 0) {
        c->excess = c->measured / c->ideal;
        c->uncoalesced = c->excess > KT_DIAG_UNCOALESCED;
    }
}

/* Without throughput counters only the measured ceilings speak: effective
 * bandwidth near the copy ceiling, or arithmetic near the FMA ceiling. */
static void classify_without_counters(const kt_diag_input *in,
                                      kt_diagnosis *out)
{
    double gflops = out->derived.gflops;
    double pct_compute = in->gflops_measured && in->peak_gflops > 0
                             ? 100.0 * gflops / in->peak_gflops
                             : NAN;
    if (in->copy_gbs > 0 && out->derived.pct_of_copy >= KT_DIAG_HIGH) {
        out->bound = KT_BOUND_MEMORY;
        out->unit = "DRAM";
        snprintf(out->why, sizeof out->why,
                 "without counters: effective bandwidth %.1f%% of the copy "
                 "ceiling (>= %.0f%%)",
                 out->derived.pct_of_copy, KT_DIAG_HIGH);
    } else if (known(pct_compute) && pct_compute >= KT_DIAG_HIGH) {
        out->bound = KT_BOUND_COMPUTE;
        snprintf(out->why, sizeof out->why,
                 "without counters: %.0f GFLOP/s, %.1f%% of the measured FMA "
                 "ceiling (>= %.0f%%)",
                 gflops, pct_compute, KT_DIAG_HIGH);
    } else {
        out->bound = KT_BOUND_UNKNOWN;
        snprintf(out->why, sizeof out->why,
                 "no throughput counters%s; effective bandwidth %.1f%% of the "
                 "copy ceiling says nothing alone",
                 in->m ? " collected" : " (profiling off or unavailable)",
                 out->derived.pct_of_copy);
    }
}

/* Memory-bound: a memory unit saturated while the SM is not, or a memory
 * unit that is busy and carries far more than the SM (KT_DIAG_MID,
 * KT_DIAG_DOMINANT). Fills out and returns 1 when it applies. */
static int memory_bound(double dram, double mem, double busiest_mem, double sm,
                        kt_diagnosis *out)
{
    if (busiest_mem >= KT_DIAG_HIGH && sm < KT_DIAG_LOW) {
        out->bound = KT_BOUND_MEMORY;
        out->unit = dram >= KT_DIAG_HIGH ? "DRAM" : "L1/L2";
        if (dram >= KT_DIAG_HIGH)
            snprintf(out->why, sizeof out->why,
                     "DRAM throughput %.1f%% >= %.0f%% of peak, SM throughput "
                     "%.1f%% < %.0f%%",
                     dram, KT_DIAG_HIGH, sm, KT_DIAG_LOW);
        else
            snprintf(out->why, sizeof out->why,
                     "memory throughput %.1f%% >= %.0f%% of peak in the "
                     "caches (DRAM only %.1f%%), SM throughput %.1f%% < "
                     "%.0f%%",
                     mem, KT_DIAG_HIGH, dram, sm, KT_DIAG_LOW);
        return 1;
    }
    if (busiest_mem >= KT_DIAG_MID && sm < KT_DIAG_LOW &&
        busiest_mem >= KT_DIAG_DOMINANT * sm) {
        int in_dram = dram >= KT_DIAG_MID && dram >= KT_DIAG_DOMINANT * sm;
        double busy = in_dram ? dram : busiest_mem;
        out->bound = KT_BOUND_MEMORY;
        out->unit = in_dram ? "DRAM" : "L1/L2";
        snprintf(out->why, sizeof out->why,
                 "%s %.1f%% of peak (>= %.0f%%, not saturated) is the busiest "
                 "unit, %.1fx the SM's %.1f%%",
                 out->unit, busy, KT_DIAG_MID, busy / sm, sm);
        return 1;
    }
    return 0;
}

/* Latency-bound on memory: the memory system carries the work (the busiest
 * memory unit far above the SM) but is not busy (below KT_DIAG_MID), and
 * warps mostly wait on memory results. Bandwidth is then limited by the
 * bytes each SM keeps in flight (Little's law), not by the DRAM: one 4-byte
 * load per thread, or too few warps, cannot cover the memory latency. The
 * fix is more loads in flight (wider or more loads per thread, more warps),
 * not fewer bytes. Fills out and returns 1 when it applies. */
static int memory_latency_bound(double busiest_mem, double sm, double stall,
                                kt_diagnosis *out)
{
    if (!known(stall) || busiest_mem >= KT_DIAG_MID || sm >= KT_DIAG_LOW ||
        busiest_mem < KT_DIAG_DOMINANT * sm || stall < KT_DIAG_STALL_HIGH)
        return 0;
    out->bound = KT_BOUND_LATENCY;
    snprintf(out->why, sizeof out->why,
             "memory throughput %.1f%% < %.0f%% of peak yet %.1fx the SM's "
             "%.1f%%, %.1f%% of warp cycles waiting on memory results (>= "
             "%.0f%%): too few bytes in flight to cover the memory latency",
             busiest_mem, KT_DIAG_MID, busiest_mem / sm, sm, stall,
             KT_DIAG_STALL_HIGH);
    return 1;
}

static void classify(const kt_diag_input *in, kt_diagnosis *out)
{
    const double *m = in->m;
    double dram = m ? m[KT_M_DRAM_THROUGHPUT] : NAN;
    double mem = m ? m[KT_M_MEMORY_THROUGHPUT] : NAN;
    double sm = m ? m[KT_M_SM_THROUGHPUT] : NAN;
    double occ = m ? m[KT_M_ACHIEVED_OCCUPANCY] : NAN;
    double stall = m ? m[KT_M_LONG_SCOREBOARD] : NAN;
    const char *occ_kind = "achieved";
    double busiest_mem;

    out->dram_pct = dram;

    if (!known(occ) && in->theoretical_occupancy >= 0) {
        occ = in->theoretical_occupancy;
        occ_kind = "theoretical";
    }
    if (!known(dram) || !known(sm)) {
        classify_without_counters(in, out);
        return;
    }
    busiest_mem = known(mem) && mem > dram ? mem : dram;
    if (dram >= KT_DIAG_HIGH && sm >= KT_DIAG_HIGH) {
        out->bound = KT_BOUND_BOTH;
        snprintf(out->why, sizeof out->why,
                 "DRAM throughput %.1f%% and SM throughput %.1f%% both >= "
                 "%.0f%% of peak",
                 dram, sm, KT_DIAG_HIGH);
    } else if (memory_bound(dram, mem, busiest_mem, sm, out)) {
        /* classified there */
    } else if (sm >= KT_DIAG_HIGH && dram < KT_DIAG_LOW) {
        out->bound = KT_BOUND_COMPUTE;
        snprintf(out->why, sizeof out->why,
                 "SM throughput %.1f%% >= %.0f%% of peak, DRAM throughput "
                 "%.1f%% < %.0f%%",
                 sm, KT_DIAG_HIGH, dram, KT_DIAG_LOW);
    } else if (memory_latency_bound(busiest_mem, sm, stall, out)) {
        /* classified there */
    } else if (known(occ) && occ < KT_DIAG_OCC_LOW &&
               busiest_mem < KT_DIAG_LOW && sm < KT_DIAG_LOW &&
               (!known(stall) || stall >= KT_DIAG_STALL_HIGH)) {
        out->bound = KT_BOUND_LATENCY;
        if (known(stall))
            snprintf(out->why, sizeof out->why,
                     "%s occupancy %.1f%% < %.0f%%, memory %.1f%% and SM "
                     "%.1f%% throughput < %.0f%%, %.1f%% of warp cycles "
                     "waiting on memory results (>= %.0f%%)",
                     occ_kind, occ, KT_DIAG_OCC_LOW, busiest_mem, sm,
                     KT_DIAG_LOW, stall, KT_DIAG_STALL_HIGH);
        else
            snprintf(out->why, sizeof out->why,
                     "%s occupancy %.1f%% < %.0f%%, memory %.1f%% and SM "
                     "%.1f%% throughput < %.0f%% (stall reasons not "
                     "collected)",
                     occ_kind, occ, KT_DIAG_OCC_LOW, busiest_mem, sm,
                     KT_DIAG_LOW);
    } else {
        char occ_text[32] = "unknown";
        if (known(occ))
            snprintf(occ_text, sizeof occ_text, "%.1f%%", occ);
        out->bound = KT_BOUND_NONE;
        snprintf(out->why, sizeof out->why,
                 "DRAM %.1f%%, busiest memory unit %.1f%%, SM %.1f%% of "
                 "peak, %s occupancy %s: no class's thresholds are met",
                 dram, busiest_mem, sm, occ_kind, occ_text);
    }
}

static void roofline(const kt_diag_input *in, kt_diagnosis *out)
{
    double intensity = out->derived.intensity;

    if (in->peak_gflops > 0 && in->copy_gbs > 0) {
        out->balance = in->peak_gflops / in->copy_gbs;
        out->balance_measured = in->gflops_measured;
    }
    if (!(in->work.flops > 0))
        snprintf(out->roofline, sizeof out->roofline,
                 "the operator declares no arithmetic: intensity 0");
    else if (out->balance > 0)
        snprintf(out->roofline, sizeof out->roofline,
                 "%.3g flop/B against a balance point of %.3g flop/B (%s): %s",
                 intensity, out->balance,
                 out->balance_measured ? "measured FMA and copy ceilings"
                                       : "theoretical FP32 peak, measured copy",
                 intensity < out->balance
                     ? "below it, the memory side bounds this kernel"
                     : "above it, the compute side bounds this kernel");
    else
        snprintf(out->roofline, sizeof out->roofline,
                 "%.3g flop/B; balance point unknown (no ceilings)", intensity);
}

static void describe_coalescing(const kt_diagnosis *d, const char *what,
                                const kt_coalescing *c, char *out,
                                size_t out_size)
{
    char basis[128];

    if (!c->have) {
        snprintf(out, out_size, "%s: not counted", what);
        return;
    }
    if (c->requests == 0) {
        snprintf(out, out_size, "%s: none", what);
        return;
    }
    if (!(c->ideal > 0)) {
        snprintf(out, out_size,
                 "%s: %.2f sectors/request (bytes asked for not counted: no "
                 "ideal; --access-bytes N sets one)",
                 what, c->measured);
        return;
    }
    if (d->access_bytes > 0)
        snprintf(basis, sizeof basis,
                 "ideal %.2f for %d-byte accesses "
                 "(--access-bytes)",
                 c->ideal, d->access_bytes);
    else
        snprintf(basis, sizeof basis,
                 "%.0f B asked for per request need %.2f (%.0f%% of each "
                 "sector's bytes used)",
                 c->bytes_per_request, c->ideal, c->efficiency);
    if (!c->uncoalesced)
        snprintf(out, out_size, "%s: %.2f sectors/request, %s: coalesced", what,
                 c->measured, basis);
    else
        snprintf(out, out_size,
                 "%s: %.2f sectors/request, %s: %.1fx the sectors the data "
                 "needs, uncoalesced",
                 what, c->measured, basis, c->excess);
}

/* The coalescing verdict's sentence, after both directions are checked. */
static void coalescing_text(kt_diagnosis *out)
{
    char ld[320], st[320];
    const kt_coalescing *worst =
        out->load.excess >= out->store.excess ? &out->load : &out->store;
    const char *which = worst == &out->load ? "loads" : "stores";

    describe_coalescing(out, "loads", &out->load, ld, sizeof ld);
    describe_coalescing(out, "stores", &out->store, st, sizeof st);
    /* A compute-bound kernel is limited elsewhere; in every other class an
     * uncoalesced mapping multiplies the traffic the memory units carry. */
    out->cause_uncoalesced =
        worst->uncoalesced && out->bound != KT_BOUND_COMPUTE;
    if (out->cause_uncoalesced)
        snprintf(out->coalescing, sizeof out->coalescing,
                 "%s; %s. The %s are uncoalesced: neighbouring threads of a "
                 "warp touch different 32-byte sectors, so the memory system "
                 "moves %.1fx the sectors the data needs. This is the cause "
                 "to fix first: map consecutive threads to consecutive "
                 "addresses.",
                 ld, st, which, worst->excess);
    else if (worst->uncoalesced)
        snprintf(out->coalescing, sizeof out->coalescing,
                 "%s; %s. Uncoalesced, but the kernel is compute-bound: not "
                 "the limit now.",
                 ld, st);
    else
        snprintf(out->coalescing, sizeof out->coalescing, "%s; %s", ld, st);
}

/* How the profiled launch compares with the unprofiled median. */
static void profiled_vs_timed(const kt_diag_input *in, kt_diagnosis *out)
{
    double ns = in->m ? in->m[KT_M_DURATION] : NAN;
    double off;

    out->profiled_us = NAN;
    out->profiled_ratio = NAN;
    if (!(ns > 0) || !(in->time_us > 0))
        return;
    out->profiled_us = ns / 1e3;
    out->profiled_ratio = out->profiled_us / in->time_us;
    off = out->profiled_ratio - 1.0;
    if (fabs(off) <= KT_DIAG_PROFILED_OFF)
        snprintf(out->profiled, sizeof out->profiled,
                 "the profiled launch took %.2f us, within %.0f%% of the "
                 "unprofiled median %.2f us",
                 out->profiled_us, 100 * KT_DIAG_PROFILED_OFF, in->time_us);
    else if (in->time_us < KT_DIAG_SHORT_US)
        snprintf(out->profiled, sizeof out->profiled,
                 "the profiled kernels took %.2f us against the unprofiled "
                 "median %.2f us: for a launch this short the timed interval "
                 "also holds the launch's own overhead",
                 out->profiled_us, in->time_us);
    else
        snprintf(out->profiled, sizeof out->profiled,
                 "the profiled launch took %.2f us, %.1f%% %s than the "
                 "unprofiled median %.2f us: the percentages of peak are over "
                 "its elapsed cycles and read about that much %s against a "
                 "typical launch",
                 out->profiled_us, 100 * fabs(off),
                 off > 0 ? "longer" : "shorter", in->time_us,
                 off > 0 ? "low" : "high");
}

/* The L2 hit rate of a launch that moves no global data (kt_diagnosis). */
static void l2_hit_rate_of_no_data(const kt_diag_input *in, kt_diagnosis *out)
{
    const double *m = in->m;
    if (!m || !(m[KT_M_L2_HIT_RATE] >= 0) || !(m[KT_M_LD_SECTORS] == 0) ||
        !(m[KT_M_ST_SECTORS] == 0))
        return;
    snprintf(out->l2_hit_note, sizeof out->l2_hit_note,
             "l2_hit_rate %.1f%% is of instruction and parameter fetches "
             "only (no global loads or stores): it depends on what ran "
             "before, whose lines no flush by a kernel evicts",
             m[KT_M_L2_HIT_RATE]);
}

void kt_diagnose(const kt_diag_input *in, kt_diagnosis *out)
{
    int warp = in->warp_size > 0 ? in->warp_size : 32;
    const double *m = in->m;

    memset(out, 0, sizeof *out);
    kt_derive(&in->work, in->time_us, in->copy_gbs, in->peak_bw_gbs,
              &out->derived);
    roofline(in, out);
    classify(in, out);
    profiled_vs_timed(in, out);
    l2_hit_rate_of_no_data(in, out);

    out->access_bytes = in->access_bytes > 0 ? in->access_bytes : 0;
    coalescing_of(m ? m[KT_M_LD_REQUESTS] : NAN, m ? m[KT_M_LD_SECTORS] : NAN,
                  m ? m[KT_M_LD_BYTES] : NAN, out->access_bytes, warp,
                  &out->load);
    coalescing_of(m ? m[KT_M_ST_REQUESTS] : NAN, m ? m[KT_M_ST_SECTORS] : NAN,
                  m ? m[KT_M_ST_BYTES] : NAN, out->access_bytes, warp,
                  &out->store);
    if (!out->load.have && !out->store.have) {
        snprintf(out->coalescing, sizeof out->coalescing,
                 "no request/sector counters");
        return;
    }
    coalescing_text(out);
}
