// SPDX-License-Identifier: Apache-2.0
/* libFuzzer target: the wisdom reader of libktune-select and the lookup on
 * what it read. Any input must be read or refused with a code and a
 * message, never a crash, a leak or undefined behaviour; every entry read
 * must be found again by an exact query. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktune/select.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Nothing to set up: the reader needs no plugin and no environment. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kt_select_wisdom *w = NULL;
    kt_select_error e;
    int rc = kt_select_open_buffer((const char *)data, size, "fuzz", &w, &e);

    if (rc != KT_SELECT_OK) {
        if (w || rc >= 0 || !e.msg[0])
            abort();
        return 0;
    }
    for (size_t i = 0; i < kt_select_count(w) && i < 64; ++i) {
        const kt_select_entry *x = kt_select_entry_at(w, i);
        kt_select_config c;
        char cc[16];
        if (kt_select_device(w, x->op, x->device, x->cc_major, x->cc_minor,
                             x->sizes, x->num_sizes, &c) != KT_SELECT_OK ||
            c.entry != x)
            abort();
        snprintf(cc, sizeof cc, "%d.%d", x->cc_major, x->cc_minor);
        if (kt_select(w, x->op, cc, x->sizes, x->num_sizes, &c) < 0 || !c.entry)
            abort();
        (void)kt_select_get(&c, "block", 0);
    }
    kt_select_close(w);
    return 0;
}
