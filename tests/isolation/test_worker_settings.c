// SPDX-License-Identifier: Apache-2.0
/* The real worker's side of the settings record (isolation/worker_serve.c),
 * without a GPU: the open message's record becomes the process's, so its
 * libraries read the parent's record instead of the environment; a record
 * that is not one is refused, naming what is wrong, and so is a second,
 * different one. The serving loop runs
 * in a thread of this process over a socket pair: the open fails later
 * (no such plugin), after the record is installed. */
#include "tests/kt_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/cachedir.h"
#include "core/settings.h"
#include "core/wire.h"
#include "isolation/worker.h"

static void *serve(void *arg)
{
    (void)kt_worker_serve(*(int *)arg, NULL);
    return NULL;
}

/* Sends an open with settings (a new reference, taken) and returns the
 * error message the worker answers (the plugin never loads). */
static void open_with(int fd, json_t *settings, char *message, size_t size)
{
    json_t *msg = kt_wire_message("open"), *reply = NULL;

    json_object_set_new(msg, "plugin", json_string("/no/such/plugin.so"));
    json_object_set_new(msg, "operator", json_string("scale"));
    json_object_set_new(msg, "sizes", json_array());
    json_object_set_new(msg, "seed", json_integer(1));
    json_object_set_new(msg, "device", json_integer(0));
    json_object_set_new(msg, "check_boundaries", json_true());
    json_object_set_new(msg, "log_level", json_integer(0));
    json_object_set_new(msg, "settings", settings);
    assert_int_equal(kt_wire_send(fd, msg, NULL), KT_S_OK);
    json_decref(msg);
    assert_int_equal(kt_wire_recv(fd, 10000, &reply, NULL), KT_S_OK);
    assert_string_equal(kt_wire_type(reply, NULL), "error");
    snprintf(message, size, "%s",
             json_string_value(json_object_get(reply, "message")));
    json_decref(reply);
}

static void the_open_messages_record_is_what_the_worker_reads(void **state)
{
    int sv[2];
    pthread_t thread;
    json_t *hello = NULL, *bye;
    char message[1024], root[4096];
    kt_settings set;
    (void)state;

    unsetenv("KTUNE_CACHE_DIR");
    unsetenv("KTUNE_WORKER_TIMES");
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(pthread_create(&thread, NULL, serve, &sv[1]), 0);
    assert_int_equal(kt_wire_recv(sv[0], 10000, &hello, NULL), KT_S_OK);
    json_decref(hello);

    /* Not a record: refused, and nothing installed. */
    open_with(sv[0], json_pack("{s:s}", "KTUNE_NO_SUCH", "1"), message,
              sizeof message);
    assert_contains(message, "'KTUNE_NO_SUCH' is no variable ktune reads");
    open_with(sv[0], json_pack("{s:i}", "KTUNE_CACHE_DIR", 3), message,
              sizeof message);
    assert_contains(message, "KTUNE_CACHE_DIR: expected a string");
    kt_settings_read(&set);
    assert_null(set.ktune_cache_dir);

    /* The parent's record, which the environment does not hold. */
    open_with(sv[0], json_pack("{s:s}", "KTUNE_CACHE_DIR", "/parents/cache"),
              message, sizeof message);
    assert_contains(message, "/no/such/plugin.so");
    assert_null(getenv("KTUNE_CACHE_DIR"));
    kt_settings_read(&set);
    assert_non_null(set.ktune_cache_dir);
    assert_string_equal(set.ktune_cache_dir, "/parents/cache");
    assert_int_equal(kt_cache_root(root, sizeof root, NULL), KT_S_OK);
    assert_string_equal(root, "/parents/cache");
    /* One record a process: the same again is taken, another refused. */
    open_with(sv[0], json_pack("{s:s}", "KTUNE_CACHE_DIR", "/parents/cache"),
              message, sizeof message);
    assert_contains(message, "/no/such/plugin.so");
    open_with(sv[0], json_pack("{s:s}", "KTUNE_CACHE_DIR", "/another"), message,
              sizeof message);
    assert_contains(message, "runs under its parent's record already");
    kt_settings_read(&set);
    assert_string_equal(set.ktune_cache_dir, "/parents/cache");

    bye = kt_wire_message("close");
    assert_int_equal(kt_wire_send(sv[0], bye, NULL), KT_S_OK);
    json_decref(bye);
    assert_int_equal(pthread_join(thread, NULL), 0);
    close(sv[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_open_messages_record_is_what_the_worker_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
