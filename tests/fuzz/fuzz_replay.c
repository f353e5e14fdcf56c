// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target: the replay evaluator (tune --replay, compare --replay)
 * over a recorded journal against the vector_add operator: open it, ask for
 * the recorded optimum of the whole space, evaluate the default point of
 * every variant, close. Any input must be answered or refused with a
 * message, never a crash, a leak or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>

#include "core/loader.h"
#include "records/replay.h"
#include "records/space.h"
#include "tests/fuzz/fuzz_input.h"

static kt_registry reg;
static const kt_loaded_plugin *lp;
static const kt_operator *op;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    op = kt_fuzz_vector_add(&reg, &lp);
    return 0;
}

static void exercise(kt_evaluator *ev)
{
    kt_protocol p;
    kt_space space;
    kt_point best;
    kt_stats stats;
    kt_err err;

    kt_protocol_defaults(&p);
    for (uint32_t v = 0; v < op->num_variants; ++v) {
        kt_point pt;
        kt_eval_result r;
        kt_point_default(op, v, &pt);
        if (ev->ops->evaluate(ev, &pt, 1, &p, &r, &err) == KT_S_OK)
            kt_eval_result_free(&r);
    }
    if (kt_space_init(&space, NULL, op, &err) == KT_S_OK) {
        kt_space_bind(&space, kt_replay_sizes(ev), kt_replay_seed(ev),
                      ev->ops->device(ev));
        kt_replay_optimum(ev, &space, &best, &stats, &err);
        kt_space_free(&space);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = kt_fuzz_file(data, size);
    kt_evaluator *ev = NULL;
    kt_err err;

    if (!path)
        return 0;
    kt_err_clear(&err);
    if (kt_replay_open(path, lp, op, NULL, &ev, &err) == KT_S_OK) {
        exercise(ev);
        ev->ops->close(ev);
    } else if (!err.msg[0]) {
        abort();
    }
    return 0;
}
