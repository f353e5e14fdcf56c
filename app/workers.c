// SPDX-License-Identifier: Apache-2.0
#include "app/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proc.h"
#include "engine/gpu.h"

kt_status kt_cli_workers_init(kt_cli_workers *w, kt_evaluator *primary,
                              size_t n, kt_err *err)
{
    memset(w, 0, sizeof *w);
    w->evs = calloc(n, sizeof *w->evs);
    w->owned = calloc(n, sizeof *w->owned);
    w->records = calloc(n, sizeof *w->records);
    w->envs = calloc(n, sizeof *w->envs);
    if (!w->evs || !w->owned || !w->records || !w->envs) {
        kt_cli_workers_free(w);
        return kt_err_set(err, KT_S_NOMEM, "out of memory");
    }
    w->n = n;
    w->evs[0] = primary;
    return KT_S_OK;
}

kt_status kt_cli_gpu_count(int *count, kt_err *err)
{
    pid_t pid;
    int status = 0;
    kt_status rc;

    *count = 0;
    if ((rc = kt_proc_fork("counting the GPUs", &pid, err)))
        return rc;
    if (pid == 0) {
        int n = kt_gpu_count();
        _exit(n > 250 ? 250 : n);
    }
    kt_proc_reap(pid, &status, 0);
    if (WIFEXITED(status))
        *count = WEXITSTATUS(status);
    if (*count <= 0)
        return kt_err_set(err, KT_S_NO_DEVICE,
                          "--devices all: no CUDA device found on this host");
    return KT_S_OK;
}

static int same_model(const kt_device *a, const kt_device *b)
{
    return a->name && b->name && strcmp(a->name, b->name) == 0 &&
           a->cc_major == b->cc_major && a->cc_minor == b->cc_minor &&
           a->sm_count == b->sm_count && a->l2_bytes == b->l2_bytes;
}

kt_status kt_cli_workers_same_model(const kt_cli_workers *w,
                                    const char *const *labels, kt_err *err)
{
    const kt_device *first = w->evs[0]->ops->device(w->evs[0]);

    for (size_t i = 1; i < w->n; ++i) {
        const kt_device *d = w->evs[i]->ops->device(w->evs[i]);
        if (!same_model(first, d))
            return kt_err_set(
                err, KT_S_INPUT,
                "%s is %s (sm_%d%d, %d SMs) but %s is %s (sm_%d%d, %d SMs): "
                "one run tunes one GPU model, since their times do not rank "
                "together; run one job per model (--devices with the GPUs "
                "of each)",
                labels[i], d->name ? d->name : "?", d->cc_major, d->cc_minor,
                d->sm_count, labels[0], first->name ? first->name : "?",
                first->cc_major, first->cc_minor, first->sm_count);
    }
    return KT_S_OK;
}

kt_status kt_cli_workers_journal(kt_cli_workers *w, kt_journal *j, kt_err *err)
{
    for (size_t i = 0; i < w->n; ++i) {
        kt_status rc;
        w->envs[i] = j ? j->env : 0;
        if (!j || !w->records[i])
            continue;
        rc = kt_journal_environment(j, w->records[i], &w->envs[i], err);
        w->records[i] = NULL; /* stolen */
        if (rc)
            return rc;
    }
    return KT_S_OK;
}

void kt_cli_workers_free(kt_cli_workers *w)
{
    for (size_t i = 0; i < w->n; ++i) {
        if (w->owned && w->owned[i] && w->evs[i])
            w->evs[i]->ops->close(w->evs[i]);
        if (w->records)
            json_decref(w->records[i]);
    }
    free(w->evs);
    free(w->owned);
    free(w->records);
    free(w->envs);
    memset(w, 0, sizeof *w);
}
