// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target: the journal reader (header, evaluation and profile
 * records, torn last lines), against the vector_add operator. Any input
 * must be read or refused with a message, never a crash, a leak or
 * undefined behaviour. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/loader.h"
#include "records/journal.h"
#include "tests/fuzz/fuzz_input.h"

static kt_registry reg;
static const kt_operator *op;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const kt_loaded_plugin *lp;
    (void)argc;
    (void)argv;
    op = kt_fuzz_vector_add(&reg, &lp);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = kt_fuzz_file(data, size);
    kt_journal_log log;
    json_t *header = NULL;
    kt_err err;

    if (!path)
        return 0;
    if (kt_journal_read_header(path, &header, &err) == KT_S_OK)
        json_decref(header);
    else if (!err.msg[0])
        abort();
    if (kt_journal_read(path, op, &log, &err) == KT_S_OK)
        kt_journal_log_free(&log);
    else if (!err.msg[0])
        abort();
    return 0;
}
