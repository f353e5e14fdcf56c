#include "tuner/progress.h"

#include <string.h>
#include <unistd.h>

void kt_progress_init(kt_progress *p, FILE *out, int enabled)
{
    p->out = enabled && out && isatty(fileno(out)) ? out : NULL;
    p->width = 0;
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

void kt_progress_update(kt_progress *p, size_t done, size_t budget,
                        double best_us, const char *best, double left_s)
{
    char line[256], budget_text[32], best_text[160], left[32];
    size_t len;

    if (!p->out)
        return;
    if (budget)
        snprintf(budget_text, sizeof budget_text, "%zu", budget);
    else
        snprintf(budget_text, sizeof budget_text, "?");
    if (best_us > 0)
        snprintf(best_text, sizeof best_text, "best %.2f us (%s)", best_us,
                 best);
    else
        snprintf(best_text, sizeof best_text, "no valid point yet");
    if (left_s >= 0)
        format_seconds(left_s, left, sizeof left);
    else
        snprintf(left, sizeof left, "?");
    len = (size_t)snprintf(line, sizeof line, "[%zu/%s] %s, %s left", done,
                           budget_text, best_text, left);
    if (len >= sizeof line)
        len = sizeof line - 1;
    /* Pad with blanks over the end of a longer previous line. */
    fprintf(p->out, "\r%s%*s", line, p->width > len ? (int)(p->width - len) : 0,
            "");
    fflush(p->out);
    p->width = len;
}

void kt_progress_end(kt_progress *p)
{
    if (!p->out || !p->width)
        return;
    fprintf(p->out, "\r%*s\r", (int)p->width, "");
    fflush(p->out);
    p->width = 0;
}
