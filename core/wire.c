// SPDX-License-Identifier: Apache-2.0
#include "core/wire.h"

#include "core/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static kt_status send_all(int fd, const char *buf, size_t len, kt_err *err)
{
    while (len > 0) {
        /* MSG_NOSIGNAL: a dead worker is a status, not a SIGPIPE. */
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            return kt_err_set(err, KT_S_CRASHED,
                              "the worker went away while "
                              "a request was being sent");
        if (n < 0)
            return kt_err_set(err, KT_S_IO, "sending to the worker: %s",
                              strerror(errno));
        buf += n;
        len -= (size_t)n;
    }
    return KT_S_OK;
}

kt_status kt_wire_send(int fd, const json_t *msg, kt_err *err)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    unsigned char head[4];
    size_t len;
    kt_status rc;

    if (!text)
        return kt_err_set(err, KT_S_NOMEM, "encoding a worker message");
    len = strlen(text);
    if (len > KT_WIRE_MAX_BYTES) {
        free(text);
        return kt_err_set(err, KT_S_IO,
                          "a worker message of %zu bytes exceeds "
                          "the %u-byte limit",
                          len, KT_WIRE_MAX_BYTES);
    }
    head[0] = (unsigned char)(len >> 24);
    head[1] = (unsigned char)(len >> 16);
    head[2] = (unsigned char)(len >> 8);
    head[3] = (unsigned char)len;
    rc = send_all(fd, (const char *)head, sizeof head, err);
    if (!rc)
        rc = send_all(fd, text, len, err);
    free(text);
    return rc;
}

/* Reads exactly len bytes before the deadline (< 0: none). */
static kt_status recv_all(int fd, char *buf, size_t len, double deadline,
                          kt_err *err)
{
    while (len > 0) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int wait = -1, ready;
        ssize_t n;
        if (deadline >= 0) {
            double left = deadline - (1e3 * kt_clock_seconds());
            if (left <= 0)
                return kt_err_set(err, KT_S_TIMEOUT,
                                  "no answer from the "
                                  "worker in time");
            wait = (int)(left + 1);
        }
        ready = poll(&pfd, 1, wait);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return kt_err_set(err, KT_S_IO, "waiting for the worker: %s",
                              strerror(errno));
        if (ready == 0)
            continue; /* the deadline check above decides */
        n = recv(fd, buf, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return kt_err_set(err, KT_S_CRASHED,
                              "the worker closed the "
                              "connection");
        if (n < 0)
            return kt_err_set(err, KT_S_IO, "reading from the worker: %s",
                              strerror(errno));
        buf += n;
        len -= (size_t)n;
    }
    return KT_S_OK;
}

kt_status kt_wire_recv(int fd, int timeout_ms, json_t **msg, kt_err *err)
{
    double deadline =
        timeout_ms < 0 ? -1.0 : (1e3 * kt_clock_seconds()) + timeout_ms;
    unsigned char head[4];
    json_error_t jerr;
    size_t len;
    char *text;
    kt_status rc;

    *msg = NULL;
    if ((rc = recv_all(fd, (char *)head, sizeof head, deadline, err)))
        return rc;
    len = (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 |
          head[3];
    if (len == 0 || len > KT_WIRE_MAX_BYTES)
        return kt_err_set(err, KT_S_IO,
                          "a worker frame announces %zu bytes, "
                          "expected 1 to %u",
                          len, KT_WIRE_MAX_BYTES);
    text = malloc(len);
    if (!text)
        return kt_err_set(err, KT_S_NOMEM,
                          "out of memory for a %zu-byte "
                          "worker message",
                          len);
    rc = recv_all(fd, text, len, deadline, err);
    if (!rc) {
        *msg = json_loadb(text, len, 0, &jerr);
        if (!*msg || !json_is_object(*msg)) {
            json_decref(*msg);
            *msg = NULL;
            rc = kt_err_set(err, KT_S_IO,
                            "a worker message is not a JSON "
                            "object: %s",
                            jerr.text);
        }
    }
    free(text);
    return rc;
}

json_t *kt_wire_message(const char *type)
{
    return json_pack("{s:i,s:s}", "v", KT_WIRE_VERSION, "type", type);
}

const char *kt_wire_type(const json_t *msg, kt_err *err)
{
    json_t *v = json_object_get(msg, "v");
    const char *type = json_string_value(json_object_get(msg, "type"));

    if (!json_is_integer(v) || json_integer_value(v) != KT_WIRE_VERSION) {
        kt_err_set(err, KT_S_IO,
                   "worker message version %lld, expected %d "
                   "(ktune and its worker come from different builds?)",
                   json_is_integer(v) ? (long long)json_integer_value(v) : -1LL,
                   KT_WIRE_VERSION);
        return NULL;
    }
    if (!type)
        kt_err_set(err, KT_S_IO, "a worker message has no \"type\"");
    return type;
}
