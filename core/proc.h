// SPDX-License-Identifier: Apache-2.0
/*
 * Child processes: the one module that starts them, waits for them and
 * describes how they ended. Every fork, exec, posix_spawn and waitpid of
 * ktune is here (tests/app/check_layers.sh): isolation's probes, oracles
 * and workers, the NVRTC helpers (engine/nvrtc_procs.c), the programs the
 * commands run (timeline, sanitize) use it. On the lowest floor, core/,
 * so that every layer that starts a process reaches the same code.
 *
 * Thread safety: the functions keep no state; kt_proc_fork flushes every
 * stdio stream first (so the child does not print the parent's buffered
 * output twice).
 */
#ifndef KT_PROC_H
#define KT_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

/* fork(), after fflush(NULL): *pid is 0 in the child, the child's pid in
 * the parent. KT_S_IO "fork for WHAT: why" when no child was made. */
kt_status kt_proc_fork(const char *what, pid_t *pid, kt_err *err);

/* In a child made by kt_proc_fork: execve(path, argv, envp), or the
 * caller's environment when envp is NULL. Returns only when exec failed,
 * with errno set. */
void kt_proc_exec(const char *path, char *const argv[], char *const envp[]);

/* posix_spawn(path, argv, envp or the caller's environment) with the
 * parent's descriptor parent_fd as the child's child_fd (parent_fd < 0:
 * none). KT_S_IO "spawn WHAT: why" (and errno) when no child was made. */
kt_status kt_proc_spawn(const char *what, const char *path, char *const argv[],
                        char *const envp[], int parent_fd, int child_fd,
                        pid_t *pid, kt_err *err);

/* waitpid(pid), past interruptions by signals: pid with *status set when
 * it ended, 0 when nohang and it has not, -1 with errno when it cannot be
 * waited for. */
pid_t kt_proc_reap(pid_t pid, int *status, int nohang);

/* "killed by signal 11 (Segmentation fault)", "exited with status 3": how
 * a process ended, from its wait status. */
void kt_describe_exit(int wait_status, char *out, size_t out_size);

#endif
