/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running the ktune program over a session's document: the executable
 * found, started with the CLI's options, its stderr read through a pipe
 * (passed on when verbose; its last "ktune ...: " line is the session's
 * message on failure), its stdout kept.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libktune/session.h"

extern char **environ;

/* A regular file this user may run (lib/ktune is the plugins' folder). */
static int is_program(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* The ktune executable: the session's, $KTUNE_EXE, next to this library
 * (the build tree), the install's bindir relative to the library's folder,
 * else "ktune" on PATH. No path of the build machine is compiled in. */
static void find_exe(const ktune_session *s, char *out, size_t size)
{
    const char *env = getenv("KTUNE_EXE");
    Dl_info info;
    char dir[PATH_MAX], *slash;

    if (s->exe || (env && *env)) {
        snprintf(out, size, "%s", s->exe ? s->exe : env);
        return;
    }
    if (dladdr((void *)ktune_version, &info) && info.dli_fname &&
        realpath(info.dli_fname, dir) && (slash = strrchr(dir, '/'))) {
        *slash = '\0';
        snprintf(out, size, "%s/ktune", dir);
        if (is_program(out))
            return;
        snprintf(out, size, "%s/%s/ktune", dir, KTUNE_LIB_BINDIR_FROM_LIBDIR);
        if (is_program(out))
            return;
    }
    snprintf(out, size, "ktune");
}

/* Appends n bytes to the growing text *t of length *len. */
static int append(char **t, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = (*len + n + 1) * 2;
        char *grown = realloc(*t, want);
        if (!grown)
            return -1;
        *t = grown;
        *cap = want;
    }
    memcpy(*t + *len, p, n);
    *len += n;
    (*t)[*len] = '\0';
    return 0;
}

/* Hands the complete lines of text[*done, len) to the session's log
 * (each without its newline; at the end, the rest as a line). */
static void log_lines(const ktune_session *s, char *text, size_t len,
                      size_t *done, int end)
{
    for (;;) {
        char *nl = memchr(text + *done, '\n', len - *done);
        if (!nl && !(end && *done < len))
            return;
        if (nl)
            *nl = '\0';
        s->log(s->log_user, text + *done);
        if (!nl) {
            *done = len;
            return;
        }
        *nl = '\n';
        *done = (size_t)(nl - text) + 1;
    }
}

/* Reads fd to its end into *out; each chunk also to `echo` when >= 0, and
 * line by line to the log of s when s has one (s NULL: none). */
static int drain(const ktune_session *s, int fd, int echo, char **out)
{
    char buf[4096];
    size_t len = 0, cap = 0, logged = 0;
    ssize_t n;

    *out = NULL;
    if (append(out, &len, &cap, "", 0))
        return -1;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || append(out, &len, &cap, buf, (size_t)n))
            return -1;
        if (echo >= 0 && write(echo, buf, (size_t)n) < 0)
            echo = -1;
        if (s && s->log)
            log_lines(s, *out, len, &logged, 0);
    }
    if (s && s->log)
        log_lines(s, *out, len, &logged, 1);
    return 0;
}

/* The message of a failed run: its last line that starts "ktune " (the
 * CLI's one prefix, core/msg.h), else its last line. */
static void last_message(ktune_session *s, const char *err, int code)
{
    const char *best = NULL, *last = NULL;

    for (const char *p = err; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && strncmp(p, "ktune ", 6) == 0)
            best = p;
        if (n)
            last = p;
        p = e ? e + 1 : p + n;
    }
    if (!best)
        best = last;
    if (!best) {
        ktl_fail(s, code, "ktune exited with status %d and no message", code);
        return;
    }
    ktl_fail(s, code, "%.*s", (int)strcspn(best, "\n"), best);
    /* Declarations share one namespace with the built-in plugins. */
    if (strstr(s->errmsg, "duplicate plugin name") && s->name)
        snprintf(s->errmsg + strlen(s->errmsg),
                 s->errmsg_size - strlen(s->errmsg),
                 " (a built-in plugin has this name: give the kernel "
                 "another with ktune_declare; docs/library.md)");
}

static int wait_child(pid_t pid)
{
    int st;

    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* Starts exe with argv, its stdout into the file out_fd, its stderr into a
 * pipe (*err_fd, the reading end). */
static int spawn(ktune_session *s, const char *exe, char **argv, pid_t *pid,
                 int out_fd, int *err_fd)
{
    posix_spawn_file_actions_t fa;
    int pe[2] = {-1, -1}, rc;

    if (pipe2(pe, O_CLOEXEC)) {
        rc = ktl_fail(s, KTUNE_E_IO, "cannot make a pipe: %s", strerror(errno));
        goto fail;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    rc = strchr(exe, '/') ? posix_spawn(pid, exe, &fa, NULL, argv, environ)
                          : posix_spawnp(pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
        rc = ktl_fail(s, KTUNE_E_IO,
                      "cannot start %s: %s (set KTUNE_EXE or call "
                      "ktune_session_set_exe with the ktune program)",
                      exe, strerror(rc));
        goto fail;
    }
    close(pe[1]);
    *err_fd = pe[0];
    return KTUNE_OK;
fail:
    for (int i = 0; i < 2; ++i)
        if (pe[i] >= 0)
            close(pe[i]);
    return rc;
}

/* Runs ktune to its end: stderr read as it comes (progress, live when
 * verbose), stdout into a file of the session (a pipe read after stderr
 * could fill and stop the child). */
int ktl_run(ktune_session *s, const char *const *argv_in, char **out_text)
{
    char exe[PATH_MAX], path[PATH_MAX + 32], *out = NULL, *err = NULL, **argv;
    size_t n = 0;
    int ofd = -1, efd = -1, code, rc;
    pid_t pid;

    while (argv_in[n])
        ++n;
    if (!(argv = calloc(n + 1, sizeof *argv)))
        return ktl_fail(s, KTUNE_E_NOMEM, "out of memory");
    memcpy(argv, argv_in, n * sizeof *argv);
    find_exe(s, exe, sizeof exe);
    argv[0] = exe;
    snprintf(path, sizeof path, "%s/stdout.txt", s->dir);
    ofd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (ofd < 0) {
        rc = ktl_fail(s, KTUNE_E_IO, "cannot write %s: %s", path,
                      strerror(errno));
        goto done;
    }
    if ((rc = spawn(s, exe, argv, &pid, ofd, &efd)))
        goto done;
    rc = drain(s, efd, s->verbose && !s->log ? 2 : -1, &err)
             ? ktl_fail(s, KTUNE_E_IO, "cannot read ktune's messages")
             : KTUNE_OK;
    code = wait_child(pid);
    if (!rc && lseek(ofd, 0, SEEK_SET) == 0 && drain(NULL, ofd, -1, &out))
        rc = ktl_fail(s, KTUNE_E_IO, "cannot read %s", path);
    if (!rc && code != 0) {
        rc = code == 2 ? KTUNE_E_INPUT : KTUNE_E_FAILURE;
        last_message(s, err, rc);
    }
done:
    if (ofd >= 0)
        close(ofd);
    if (efd >= 0)
        close(efd);
    if (!rc && out_text) {
        *out_text = out;
        out = NULL;
    }
    free(out);
    free(err);
    free(argv);
    return rc ? rc : ktl_ok(s);
}
