/* test_protocol.c: the C children's side of the child protocol against the
 * vectors the Go and Python tests read too (testdata/vectors/protocol.txt):
 * exit statuses, how a result line prints its numbers and lays itself out,
 * round jsonl's result text with its hash, the environment variables'
 * names and the limits. The runner's harness.c and jsonl_protocol.c are compiled
 * into this test directly: they are runner code, not part of the core's
 * libraries. */
#include "../runner/harness.c"
#include "../runner/jsonl_protocol.c"

#include "vectors.h"

/* Each table is every constant C has of its kind: each must be in the file
 * with its value, and the file may hold no other. */
typedef struct {
    const char *name;
    long long value;
    int seen;
} named;

static named exits[] = {{"ok", RBC_EXIT_OK, 0},         {"usage", RBC_EXIT_USAGE, 0},
                        {"wrong", RBC_EXIT_WRONG, 0},   {"cannot", RBC_EXIT_CANNOT, 0},
                        {"failed", RBC_EXIT_FAILED, 0}, {NULL, 0, 0}};

static named limits[] = {{"jsonl-max-depth", RB_JSONL_MAX_DEPTH, 0},
                         {"jsonl-max-reported", RB_JSONL_MAX_REPORTED, 0},
                         {"jsonl-lines-default", RBC_JSONL_DEFAULT_LINES, 0},
                         {"jsonl-lines-max", RBC_JSONL_MAX_LINES, 0},
                         {"warmup-ns", RBC_WARMUP_NS, 0},
                         {"warmup-calls", RBC_WARMUP_CALLS, 0},
                         {"calibrate-ns", RBC_CALIBRATE_NS, 0},
                         {NULL, 0, 0}};

static const struct {
    const char *name, *var;
} envs[] = {{"jsonl-file", RBC_ENV_JSONL_FILE},
            {"jsonl-warmup-file", RBC_ENV_JSONL_WARMUP_FILE},
            {"aspects-ephemeris", RBC_ENV_ASPECTS_EPHEMERIS},
            {"aspects-events", RBC_ENV_ASPECTS_EVENTS},
            {"jsonl-expect", RBC_ENV_JSONL_EXPECT},
            {"aspects-expect", RBC_ENV_ASPECTS_EXPECT},
            {NULL, NULL}};

/* Checks one vector's value against the table entry it names. */
static void check_named(const rbt_vector *v, named *table, const char *key)
{
    const char *name = rbt_str(v, "name");
    long long want = rbt_int(v, key);
    for (named *n = table; n->name; n++) {
        if (strcmp(n->name, name) == 0) {
            n->seen++;
            CHECK(n->value == want, "%s %s = %lld; want %lld", v->kind, name, n->value, want);
            return;
        }
    }
    CHECK(0, "%s %s: C has no such constant", v->kind, name);
}

static void check_all_seen(const named *table, const char *kind)
{
    for (const named *n = table; n->name; n++)
        CHECK(n->seen == 1, "%s %s is in the vectors %d times; want once", kind, n->name, n->seen);
}

static void exit_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    check_named(v, exits, "code");
}

static void limit_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    check_named(v, limits, "value");
}

static void env_vector(const rbt_vector *v, void *ctx)
{
    int *seen = ctx;
    const char *name = rbt_str(v, "name");
    for (int i = 0; envs[i].name; i++) {
        if (strcmp(envs[i].name, name) == 0) {
            seen[i]++;
            CHECK(strcmp(envs[i].var, rbt_str(v, "var")) == 0, "protocol-env %s = %s; want %s",
                  name, envs[i].var, rbt_str(v, "var"));
            return;
        }
    }
    CHECK(0, "protocol-env %s: C has no such variable", name);
}

static void values_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    CHECK(strcmp(rbt_str(v, "var"), RBC_VALUES_ENV) == 0, "protocol-values var = %s; want %s",
          RBC_VALUES_ENV, rbt_str(v, "var"));
    CHECK(rbt_int(v, "max") == RBC_MAX_VALUES, "protocol-values max = %d; want %lld",
          RBC_MAX_VALUES, rbt_int(v, "max"));
}

static void expect_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    const char *env = "RBT_PROTOCOL_EXPECT", *var = rbt_str(v, "var");
    const char *input = rbt_str(v, "input"), *want = rbt_str(v, "path");
    if (strcmp(var, "unset") == 0)
        unsetenv(env);
    else
        setenv(env, strcmp(var, "-") == 0 ? "" : var, 1);
    char got[512] = "untouched";
    int found = rbc_expect_path(env, input, got, sizeof got);
    if (strcmp(want, "-") == 0)
        CHECK(!found && strcmp(got, "untouched") == 0,
              "rbc_expect_path(%s=%s, %s) = %d '%s'; want 0, untouched", env, var, input, found,
              got);
    else
        CHECK(found && strcmp(got, want) == 0, "rbc_expect_path(%s=%s, %s) = %d '%s'; want 1 '%s'",
              env, var, input, found, got, want);
    unsetenv(env);
}

/* A `line` or `text` value of the vectors, with each `+` read as a space. */
static void unplus(const char *s, char *out, size_t size)
{
    snprintf(out, size, "%s", s);
    for (char *p = out; *p; p++)
        if (*p == '+')
            *p = ' ';
}

/* What print(f, ...) writes, as a malloc'd string. */
#define CAPTURE(text, call)                                                                        \
    do {                                                                                           \
        size_t len_ = 0;                                                                           \
        FILE *f = open_memstream(&(text), &len_);                                                  \
        if (!f) {                                                                                  \
            perror("open_memstream");                                                              \
            exit(2);                                                                               \
        }                                                                                          \
        call;                                                                                      \
        fclose(f);                                                                                 \
    } while (0)

static void number_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char *got = NULL;
    CAPTURE(got, print_value(f, rbt_num(v, "value")));
    CHECK(strcmp(got, rbt_str(v, "text")) == 0, "print_value(%s) = '%s'; want '%s'",
          rbt_str(v, "value"), got, rbt_str(v, "text"));
    free(got);
}

static void line_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char params[256], metrics[256], units[256] = "";
    snprintf(params, sizeof params, "%s", rbt_str(v, "params"));
    snprintf(metrics, sizeof metrics, "%s", rbt_str(v, "metrics"));
    rbc_args a = {.round = rbt_str(v, "round"), .impl = rbt_str(v, "impl")};
    char *save = NULL;
    if (strcmp(params, "-") != 0) {
        for (char *kv = strtok_r(params, "/", &save); kv && a.count < RBC_MAX_PARAMS;
             kv = strtok_r(NULL, "/", &save)) {
            char *eq = strchr(kv, '=');
            CHECK(eq != NULL, "protocol-line: parameter '%s' is no key=value", kv);
            if (!eq)
                return;
            *eq = '\0';
            a.keys[a.count] = kv;
            a.values[a.count++] = eq + 1;
        }
    }
    rbc_metric m[RBC_MAX_PARAMS];
    int nm = 0;
    if (strcmp(metrics, "-") != 0) {
        for (char *vu = strtok_r(metrics, ",", &save); vu && nm < RBC_MAX_PARAMS;
             vu = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(vu, ':');
            CHECK(colon != NULL, "protocol-line: metric '%s' is no VALUE:UNIT", vu);
            if (!colon)
                return;
            *colon = '\0';
            m[nm++] = (rbc_metric){strtod(vu, NULL), colon + 1};
            snprintf(units + strlen(units), sizeof units - strlen(units), " %s", colon + 1);
        }
    }
    rbc_variant variant = {a.impl, units, NULL};
    a.variant = &variant;
    char want[512], *got = NULL;
    unplus(rbt_str(v, "line"), want, sizeof want);
    strcat(want, "\n");
    CAPTURE(got, print_line(f, &a, rbt_int(v, "iters"), rbt_num(v, "ns"), m, nm));
    CHECK(strcmp(got, want) == 0, "result line of %s %s = '%s'; want '%s'", a.round, a.impl, got,
          want);
    for (int i = 0; i < nm; i++)
        CHECK(rbc_unit_declared(&variant, m[i].unit), "unit %s declared", m[i].unit);
    free(got);
}

static rb_jsonl_reason reason_named(const char *name)
{
    for (rb_jsonl_reason r = RB_JSONL_INVALID_JSON; r <= RB_JSONL_NO_STATUS; r++)
        if (strcmp(rb_jsonl_reason_name(r), name) == 0)
            return r;
    fprintf(stderr, "protocol-jsonl: no reason '%s'\n", name);
    exit(2);
}

/* Fills res from the vector's statuses=S:C,... and reported=LINE:REASON,...
 * (`-`: none). */
static void jsonl_result_of(const rbt_vector *v, rb_jsonl_result *res)
{
    res->lines = rbt_int(v, "lines");
    res->blank = rbt_int(v, "blank");
    res->valid = rbt_int(v, "valid");
    res->invalid = rbt_int(v, "invalid");
    char list[256], *save = NULL;
    snprintf(list, sizeof list, "%s", rbt_str(v, "statuses"));
    if (strcmp(list, "-") != 0) {
        for (char *sc = strtok_r(list, ",", &save); sc; sc = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(sc, ':');
            rb_error err;
            CHECK(colon && rb_jsonl_add_status(res, strtoll(sc, NULL, 10),
                                               strtoll(colon + 1, NULL, 10), &err) == RB_OK,
                  "protocol-jsonl: status '%s'", sc);
        }
    }
    snprintf(list, sizeof list, "%s", rbt_str(v, "reported"));
    if (strcmp(list, "-") != 0) {
        for (char *lr = strtok_r(list, ",", &save); lr && res->nreported < RB_JSONL_MAX_REPORTED;
             lr = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(lr, ':');
            CHECK(colon != NULL, "protocol-jsonl: reported '%s'", lr);
            if (!colon)
                return;
            res->reported[res->nreported++] =
                (rb_jsonl_invalid){strtoll(lr, NULL, 10), reason_named(colon + 1)};
        }
    }
}

static void jsonl_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    rb_jsonl_result res;
    rb_jsonl_result_init(&res);
    jsonl_result_of(v, &res);
    char want[512];
    unplus(rbt_str(v, "text"), want, sizeof want);
    char *got = rbc_jsonl_result_text(&res);
    CHECK(got && strcmp(got, want) == 0, "rbc_jsonl_result_text = '%s'; want '%s'",
          got ? got : "(null)", want);
    free(got);
    rb_jsonl_result_free(&res);
}

int main(int argc, char **argv)
{
    const char *vpath = argc > 1 ? argv[1] : "testdata/vectors.txt";
    CHECK(rbt_each(vpath, "protocol-exit", exit_vector, NULL) >= 5, "too few protocol-exit");
    check_all_seen(exits, "protocol-exit");
    CHECK(rbt_each(vpath, "protocol-number", number_vector, NULL) >= 25, "too few protocol-number");
    CHECK(rbt_each(vpath, "protocol-line", line_vector, NULL) >= 5, "too few protocol-line");
    CHECK(rbt_each(vpath, "protocol-jsonl", jsonl_vector, NULL) >= 6, "too few protocol-jsonl");
    int env_seen[sizeof envs / sizeof envs[0]] = {0};
    CHECK(rbt_each(vpath, "protocol-env", env_vector, env_seen) >= 4, "too few protocol-env");
    for (int i = 0; envs[i].name; i++)
        CHECK(env_seen[i] == 1, "protocol-env %s is in the vectors %d times; want once",
              envs[i].name, env_seen[i]);
    CHECK(rbt_each(vpath, "protocol-values", values_vector, NULL) == 1, "want one protocol-values");
    CHECK(rbt_each(vpath, "protocol-expect", expect_vector, NULL) >= 3, "too few protocol-expect");
    CHECK(rbt_each(vpath, "protocol-limit", limit_vector, NULL) >= 7, "too few protocol-limit");
    check_all_seen(limits, "protocol-limit");
    return rbt_done("test_protocol");
}
