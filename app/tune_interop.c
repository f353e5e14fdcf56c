// SPDX-License-Identifier: Apache-2.0
/* ktune tune with Kernel Tuner's files and words: a T1 file run as a whole
 * job (core/t1_job.h), --kt-cache (records/ktcache_write.h), and Kernel
 * Tuner's strategy names in the help (tuner/strategy_names.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/tune_impl.h"
#include "core/msg.h"
#include "core/t1_job.h"
#include "records/ktcache_write.h"
#include "tuner/strategy_names.h"
#include "tuner/tune_job.h"

/* Kernel Tuner's strategy names and what runs them, from the table
 * (tuner/strategy_names.c), so the help and the mapping cannot differ. */
void kt_tune_app_print_aliases(FILE *out)
{
    size_t col = 0;

    fputs("\nKernel Tuner's names run as (~: the closest ktune has; "
          "docs/kernel-tuner.md):\n",
          out);
    for (size_t i = 0; i < kt_strategy_alias_count(); ++i) {
        const kt_strategy_alias *a = kt_strategy_alias_at(i);
        size_t len = strlen(a->name) + strlen(a->ktune) + 7;
        if (col && col + len > 72) {
            fputs("\n", out);
            col = 0;
        }
        col += (size_t)fprintf(out, " %s -> %s%s%s", a->name,
                               a->same ? "" : "~", a->ktune,
                               i + 1 < kt_strategy_alias_count() ? "," : ".\n");
    }
}

/* --kt-cache: the current size's file, started before the search. */
kt_status kt_tune_app_open_kt_cache(const tune_args *a, tune_run *t,
                                    const kt_tune_setup *setup,
                                    kt_ktcache_writer **out, kt_err *err)
{
    char path[PATH_MAX];
    kt_tune_facts facts;
    kt_status rc;

    *out = NULL;
    if (!a->kt_cache)
        return KT_S_OK;
    kt_tune_app_size_path(t, a->kt_cache, path);
    kt_tune_facts_from_job(&t->job, setup, &t->cfg, &facts);
    if ((rc = kt_ktcache_writer_open(path, &facts, out, err)))
        return rc;
    t->cfg.on_entry = kt_ktcache_writer_on_entry;
    t->cfg.on_entry_ctx = *out;
    return KT_S_OK;
}

kt_status kt_tune_app_close_kt_cache(kt_ktcache_writer *cache,
                                     const kt_tune_result *r, kt_status st,
                                     kt_err *err)
{
    if (!st && kt_ktcache_writer_finals(cache, r, err))
        st = err->status;
    if (kt_ktcache_writer_close(cache, st ? NULL : err))
        st = err->status;
    return st;
}

const char *kt_tune_app_named(const tune_args *a)
{
    return a->t1 ? a->t1 : a->config;
}

/* The T1 file's own count, before anything else is loaded, so --check
 * gives it even where ktune cannot run the job. */
static kt_status print_t1_count(const char *path, kt_err *err)
{
    unsigned long long product, count;
    kt_status rc = kt_t1_job_count(path, &product, &count, err);

    if (!rc)
        printf("T1 file %s: %llu point(s) in its Cartesian product, %llu "
               "after its Conditions\n",
               path, product, count);
    return rc;
}

/* The declaration written where it is read from: a folder of its own
 * under TMPDIR, named after the T1 file (so is the journal, in the
 * current folder). */
static kt_status write_ini(tune_args *a, const char *text, kt_err *err)
{
    const char *tmp = getenv("TMPDIR"), *base = strrchr(a->t1, '/');
    const char *dot;
    FILE *f;
    int len;

    base = base ? base + 1 : a->t1;
    dot = strrchr(base, '.');
    len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(a->t1_dir, sizeof a->t1_dir, "%s/ktune-t1-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(a->t1_dir)) {
        a->t1_dir[0] = '\0';
        return kt_err_set(err, KT_S_IO,
                          "%s: cannot make a folder for its "
                          "declaration: %s",
                          a->t1, strerror(errno));
    }
    if (snprintf(a->t1_ini, sizeof a->t1_ini, "%s/%.*s.ini", a->t1_dir, len,
                 base) >= (int)sizeof a->t1_ini)
        return kt_err_set(err, KT_S_INPUT, "%s: the name is too long", a->t1);
    if (!(f = fopen(a->t1_ini, "w")) || fputs(text, f) < 0 || fclose(f)) {
        a->t1_ini[0] = '\0';
        return kt_err_set(err, KT_S_IO,
                          "%s: cannot write its declaration: "
                          "%s",
                          a->t1, strerror(errno));
    }
    return KT_S_OK;
}

kt_status kt_tune_app_t1_open(tune_args *a, kt_err *err)
{
    char *text = NULL;
    kt_status rc;

    kt_t1_kind kind = a->config ? kt_t1_kind_of(a->config) : KT_T1_NOT_JSON;

    if (kind == KT_T1_OTHER_JSON || kind == KT_T1_SPACE_ONLY)
        return kt_err_set(
            err, KT_S_INPUT,
            "%s is JSON, not a tuning job (INI, docs/configs.md)%s; another "
            "tool's recording replays with --replay %s",
            a->config,
            kind == KT_T1_SPACE_ONLY
                ? ": a T1 file with a ConfigurationSpace and no "
                  "KernelSpecification is a space, which a declaration "
                  "imports (space = FILE, docs/declared.md); with a "
                  "KernelSpecification, ktune tune runs it as a whole job"
                : "",
            a->config);
    if (kind != KT_T1_JOB)
        return KT_S_OK;
    a->t1 = a->config;
    if (a->check && (rc = print_t1_count(a->t1, err)))
        return rc;
    if ((rc = kt_t1_job_ini(a->t1, &text, err)))
        return rc;
    rc = write_ini(a, text, err);
    free(text);
    if (!rc)
        a->config = a->t1_ini;
    return rc;
}

void kt_tune_app_t1_close(const tune_args *a, int rc)
{
    if (a->t1_ini[0] && rc != KT_EXIT_OK) {
        kt_msg("the declaration ktune made of %s is kept: %s\n", a->t1,
               a->t1_ini);
        return;
    }
    if (a->t1_ini[0])
        unlink(a->t1_ini);
    if (a->t1_dir[0])
        rmdir(a->t1_dir);
}
