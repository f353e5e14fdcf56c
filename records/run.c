// SPDX-License-Identifier: Apache-2.0
/*
 * A run's records (records/run.h): what every reader and writer of a
 * run's entries needs beyond the struct, here so that the formats below
 * the tuner (t4.c, ktcache_write.c) decode an entry's point without the
 * tuner.
 */
#include "records/run.h"

kt_point kt_tune_entry_point(const kt_tune_result *r, const kt_tune_entry *e)
{
    kt_point pt;
    kt_space_point(r->space, e->index, &pt);
    return pt;
}
