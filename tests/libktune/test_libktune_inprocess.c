/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libktune runs in the caller's process (app/embed.h) and leaves nothing
 * behind: check and a replayed tune run twice in one process give the same
 * results, a mistake's message is the line the ktune program prints for
 * it, nothing reaches the process's own stdout or stderr, no signal
 * handler is left installed, and a session with a verification callback
 * runs its kernels in process (--in-process in the run's command line),
 * and two sessions run from two threads at once each get their result;
 * the HTML report of a result is rendered in process the same quiet way.
 * Run under ASan/LeakSanitizer in the sanitizer build. argv: SOURCE_DIR
 * KTUNE_EXE.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktune/ktune.h"
#include "tests/libktune/support.h"

static const char *src_dir, *exe;

static ktune_session *transpose(void)
{
    return kt_api_transpose(src_dir, exe, 8192, 8192);
}

/* The points a replay of the shipped transpose recording visits, one
 * configuration a line (malloc'ed), or NULL when it failed. */
static char *replayed_path(ktune_session *s)
{
    ktune_result *r = NULL;
    char rec[4096], *path = NULL;
    size_t len = 0;
    FILE *f;

    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             src_dir);
    if (ktune_replay(s, rec, &r) != KTUNE_OK) {
        fprintf(stderr, "replay: %s\n", ktune_session_errmsg(s));
        return NULL;
    }
    if ((f = open_memstream(&path, &len))) {
        for (size_t i = 0; i < ktune_result_num_points(r); ++i)
            fprintf(f, "%s\n", ktune_result_point_config(r, i));
        fclose(f);
    }
    ktune_result_free(r);
    return path;
}

/* The HTML report of a replay, rendered in process (ktune_report): 1
 * when it is a whole HTML document; a check's result has none. */
static int replay_report(ktune_session *s)
{
    ktune_result *r = NULL, *c = NULL;
    char rec[4096], out[4096], *html = NULL;
    size_t len = 0;
    FILE *f;
    int ok;

    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             src_dir);
    snprintf(out, sizeof out, "%s/r.html", ktune_session_dir(s));
    if (ktune_replay(s, rec, &r) != KTUNE_OK)
        return 0;
    ok = ktune_report(s, ktune_result_json(r), out) == KTUNE_OK;
    if ((f = fopen(out, "r"))) {
        getdelim(&html, &len, '\0', f);
        fclose(f);
    }
    ok = ok && html && strstr(html, "<html") && strstr(html, "</html>") &&
         strstr(html, "tiled");
    if (!ok)
        fprintf(stderr, "report: %s\n", ktune_session_errmsg(s));
    free(html);
    ktune_result_free(r);
    if (ktune_check(s, &c) == KTUNE_OK) {
        ok = ok &&
             ktune_report(s, ktune_result_json(c), out) == KTUNE_E_INPUT &&
             strstr(ktune_session_errmsg(s), "ktune report");
        ktune_result_free(c);
    }
    return ok;
}

static char *check_text(ktune_session *s)
{
    ktune_result *r = NULL;
    char *text = NULL;

    if (ktune_check(s, &r) == KTUNE_OK)
        text = strdup(ktune_result_string(r, "text"));
    ktune_result_free(r);
    return text;
}

static void twice_in_one_process_the_same(void)
{
    ktune_session *s = transpose();
    char *c1, *c2, *p1, *p2;

    EXPECT(!ktune_session_set_strategy(s, "random") &&
           !ktune_session_set_seed(s, 11) &&
           !ktune_session_set_budget(s, 10, 0, 0));
    c1 = check_text(s);
    p1 = replayed_path(s);
    c2 = check_text(s);
    p2 = replayed_path(s);
    EXPECT(c1 && c2 && strcmp(c1, c2) == 0);
    EXPECT(c1 && strstr(c1, "space 45 point(s)"));
    EXPECT(p1 && p2 && strcmp(p1, p2) == 0);
    EXPECT(p1 && strlen(p1) > 10);
    free(c1);
    free(c2);
    free(p1);
    free(p2);
    ktune_session_free(s);
}

/* The last line the ktune program printed on stderr for cmd. */
static char *cli_message(const char *cmd)
{
    char line[4096], *last = NULL;
    FILE *p = popen(cmd, "r");

    while (p && fgets(line, sizeof line, p))
        if (strncmp(line, "ktune ", 6) == 0) {
            free(last);
            line[strcspn(line, "\n")] = '\0';
            last = strdup(line);
        }
    if (p)
        pclose(p);
    return last;
}

static void a_mistake_has_the_programs_message(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;
    char cmd[8192], *cli;

    EXPECT(!ktune_session_set(s, "strategy.no_such_key", "1"));
    EXPECT(ktune_check(s, &r) == KTUNE_E_INPUT && !r);
    snprintf(cmd, sizeof cmd,
             "'%s' tune '%s/transpose.ini' --check --set "
             "strategy.no_such_key=1 2>&1 >/dev/null",
             exe, ktune_session_dir(s));
    cli = cli_message(cmd);
    EXPECT(cli && strcmp(cli, ktune_session_errmsg(s)) == 0);
    if (cli && strcmp(cli, ktune_session_errmsg(s)) != 0)
        fprintf(stderr, "program: %s\nlibrary: %s\n", cli,
                ktune_session_errmsg(s));
    free(cli);
    ktune_session_free(s);
}

static int never_called(void *user, const ktune_output *o, size_t n, char *msg,
                        size_t size)
{
    (void)user;
    (void)o;
    (void)n;
    snprintf(msg, size, "a replay verifies nothing");
    return 0;
}

static void a_callback_session_runs_its_kernels_in_process(void)
{
    ktune_session *s = transpose();
    ktune_result *r = NULL;
    char rec[4096];

    EXPECT(ktune_verify_callback(NULL, never_called, NULL) == KTUNE_E_INPUT);
    EXPECT(ktune_verify_callback(s, never_called, NULL) == KTUNE_OK);
    snprintf(rec, sizeof rec,
             "%s/tests/data/transpose-h200-rows8192-cols8192.jsonl.gz",
             src_dir);
    EXPECT(!ktune_session_set_budget(s, 4, 0, 0));
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    EXPECT(r && strstr(ktune_result_json(r), "--in-process"));
    ktune_result_free(r);
    /* NULL: back to the tolerances and to isolation. */
    EXPECT(ktune_verify_callback(s, NULL, NULL) == KTUNE_OK);
    EXPECT(ktune_replay(s, rec, &r) == KTUNE_OK);
    EXPECT(r && !strstr(ktune_result_json(r), "--in-process"));
    ktune_result_free(r);
    ktune_session_free(s);
}

/* Runs fn with fds 1 and 2 on temporary files: the bytes written there. */
static long written_to_stdio(void (*fn)(void))
{
    char path[] = "/tmp/ktune-inprocess-XXXXXX";
    int fd = mkstemp(path), keep1 = dup(1), keep2 = dup(2);
    struct stat st;
    long n = -1;

    if (fd < 0 || keep1 < 0 || keep2 < 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    dup2(fd, 1);
    dup2(fd, 2);
    fn();
    fflush(stdout);
    fflush(stderr);
    dup2(keep1, 1);
    dup2(keep2, 2);
    if (fstat(fd, &st) == 0)
        n = (long)st.st_size;
    if (n > 0) {
        char buf[512] = "";
        ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
        fprintf(stderr, "written to stdout/stderr: %.*s\n",
                (int)(got > 0 ? got : 0), buf);
    }
    close(fd);
    close(keep1);
    close(keep2);
    unlink(path);
    return n;
}

static void quiet_runs(void)
{
    ktune_session *s = transpose();
    char *c = check_text(s), *p;

    ktune_session_set_budget(s, 6, 0, 0);
    ktune_session_set_strategy(s, "random");
    p = replayed_path(s);
    if (!c || !p || !replay_report(s))
        ++kt_api_failures;
    free(c);
    free(p);
    ktune_session_free(s);
}

static void the_process_is_left_as_it_was(void)
{
    struct sigaction sa;
    int failures = kt_api_failures;

    EXPECT(written_to_stdio(quiet_runs) == 0);
    EXPECT(kt_api_failures == failures);
    EXPECT(sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL);
    EXPECT(sigaction(SIGTERM, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL);
}

static void *replay_in_a_thread(void *out)
{
    ktune_session *s = transpose();

    ktune_session_set_strategy(s, "random");
    ktune_session_set_seed(s, 5);
    ktune_session_set_budget(s, 8, 0, 0);
    *(char **)out = replayed_path(s);
    ktune_session_free(s);
    return NULL;
}

/* Two sessions run from two threads at once: runs are serialised in the
 * process (app/embed.c), each gets its own result. */
static void two_threads_two_sessions(void)
{
    pthread_t t[2];
    char *path[2] = {NULL, NULL};

    for (int i = 0; i < 2; ++i)
        EXPECT(pthread_create(&t[i], NULL, replay_in_a_thread, &path[i]) == 0);
    for (int i = 0; i < 2; ++i)
        pthread_join(t[i], NULL);
    EXPECT(path[0] && path[1] && strcmp(path[0], path[1]) == 0);
    free(path[0]);
    free(path[1]);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    src_dir = argv[1];
    exe = argv[2];
    twice_in_one_process_the_same();
    a_mistake_has_the_programs_message();
    a_callback_session_runs_its_kernels_in_process();
    the_process_is_left_as_it_was();
    two_threads_two_sessions();
    if (kt_api_failures)
        fprintf(stderr, "%d failure(s)\n", kt_api_failures);
    return kt_api_failures ? 1 : 0;
}
