/* main.c: the C runner. `rb-c ROUND IMPL [key=value...]` runs one variant
 * once and prints its result line (see harness.h). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "rounds.h"

static const rbc_round *find_round(const char *name)
{
    for (size_t i = 0; rbc_rounds[i].name; i++)
        if (strcmp(rbc_rounds[i].name, name) == 0)
            return &rbc_rounds[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--info") == 0) {
        printf("%s\n", rb_build_info());
        return RBC_EXIT_OK;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s ROUND IMPL [key=value...]\n%s\nrounds:", argv[0],
                rb_build_info());
        for (size_t i = 0; rbc_rounds[i].name; i++)
            fprintf(stderr, " %s", rbc_rounds[i].name);
        fprintf(stderr, "\n");
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
        fprintf(stderr, "unknown round '%s'\n", a.round);
        return RBC_EXIT_USAGE;
    }
    return r->run(&a);
}
