// SPDX-License-Identifier: Apache-2.0
#include "tuner/progress.h"

#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/msg.h"

/* Log lines between phase changes: often enough that a CI log shows the run
 * is alive, rarely enough that a long run's log stays readable. */
#define LOG_INTERVAL_S 10.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kt_progress_init(kt_progress *p, FILE *out, int enabled)
{
    memset(p, 0, sizeof *p);
    p->out = enabled ? out : NULL;
    p->tty = p->out && isatty(fileno(p->out));
    p->interval_s = LOG_INTERVAL_S;
    p->last_s = -1;
}

static void format_seconds(double s, char *out, size_t size)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(out, size, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(out, size, "%lds", t);
}

/* Appends to buf at *len, keeping it terminated when it is full. */
__attribute__((format(printf, 4, 5))) static void
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (*len + 1 >= size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

size_t kt_progress_format(const kt_progress_state *s, char *buf, size_t size)
{
    char count[64], left[32];
    size_t len = 0;

    if (!size)
        return 0;
    buf[0] = '\0';
    if (s->budget)
        snprintf(count, sizeof count, "[%zu/%s%zu]", s->done,
                 s->exact ? "" : "<=", s->budget);
    else
        snprintf(count, sizeof count, "[%zu]", s->done);
    append(buf, size, &len, "%s %s", s->phase ? s->phase : "tuning", count);
    if (s->best_us > 0) {
        append(buf, size, &len, ", best %.2f us", s->best_us);
        append(buf, size, &len, " (%s)", s->best ? s->best : "");
    } else {
        append(buf, size, &len, ", no valid point yet");
    }
    if (s->left_s >= 0) {
        format_seconds(s->left_s, left, sizeof left);
        append(buf, size, &len, ", %s%s left",
               s->left_exact ? "~" : "<=", left);
    }
    /* Last: the longest part, the first a narrow terminal cuts. */
    if (s->current && s->current[0])
        append(buf, size, &len, ", now %s", s->current);
    return len;
}

static size_t terminal_columns(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
        return ws.ws_col;
    return 80;
}

void kt_progress_update(kt_progress *p, const kt_progress_state *s)
{
    char line[512];
    size_t len;
    int changed;
    double now;

    if (!p->out)
        return;
    len = kt_progress_format(s, line, sizeof line);
    if (p->tty) {
        size_t cols = terminal_columns(p->out) - 1;
        if (len > cols)
            line[len = cols] = '\0';
        /* Pad with blanks over the end of a longer previous line. */
        fprintf(p->out, "\r%s%*s", line,
                p->width > len ? (int)(p->width - len) : 0, "");
        fflush(p->out);
        p->width = len;
        return;
    }
    changed = strncmp(p->phase, s->phase ? s->phase : "", sizeof p->phase);
    now = now_s();
    if (!changed && p->last_s >= 0 && now - p->last_s < p->interval_s)
        return;
    snprintf(p->phase, sizeof p->phase, "%s", s->phase ? s->phase : "");
    p->last_s = now;
    kt_fmsg(p->out, "%s\n", line);
    fflush(p->out);
}

void kt_progress_end(kt_progress *p)
{
    if (!p->out || !p->tty || !p->width)
        return;
    fprintf(p->out, "\r%*s\r", (int)p->width, "");
    fflush(p->out);
    p->width = 0;
}
