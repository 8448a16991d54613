/* test_launch.c: the launcher's sinks (csrc/runner/launch.c): what a
 * started program prints reaches the launcher whole and unchanged through a
 * pipe, a file, a memfd and a pseudo-terminal (raw mode: no "\r" before
 * "\n"), the program sees a terminal only on the pty, /dev/null is never
 * read back, and the exit status comes through. The runner's files are
 * compiled into this test directly: they are runner code, not part of the
 * core's libraries. */
#include "../runner/forkwait.c"
#include "../runner/harness.c"
#include "../runner/launch.c"

#include "vectors.h"

static const char *const SINKS[] = {"pipe", "file", "devnull", "pty"};
#define NSINKS (sizeof SINKS / sizeof SINKS[0])

/* Starts `sh -c script` with stdout on sink s; fails the test if the
 * launcher itself fails. */
static rbc_start sh(const rbc_sink *s, const char *script)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    rbc_start st;
    int rc = rbc_launch(s, argv, -1, &st);
    CHECK(rc == 0, "rbc_launch(%s, %s) = %d: %s", rbc_sink_name(s), script, rc, strerror(errno));
    return st;
}

static int exited(const rbc_start *st, int code)
{
    return WIFEXITED(st->status) && WEXITSTATUS(st->status) == code;
}

static void check_sink(const char *name)
{
    rbc_sink s;
    CHECK(rbc_sink_open(&s, name) == 0, "rbc_sink_open(%s): %s", name, strerror(errno));
    CHECK(strcmp(rbc_sink_name(&s), name) == 0, "the sink's name is %s", rbc_sink_name(&s));
    int readable = strcmp(name, "devnull") != 0;

    /* Lines as a program prints them: a terminal in raw mode adds no \r. */
    static const char lines[] = "one\ntwo\n\nfour\n";
    rbc_start st = sh(&s, "printf 'one\\ntwo\\n\\nfour\\n'");
    CHECK(exited(&st, 0), "%s: printf exits 0", name);
    CHECK(st.out.read == readable, "%s: read back: %d", name, st.out.read);
    if (readable) {
        CHECK(st.out.len == sizeof lines - 1 && strcmp(st.out.head, lines) == 0 &&
                  st.out.crc == rbc_crc32(0, lines, sizeof lines - 1),
              "%s: got %llu bytes '%s'; want '%s'", name, (unsigned long long)st.out.len,
              st.out.head, lines);
    } else {
        CHECK(st.out.len == 0, "%s: nothing read", name);
    }
    CHECK(st.ns > 0 && st.cpu_ns < 10000000000ull && st.maxrss_kb > 0,
          "%s: a time, a CPU time and a peak RSS", name);

    /* More than a pipe or a terminal holds: read while the program runs. */
    enum { BIG = 1 << 20 };
    char *zeros = calloc(BIG, 1);
    st = sh(&s, "head -c 1048576 /dev/zero");
    CHECK(exited(&st, 0), "%s: head exits 0", name);
    if (readable)
        CHECK(st.out.len == BIG && st.out.crc == rbc_crc32(0, zeros, BIG),
              "%s: 1 MiB of zeros, got %llu bytes", name, (unsigned long long)st.out.len);
    free(zeros);

    /* The file is emptied before each start: a short output after a long one. */
    st = sh(&s, "printf ab");
    if (readable)
        CHECK(st.out.len == 2 && strcmp(st.out.head, "ab") == 0, "%s: then 'ab', got '%s'", name,
              st.out.head);

    /* Only a terminal is a terminal. */
    st = sh(&s, "if [ -t 1 ]; then printf tty; else printf other; fi");
    if (readable) {
        const char *want = strcmp(name, "pty") == 0 ? "tty" : "other";
        CHECK(strcmp(st.out.head, want) == 0, "%s: the program sees '%s'; want '%s'", name,
              st.out.head, want);
    }

    /* The status comes through, and nothing printed is nothing read. */
    st = sh(&s, "exit 3");
    CHECK(exited(&st, 3) && st.out.len == 0, "%s: exit 3 comes through", name);
    rbc_sink_close(&s);
    rbc_sink_close(&s); /* twice is fine */
}

/* A series runs every command `starts` times, interleaved, and fills its
 * arrays. */
static void check_series(void)
{
    rbc_sink s;
    CHECK(rbc_sink_open(&s, NULL) == 0 && strcmp(rbc_sink_name(&s), "memory") == 0,
          "the memfd sink");
    char *a_argv[] = {"/bin/sh", "-c", "printf a", NULL};
    char *b_argv[] = {"/bin/sh", "-c", "printf bb", NULL};
    enum { STARTS = 3 };
    uint64_t ns[2][STARTS], cpu[2][STARTS];
    long rss[2][STARTS];
    rbc_command cmds[2] = {
        {.argv = a_argv, .want_len = 1, .want_crc = rbc_crc32(0, "a", 1), .want_text = "a"},
        {.argv = b_argv, .want_len = 2, .want_crc = rbc_crc32(0, "bb", 2), .what = "b"},
    };
    for (int k = 0; k < 2; k++) {
        cmds[k].ns = ns[k];
        cmds[k].maxrss_kb = rss[k];
        cmds[k].cpu_ns = cpu[k];
    }
    rbc_series series = {.who = "test", .sink = &s, .in_fd = -1, .starts = STARTS, .warm_up = 0};
    rbc_launch_series(&series, cmds, 2);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < STARTS; i++)
            CHECK(ns[k][i] > 0 && rss[k][i] > 0, "command %d, start %d timed", k, i);
    rbc_launch_summary sum;
    rbc_launch_summarize(&cmds[0], STARTS, &sum);
    CHECK(sum.median_ns == (double)ns[0][1] && ns[0][0] <= ns[0][1] && ns[0][1] <= ns[0][2],
          "the median of the sorted starts");
    CHECK(series.launcher_anon_b > 0, "the launcher's anonymous memory is read");
    rbc_sink_close(&s);

    uint64_t v[] = {1, 2, 3, 4};
    CHECK(rbc_quantile_u64(v, 4, 0.5) == 2.5 && rbc_quantile_u64(v, 4, 0.25) == 1.75 &&
              rbc_quantile_u64(v, 4, 1.0) == 4.0 && rbc_quantile_u64(v, 1, 0.5) == 1.0,
          "quantiles interpolate between order statistics");
}

int main(void)
{
    for (size_t i = 0; i < NSINKS; i++)
        check_sink(SINKS[i]);
    rbc_sink s;
    errno = 0;
    CHECK(rbc_sink_open(&s, "printer") == -1 && errno == EINVAL, "an unknown sink is EINVAL");
    check_series();
    return rbt_done("test_launch");
}
