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

int kt_infer_access_bytes(double bytes, double requests, int warp_size)
{
    double per_thread, best_err = INFINITY;
    int best = 0;

    if (!(bytes > 0) || !(requests > 0) || warp_size <= 0)
        return 0;
    per_thread = bytes / requests / warp_size;
    for (int w = 1; w <= 16; w *= 2) {
        double e = fabs(log2(per_thread / w));
        if (e < best_err) {
            best_err = e;
            best = w;
        }
    }
    /* More than a factor sqrt(2) away from any width: the kernel does not
     * load each byte once, and the count says nothing about the width. */
    return best_err <= 0.5 ? best : 0;
}

static int known(double v)
{
    return !isnan(v);
}

static void coalescing_of(double requests, double sectors, int access, int warp,
                          kt_coalescing *c)
{
    memset(c, 0, sizeof *c);
    if (!known(requests) || !known(sectors) || !(requests > 0))
        return;
    c->have = 1;
    c->requests = requests;
    c->sectors = sectors;
    c->measured = sectors / requests;
    if (access > 0) {
        c->ideal = kt_ideal_sectors_per_request(access, warp);
        c->excess = c->measured / c->ideal;
        c->uncoalesced = c->excess > KT_DIAG_UNCOALESCED;
    }
}

/* DRAM utilisation of the kernel itself: the counted DRAM bytes over the
 * unprofiled median time, against the theoretical peak. The counter's own
 * percentage is relative to the profiled range, which also holds launch and
 * synchronisation time, and reads low for short kernels (65% here against
 * 29% for vector_add at 2^24 on the H200; Nsight Compute: 67%). NaN when
 * the bytes were not counted. */
static double kernel_dram_pct(const kt_diag_input *in)
{
    const double *m = in->m;
    double bytes;
    if (!m || !known(m[KT_M_DRAM_READ_BYTES]) ||
        !known(m[KT_M_DRAM_WRITE_BYTES]) || !(in->time_us > 0) ||
        !(in->peak_bw_gbs > 0))
        return NAN;
    bytes = m[KT_M_DRAM_READ_BYTES] + m[KT_M_DRAM_WRITE_BYTES];
    return 100.0 * bytes / (in->time_us * 1e-6) / (in->peak_bw_gbs * 1e9);
}

static void classify(const kt_diag_input *in, kt_diagnosis *out)
{
    const double *m = in->m;
    double dram = kernel_dram_pct(in);
    double mem = m ? m[KT_M_MEMORY_THROUGHPUT] : NAN;
    double sm = m ? m[KT_M_SM_THROUGHPUT] : NAN;
    double occ = m ? m[KT_M_ACHIEVED_OCCUPANCY] : NAN;
    double stall = m ? m[KT_M_LONG_SCOREBOARD] : NAN;
    const char *occ_kind = "achieved";
    double busiest_mem;

    if (!known(dram))
        dram = m ? m[KT_M_DRAM_THROUGHPUT] : NAN;
    out->dram_pct = dram;

    if (!known(occ) && in->theoretical_occupancy >= 0) {
        occ = in->theoretical_occupancy;
        occ_kind = "theoretical";
    }
    if (!known(dram) || !known(sm)) {
        /* Without throughput counters only the effective bandwidth speaks,
         * and only for the memory side. */
        if (in->copy_gbs > 0 && out->derived.pct_of_copy >= KT_DIAG_HIGH) {
            out->bound = KT_BOUND_MEMORY;
            out->unit = "DRAM";
            snprintf(out->why, sizeof out->why,
                     "without counters: effective bandwidth %.1f%% of the "
                     "copy ceiling (>= %.0f%%)",
                     out->derived.pct_of_copy, KT_DIAG_HIGH);
        } else {
            out->bound = KT_BOUND_UNKNOWN;
            snprintf(out->why, sizeof out->why,
                     "no throughput counters%s; effective bandwidth %.1f%% "
                     "of the copy ceiling says nothing alone",
                     m ? " collected" : " (profiling off or unavailable)",
                     out->derived.pct_of_copy);
        }
        return;
    }
    busiest_mem = known(mem) && mem > dram ? mem : dram;
    if (dram >= KT_DIAG_HIGH && sm >= KT_DIAG_HIGH) {
        out->bound = KT_BOUND_BOTH;
        snprintf(out->why, sizeof out->why,
                 "DRAM throughput %.1f%% and SM throughput %.1f%% both >= "
                 "%.0f%% of peak",
                 dram, sm, KT_DIAG_HIGH);
    } else if (busiest_mem >= KT_DIAG_HIGH && sm < KT_DIAG_LOW) {
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
    } else if (sm >= KT_DIAG_HIGH && dram < KT_DIAG_LOW) {
        out->bound = KT_BOUND_COMPUTE;
        snprintf(out->why, sizeof out->why,
                 "SM throughput %.1f%% >= %.0f%% of peak, DRAM throughput "
                 "%.1f%% < %.0f%%",
                 sm, KT_DIAG_HIGH, dram, KT_DIAG_LOW);
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

    if (in->peak_gflops > 0 && in->copy_gbs > 0)
        out->balance = in->peak_gflops / in->copy_gbs;
    if (!(in->work.flops > 0))
        snprintf(out->roofline, sizeof out->roofline,
                 "the operator declares no arithmetic: intensity 0");
    else if (out->balance > 0)
        snprintf(out->roofline, sizeof out->roofline,
                 "%.3g flop/B against a balance point of %.3g flop/B: %s",
                 intensity, out->balance,
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
    if (!c->have) {
        snprintf(out, out_size, "%s: not counted", what);
        return;
    }
    if (!(c->ideal > 0)) {
        snprintf(out, out_size,
                 "%s: %.2f sectors/request (access width unknown, no ideal)",
                 what, c->measured);
        return;
    }
    if (!c->uncoalesced) {
        snprintf(out, out_size,
                 "%s: %.2f sectors/request, ideal %.0f for %d-byte accesses: "
                 "coalesced",
                 what, c->measured, c->ideal, d->access_bytes);
        return;
    }
    snprintf(out, out_size,
             "%s: %.2f sectors/request, ideal %.0f for %d-byte accesses "
             "(%.1fx): uncoalesced",
             what, c->measured, c->ideal, d->access_bytes, c->excess);
}

void kt_diagnose(const kt_diag_input *in, kt_diagnosis *out)
{
    int warp = in->warp_size > 0 ? in->warp_size : 32;
    const double *m = in->m;
    double ld_req = m ? m[KT_M_LD_REQUESTS] : NAN;
    double st_req = m ? m[KT_M_ST_REQUESTS] : NAN;
    char ld[256], st[256];
    const kt_coalescing *worst;

    memset(out, 0, sizeof *out);
    kt_derive(&in->work, in->time_us, in->copy_gbs, in->peak_bw_gbs,
              &out->derived);
    roofline(in, out);
    classify(in, out);

    out->access_bytes = in->access_bytes;
    if (out->access_bytes <= 0) {
        out->access_bytes =
            known(ld_req) && ld_req > 0
                ? kt_infer_access_bytes(in->work.bytes_read, ld_req, warp)
            : known(st_req)
                ? kt_infer_access_bytes(in->work.bytes_written, st_req, warp)
                : 0;
        out->access_inferred = out->access_bytes > 0;
    }
    coalescing_of(ld_req, m ? m[KT_M_LD_SECTORS] : NAN, out->access_bytes, warp,
                  &out->load);
    coalescing_of(st_req, m ? m[KT_M_ST_SECTORS] : NAN, out->access_bytes, warp,
                  &out->store);
    if (!out->load.have && !out->store.have) {
        snprintf(out->coalescing, sizeof out->coalescing,
                 "no request/sector counters");
        return;
    }
    describe_coalescing(out, "loads", &out->load, ld, sizeof ld);
    describe_coalescing(out, "stores", &out->store, st, sizeof st);
    worst = out->load.excess >= out->store.excess ? &out->load : &out->store;
    /* A compute-bound kernel is limited elsewhere; in every other class an
     * uncoalesced mapping multiplies the traffic the memory units carry. */
    out->cause_uncoalesced =
        worst->uncoalesced && out->bound != KT_BOUND_COMPUTE;
    if (out->cause_uncoalesced)
        snprintf(out->coalescing, sizeof out->coalescing,
                 "%s; %s. The thread-to-data mapping is uncoalesced: "
                 "neighbouring threads of a warp touch different 32-byte "
                 "sectors, so the memory system moves %.1fx the sectors the "
                 "data needs. This is the cause to fix first: map "
                 "consecutive threads to consecutive addresses.",
                 ld, st, worst->excess);
    else if (worst->uncoalesced)
        snprintf(out->coalescing, sizeof out->coalescing,
                 "%s; %s. Uncoalesced, but the kernel is compute-bound: not "
                 "the limit now.",
                 ld, st);
    else
        snprintf(out->coalescing, sizeof out->coalescing, "%s; %s", ld, st);
}
