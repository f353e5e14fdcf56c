/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The declaration document (docs/declared.md) written from a session: the
 * same sections and keys an INI file holds, so that the one parser reads
 * both. Answers given as arrays become a reference variant of two kernels
 * the library appends to the source: one that takes the operator's
 * arguments and does nothing, and an untimed then-kernel that copies each
 * answer (an input filled from ITS.answer.npy) into its output; the space
 * leaves that variant out ([space] variant), and the work counts the
 * caller's buffers only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libktune/session.h"

static int has_answers(const ktune_session *s)
{
    for (size_t i = 0; i < s->num_buffers; ++i)
        if (s->buffers[i].has_answer)
            return 1;
    return 0;
}

/* A buffer's element count as the document writes it. */
static void count_text(const ktl_buffer *b, char *out, size_t size)
{
    if (b->count_expr)
        snprintf(out, size, "%s", b->count_expr);
    else
        snprintf(out, size, "%zu", b->count);
}

/* The kernels of the answer variant, appended to the source. */
static void write_answer_kernels(const ktune_session *s, FILE *f)
{
    size_t k = 0;

    fprintf(f, "\n/* Added by libktune: the reference of answers given as "
               "arrays. */\nextern \"C\" __global__ void "
               "ktune_answer_ref(");
    for (size_t i = 0; i < s->arg_ctypes.n; ++i)
        fprintf(f, "%s%s", i ? ", " : "", s->arg_ctypes.v[i]);
    fprintf(f, ")\n{\n}\n\nextern \"C\" __global__ void ktune_answer_copy(");
    for (size_t i = 0; i < s->num_buffers; ++i) {
        const ktl_buffer *b = &s->buffers[i];
        if (b->has_answer)
            fprintf(f, "%s%s *o%zu, const %s *a%zu, unsigned long long n%zu",
                    k++ ? ", " : "", ktl_type_c(b->type), i,
                    ktl_type_c(b->type), i, i);
    }
    fprintf(f, ")\n{\n    unsigned long long i0 = blockIdx.x * "
               "(unsigned long long)blockDim.x + threadIdx.x;\n    unsigned "
               "long long step = gridDim.x * (unsigned long long)blockDim.x;"
               "\n");
    for (size_t i = 0; i < s->num_buffers; ++i)
        if (s->buffers[i].has_answer)
            fprintf(f,
                    "    for (unsigned long long i = i0; i < n%zu; i += "
                    "step)\n        o%zu[i] = a%zu[i];\n",
                    i, i, i);
    fprintf(f, "}\n");
}

/* NAME.cu in the session folder: the caller's text, or the file's, with
 * the answer kernels where there are answers. */
static int write_source(ktune_session *s, char *out, size_t size)
{
    char *text = s->source_text;
    FILE *in, *f;
    long len = 0;
    int ok;

    if (s->source_file && !has_answers(s)) {
        snprintf(out, size, "%s", s->source_file);
        return KTUNE_OK;
    }
    if (s->source_file) {
        if (!(in = fopen(s->source_file, "rb")) || fseek(in, 0, SEEK_END) ||
            (len = ftell(in)) < 0 || fseek(in, 0, SEEK_SET) ||
            !(text = calloc(1, (size_t)len + 1)) ||
            fread(text, 1, (size_t)len, in) != (size_t)len) {
            if (in)
                fclose(in);
            free(text);
            return ktl_fail(s, KTUNE_E_IO, "cannot read %s", s->source_file);
        }
        fclose(in);
    }
    snprintf(out, size, "%s/%s.cu", s->dir, s->name ? s->name : "kernel");
    if (!(f = fopen(out, "w"))) {
        if (text != s->source_text)
            free(text);
        return ktl_fail(s, KTUNE_E_IO, "cannot write %s", out);
    }
    ok = fputs(text, f) >= 0;
    if (has_answers(s))
        write_answer_kernels(s, f);
    ok = fclose(f) == 0 && ok;
    if (text != s->source_text)
        free(text);
    return ok ? KTUNE_OK : ktl_fail(s, KTUNE_E_IO, "cannot write %s", out);
}

static void write_list(FILE *f, const char *key, const ktl_strv *l,
                       const char *sep)
{
    if (!l->n)
        return;
    fprintf(f, "%s = ", key);
    for (size_t i = 0; i < l->n; ++i)
        fprintf(f, "%s%s", i ? sep : "", l->v[i]);
    fprintf(f, "\n");
}

/* The role a buffer is declared with. With answers, an output that has
 * none is compared with nothing (scratch), and an in-out that has none is
 * an input the kernel writes (restored before each launch, not compared):
 * the answers' reference leaves both as they were. */
static const char *role_of(const ktune_session *s, const ktl_buffer *b)
{
    static const char *const roles[] = {"input", "output", "inout", "scratch"};

    if (has_answers(s) && !b->has_answer && b->role == KTUNE_OUT)
        return "scratch";
    if (has_answers(s) && !b->has_answer && b->role == KTUNE_INOUT)
        return "input";
    return roles[b->role];
}

/* Whether an in-out buffer without an answer is declared as an input. */
static int writes_inputs(const ktune_session *s)
{
    for (size_t i = 0; i < s->num_buffers; ++i)
        if (s->buffers[i].role == KTUNE_INOUT &&
            strcmp(role_of(s, &s->buffers[i]), "input") == 0)
            return 1;
    return 0;
}

static void write_buffers(const ktune_session *s, FILE *f)
{
    char count[1024];

    for (size_t i = 0; i < s->num_buffers; ++i) {
        const ktl_buffer *b = &s->buffers[i];
        count_text(b, count, sizeof count);
        fprintf(f, "buffer.%s = %s %s[%s]", b->name, role_of(s, b),
                ktl_type_name(b->type), count);
        if (b->has_data)
            fprintf(f, " from %s.npy", b->name);
        else if (b->fill)
            fprintf(f, " %s", b->fill);
        fprintf(f, "\n");
        if (b->has_answer)
            fprintf(
                f, "buffer.ktune_answer_%s = input %s[%s] from %s.answer.npy\n",
                b->name, ktl_type_name(b->type), count, b->name);
    }
}

/* The work of the caller's buffers (the answers' buffers are the
 * library's, not the kernel's): each input read once, each output written
 * once, as the parser's default. */
static void write_work(const ktune_session *s, FILE *f)
{
    char count[1024];
    int r = 0, w = 0;

    for (int pass = 0; pass < 2; ++pass) {
        fprintf(f, pass ? "\nbytes_written = " : "bytes_read = ");
        for (size_t i = 0; i < s->num_buffers; ++i) {
            const ktl_buffer *b = &s->buffers[i];
            int in = b->role == KTUNE_IN || b->role == KTUNE_INOUT;
            int out = b->role == KTUNE_OUT || b->role == KTUNE_INOUT;
            if (!(pass ? out : in))
                continue;
            count_text(b, count, sizeof count);
            fprintf(f, "%s(%s) * %zu", (pass ? w++ : r++) ? " + " : "", count,
                    ktl_type_size(b->type));
        }
        if (!(pass ? w : r))
            fprintf(f, "0");
    }
    fprintf(f, "\n");
}

static void write_operator(const ktune_session *s, FILE *f, const char *src)
{
    fprintf(f, "[operator]\nname = %s\nsource = %s\n",
            s->name ? s->name : "kernel", src);
    if (s->sizes.n) {
        fprintf(f, "sizes = ");
        for (size_t i = 0; i < s->sizes.n; ++i)
            fprintf(f, "%s%s%s", i ? ", " : "", s->sizes.v[i],
                    s->pinned_by_data && !strstr(s->sizes.v[i], " pinned")
                        ? " pinned"
                        : "");
        fprintf(f, "\n");
    }
    write_buffers(s, f);
    for (size_t i = 0; i < s->constants.n; ++i)
        fprintf(f, "%s\n", s->constants.v[i]);
    write_list(f, "args", &s->args, ", ");
    if (s->options.n || (s->source_file && has_answers(s))) {
        fprintf(f, "options =");
        for (size_t i = 0; i < s->options.n; ++i)
            fprintf(f, " %s", s->options.v[i]);
        /* The file's own includes, now that its text is copied. */
        if (s->source_file && has_answers(s))
            fprintf(f, " -I%.*s",
                    (int)(strrchr(s->source_file, '/') - s->source_file),
                    s->source_file);
        fprintf(f, "\n");
    }
    if (writes_inputs(s))
        fprintf(f, "modifies_inputs = yes\n");
    if (s->rtol > 0 || s->atol > 0)
        fprintf(f, "rtol = %.17g\natol = %.17g\n", s->rtol, s->atol);
    if (has_answers(s))
        write_work(s, f);
}

static void write_variant(const ktune_session *s, FILE *f, const ktl_variant *v,
                          int reference)
{
    fprintf(f, "\n[variant.%s]\nkernel = %s\n", v->id, v->kernel);
    if (reference)
        fprintf(f, "reference = yes\n");
    for (size_t i = 0; i < v->keys.n; ++i)
        fprintf(f, "%s\n", v->keys.v[i]);
    if (v->requires.n == 1)
        fprintf(f, "require = %s\n", v->requires.v[0]);
    else if (v->requires.n)
        for (size_t i = 0; i < v->requires.n; ++i)
            fprintf(f, "%s(%s)%s", i ? " && " : "require = ", v->requires.v[i],
                    i + 1 < v->requires.n ? "" : "\n");
    (void)s;
}

static void write_answer_variant(const ktune_session *s, FILE *f)
{
    char count[1024];
    int k = 0;

    fprintf(f, "\n[variant.ktune_answer]\nsummary = the answers given as "
               "arrays (libktune)\nreference = yes\nkernel = "
               "ktune_answer_ref\nblock = 1\ngrid = 1\nthen = "
               "ktune_answer_copy\nthen.args = ");
    for (size_t i = 0; i < s->num_buffers; ++i) {
        const ktl_buffer *b = &s->buffers[i];
        if (!b->has_answer)
            continue;
        count_text(b, count, sizeof count);
        fprintf(f, "%s%s, ktune_answer_%s, size_t %s", k++ ? ", " : "", b->name,
                b->name, count);
    }
    fprintf(f, "\nthen.block = 256\nthen.grid = 1024\nthen.timed = no\n");
    fprintf(f, "\n[space]\nvariant = ");
    for (size_t i = 0; i < s->num_variants; ++i)
        fprintf(f, "%s%s", i ? ", " : "", s->variants[i].id);
    fprintf(f, "\n");
}

/* Which variant is the reference: the one marked, else the answers', else
 * the first variant (its default configuration). */
static int has_marked_reference(const ktune_session *s)
{
    for (size_t i = 0; i < s->num_variants; ++i)
        if (s->variants[i].reference)
            return 1;
    return 0;
}

int ktl_write_document(ktune_session *s, char *out, size_t size)
{
    char src[PATH_MAX + 128];
    int rc, first_is_reference, ok;
    FILE *f;

    if (!s->source_text && !s->source_file)
        return ktl_fail(s, KTUNE_E_INPUT,
                        "no kernel source: give it with ktune_source_text or "
                        "ktune_source_file");
    if (has_answers(s) && has_marked_reference(s))
        return ktl_fail(s, KTUNE_E_INPUT,
                        "answers (ktune_answer) and a reference variant "
                        "(ktune_reference) given: verification takes one");
    if ((rc = write_source(s, src, sizeof src)))
        return rc;
    first_is_reference = !has_answers(s) && !has_marked_reference(s);
    snprintf(out, size, "%s/%s.ini", s->dir, s->name ? s->name : "kernel");
    if (!(f = fopen(out, "w")))
        return ktl_fail(s, KTUNE_E_IO, "cannot write %s", out);
    fprintf(f, "; written by libktune %s (docs/library.md)\n",
            KTUNE_LIB_VERSION);
    write_operator(s, f, src);
    for (size_t i = 0; i < s->num_variants; ++i)
        write_variant(s, f, &s->variants[i],
                      s->variants[i].reference ||
                          (first_is_reference && i == 0));
    if (has_answers(s))
        write_answer_variant(s, f);
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    return ok ? KTUNE_OK : ktl_fail(s, KTUNE_E_IO, "cannot write %s", out);
}
