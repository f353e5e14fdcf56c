// SPDX-License-Identifier: Apache-2.0
/* Runs a fuzz target over corpus files without libFuzzer, so that the
 * gcc AddressSanitizer/LeakSanitizer build (KT_SANITIZE) replays the seed
 * corpora and their regression seeds: libFuzzer's clang build carries UBSan
 * only and cannot see leaks. Usage: TARGET_corpus FILE_OR_DIR... Exit 0
 * when every input was handled (the target aborts otherwise). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data;
    long len;

    if (!f)
        return 1;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc(len > 0 ? (size_t)len : 1);
    if (!data || (len > 0 && fread(data, 1, (size_t)len, f) != (size_t)len)) {
        free(data);
        fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)len);
    free(data);
    printf("ok %s\n", path);
    return 0;
}

static int run_path(const char *path)
{
    struct stat st;
    struct dirent *e;
    DIR *d;
    int bad = 0;

    if (stat(path, &st) != 0)
        return 1;
    if (!S_ISDIR(st.st_mode))
        return run_file(path);
    if (!(d = opendir(path)))
        return 1;
    while ((e = readdir(d))) {
        char child[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        bad |= run_path(child);
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    int bad = 0;

    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; ++i)
        bad |= run_path(argv[i]);
    return bad;
}
