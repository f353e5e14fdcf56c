// SPDX-License-Identifier: Apache-2.0
/* ktune worker: serves one evaluation session over a socket; started by
 * ktune itself (isolation/worker.h), not by users. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "core/msg.h"
#include "core/parse.h"
#include "isolation/worker.h"
#include "metrics/cupti/counters.h"

static const char help[] =
    "usage: ktune worker --fd N [--command NAME]\n\n"
    "Internal: serves evaluation requests on descriptor N (a socket ktune\n"
    "opened before starting this process). ktune starts workers itself so a\n"
    "crashing or hanging kernel cannot take a tuning run down. --command\n"
    "names the parent's command, which the worker's messages then name.\n";

int kt_cmd_worker(int argc, char **argv)
{
    static const struct option options[] = {
        {"fd", required_argument, NULL, 'f'},
        {"command", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int64_t fd = -1;
    int opt;
    kt_err err;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'f':
            if (kt_parse_i64(optarg, "--fd", &fd, &err))
                return kt_cli_fail(&err);
            break;
        case 'c': kt_msg_set_command(optarg); break;
        case 'h': fputs(help, stdout); return KT_EXIT_OK;
        default: return kt_cli_bad_option("worker", argv, options);
        }
    }
    if (fd < 0 || optind < argc)
        return kt_cli_usage_error("worker", "--fd N is required");
    /* A worker only serves the socket its parent handed it: an --fd that
     * names no open descriptor is a usage error, said, not a silent 1. */
    if (fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0)
        return kt_cli_usage_error("worker", "--fd %lld: not an open descriptor",
                                  (long long)fd);
    return kt_worker_serve((int)fd, kt_metrics_cupti_source());
}
