/* aspects.c: round aspects as a whole program, in C, calling the core:
 *
 *   aspects EPHEMERIS EVENTS [--print] [--combo C]
 *
 * searches the events for the combination C (default
 * Moon-120-Jupiter,Asc-90-Mars) and writes test 1's output to stdout, or
 * test 2's with --print (every event's angles, cusps and 20 most exact
 * aspects first). The round's launch modes time it from process start to
 * exit, with stdout on a pipe, a file, /dev/null or a terminal. Exit
 * status: 0, 1 when a file is bad (the message names the file and line)
 * or stdout fails, 2 for bad usage. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "roundbench.h"

/* Bad usage: one line naming what was wrong (and the argument, when one
 * was), then what to type. */
static int usage(const char *prog, const char *why, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s (usage: %s EPHEMERIS EVENTS [--print] [--combo C])\n", prog, why,
            arg ? " " : "", arg ? arg : "", prog);
    return 2;
}

static int failed(const char *prog, const rb_error *err)
{
    fprintf(stderr, "%s: %s%s%s\n", prog, err->msg, err->sys_errno ? ": " : "",
            err->sys_errno ? strerror(err->sys_errno) : "");
    return 1;
}

int main(int argc, char **argv)
{
    const char *prog = argv[0], *paths[2] = {NULL, NULL}, *combo_text = RB_ASPECTS_DEFAULT_COMBO;
    int test = 1, npaths = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print") == 0)
            test = 2;
        else if (strcmp(argv[i], "--combo") == 0 && i + 1 < argc)
            combo_text = argv[++i];
        else if (strncmp(argv[i], "--combo=", 8) == 0)
            combo_text = argv[i] + 8;
        else if (argv[i][0] == '-' && argv[i][1])
            return usage(prog, "unknown option", argv[i]);
        else if (npaths < 2)
            paths[npaths++] = argv[i];
        else
            return usage(prog, "too many arguments:", argv[i]);
    }
    if (npaths != 2)
        return usage(prog, "EPHEMERIS and EVENTS are required", NULL);

    rb_error err;
    rb_aspects_combo combo;
    if (rb_aspects_combo_parse(combo_text, &combo, &err) != RB_OK) {
        fprintf(stderr, "%s: --combo %s\n", prog, err.msg);
        return 2;
    }
    rb_aspects_ephemeris *eph = NULL;
    rb_aspects_events *events = NULL;
    rb_buf out = {0};
    int status = 0;
    if (rb_aspects_ephemeris_load(paths[0], &eph, &err) != RB_OK ||
        rb_aspects_events_load(paths[1], eph, &events, &err) != RB_OK ||
        rb_aspects_search(eph, events, 0, rb_aspects_events_count(events), &combo, test, &out, NULL,
                          &err) != RB_OK) {
        status = failed(prog, &err);
        goto done;
    }
    for (size_t off = 0; off < out.len;) {
        ssize_t n = write(STDOUT_FILENO, out.data + off, out.len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, "%s: writing the output: %s\n", prog, strerror(errno));
            status = 1;
            break;
        }
        off += (size_t)n;
    }
done:
    rb_buf_free(&out);
    rb_aspects_events_free(events);
    rb_aspects_ephemeris_free(eph);
    return status;
}
