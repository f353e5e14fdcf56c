// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target: what --resume does with a journal, against the
 * vector_add operator: read the header and check it against the recording's
 * own (tests/data), read the whole log, continue it (lock, cut what reading
 * dropped, append an environment record) and read it again. Any input must
 * be resumed or refused with a message, never a crash, a leak, undefined
 * behaviour or a lost complete record. */
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

/* Continues the journal at path, then reads it back: what was complete
 * before must still be there. */
static void resume(const char *path, const kt_journal_log *log)
{
    kt_journal j;
    kt_journal_log again;
    kt_err err;
    size_t count = log->count;

    if (kt_journal_continue(&j, path, log, json_object(), &err)) {
        if (!err.msg[0])
            abort();
        return;
    }
    kt_journal_close(&j);
    if (kt_journal_read(path, op, &again, &err) != KT_S_OK)
        abort(); /* what continue wrote must read */
    if (again.count != count)
        abort(); /* a complete record was lost */
    kt_journal_log_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = kt_fuzz_file(data, size);
    kt_journal_log log;
    json_t *header = NULL;
    char note[512];
    kt_err err;

    if (!path)
        return 0;
    if (kt_journal_is_empty(path))
        return 0; /* written afresh, not resumed */
    if (kt_journal_read_header(path, &header, &err) != KT_S_OK) {
        if (!err.msg[0])
            abort();
        return 0;
    }
    if (kt_journal_compatible(header, header, path, note, sizeof note, &err) &&
        !err.msg[0])
        abort();
    json_decref(header);
    if (kt_journal_read(path, op, &log, &err) == KT_S_OK) {
        resume(path, &log);
        kt_journal_log_free(&log);
    } else if (!err.msg[0]) {
        abort();
    }
    return 0;
}
