// SPDX-License-Identifier: Apache-2.0
/*
 * kt_wire: the message framing between ktune and its worker processes.
 *
 * A message is a 4-byte big-endian length followed by that many bytes of
 * JSON (one object with "v": KT_WIRE_VERSION and "type"). A byte stream and
 * self-describing payloads, so a worker can equally sit behind a pipe, a
 * socket pair or a network connection, and a version mismatch is caught at
 * the handshake instead of as garbage.
 */
#ifndef KT_WIRE_H
#define KT_WIRE_H

#include <jansson.h>

#include "core/error.h"

#define KT_WIRE_VERSION 1
#define KT_WIRE_MAX_BYTES (64u << 20)

/* Sends msg (not consumed). Never raises SIGPIPE: a peer that is gone gives
 * KT_S_CRASHED. */
kt_status kt_wire_send(int fd, const json_t *msg, kt_err *err);

/* Waits up to timeout_ms (< 0: forever) for one whole message. *msg gets a
 * new reference. KT_S_TIMEOUT when the time passes, KT_S_CRASHED when the
 * peer closed the connection, KT_S_IO for a malformed frame. */
kt_status kt_wire_recv(int fd, int timeout_ms, json_t **msg, kt_err *err);

/* {"v": KT_WIRE_VERSION, "type": type}; add fields with json_object_set. */
json_t *kt_wire_message(const char *type);

/* The message's "type" after checking "v"; NULL (with err) when either is
 * wrong. */
const char *kt_wire_type(const json_t *msg, kt_err *err);

#endif
