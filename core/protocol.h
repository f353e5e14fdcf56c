// SPDX-License-Identifier: Apache-2.0
/*
 * kt_protocol: how a configuration is timed. One struct, so that "identical
 * conditions" is something the code can compare and the results can record.
 * docs/measurement.md explains each field and its default.
 */
#ifndef KT_PROTOCOL_H
#define KT_PROTOCOL_H

/* The most samples (rounds) one measurement takes: [measure] max_samples
 * is at most this, and a record claiming more is refused. */
#define KT_PROTOCOL_MAX_SAMPLES 1000000

#include <stddef.h>

#include "core/error.h"
#include "core/nvml_set.h"

typedef enum kt_cache_mode {
    KT_CACHE_COLD = 0, /* L2 flushed before every sample (the default) */
    KT_CACHE_HOT = 1,  /* no flush: steady state, working set may sit in L2 */
    /* Flushed by writing a buffer (nvbench's way): the L2 is left full of
     * dirty lines whose write-backs compete with the timed kernel. For
     * comparison with tools that flush so. */
    KT_CACHE_COLD_DIRTY = 2
} kt_cache_mode;

typedef struct kt_protocol {
    int warmups;         /* untimed launches before sampling */
    size_t min_samples;  /* never stop before this many */
    size_t max_samples;  /* stop here regardless of noise */
    double min_time_s;   /* GPU time the samples must add up to first */
    double max_time_s;   /* wall-clock cap of one measurement */
    double target_noise; /* stop when the robust relative noise is below */
    kt_cache_mode cache;
    int batch;             /* > 0: also time `batch` back-to-back launches */
    int end_to_end;        /* also time copies + launch + sync + copies */
    unsigned probe_ns;     /* clock probe before each sample; 0 = off */
    double throttle_ratio; /* discard samples whose SM clock is below this
                              fraction of the rated clock */
    /* Racing: a target stops when, at min_samples kept samples (or 4 or 8
     * times that), a lower bound of its median is slower than
     * race_bar_us * (1 + race): it cannot be the best, and a target whose
     * true median is within that margin of the bar stops so with
     * probability at most 2 * 2^-min_samples (core/stop_rule.h). 0: off. */
    double race;
    /* Screening: > 0 makes the search's calls take at most this many
     * samples before the first racing look (min_samples) and at most one
     * warm-up (a point measured again, as in a paired comparison, has no
     * verification launch before it), so a clearly slower point costs a
     * few launches; a point the look cannot rule out goes on to the rule
     * above, and the closing re-measurement of the finalists takes the
     * full protocol. Needs race > 0; at most min_samples. 0: off. The
     * job's [measure] screen_samples. */
    size_t screen_samples;
    /* Per call, set by the caller: the fastest median known before the
     * call (0: none, no racing). */
    double race_bar_us;
    /* Per call, for an objective that divides a point's time by its own
     * work (GFLOP/s, GB/s), where one bar in time would race out a point
     * that does more work in more time: the best cost known before the
     * call, in us per unit of that work (race_bar_work: KT_BAR_FLOPS or
     * KT_BAR_BYTES, read plus written). The evaluator, which knows each
     * point's work, makes the call's race_bar_us of it
     * (kt_protocol_bar_of_work). 0: none. */
    double race_bar_us_per_work;
    int race_bar_work;
    /* Per call: the targets are measured for their paired ratios with
     * target 0 (a comparison); once every other target stopped, target 0
     * stops too, its later samples having no partner. */
    int race_pairs;
    /* Energy (engine/energy_meter.h): 1 measures each verified point's
     * energy after its timing, in energy_rounds interleaved windows of at
     * least energy_window_s each, where NVML answers. 0: off. */
    int energy;
    size_t energy_rounds;
    double energy_window_s;
    /* 1: a round of samples is never queued while the one before is read
     * (the behaviour before overlapping rounds, to measure what the
     * overlap gains; KTUNE_ROUND_SYNC=1). 0: rounds overlap where no
     * target restores its inputs. */
    int round_sync;
    /* The flush after the profiler's start: 0 "clean" (write the flush
     * buffer and discard its lines, leaving the L2 empty as Nsight
     * Compute's cache control does), 1 "sweep" (read twice the L2: full
     * of clean lines of the flush buffer; KTUNE_PROFILE_FLUSH=sweep). */
    int profile_flush_sweep;
} kt_protocol;

/* The defaults of `ktune bench`: nvbench's stopping rule (at least 10
 * samples and 0.5 s of GPU time, 0.5% noise, 15 s cap), cold cache. */
void kt_protocol_defaults(kt_protocol *p);

/* Checks ranges; the message names the field. */
kt_status kt_protocol_validate(const kt_protocol *p, kt_err *err);

/* A noise target: "0.5%" is 0.5 percent (0.005); a bare number is a
 * fraction (0.005). A bare number of at least KT_NOISE_PERCENT_LOOKALIKE
 * is more likely nvbench's percent (--max-noise 0.5 means 0.5%): *suspect
 * is set so the caller warns; the value keeps its fraction meaning.
 * KT_S_INPUT unless 0 <= value < 1. */
#define KT_NOISE_PERCENT_LOOKALIKE 0.1
kt_status kt_noise_parse(const char *text, const char *what, double *out,
                         int *suspect, kt_err *err);

/* The warning for a suspect noise value, on stderr (one line). */
void kt_noise_warn(const char *what, double value);

/* "cold", "hot", "cold-dirty". */
const char *kt_cache_mode_name(kt_cache_mode mode);
/* The mode a name means; KT_S_INPUT naming the three otherwise. */
kt_status kt_cache_mode_parse(const char *name, kt_cache_mode *mode,
                              kt_err *err);

/* What race_bar_us_per_work is per. */
enum { KT_BAR_NONE = 0, KT_BAR_FLOPS = 1, KT_BAR_BYTES = 2 };

/* The time bar (us) race_bar_us_per_work gives a target of this work:
 * the best cost times the work; 0 (no racing) when p has no such bar or
 * the work is unknown. */
double kt_protocol_bar_of_work(const kt_protocol *p, double flops,
                               double bytes);

#endif
