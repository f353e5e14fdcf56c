// SPDX-License-Identifier: Apache-2.0
/*
 * kt_energy: energy per launch from a device's total-energy counter, the
 * arithmetic only (no NVML, no CUDA), so that it is tested on readings
 * made up on the CPU.
 *
 * The counter (NVML's total energy, millijoules since the driver loaded)
 * does not advance continuously: it changes in steps, every step period,
 * by the energy of that period (the H200's: every ~100 ms, ~50 J at
 * 500 W). A window that starts and ends where the counter changed, with
 * the kernel running back to back throughout, holds whole steps: its
 * energy is exact to the counter's unit, and what is uncertain is only
 * where in time its two edges lie: each within its poll gap (from the read
 * before the change to the read that saw it), plus how much the counter's
 * own update instants wander from step to step (the jitter of the step
 * periods). A window's edges are aligned on changes: it starts at the
 * second change seen after the kernel started (the step ending at the
 * first may hold energy from before the kernel ran) and ends at the first
 * change seen once it is long enough; the power over it is its energy over
 * its time, and the energy per launch is that power times the GPU time per
 * launch in the window (docs/measurement.md, "Energy").
 */
#ifndef KT_ENERGY_H
#define KT_ENERGY_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/stats.h"

/* The protocol in one line, for the measurement protocol record. */
#define KT_ENERGY_PROTOCOL                                                     \
    "NVML total-energy counter (nvmlDeviceGetTotalEnergyConsumption) "         \
    "polled while the point runs back to back, apart from the timing "         \
    "samples; per round and point one window from the second counter change "  \
    "seen after the point started to the first change once window_s passed "   \
    "(edges on counter updates); energy per launch = "                         \
    "window energy / window time x GPU time per launch; power x time "         \
    "(nvmlDeviceGetPowerUsage) beside it as a cross-check"

/* Rounds of one measurement at most; kt_protocol_validate holds
 * energy_rounds to it, so no round is ever dropped. */
#define KT_ENERGY_MAX_ROUNDS 32
/* A window's power above this is no kernel's: the counter was reset (the
 * driver reloaded) between the two reads. */
#define KT_ENERGY_MAX_PLAUSIBLE_W 5000.0
/* Changes seen after the kernel started that open no window: the step
 * that ends at the first holds energy from before the kernel ran. */
#define KT_ENERGY_LEAD_IN 1
/* Changes a window needs at least: the lead-in and its two edges. */
#define KT_ENERGY_MIN_CHANGES (KT_ENERGY_LEAD_IN + 2)
/* The default window (kt_protocol.energy_window_s) and the one tune's
 * searching calls use (the closing re-measurement takes the default).
 * Measured on the H200 (counter step 100 ms): 0.2 s windows (2-3 steps)
 * scattered by +-2% per round and two bench runs a minute apart differed
 * by 2.1%, where a 3 s loop agreed with the meter within 1%; a 1 s window
 * holds 10 steps (docs/results/2026-12-01-h200-energy.md). */
#define KT_ENERGY_WINDOW_S 1.0
#define KT_ENERGY_SEARCH_WINDOW_S 0.25

/* One change of the counter as the host saw it: the value, the time of
 * the read that first showed it and of the read just before (which still
 * showed the previous value). The first reading of a window has
 * t_before_s == t_s. */
typedef struct kt_energy_change {
    double t_s, t_before_s;
    uint64_t mj;
} kt_energy_change;

/* The span of one window between its first and last change. */
typedef struct kt_energy_span {
    double t0_s, t1_s; /* the two edges, as seen */
    uint64_t mj;       /* energy between them (modulo 2^64: a wrap) */
    double power_w;    /* mj / (t1 - t0) */
    size_t changes;    /* counted from the first edge to the last */
    double step_s;     /* median time between successive changes */
    uint64_t step_mj;  /* smallest increment seen */
    double edge_s;     /* the larger of the two edges' poll gaps */
    /* How far the counter's update instants wander: the largest distance
     * of a step period from the nearest multiple of the median period (a
     * skipped update is no wander), over the full steps seen. */
    double jitter_s;
} kt_energy_span;

/* The energy between two counter values: b - a modulo 2^64, so a counter
 * that wrapped past its top reads right. */
uint64_t kt_energy_delta_mj(uint64_t a, uint64_t b);

/* The span of changes c[0..n) (c[0] the first reading, the later ones
 * changes, in time order), starting at change KT_ENERGY_LEAD_IN + 1 after
 * c[0] (c[KT_ENERGY_LEAD_IN + 1]) and ending at the last. KT_S_UNSUPPORTED,
 * saying why, when the window is too short to say anything: fewer than
 * KT_ENERGY_MIN_CHANGES changes after the first reading, a span shorter
 * than min_window_s, or an implied power above KT_ENERGY_MAX_PLAUSIBLE_W
 * (a reset counter). */
kt_status kt_energy_span_of(const kt_energy_change *c, size_t n,
                            double min_window_s, kt_energy_span *out,
                            kt_err *err);

/* A window's relative bound on its power: (edge_s + jitter_s) over its
 * span plus 2 mJ over its energy; 0 for an empty span. */
double kt_energy_resolution(const kt_energy_span *s);

/* What the device did during the windows, from the samples the meter took
 * beside the counter (nvmlDeviceGetPowerUsage, clocks, temperature). */
typedef struct kt_energy_device {
    double sampled_power_w; /* mean of the power readings */
    size_t power_samples;
    double sm_mhz, sm_mhz_min, mem_mhz; /* mean, lowest; mean */
    double temp_c;                      /* highest */
    double power_limit_w;               /* enforced */
} kt_energy_device;

/* One point's energy measurement: a window per round, the rounds
 * interleaved with the other points of the call (ABAB...), as the timing
 * samples are, so that two points' per-round energies pair. */
typedef struct kt_energy {
    int measured; /* 1: the figures below hold a measurement */
    /* Why not measured, or a warning beside a measurement (the
     * cross-check disagreeing); "" when neither. */
    char note[256];
    size_t rounds;
    double samples_j[KT_ENERGY_MAX_ROUNDS]; /* per launch, per round */
    kt_stats joules;                        /* of samples_j */
    double power_w;  /* counter energy / counter time, all windows */
    double window_s; /* the windows' spans, summed */
    uint64_t window_mj;
    uint64_t launches; /* back to back over the windows */
    double launch_us;  /* GPU time per launch over the windows */
    double step_s;     /* counter step period: mean of the rounds' medians */
    double step_mj;    /* counter increment: smallest seen */
    double jitter_s;   /* the counter's update wander: largest of rounds */
    /* Relative bound on a window's power from its edges: (the larger edge
     * poll gap + the counter's jitter) over the span, plus 2 mJ (the two
     * readings' unit) over its energy; the largest over rounds. No step
     * term: the edges are counter updates, so the window holds whole
     * steps. */
    double resolution;
    /* sampled_power_w / power_w - 1: power x time beside the counter. */
    double crosscheck;
    kt_energy_device dev;
} kt_energy;

/* Adds round `round` of a measurement: its span and the GPU time per
 * launch in the window (launch_s, from events around the window's
 * launches; launches their count). KT_S_INPUT when rounds are full. */
kt_status kt_energy_add_round(kt_energy *e, const kt_energy_span *span,
                              double launch_s, uint64_t launches, kt_err *err);

/* Finishes e from its rounds and the device samples: statistics of the
 * per-round energies, the power, the cross-check. e->measured = 1 when at
 * least one round was added. */
void kt_energy_finish(kt_energy *e, const kt_energy_device *dev);

/* Marks e as not measured, with why (printf-style). */
void kt_energy_none(kt_energy *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Energy per unit of work: joules per launch over bytes (J/B) or flops
 * (J/flop); 0 when either is not positive. */
double kt_energy_per(const kt_energy *e, double work);

#endif
