// SPDX-License-Identifier: Apache-2.0
/*
 * Child processes, described for humans.
 */
#ifndef KT_PROC_H
#define KT_PROC_H

#include <stddef.h>

/* "killed by signal 11 (Segmentation fault)", "exited with status 3": how a
 * process ended, from its waitpid() status. */
void kt_describe_exit(int wait_status, char *out, size_t out_size);

#endif
