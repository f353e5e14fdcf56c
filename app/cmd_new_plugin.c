// SPDX-License-Identifier: Apache-2.0
/*
 * ktune new-plugin: scaffolds an out-of-tree plugin project, built against
 * an installed ktune through its CMake package (find_package(ktune)):
 * CMakeLists.txt, NAME.cu (one operator, two variants, verified against a
 * double-precision reference, with work accounting) and NAME.ini (a tuning
 * job). The templates are the files in app/templates/ (app/templates.h),
 * with @NAME@ and @VERSION@ replaced; tests/install builds and lists what
 * they produce.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/templates.h"
#include "core/version.h"

#ifndef KT_PREFIX_FROM_BINDIR
#define KT_PREFIX_FROM_BINDIR ".."
#endif
#ifndef KT_CMAKE_PACKAGE_DIR
#define KT_CMAKE_PACKAGE_DIR "lib/cmake/ktune"
#endif

/* Longest NAME: it becomes file, target and plugin names. */
#define KT_NEW_PLUGIN_NAME_MAX 64

static const char help[] =
    "usage: ktune new-plugin NAME [DIR]\n\n"
    "Writes a kernel plugin project into DIR (default: ./NAME), creating the\n"
    "folder if needed:\n"
    "  CMakeLists.txt  find_package(ktune) and ktune_add_plugin(NAME NAME.cu)\n"
    "  NAME.cu         one operator, NAME:mul (z = x * y), two variants\n"
    "                  (one_per_thread, grid_stride), verified against a\n"
    "                  double-precision reference, with work accounting\n"
    "  NAME.ini        a tuning job for 'ktune tune'\n\n"
    "NAME is the plugin's name: letters, digits and '_', not starting with a\n"
    "digit, at most 64 characters, and not the name of a plugin ktune\n"
    "already loads. Existing files are never overwritten. Needs no GPU.\n"
    "See docs/tutorial.md.\n\n"
    "Exit codes: 0 written; 1 a folder or file could not be written; 2 a\n"
    "bad NAME, DIR or option, or a file that exists already.\n";

typedef struct scaffold_file {
    const char *suffix; /* appended to NAME, or the whole file name */
    int named;          /* 1: NAME + suffix, 0: suffix alone */
    const char *text;
} scaffold_file;

static const scaffold_file files[] = {
    {"CMakeLists.txt", 0, kt_template_cmake},
    {".cu", 1, kt_template_cu},
    {".ini", 1, kt_template_ini},
};
enum { NUM_FILES = sizeof files / sizeof files[0] };

/* Target names CMake reserves (a plugin's target is called NAME). */
static const char *const reserved_targets[] = {
    "all",       "ALL_BUILD",      "clean",      "edit_cache",
    "help",      "install",        "INSTALL",    "package",
    "PACKAGE",   "package_source", "preinstall", "rebuild_cache",
    "RUN_TESTS", "test",           "ZERO_CHECK", "ktune",
};

static kt_status check_name(const char *name, kt_err *err)
{
    size_t len = strlen(name);

    if (len == 0)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: NAME is empty; expected an identifier "
                          "such as 'my_op'");
    if (len > KT_NEW_PLUGIN_NAME_MAX)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: NAME '%.20s...' has %zu characters; "
                          "expected at most %d",
                          name, len, KT_NEW_PLUGIN_NAME_MAX);
    for (size_t i = 0; i < len; ++i) {
        char c = name[i];
        int letter =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        int digit = c >= '0' && c <= '9';
        if (!letter && !(digit && i > 0)) {
            char what[32];
            if (c > ' ' && c <= '~')
                snprintf(what, sizeof what, "%s '%c'",
                         digit ? "a leading digit" : "the character", c);
            else
                snprintf(what, sizeof what, "the byte 0x%02x",
                         (unsigned)(unsigned char)c);
            return kt_err_set(err, KT_S_INPUT,
                              "new-plugin: NAME '%s' is not an identifier: "
                              "%s at position %zu; expected letters, digits "
                              "and '_', not starting with a digit",
                              name, what, i + 1);
        }
    }
    for (size_t i = 0; i < sizeof reserved_targets / sizeof reserved_targets[0];
         ++i)
        if (strcmp(name, reserved_targets[i]) == 0)
            return kt_err_set(err, KT_S_INPUT,
                              "new-plugin: NAME '%s' is reserved (a CMake "
                              "target name, or ktune's own); choose another",
                              name);
    return KT_S_OK;
}

/* Two plugins of one name cannot be loaded together: refuse a name that
 * the plugins ktune loads by default (built-in folder, KTUNE_PLUGIN_PATH)
 * already use. */
static kt_status check_name_free(const char *name, kt_err *err)
{
    kt_registry reg;
    const kt_loaded_plugin *taken;
    kt_status rc = KT_S_OK;

    kt_registry_init(&reg);
    reg.isolated = 1;
    kt_cli_load_plugins(&reg, NULL, 0, 1);
    taken = kt_registry_find(&reg, name);
    if (taken)
        rc = kt_err_set(err, KT_S_INPUT,
                        "new-plugin: a plugin called '%s' is already loaded "
                        "from %s; two plugins of one name cannot be loaded "
                        "together, choose another NAME",
                        name, taken->path);
    kt_registry_free(&reg);
    return rc;
}

/* Creates dir and its missing parents. A path that exists as something
 * other than a folder is the user's mistake; anything else that fails is
 * not. */
static kt_status make_dirs(const char *dir, kt_err *err)
{
    char path[PATH_MAX];
    struct stat st;
    size_t len = strlen(dir);

    if (len == 0 || len >= sizeof path)
        return kt_err_set(err, KT_S_INPUT,
                          "new-plugin: DIR must be a path of 1 to %zu "
                          "characters",
                          sizeof path - 1);
    memcpy(path, dir, len + 1);
    for (size_t i = 1; i <= len; ++i) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        if (stat(path, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return kt_err_set(err, KT_S_INPUT,
                                  "new-plugin: %s exists and is not a "
                                  "folder; expected a folder for DIR %s",
                                  path, dir);
        } else if (errno != ENOENT || mkdir(path, 0777) != 0) {
            return kt_err_set(err, KT_S_IO, "new-plugin: cannot create %s: %s",
                              path, strerror(errno));
        }
        path[i] = saved;
    }
    return KT_S_OK;
}

/* The template with @NAME@ and @VERSION@ replaced; malloc'ed, caller
 * frees. */
static char *expand(const char *text, const char *name, const char *version)
{
    size_t name_len = strlen(name), version_len = strlen(version);
    size_t size = 1;
    char *out, *o;

    for (const char *p = text; *p;) {
        if (strncmp(p, "@NAME@", 6) == 0) {
            size += name_len;
            p += 6;
        } else if (strncmp(p, "@VERSION@", 9) == 0) {
            size += version_len;
            p += 9;
        } else {
            ++size;
            ++p;
        }
    }
    out = malloc(size);
    if (!out)
        return NULL;
    o = out;
    for (const char *p = text; *p;) {
        if (strncmp(p, "@NAME@", 6) == 0) {
            memcpy(o, name, name_len);
            o += name_len;
            p += 6;
        } else if (strncmp(p, "@VERSION@", 9) == 0) {
            memcpy(o, version, version_len);
            o += version_len;
            p += 9;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* Writes text to a file that must not exist yet (O_EXCL: never overwrites,
 * even when the file appeared after the first check). */
static kt_status write_new(const char *path, const char *text, kt_err *err)
{
    size_t len = strlen(text), done = 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    kt_status rc = KT_S_OK;

    if (fd < 0)
        return kt_err_set(err, errno == EEXIST ? KT_S_INPUT : KT_S_IO,
                          "new-plugin: cannot create %s: %s", path,
                          strerror(errno));
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = kt_err_set(err, KT_S_IO, "new-plugin: writing %s: %s", path,
                            strerror(n < 0 ? errno : EIO));
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && rc == KT_S_OK)
        rc = kt_err_set(err, KT_S_IO, "new-plugin: writing %s: %s", path,
                        strerror(errno));
    if (rc != KT_S_OK)
        unlink(path);
    return rc;
}

/* "0.1" from "0.1.0": the version find_package(ktune X.Y) asks for. */
static void package_version(char *out, size_t size)
{
    const char *second = strchr(KT_VERSION, '.');
    const char *third = second ? strchr(second + 1, '.') : NULL;
    int len = third ? (int)(third - KT_VERSION) : (int)strlen(KT_VERSION);
    snprintf(out, size, "%.*s", len, KT_VERSION);
}

/* Prints what to run next, with this ktune's path and, when it is an
 * installed one, the prefix that finds its CMake package. */
static void print_next_steps(const char *name, const char *dir)
{
    char exe[PATH_MAX], prefix[PATH_MAX + 32], package[2 * PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *ktune = "ktune";
    char *real = NULL, *slash;

    prefix[0] = '\0';
    if (len > 0) {
        exe[len] = '\0';
        ktune = exe;
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(prefix, sizeof prefix, "%s/%s", exe,
                     KT_PREFIX_FROM_BINDIR);
            *slash = '/';
            real = realpath(prefix, NULL);
            if (real)
                snprintf(prefix, sizeof prefix, "%s", real);
            free(real);
            if (KT_CMAKE_PACKAGE_DIR[0] == '/')
                snprintf(package, sizeof package, "%s/ktuneConfig.cmake",
                         KT_CMAKE_PACKAGE_DIR);
            else
                snprintf(package, sizeof package, "%s/%s/ktuneConfig.cmake",
                         prefix, KT_CMAKE_PACKAGE_DIR);
            if (access(package, R_OK) != 0)
                prefix[0] = '\0';
        }
    }
    printf("\nnext:\n");
    if (prefix[0])
        printf("  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=%s\n", dir, dir,
               prefix);
    else
        printf("  # this ktune is not an installed one: install it first\n"
               "  # (cmake --install BUILD --prefix PREFIX), then\n"
               "  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=PREFIX\n",
               dir, dir);
    printf("  cmake --build %s/build\n", dir);
    printf("  %s list --plugin %s/build/%s.so\n", ktune, dir, name);
    printf("  %s bench %s:mul --plugin %s/build/%s.so --variant grid_stride\n",
           ktune, name, dir, name);
    printf("  %s tune %s/%s.ini --plugin %s/build/%s.so\n", ktune, dir, name,
           dir, name);
}

int kt_cmd_new_plugin(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    char paths[NUM_FILES][PATH_MAX + KT_NEW_PLUGIN_NAME_MAX + 16];
    char version[32];
    const char *name, *dir;
    size_t created = 0;
    int opt, rc = KT_EXIT_OK;
    struct stat st;
    kt_err err;

    kt_err_clear(&err);
    optind = 1;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'h': fputs(help, stdout); return KT_EXIT_OK;
        default: return kt_cli_bad_option("new-plugin", argv, options);
        }
    }
    if (optind >= argc)
        return kt_cli_usage_error("new-plugin", "NAME is missing");
    if (argc - optind > 2)
        return kt_cli_usage_error("new-plugin", "unexpected argument '%s'",
                                  argv[optind + 2]);
    name = argv[optind];
    dir = optind + 1 < argc ? argv[optind + 1] : name;
    if (check_name(name, &err) || check_name_free(name, &err))
        return kt_cli_fail(&err);

    /* Every file is checked before any is written: all or nothing. */
    for (size_t i = 0; i < NUM_FILES; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/%s%s", dir,
                 files[i].named ? name : "", files[i].suffix);
        if (lstat(paths[i], &st) == 0) {
            kt_err_set(&err, KT_S_INPUT,
                       "new-plugin: %s exists; new-plugin never overwrites "
                       "files: choose another DIR or NAME",
                       paths[i]);
            return kt_cli_fail(&err);
        }
    }
    if (make_dirs(dir, &err))
        return kt_cli_fail(&err);
    package_version(version, sizeof version);
    for (; created < NUM_FILES; ++created) {
        char *text = expand(files[created].text, name, version);
        kt_status st_write;
        if (!text) {
            kt_err_set(&err, KT_S_NOMEM, "new-plugin: out of memory");
            break;
        }
        st_write = write_new(paths[created], text, &err);
        free(text);
        if (st_write)
            break;
    }
    if (created < NUM_FILES) {
        /* Leave nothing half made: remove what this call wrote. */
        for (size_t i = 0; i < created; ++i)
            unlink(paths[i]);
        return kt_cli_fail(&err);
    }
    printf("created");
    for (size_t i = 0; i < NUM_FILES; ++i)
        printf("%s %s", i ? "," : "", paths[i]);
    printf("\n");
    print_next_steps(name, dir);
    return rc;
}
