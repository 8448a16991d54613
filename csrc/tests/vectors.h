/* vectors.h: a small test framework for the core's C tests and a reader for
 * the shared vectors (testdata/vectors.txt), which the Python and Go tests
 * read too. Header-only: each test_*.c is one executable. */
#ifndef RB_TEST_VECTORS_H
#define RB_TEST_VECTORS_H

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roundbench.h"

static int rbt_failures, rbt_checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        rbt_checks++;                                                                              \
        if (!(cond)) {                                                                             \
            rbt_failures++;                                                                        \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* Ends a test program: prints the plain closing line and returns its status. */
static int rbt_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, rbt_checks - rbt_failures, rbt_failures);
    return rbt_failures ? 1 : 0;
}

#define RBT_MAX_FIELDS 8

typedef struct {
    char kind[32];
    int nfields;
    char key[RBT_MAX_FIELDS][32];
    char val[RBT_MAX_FIELDS][256];
} rbt_vector;

/* Returns the value of `key` in v, or NULL. */
static const char *rbt_get(const rbt_vector *v, const char *key)
{
    for (int i = 0; i < v->nfields; i++)
        if (strcmp(v->key[i], key) == 0)
            return v->val[i];
    return NULL;
}

/* The value of `key` in v; a vector without it ends the test (exit 2): a
 * field renamed in the file cannot pass silently. */
static inline const char *rbt_str(const rbt_vector *v, const char *key)
{
    const char *s = rbt_get(v, key);
    if (!s) {
        fprintf(stderr, "vector %s lacks %s\n", v->kind, key);
        exit(2);
    }
    return s;
}

static inline long long rbt_int(const rbt_vector *v, const char *key)
{
    const char *s = rbt_str(v, key);
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno || !*s || *end) {
        fprintf(stderr, "vector %s: %s=%s is not an int64\n", v->kind, key, s);
        exit(2);
    }
    return x;
}

static inline double rbt_num(const rbt_vector *v, const char *key)
{
    const char *s = rbt_str(v, key);
    char *end;
    double x = strtod(s, &end);
    if (!*s || *end) {
        fprintf(stderr, "vector %s: %s=%s is not a number\n", v->kind, key, s);
        exit(2);
    }
    return x;
}

/* The status that v's error=KIND names: arg (RB_ERR_ARG) or overflow
 * (RB_ERR_OVERFLOW); any other KIND ends the test. */
static inline rb_status rbt_status(const rbt_vector *v)
{
    const char *s = rbt_str(v, "error");
    if (strcmp(s, "arg") == 0)
        return RB_ERR_ARG;
    if (strcmp(s, "overflow") == 0)
        return RB_ERR_OVERFLOW;
    fprintf(stderr, "vector %s: error=%s is neither arg nor overflow\n", v->kind, s);
    exit(2);
}

/* Calls fn(v, ctx) for every vector of the given kind in one file; returns
 * how many. */
static inline int rbt_each_in(const char *path, const char *kind,
                              void (*fn)(const rbt_vector *, void *), void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        exit(2);
    }
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        rbt_vector v = {0};
        char *save = NULL;
        char *tok = strtok_r(line, " \t\r\n", &save);
        if (!tok || strlen(tok) >= sizeof v.kind || strcmp(tok, kind) != 0)
            continue;
        strcpy(v.kind, tok);
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) && v.nfields < RBT_MAX_FIELDS) {
            char *eq = strchr(tok, '=');
            if (!eq || (size_t)(eq - tok) >= sizeof v.key[0] || strlen(eq + 1) >= sizeof v.val[0])
                continue;
            memcpy(v.key[v.nfields], tok, (size_t)(eq - tok));
            strcpy(v.val[v.nfields], eq + 1);
            v.nfields++;
        }
        fn(&v, ctx);
        count++;
    }
    fclose(f);
    return count;
}

/* Calls fn(v, ctx) for every vector of the given kind in `path`
 * (testdata/vectors.txt) and in every round's file beside it,
 * vectors/<round>.txt; returns how many. */
static inline int rbt_each(const char *path, const char *kind,
                           void (*fn)(const rbt_vector *, void *), void *ctx)
{
    int count = rbt_each_in(path, kind, fn, ctx);
    const char *slash = strrchr(path, '/');
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%.*svectors/*.txt", slash ? (int)(slash - path + 1) : 0,
             path);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            count += rbt_each_in(g.gl_pathv[i], kind, fn, ctx);
        globfree(&g);
    }
    return count;
}

#endif
