// SPDX-License-Identifier: Apache-2.0
#include "app/envcheck.h"

#include <string.h>

#include "core/settings.h"

kt_status kt_env_check(kt_err *err)
{
    kt_settings s;

    kt_settings_read(&s);
    return kt_settings_check(&s, err);
}

void kt_env_protocol_choices(kt_protocol *p)
{
    kt_settings s;

    kt_settings_read(&s);
    if (s.ktune_round_sync && *s.ktune_round_sync)
        p->round_sync = strcmp(s.ktune_round_sync, "1") == 0;
    if (s.ktune_profile_flush && *s.ktune_profile_flush)
        p->profile_flush_sweep = strcmp(s.ktune_profile_flush, "sweep") == 0;
}
