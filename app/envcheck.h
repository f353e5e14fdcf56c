// SPDX-License-Identifier: Apache-2.0
/*
 * The KTUNE_* environment variables, checked once before a command runs:
 * a value the code would read as something else (a timeout of "abc", a
 * thread count of a million, a cache folder that is a file) is refused
 * naming the variable, instead of being silently ignored or clamped.
 * docs/cli.md lists every variable with the values it takes.
 */
#ifndef KT_ENVCHECK_H
#define KT_ENVCHECK_H

#include "core/error.h"
#include "core/protocol.h"

/* KT_S_OK when every KTUNE_* variable that is set (and not empty) holds a
 * value it can take; KT_S_INPUT naming the first that does not, what it
 * takes and what it holds. */
kt_status kt_env_check(kt_err *err);

/* The measurement choices made through the environment (KTUNE_ROUND_SYNC,
 * KTUNE_PROFILE_FLUSH; checked by kt_env_check) put into p, the protocol
 * the library measures by and the results record. */
void kt_env_protocol_choices(kt_protocol *p);

#endif
