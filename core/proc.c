// SPDX-License-Identifier: Apache-2.0
#include "core/proc.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

kt_status kt_proc_fork(const char *what, pid_t *pid, kt_err *err)
{
    fflush(NULL);
    *pid = fork();
    if (*pid < 0)
        return kt_err_set(err, KT_S_IO, "fork for %s: %s", what,
                          strerror(errno));
    return KT_S_OK;
}

void kt_proc_exec(const char *path, char *const argv[], char *const envp[])
{
    execve(path, argv, envp ? envp : environ);
}

kt_status kt_proc_spawn(const char *what, const char *path, char *const argv[],
                        char *const envp[], int parent_fd, int child_fd,
                        pid_t *pid, kt_err *err)
{
    posix_spawn_file_actions_t fa;
    int rc;

    if ((rc = posix_spawn_file_actions_init(&fa)))
        return kt_err_set(err, KT_S_IO, "spawn %s: %s", what, strerror(rc));
    if (parent_fd >= 0)
        rc = posix_spawn_file_actions_adddup2(&fa, parent_fd, child_fd);
    if (!rc)
        rc = posix_spawn(pid, path, &fa, NULL, argv, envp ? envp : environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        kt_err_set(err, KT_S_IO, "spawn %s: %s", what, strerror(rc));
        errno = rc;
        return KT_S_IO;
    }
    return KT_S_OK;
}

pid_t kt_proc_reap(pid_t pid, int *status, int nohang)
{
    pid_t got;

    while ((got = waitpid(pid, status, nohang ? WNOHANG : 0)) < 0 &&
           errno == EINTR)
        ;
    return got;
}

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
