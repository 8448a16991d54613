/* test_args.c: the C runner's argument handling against the child protocol
 * (testdata/vectors/protocol.txt). Every wrong argument list ends rb-c with
 * the usage status and one line on stderr naming what was wrong, before any
 * work: nothing on stdout and nothing written into its folder. The runner
 * is the sanitizer build beside this test (build/asan/rb-c); its variants
 * are the ones its own --list prints, and each round's integer parameters
 * (protocol-param) get each wrong value. go/internal/argsweep does the same
 * for the Go programs, tests/test_cli_sweep.py for the command. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vectors.h"

#define MAX_ROWS 256
#define MAX_PARAMS 64

static const char *const wrong[] = {"x", "", "99999999999999999999"};

static char runner[PATH_MAX];
static char rows[MAX_ROWS][2][64];
static int row_units[MAX_ROWS], nrows;
static char params[MAX_PARAMS][2][64];
static int nparams;

static void param_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    if (nparams < MAX_PARAMS) {
        snprintf(params[nparams][0], sizeof params[0][0], "%s", rbt_str(v, "round"));
        snprintf(params[nparams][1], sizeof params[0][1], "%s", rbt_str(v, "key"));
        nparams++;
    }
}

/* The runner's --list: ROUND VARIANT UNIT... per line. */
static void read_list(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "'%s' --list", runner);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL, "cannot run %s --list", runner);
    if (!p)
        return;
    char line[1024];
    while (nrows < MAX_ROWS && fgets(line, sizeof line, p)) {
        char *save = NULL, *round = strtok_r(line, " \n", &save),
             *impl = strtok_r(NULL, " \n", &save);
        if (!round || !impl)
            continue;
        snprintf(rows[nrows][0], sizeof rows[0][0], "%s", round);
        snprintf(rows[nrows][1], sizeof rows[0][1], "%s", impl);
        row_units[nrows] = strtok_r(NULL, " \n", &save) != NULL;
        nrows++;
    }
    CHECK(pclose(p) == 0 && nrows > 0, "%s --list: %d rows", runner, nrows);
}

static void slurp(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Runs the runner with args (NULL-terminated) in an empty folder of its own
 * and checks the outcome; `names` must appear on its one stderr line. */
static void refused(const char *const *args, const char *names)
{
    char work[] = "/tmp/rbt-args-XXXXXX", io[] = "/tmp/rbt-io-XXXXXX";
    if (!mkdtemp(work) || !mkdtemp(io)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    char out_path[64], err_path[64];
    snprintf(out_path, sizeof out_path, "%s/out", io);
    snprintf(err_path, sizeof err_path, "%s/err", io);
    const char *argv[16] = {runner};
    int argc = 1;
    for (int i = 0; args[i] && argc < 15; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0 || chdir(work) != 0)
            _exit(99);
        dup2(o, 1);
        dup2(e, 2);
        alarm(60);
        execv(runner, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    char out[4096], err[4096], shown[512] = "";
    slurp(out_path, out, sizeof out);
    slurp(err_path, err, sizeof err);
    for (int i = 1; i < argc; i++)
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), " '%s'", argv[i]);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char *nl = strchr(err, '\n');
    CHECK(code == 2, "rb-c%s: exit %d, want 2 (usage): %s", shown, code, err);
    CHECK(nl && nl[1] == '\0' && nl != err, "rb-c%s: want one line on stderr, got '%s'", shown,
          err);
    CHECK(strstr(err, names) != NULL, "rb-c%s: stderr '%s' does not name %s", shown, err, names);
    CHECK(out[0] == '\0', "rb-c%s: printed on stdout: %s", shown, out);
    int left = 0;
    DIR *d = opendir(work);
    for (struct dirent *de; d && (de = readdir(d));)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            left++;
    if (d)
        closedir(d);
    CHECK(left == 0, "rb-c%s: wrote %d entries into its folder", shown, left);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s' '%s'", work, io);
    CHECK(system(rm) == 0, "%s failed", rm);
}

int main(int argc, char **argv)
{
    const char *vpath = argc > 1 ? argv[1] : "testdata/vectors.txt";
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 2;
    self[n] = '\0';
    snprintf(runner, sizeof runner, "%s/rb-c", dirname(self));
    CHECK(rbt_each(vpath, "protocol-param", param_vector, NULL) >= 10, "too few protocol-param");
    read_list();
    if (nrows == 0)
        return rbt_done("test_args");
    const char *round = rows[0][0], *impl = rows[0][1];
    refused((const char *[]){NULL}, "usage:");
    refused((const char *[]){round, NULL}, "usage:");
    refused((const char *[]){"no-such-round", impl, NULL}, "'no-such-round'");
    refused((const char *[]){round, "no-such-variant", NULL}, "'no-such-variant'");
    refused((const char *[]){round, impl, "n", NULL}, "'n'");
    refused((const char *[]){round, impl, "=3", NULL}, "'=3'");
    int swept = 0;
    for (int r = 0; r < nrows; r++) {
        if (!row_units[r])
            continue; /* a helper (http-serve): not a variant, no parameters of its own */
        for (int p = 0; p < nparams; p++) {
            if (strcmp(params[p][0], rows[r][0]) != 0)
                continue;
            for (size_t w = 0; w < sizeof wrong / sizeof wrong[0]; w++) {
                char kv[160];
                snprintf(kv, sizeof kv, "%s=%s", params[p][1], wrong[w]);
                refused((const char *[]){rows[r][0], rows[r][1], kv, NULL}, kv);
                swept++;
            }
        }
    }
    CHECK(swept >= 30, "only %d parameter cases: the list or the vectors lost their rounds", swept);
    return rbt_done("test_args");
}
