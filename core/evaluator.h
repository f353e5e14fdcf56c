/*
 * kt_evaluator: the one narrow interface behind which all CUDA work happens.
 *
 * Callers (bench, the tuner, compare) hand it points and get back verified
 * timings; they never touch a CUDA context. The local implementation runs
 * in this process; a worker implementation runs the local one in a child
 * process (so a faulting kernel cannot take the caller down); a replay
 * implementation answers from recorded results without a GPU.
 */
#ifndef KT_EVALUATOR_H
#define KT_EVALUATOR_H

#include <jansson.h>
#include <stddef.h>

#include "core/calibrate.h"
#include "core/error.h"
#include "core/loader.h"
#include "core/measure.h"
#include "core/point.h"
#include "core/protocol.h"

typedef enum kt_eval_status {
    KT_EVAL_OK = 0,
    KT_EVAL_INVALID,  /* constraint, device limit or launch refused */
    KT_EVAL_MISMATCH, /* verification failed */
    KT_EVAL_ERROR,    /* a plugin callback or CUDA call failed */
    KT_EVAL_EXEC,     /* the kernel faulted; the context was lost */
    KT_EVAL_CRASH,    /* the process evaluating it died */
    KT_EVAL_TIMEOUT   /* it exceeded the time limit */
} kt_eval_status;

typedef struct kt_eval_result {
    kt_eval_status status;
    char reason[1024]; /* why it is not OK */
    kt_shape shape;
    kt_timing timing; /* when OK; samples owned, kt_eval_result_free() */
} kt_eval_result;

typedef struct kt_evaluator kt_evaluator;

typedef struct kt_evaluator_ops {
    const char *kind; /* "local", "worker", "replay" */

    /* Verifies each point (once per point for the evaluator's lifetime,
     * then cached) and measures the verified ones together in interleaved
     * rounds under protocol p. out[i] belongs to pts[i]. Returns non-OK only
     * when the evaluator itself cannot go on (e.g. KT_S_EXEC: the context
     * is lost); per-point failures are in out[i].status. */
    kt_status (*evaluate)(kt_evaluator *ev, const kt_point *pts, size_t n,
                          const kt_protocol *p, kt_eval_result *out,
                          kt_err *err);

    /* Device facts plugins see; valid until close. */
    const kt_device *(*device)(kt_evaluator *ev);

    /* The device's calibration (measured or cached; refresh forces it). */
    kt_status (*calibration)(kt_evaluator *ev, int refresh, kt_calibration *out,
                             kt_err *err);

    /* The environment record of the device and plugin (new reference). */
    json_t *(*environment)(kt_evaluator *ev);

    /* The algorithm's work at the session's size. */
    const kt_work *(*work)(kt_evaluator *ev);

    void (*close)(kt_evaluator *ev);
} kt_evaluator_ops;

struct kt_evaluator {
    const kt_evaluator_ops *ops;
};

/* What an evaluator serves: one operator at one problem size. */
typedef struct kt_eval_spec {
    const kt_loaded_plugin *plugin;
    const kt_operator *op;
    int64_t sizes[KT_MAX_SIZES];
    uint64_t seed;
    int device;           /* CUDA ordinal */
    int check_boundaries; /* verify at boundary sizes too */
    int log_level;        /* kt_log_level for plugin messages */
} kt_eval_spec;

/* Opens the in-process evaluator: selects the device, sets up the problem
 * instance, opens the meter. KT_S_NO_DEVICE without a GPU. */
kt_status kt_local_open(const kt_eval_spec *spec, kt_evaluator **out,
                        kt_err *err);

void kt_eval_result_free(kt_eval_result *r);

const char *kt_eval_status_name(kt_eval_status s);

/* Maps a kt_status from verification to the result's status. */
kt_eval_status kt_eval_status_from(kt_status s);

#endif
