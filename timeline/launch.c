// SPDX-License-Identifier: Apache-2.0
#include "timeline/launch.h"

#include "core/childenv.h"
#include "core/proc.h"
#include "core/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static kt_status check_file(const char *program, const char *path, kt_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return kt_err_set(err, KT_S_INPUT, "%s: %s", program, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return kt_err_set(err, KT_S_INPUT, "%s: is a folder, not a program",
                          program);
    if (access(path, X_OK) != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "%s: not executable (chmod +x it, or name the "
                          "interpreter first)",
                          program);
    return KT_S_OK;
}

kt_status kt_tl_find_program(const char *program, char *out, size_t out_size,
                             kt_err *err)
{
    kt_settings set;
    const char *path = (kt_settings_read(&set), set.path), *p;
    if (!*program)
        return kt_err_set(err, KT_S_INPUT, "the program's name is empty");
    if (strchr(program, '/')) {
        if ((size_t)snprintf(out, out_size, "%s", program) >= out_size)
            return kt_err_set(err, KT_S_INPUT, "%.80s...: path too long",
                              program);
        return check_file(program, out, err);
    }
    for (p = path && *path ? path : "/usr/bin:/bin"; p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        struct stat st;
        int n = len ? snprintf(out, out_size, "%.*s/%s", (int)len, p, program)
                    : snprintf(out, out_size, "./%s", program);
        if (n > 0 && (size_t)n < out_size && stat(out, &st) == 0 &&
            S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return KT_S_OK;
        p = colon ? colon + 1 : NULL;
    }
    return kt_err_set(err, KT_S_INPUT,
                      "%s: no such program in PATH (give its path, e.g. "
                      "./%s)",
                      program, program);
}

/* In the child: exec; errno goes back through the close-on-exec pipe
 * when exec fails. */
static void child(char *const *argv, char *const *envp, int report)
{
    int e;
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    kt_proc_exec(argv[0], argv, envp);
    e = errno;
    (void)!write(report, &e, sizeof e);
    _exit(127);
}

static kt_status wait_for(pid_t pid, kt_tl_run *run, kt_err *err)
{
    int status;
    if (kt_proc_reap(pid, &status, 0) < 0)
        return kt_err_set(err, KT_S_IO, "waitpid: %s", strerror(errno));
    run->wall = mono_ns() - run->start_mono;
    if (WIFSIGNALED(status)) {
        run->signal = WTERMSIG(status);
        run->core_dumped = WCOREDUMP(status) != 0;
    } else {
        run->exit_code = WEXITSTATUS(status);
    }
    return KT_S_OK;
}

kt_status kt_tl_launch_env(char *const *argv, const char *const *vars,
                           kt_tl_run *run, kt_err *err)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    int fds[2], exec_errno = 0;
    char **envp = NULL;
    ssize_t got;
    pid_t pid;
    kt_status s;

    memset(run, 0, sizeof *run);
    if ((s = kt_childenv_build(vars, &envp, err)))
        return s;
    if (pipe(fds) != 0) {
        free(envp);
        return kt_err_set(err, KT_S_IO, "pipe: %s", strerror(errno));
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    run->start_mono = mono_ns();
    s = kt_proc_fork("the program", &pid, err);
    if (!s && pid == 0)
        child(argv, envp, fds[1]);
    close(fds[1]);
    if (s)
        goto done;
    do
        got = read(fds[0], &exec_errno, sizeof exec_errno);
    while (got < 0 && errno == EINTR);
    s = wait_for(pid, run, err);
    if (!s && got == (ssize_t)sizeof exec_errno)
        s = kt_err_set(err, KT_S_INPUT, "%s: cannot run it: %s", argv[0],
                       strerror(exec_errno));
done:
    close(fds[0]);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    free(envp);
    return s;
}

int kt_tl_run_status(const kt_tl_run *run)
{
    return run->signal ? 128 + run->signal : run->exit_code;
}
