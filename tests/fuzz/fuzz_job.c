// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target: the tuning-job layer (INI through iniparser, then
 * ktune's own checks, line lookup and --set overrides). Any input must give
 * a job or a KT_S_INPUT-class error with a message, never a crash, a leak
 * or undefined behaviour. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/loader.h"
#include "tests/fuzz/fuzz_input.h"
#include "tuner/job.h"

static kt_registry reg;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    kt_registry_init(&reg);
    reg.probe_timeout_ms = 0; /* no fork per plugin inside the fuzzer */
    kt_registry_load_dir(&reg, KT_BUILTIN_PLUGIN_DIR, 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The last line, when it looks like an override, is also tried as
     * --set: overrides go through their own parser. */
    char *set = NULL, *sets[1];
    const char *path;
    kt_job job;
    kt_err err;
    size_t num_sets = 0;

    if (size > 1 && size < 256 && memchr(data, '=', size) &&
        (set = malloc(size + 1))) {
        memcpy(set, data, size);
        set[size] = '\0';
        set[strcspn(set, "\n")] = '\0';
        sets[0] = set;
        num_sets = strchr(set, '.') ? 1 : 0;
    }
    path = kt_fuzz_file(data, size);
    if (path && kt_job_load(path, sets, num_sets, &reg, &job, &err) == KT_S_OK)
        kt_job_free(&job);
    else if (path && !err.msg[0])
        abort(); /* every failure must say why */
    free(set);
    return 0;
}
