/* test_harness.c: the C runner's harness (csrc/runner/harness.c): a result
 * line carries only the units its variant declared, so `rb-c --list` cannot
 * drift from what the runner prints. The harness is compiled into this test
 * directly: it is runner code, not part of the core's libraries. */
#include "../runner/harness.c"

#include <sys/wait.h>
#include <unistd.h>

#include "vectors.h"

static const rbc_variant loop_c = {"c", "ns/iter", NULL};
static const rbc_variant chain_c = {"c", "setup-ns pass-ns ns/hop", NULL};
static const rbc_variant none = {"c", "", NULL};
static const rbc_variant tool = RBC_TOOL("blas-info");

/* Runs rbc_emit with one metric in a child; returns its exit status and
 * what it printed on stdout and stderr, together, in out. */
static int emit_in_child(const rbc_variant *v, const char *unit, char *out, size_t size)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        rbc_args a = {.round = "loop", .impl = v->name, .variant = v};
        rbc_metric m[] = {{1.5, unit}};
        rbc_emit(&a, 1, 100.0, m, 1);
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while (len + 1 < size && (k = read(fds[0], out + len, size - 1 - len)) > 0)
        len += (size_t)k;
    out[len] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
    CHECK(rbc_unit_declared(&loop_c, "ns/iter"), "ns/iter is declared");
    CHECK(rbc_unit_declared(&chain_c, "pass-ns") && rbc_unit_declared(&chain_c, "ns/hop"),
          "every word of a list is declared");
    CHECK(!rbc_unit_declared(&chain_c, "ns") && !rbc_unit_declared(&chain_c, "pass") &&
              !rbc_unit_declared(&chain_c, "setup-ns pass-ns"),
          "only whole words are units");
    CHECK(!rbc_unit_declared(&none, "ns/iter") && !rbc_unit_declared(&tool, "ns/iter"),
          "no units, and a tool entry, declare nothing");

    char out[1024];
    int rc = emit_in_child(&loop_c, "ns/iter", out, sizeof out);
    CHECK(rc == 0 && strcmp(out, "BenchmarkLoop/impl=c 1 100 ns/op 1.5 ns/iter\n") == 0,
          "a declared unit is printed: rc %d, '%s'", rc, out);
    rc = emit_in_child(&loop_c, "GFLOP/s", out, sizeof out);
    CHECK(rc == RBC_EXIT_USAGE && strstr(out, "unit 'GFLOP/s'") && strstr(out, "loop c") &&
              !strstr(out, "Benchmark"),
          "an undeclared unit is refused, naming unit and variant, before anything is "
          "printed: rc %d, '%s'",
          rc, out);
    rc = emit_in_child(&tool, "ns/op", out, sizeof out);
    CHECK(rc == RBC_EXIT_USAGE, "a tool entry prints no result line: rc %d, '%s'", rc, out);

    /* CRC-32 as zlib computes it (its check value), in any pieces. */
    static const char check[] = "123456789";
    CHECK(rbc_crc32(0, check, 9) == 0xCBF43926u, "crc32(123456789) = %08x", rbc_crc32(0, check, 9));
    CHECK(rbc_crc32(0, "", 0) == 0, "crc32 of nothing is 0");
    char text[1000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)(i * 7 + i / 13);
    uint32_t whole = rbc_crc32(0, text, sizeof text);
    for (size_t cut = 0; cut <= sizeof text; cut += 37)
        CHECK(rbc_crc32(rbc_crc32(0, text, cut), text + cut, sizeof text - cut) == whole,
              "crc32 in two pieces cut at %zu", cut);

    rbc_args a = {.round = "aspects",
                  .count = 2,
                  .keys = {"events", "combo"},
                  .values = {"277", "Sun-0-Moon"}};
    CHECK(strcmp(rbc_str_arg(&a, "combo", "x"), "Sun-0-Moon") == 0 &&
              strcmp(rbc_str_arg(&a, "test", "1"), "1") == 0,
          "a string parameter, or its default");
    return rbt_done("test_harness");
}
