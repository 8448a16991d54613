/* main.c: the C runner. `rb-c ROUND IMPL [key=value...]` runs one variant
 * once ($ROUNDBENCH_VALUES times where set) and prints its result line
 * each time (see harness.h); `rb-c --list` prints
 * every variant it implements, `ROUND VARIANT UNIT...` a line, sorted. The
 * rounds are the RBC_ROUND entries of the run_<round>.c files, which the
 * linker gathers into the section rbc_rounds (harness.h says how). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The registry: [__start_rbc_rounds, __stop_rbc_rounds), one pointer per
 * RBC_ROUND, in link order. */
extern const rbc_round *const __start_rbc_rounds[];
extern const rbc_round *const __stop_rbc_rounds[];

/* One line of --list. */
typedef struct entry {
    const rbc_round *round;
    const rbc_variant *variant;
} entry;

static int by_name(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    int c = strcmp(a->round->name, b->round->name);
    return c ? c : strcmp(a->variant->name, b->variant->name);
}

/* Every registered entry that is a variant (tools left out), sorted by
 * round then variant; *count gets how many. NULL when out of memory. */
static entry *sorted_entries(size_t *count)
{
    size_t n = 0;
    for (const rbc_round *const *r = __start_rbc_rounds; r < __stop_rbc_rounds; r++)
        for (const rbc_variant *v = (*r)->variants; v->name; v++)
            n += v->units != NULL;
    entry *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return NULL;
    n = 0;
    for (const rbc_round *const *r = __start_rbc_rounds; r < __stop_rbc_rounds; r++)
        for (const rbc_variant *v = (*r)->variants; v->name; v++)
            if (v->units)
                e[n++] = (entry){*r, v};
    qsort(e, n, sizeof *e, by_name);
    *count = n;
    return e;
}

/* The values this process times ($ROUNDBENCH_VALUES, 1 when unset): the
 * variant runs that many times in the one process, each run printing its
 * own line, so that what the process costs to start is paid once for
 * several values (docs/measurement.md, "Values per process"). 0 when the
 * setting is not an integer from 1 to RBC_MAX_VALUES. */
static int values_wanted(void)
{
    const char *s = getenv(RBC_VALUES_ENV);
    if (!s || !*s)
        return 1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > RBC_MAX_VALUES)
        return 0;
    return (int)v;
}

static int list(void)
{
    size_t n;
    entry *e = sorted_entries(&n);
    if (!e) {
        fprintf(stderr, "rb-c --list: out of memory\n");
        return RBC_EXIT_FAILED;
    }
    for (size_t i = 0; i < n; i++) {
        printf("%s %s", e[i].round->name, e[i].variant->name);
        /* A helper entry point (`<round>-<role>`) is no variant: no units. */
        if (!strchr(e[i].round->name, '-') && *e[i].variant->units)
            printf(" %s", e[i].variant->units);
        printf("\n");
    }
    free(e);
    return RBC_EXIT_OK;
}

/* The round names, sorted, after `prefix`, on stderr. */
static void print_rounds(const char *prefix)
{
    size_t n;
    entry *e = sorted_entries(&n);
    fprintf(stderr, "%s", prefix);
    for (size_t i = 0; e && i < n; i++)
        if (i == 0 || e[i].round != e[i - 1].round)
            fprintf(stderr, "%s%s", i ? " " : "", e[i].round->name);
    free(e);
}

static const rbc_round *find_round(const char *name)
{
    for (const rbc_round *const *r = __start_rbc_rounds; r < __stop_rbc_rounds; r++)
        if (strcmp((*r)->name, name) == 0)
            return *r;
    return NULL;
}

static const rbc_variant *find_variant(const rbc_round *r, const char *name)
{
    for (const rbc_variant *v = r->variants; v->name; v++)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--info") == 0) {
        printf("%s\n", rb_build_info());
        return RBC_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--list") == 0)
        return list();
    if (argc < 3) {
        /* One line, as every usage error (the child protocol's usage status). */
        fprintf(stderr, "usage: %s ROUND IMPL [key=value...] | --list | --info ", argv[0]);
        print_rounds("(rounds: ");
        fprintf(stderr, ")\n");
        return RBC_EXIT_USAGE;
    }
    rbc_args a = {.round = argv[1], .impl = argv[2]};
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || a.count == RBC_MAX_PARAMS) {
            fprintf(stderr, "%s: bad parameter '%s' (want key=value, at most %d)\n", argv[1],
                    argv[i], RBC_MAX_PARAMS);
            return RBC_EXIT_USAGE;
        }
        *eq = '\0';
        a.keys[a.count] = argv[i];
        a.values[a.count] = eq + 1;
        a.count++;
    }
    const rbc_round *r = find_round(a.round);
    if (!r) {
        fprintf(stderr, "unknown round '%s' ", a.round);
        print_rounds("(rounds: ");
        fprintf(stderr, ")\n");
        return RBC_EXIT_USAGE;
    }
    a.variant = find_variant(r, a.impl);
    if (!a.variant) {
        fprintf(stderr, "%s: the C runner has no variant '%s' (it has:", a.round, a.impl);
        for (const rbc_variant *v = r->variants; v->name; v++)
            fprintf(stderr, " %s", v->name);
        fprintf(stderr, ")\n");
        return RBC_EXIT_USAGE;
    }
    int values = values_wanted();
    if (values < 1) {
        fprintf(stderr, "%s=%s: want an integer from 1 to %d\n", RBC_VALUES_ENV,
                getenv(RBC_VALUES_ENV), RBC_MAX_VALUES);
        return RBC_EXIT_USAGE;
    }
    int rc = RBC_EXIT_OK;
    for (int k = 0; k < values && rc == RBC_EXIT_OK; k++)
        rc = r->run(&a);
    return rc;
}
