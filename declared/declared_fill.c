// SPDX-License-Identifier: Apache-2.0
/*
 * What a declared input holds (declared/declared.h, kt_decl_fill): a seeded
 * distribution, a .npy file, or a generator kernel. The distributions draw
 * on the host's seeded uniform generator (kt_host.random_f32), so the same
 * seed gives the same bytes on every machine; elements are converted to the
 * buffer's type here (integers rounded down and saturated, f16 rounded to
 * nearest even). Pure host code: no CUDA.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fileio.h"
#include "core/parse.h"
#include "declared/declared.h"

/* ------------------------------------------------------------- f16 */

uint16_t kt_decl_f16_from(double x)
{
    float f = (float)x;
    uint32_t u, sign, exp, mant;
    memcpy(&u, &f, sizeof u);
    sign = (u >> 16) & 0x8000u;
    exp = (u >> 23) & 0xffu;
    mant = u & 0x7fffffu;
    if (exp == 0xff) /* inf, NaN */
        return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
    if ((int)exp - 127 > 15)
        return (uint16_t)(sign | 0x7c00u);
    if ((int)exp - 127 >= -14) {
        uint32_t h = ((exp - 112) << 10) | (mant >> 13), rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1)))
            ++h; /* may carry into the exponent: still right */
        return (uint16_t)(sign | h);
    }
    if ((int)exp - 127 < -25)
        return (uint16_t)sign;
    {
        /* Subnormal: the implicit bit joins the mantissa. */
        uint32_t m = mant | 0x800000u, shift = (uint32_t)(126 - (int)exp);
        uint32_t h = m >> shift, rest = m & ((1u << shift) - 1),
                 half = 1u << (shift - 1);
        if (rest > half || (rest == half && (h & 1)))
            ++h;
        return (uint16_t)(sign | h);
    }
}

double kt_decl_f16_to(uint16_t h)
{
    int exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff, x;
    if (exp == 0)
        x = ldexp(mant, -24);
    else if (exp == 31)
        x = mant ? NAN : INFINITY;
    else
        x = ldexp(mant + 1024, exp - 25);
    return h & 0x8000 ? -x : x;
}

/* ---------------------------------------------------------- elements */

static int64_t saturate(double x, double lo, double hi)
{
    if (!(x >= lo)) /* NaN too */
        return (int64_t)lo;
    if (x >= hi)
        return (int64_t)hi;
    return (int64_t)floor(x);
}

void kt_decl_store(void *buf, kt_decl_type t, size_t i, double x)
{
    switch (t) {
    case KT_DECL_F32: ((float *)buf)[i] = (float)x; break;
    case KT_DECL_F64: ((double *)buf)[i] = x; break;
    case KT_DECL_F16: ((uint16_t *)buf)[i] = kt_decl_f16_from(x); break;
    case KT_DECL_I8: ((int8_t *)buf)[i] = (int8_t)saturate(x, -128, 127); break;
    case KT_DECL_U8: ((uint8_t *)buf)[i] = (uint8_t)saturate(x, 0, 255); break;
    case KT_DECL_I16:
        ((int16_t *)buf)[i] = (int16_t)saturate(x, -32768, 32767);
        break;
    case KT_DECL_U16:
        ((uint16_t *)buf)[i] = (uint16_t)saturate(x, 0, 65535);
        break;
    case KT_DECL_I32:
        ((int32_t *)buf)[i] = (int32_t)saturate(x, -2147483648.0, 2147483647.0);
        break;
    case KT_DECL_U32:
        ((uint32_t *)buf)[i] = (uint32_t)saturate(x, 0, 4294967295.0);
        break;
    case KT_DECL_I64: ((int64_t *)buf)[i] = saturate(x, -9.2e18, 9.2e18); break;
    case KT_DECL_U64:
        ((uint64_t *)buf)[i] = (uint64_t)saturate(x, 0, 9.2e18);
        break;
    }
}

double kt_decl_load(const void *buf, kt_decl_type t, size_t i)
{
    switch (t) {
    case KT_DECL_F32: return ((const float *)buf)[i];
    case KT_DECL_F64: return ((const double *)buf)[i];
    case KT_DECL_F16: return kt_decl_f16_to(((const uint16_t *)buf)[i]);
    case KT_DECL_I8: return ((const int8_t *)buf)[i];
    case KT_DECL_U8: return ((const uint8_t *)buf)[i];
    case KT_DECL_I16: return ((const int16_t *)buf)[i];
    case KT_DECL_U16: return ((const uint16_t *)buf)[i];
    case KT_DECL_I32: return ((const int32_t *)buf)[i];
    case KT_DECL_U32: return ((const uint32_t *)buf)[i];
    case KT_DECL_I64: return (double)((const int64_t *)buf)[i];
    case KT_DECL_U64: return (double)((const uint64_t *)buf)[i];
    }
    return 0;
}

static int is_float(kt_decl_type t)
{
    return t == KT_DECL_F32 || t == KT_DECL_F64 || t == KT_DECL_F16;
}

/* ------------------------------------------------------------- .npy */

/* NumPy's descr of each type, in kt_decl_type's order (little-endian). */
static const char *const npy_descr[] = {"<f4", "<f8", "<i4", "<i8",
                                        "<u4", "<u8", "|i1", "|u1",
                                        "<i2", "<u2", "<f2"};

/* The value of 'key': in the header dict, copied into out. */
static int npy_field(const char *hdr, const char *key, char *out, size_t size)
{
    const char *p = strstr(hdr, key), *end;
    if (!p)
        return -1;
    p += strlen(key);
    while (*p == ' ' || *p == ':')
        ++p;
    if (*p == '\'') {
        end = strchr(p + 1, '\'');
        ++p;
    } else if (*p == '(')
        end = strchr(p, ')') ? strchr(p, ')') + 1 : NULL;
    else
        end = strpbrk(p, ",}");
    if (!end || (size_t)(end - p) >= size)
        return -1;
    snprintf(out, size, "%.*s", (int)(end - p), p);
    return 0;
}

/* The element count of a shape "(a, b, ...)" ("()" is one element), and
 * how many of its dimensions exceed 1; -1 when it is not a shape or its
 * product overflows. */
static int npy_shape(const char *shape, size_t *count, int *wide)
{
    const char *p = shape + 1;

    *count = 1;
    *wide = 0;
    if (shape[0] != '(')
        return -1;
    for (;;) {
        char *end;
        unsigned long long d;
        p += strspn(p, " ");
        if (*p == ')')
            return p[1] ? -1 : 0;
        if (!isdigit((unsigned char)*p))
            return -1;
        errno = 0;
        d = strtoull(p, &end, 10);
        if (errno || __builtin_mul_overflow(*count, (size_t)d, count))
            return -1;
        *wide += d > 1;
        p = end + strspn(end, " ");
        if (*p == ',')
            ++p;
        else if (*p != ')')
            return -1;
    }
}

/* The header dict's fields checked against want; the element count. */
static kt_status npy_fields(const char *path, const char *hdr,
                            kt_decl_type want, size_t *count, kt_err *err)
{
    char descr[16], order[16], shape[256];
    int wide = 0;

    if (npy_field(hdr, "'descr'", descr, sizeof descr) ||
        npy_field(hdr, "'fortran_order'", order, sizeof order) ||
        npy_field(hdr, "'shape'", shape, sizeof shape))
        return kt_err_set(err, KT_S_INPUT, "'%s': header '%.200s' unreadable",
                          path, hdr);
    if (strcmp(descr, npy_descr[want]) != 0 &&
        !(descr[0] == '=' && strcmp(descr + 1, npy_descr[want] + 1) == 0))
        return kt_err_set(err, KT_S_INPUT,
                          "'%s' holds dtype '%s'; the buffer's type %s is "
                          "'%s'",
                          path, descr, kt_decl_type_name(want),
                          npy_descr[want]);
    if (npy_shape(shape, count, &wide))
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': shape %s is not a list of sizes whose "
                          "product fits 64 bits",
                          path, shape);
    if (strcmp(order, "True") != 0 && strcmp(order, "False") != 0)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': fortran_order is '%s', expected True or False",
                          path, order);
    /* Column-major data of two or more real dimensions would reach the
     * kernel transposed: refused rather than reordered silently. */
    if (strcmp(order, "True") == 0 && wide > 1)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': fortran_order True (column-major) with shape "
                          "%s; the kernel reads row-major (C order): save it "
                          "with numpy.save(path, numpy.ascontiguousarray(a))",
                          path, shape);
    return KT_S_OK;
}

kt_status kt_decl_npy_header(const char *path, kt_decl_type want, size_t *count,
                             long *data_offset, kt_err *err)
{
    unsigned char head[12];
    char hdr[KT_DECL_NPY_MAX_HEADER + 1];
    size_t len, need;
    struct stat st;
    kt_status rc = KT_S_OK;
    FILE *f = kt_file_open_regular(path, ".npy input", "rb", err);
    int v2;

    if (!f)
        return KT_S_INPUT;
    if (fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6) != 0) {
        fclose(f);
        return kt_err_set(err, KT_S_INPUT, "'%s' is not a .npy file", path);
    }
    v2 = head[6] >= 2;
    len = head[8] | (size_t)head[9] << 8;
    if (v2 && fread(head + 10, 1, 2, f) == 2)
        len |= (size_t)head[10] << 16 | (size_t)head[11] << 24;
    if (len > KT_DECL_NPY_MAX_HEADER || fread(hdr, 1, len, f) != len ||
        fstat(fileno(f), &st) != 0) {
        fclose(f);
        return kt_err_set(err, KT_S_INPUT,
                          "'%s': header unreadable (%zu bytes; at most %d "
                          "are read)",
                          path, len, KT_DECL_NPY_MAX_HEADER);
    }
    fclose(f);
    hdr[len] = '\0';
    *data_offset = (long)((v2 ? 12 : 10) + len);
    if ((rc = npy_fields(path, hdr, want, count, err)))
        return rc;
    /* The data must be there, whole: a cut file is not zeros. */
    if (__builtin_mul_overflow(*count, kt_decl_type_size(want), &need) ||
        __builtin_add_overflow(need, (size_t)*data_offset, &need) ||
        (unsigned long long)st.st_size != need)
        return kt_err_set(
            err, KT_S_INPUT,
            "'%s': %lld bytes, where its header (%zu elements "
            "of %s) needs %zu%s",
            path, (long long)st.st_size, *count, kt_decl_type_name(want), need,
            (unsigned long long)st.st_size < need ? ": cut short" : "");
    return KT_S_OK;
}

kt_status kt_decl_npy_map(const kt_decl_fill *f, kt_decl_type t, size_t n,
                          const void **data, void **map, size_t *map_len,
                          kt_err *err)
{
    size_t have = 0;
    long offset = 0;
    FILE *fp = NULL;
    void *m = MAP_FAILED;
    kt_status rc;

    *map = NULL;
    *map_len = 0;
    if ((rc = kt_decl_npy_header(f->path, t, &have, &offset, err)))
        return rc;
    if (have != n)
        return kt_err_set(err, KT_S_INPUT,
                          "'%s' holds %zu elements; the buffer has %zu",
                          f->path, have, n);
    /* The header checked the file's size: offset + n elements. */
    *map_len = (size_t)offset + n * kt_decl_type_size(t);
    if ((fp = kt_file_open_regular(f->path, ".npy input", "rb", err)))
        m = mmap(NULL, *map_len, PROT_READ, MAP_SHARED, fileno(fp), 0);
    if (fp)
        fclose(fp);
    if (m == MAP_FAILED) {
        *map_len = 0;
        return fp ? kt_err_set(err, KT_S_IO, "'%s': cannot map %zu elements",
                               f->path, n)
                  : err->status;
    }
    *map = m;
    *data = (const char *)m + offset;
    return KT_S_OK;
}

void kt_decl_npy_unmap(void *map, size_t map_len)
{
    if (map)
        munmap(map, map_len);
}

/* The n elements of f's .npy file copied into dst. */
static kt_status read_npy(const kt_decl_fill *f, kt_decl_type t, void *dst,
                          size_t n, kt_err *err)
{
    const void *data = NULL;
    void *map;
    size_t map_len;
    kt_status rc = kt_decl_npy_map(f, t, n, &data, &map, &map_len, err);

    if (rc == KT_S_OK)
        memcpy(dst, data, n * kt_decl_type_size(t));
    kt_decl_npy_unmap(map, map_len);
    return rc;
}

/* ------------------------------------------------------------ fills */

/* Two numbers inside "(a, b)" (or one, when b may be missing). */
static kt_status two_numbers(const char *text, const char *args, int need,
                             double *a, double *b, kt_err *err)
{
    char buf[256], *comma, *close;
    snprintf(buf, sizeof buf, "%s", args);
    close = strrchr(buf, ')');
    if (!close || kt_parse_trim(close + 1)[0])
        return kt_err_set(err, KT_S_INPUT, "'%s': missing ')'", text);
    *close = '\0';
    comma = strchr(buf, ',');
    if (comma)
        *comma = '\0';
    if ((need == 2) != (comma != NULL))
        return kt_err_set(err, KT_S_INPUT, "'%s': expected %d number(s)", text,
                          need);
    if (kt_parse_double(kt_parse_trim(buf), text, a, err) ||
        (comma && kt_parse_double(kt_parse_trim(comma + 1), text, b, err)))
        return err->status;
    return KT_S_OK;
}

/* "from FILE.npy" or "from KERNEL". */
static kt_status parse_from(const char *text, const char *what, kt_decl_type t,
                            const char *dir, kt_decl_fill *out, kt_err *err)
{
    size_t len = strlen(what), count;
    long offset;

    if (len > 4 && strcmp(what + len - 4, ".npy") == 0) {
        out->kind = KT_FILL_NPY;
        if (kt_decl_path(dir, what, out->path, sizeof out->path, err))
            return err->status;
        return kt_decl_npy_header(out->path, t, &count, &offset, err);
    }
    for (const char *p = what; *p; ++p)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != ':')
            return kt_err_set(err, KT_S_INPUT,
                              "'%s': expected 'from FILE.npy' or 'from "
                              "KERNEL' (a generator in the source)",
                              text);
    if (!*what || len >= sizeof out->kernel)
        return kt_err_set(err, KT_S_INPUT, "'%s': no generator named", text);
    out->kind = KT_FILL_KERNEL;
    memcpy(out->kernel, what, len + 1);
    return KT_S_OK;
}

kt_status kt_decl_fill_parse(const char *text, kt_decl_type t, const char *dir,
                             kt_decl_fill *out, kt_err *err)
{
    static const struct {
        const char *name;
        kt_decl_fill_kind kind;
        int args;
    } dists[] = {{"uniform(", KT_FILL_UNIFORM, 2},
                 {"normal(", KT_FILL_NORMAL, 2},
                 {"constant(", KT_FILL_CONSTANT, 1},
                 {"arange(", KT_FILL_ARANGE, 2},
                 {"integers(", KT_FILL_INTEGERS, 2}};

    memset(out, 0, sizeof *out);
    if (strncmp(text, "from ", 5) == 0) {
        char what[4096];
        snprintf(what, sizeof what, "%s", text + 5);
        return parse_from(text, kt_parse_trim(what), t, dir, out, err);
    }
    if (strcmp(text, "arange") == 0) {
        out->kind = KT_FILL_ARANGE;
        out->b = 1;
        return KT_S_OK;
    }
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; ++i) {
        size_t n = strlen(dists[i].name);
        if (strncmp(text, dists[i].name, n) != 0)
            continue;
        out->kind = dists[i].kind;
        if (two_numbers(text, text + n, dists[i].args, &out->a, &out->b, err))
            return err->status;
        if ((out->kind == KT_FILL_UNIFORM || out->kind == KT_FILL_INTEGERS) &&
            !(out->a < out->b))
            return kt_err_set(err, KT_S_INPUT, "'%s': expected a < b", text);
        if (out->kind == KT_FILL_NORMAL && !(out->b >= 0))
            return kt_err_set(err, KT_S_INPUT, "'%s': sigma is negative", text);
        if (out->kind == KT_FILL_INTEGERS && is_float(t))
            return kt_err_set(err, KT_S_INPUT,
                              "'%s': integers() fills integer buffers; "
                              "use uniform(a, b)",
                              text);
        return KT_S_OK;
    }
    return kt_err_set(err, KT_S_INPUT,
                      "'%s': expected a fill: uniform(a, b), normal(mu, "
                      "sigma), constant(v), arange or arange(start, step), "
                      "integers(lo, hi), from FILE.npy or from KERNEL",
                      text);
}

/* The value of element i from u[] (uniforms in [0, 1), two per element
 * for normal). */
static double draw(const kt_decl_fill *f, kt_decl_type t, const float *u,
                   size_t i)
{
    double x;
    switch (f->kind) {
    case KT_FILL_UNIFORM: return f->a + (f->b - f->a) * u[i];
    case KT_FILL_NORMAL:
        /* Box-Muller; 1 - u keeps the logarithm finite. */
        x = sqrt(-2.0 * log(1.0 - (double)u[2 * i])) *
            cos(6.283185307179586 * (double)u[2 * i + 1]);
        return f->a + f->b * x;
    case KT_FILL_INTEGERS: {
        double k = floor(f->a + (f->b - f->a) * u[i]);
        return k < f->b ? k : f->b - 1;
    }
    default: break;
    }
    /* KT_FILL_DEFAULT (u in [-1, 1)): the floats themselves, integers in
     * [-100, 100) and unsigned ones in [0, 200). */
    x = u[i];
    if (is_float(t))
        return x;
    x = (double)(int64_t)(x * 100.0 - (x < 0));
    if (t == KT_DECL_U8 || t == KT_DECL_U16 || t == KT_DECL_U32 ||
        t == KT_DECL_U64)
        x += 100;
    return x;
}

kt_status kt_decl_fill_host(const kt_decl_fill *f, kt_decl_type t,
                            const kt_host *h, uint64_t stream, void *dst,
                            size_t n, kt_err *err)
{
    size_t draws = f->kind == KT_FILL_NORMAL ? 2 * n : n;
    float *u;

    if (f->kind == KT_FILL_NPY)
        return read_npy(f, t, dst, n, err);
    if (f->kind == KT_FILL_KERNEL)
        return kt_err_set(err, KT_S_UNSUPPORTED,
                          "a generator fills on the device");
    if (f->kind == KT_FILL_CONSTANT || f->kind == KT_FILL_ARANGE) {
        for (size_t i = 0; i < n; ++i)
            kt_decl_store(
                dst, t, i,
                f->kind == KT_FILL_CONSTANT ? f->a : f->a + f->b * (double)i);
        return KT_S_OK;
    }
    if (!(u = malloc(draws * sizeof *u + 1)))
        return kt_err_set(err, KT_S_NOMEM, "out of host memory for %zu values",
                          n);
    if (f->kind == KT_FILL_DEFAULT)
        h->random_f32(h, stream, u, draws, -1.0f, 1.0f);
    else
        h->random_f32(h, stream, u, draws, 0.0f, 1.0f);
    for (size_t i = 0; i < n; ++i)
        kt_decl_store(dst, t, i, draw(f, t, u, i));
    free(u);
    return KT_S_OK;
}
