// SPDX-License-Identifier: Apache-2.0
/* Helpers of the tuner tests: the plugins they run against, INI files
 * written on the fly, and recorded journals in tests/data. */
#ifndef KT_TUNER_TEST_H
#define KT_TUNER_TEST_H

#include "tests/kt_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/loader.h"

/* vector_add (built in) and good (a test fixture); 0 on success. */
static inline int tt_load_plugins(kt_registry *reg)
{
    kt_err err;
    kt_registry_init(reg);
    if (kt_registry_load_file(reg, KT_BUILTIN_PLUGIN_DIR "/vector_add.so",
                              &err) ||
        kt_registry_load_file(reg, KT_TEST_PLUGIN_DIR "/good_plugin.so",
                              &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

/* The registry a test file's group setup loads with tt_load_plugins and
 * its teardown frees: cmocka_run_group_tests(tests, tt_setup, tt_teardown).
 */
static kt_registry tt_reg;

static inline int tt_setup(void **state)
{
    (void)state;
    return tt_load_plugins(&tt_reg);
}

static inline int tt_teardown(void **state)
{
    (void)state;
    kt_registry_free(&tt_reg);
    return 0;
}

/* Writes text to path (in the test's working folder). */
static inline void tt_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

#define TT_DATA_DIR KT_SOURCE_DIR "/tests/data"

#ifdef KT_TUNE_H
/* What the tuner tests run with: strategy s at its default options, seed
 * 1, three finalists, min_gain 0.5%, the default protocol. */
static inline void tt_config_defaults(kt_tune_config *cfg, const kt_strategy *s)
{
    cfg->strategy = s;
    for (size_t i = 0; i < s->num_options; ++i)
        cfg->options[i] = s->options[i].default_value;
    cfg->seed = 1;
    cfg->finalists = 3;
    cfg->min_gain = 0.005;
    kt_protocol_defaults(&cfg->protocol);
}
#endif

#endif
