// SPDX-License-Identifier: Apache-2.0
#include "isolation/proc.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

void kt_describe_exit(int wait_status, char *out, size_t out_size)
{
    if (WIFSIGNALED(wait_status))
        snprintf(out, out_size, "killed by signal %d (%s)",
                 WTERMSIG(wait_status), strsignal(WTERMSIG(wait_status)));
    else if (WIFEXITED(wait_status))
        snprintf(out, out_size, "exited with status %d",
                 WEXITSTATUS(wait_status));
    else
        snprintf(out, out_size, "ended (wait status 0x%x)", wait_status);
}
