/* test_aspects.c: round aspects. The core's own arithmetic against libm's
 * and printf's; the files' bad input, each error naming its line; the
 * search on small hand-made tables; and the shared vectors
 * (testdata/vectors/aspects.txt) with the shared data and its expected
 * outputs (testdata/aspects/). */
#include <math.h>
#include <stdint.h>

#include "internal.h"
#include "roundbench.h"
#include "vectors.h"

/* ---- The arithmetic ------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

/* splitmix64: a fixed sequence, so a failure repeats. */
static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next_random() >> 11) / 9007199254740992.0);
}

static const long double PI_L = 3.141592653589793238462643383279502884L;

static void test_sincosd(void)
{
    /* The reference: reduced exactly (fmod), then long double sinl/cosl. */
    double worst = 0;
    for (int i = 0; i < 200000; i++) {
        double x = i < 1441 ? (i - 720) * 0.5 : uniform(-20000, 20000);
        if (i % 7 == 0)
            x = round(x);
        double s, c;
        rb_aspects_sincosd(x, &s, &c);
        long double r = (long double)fmod(x, 360.0) * PI_L / 180.0L;
        double ds = fabs((double)((long double)s - sinl(r)));
        double dc = fabs((double)((long double)c - cosl(r)));
        worst = fmax(worst, fmax(ds, dc));
        if (ds > 3e-16 || dc > 3e-16) {
            CHECK(0, "sincosd(%.17g) = %.17g, %.17g; want %.17Lg, %.17Lg", x, s, c, sinl(r),
                  cosl(r));
            break;
        }
    }
    CHECK(worst > 0, "sincosd matched long double exactly everywhere: the test reads nothing");
    double s, c;
    rb_aspects_sincosd(90.0, &s, &c);
    CHECK(s == 1.0 && c == 0.0, "sincosd(90) = %g, %g; want 1, 0 exactly", s, c);
    rb_aspects_sincosd(-180.0, &s, &c);
    CHECK(s == 0.0 && c == -1.0, "sincosd(-180) = %g, %g; want 0, -1 exactly", s, c);
}

static void test_atan2d(void)
{
    for (int i = 0; i < 200000; i++) {
        double y = uniform(-2, 2), x = uniform(-2, 2);
        if (i % 5 == 0)
            y *= 1e-9;
        if (i % 11 == 0)
            x *= 1e-9;
        double got = rb_aspects_atan2d(y, x);
        long double want = atan2l(y, x) * 180.0L / PI_L;
        double d = fabs((double)((long double)got - want));
        if (d > 4e-16 * fmax(1.0, fabs((double)want))) {
            CHECK(0, "atan2d(%.17g, %.17g) = %.17g; want %.17Lg", y, x, got, want);
            break;
        }
    }
    CHECK(rb_aspects_atan2d(0, 1) == 0, "atan2d(0, 1)");
    CHECK(rb_aspects_atan2d(1, 0) == 90, "atan2d(1, 0) = %.17g", rb_aspects_atan2d(1, 0));
    CHECK(rb_aspects_atan2d(0, -1) == 180, "atan2d(0, -1) = %.17g", rb_aspects_atan2d(0, -1));
    CHECK(rb_aspects_atan2d(-1, 0) == -90, "atan2d(-1, 0)");
    CHECK(rb_aspects_atan2d(1, 1) == 45, "atan2d(1, 1) = %.17g", rb_aspects_atan2d(1, 1));
    CHECK(rb_aspects_atan2d(-1, -1) == -135, "atan2d(-1, -1) = %.17g", rb_aspects_atan2d(-1, -1));
}

static void check_format2(double x)
{
    char got[64], want[64];
    rb_aspects_format2(got, x);
    snprintf(want, sizeof want, "%.2f", x);
    CHECK(strcmp(got, want) == 0, "format2(%.17g) = %s; want %s", x, got, want);
}

static void test_format2(void)
{
    /* Ties of the exact binary value (k/8) go to even, as printf's do. */
    static const double edges[] = {0.0,      -0.0,    0.005,   0.015,      0.125,      0.375,
                                   0.625,    0.875,   2.675,   1.005,      359.995,    359.999,
                                   360.0,    8.0,     7.995,   1e-300,     4.9e-324,   -0.125,
                                   -12.345,  1e15,    9.0e15,  1.5e16,     123456.785, 0.9999999,
                                   179.9951, 0.00499, 0.00501, 1048576.125};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        check_format2(edges[i]);
    for (int i = 0; i < 300000; i++) {
        double x = i % 3 ? uniform(0, 360) : (double)(next_random() % 3600000) / 8000.0;
        check_format2(x);
    }
}

/* ---- The files ------------------------------------------------------------- */

static const char HEADER[] = "date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\t"
                             "neptune\tpluto\n";

/* Parses an ephemeris from text; returns the status, the table in *out. */
static rb_status eph_from(const char *text, rb_aspects_ephemeris **out, rb_error *err)
{
    *out = NULL;
    return rb_aspects_ephemeris_parse(text, strlen(text), "eph.tsv", out, err);
}

static rb_status events_from(const char *text, const rb_aspects_ephemeris *eph,
                             rb_aspects_events **out, rb_error *err)
{
    *out = NULL;
    return rb_aspects_events_parse(text, strlen(text), "ev.tsv", eph, out, err);
}

/* The error `st` must be RB_ERR_ARG at line `line`, the message starting
 * "FILE:LINE: " and holding `words`. */
static void check_error(const char *what, rb_status st, const rb_error *err, const char *file,
                        int64_t line, const char *words)
{
    CHECK(st == RB_ERR_ARG, "%s: status %d; want RB_ERR_ARG", what, st);
    if (st != RB_ERR_ARG)
        return;
    char where[256];
    snprintf(where, sizeof where, "%s:%lld: ", file, (long long)line);
    CHECK(err->pos == line && strncmp(err->msg, where, strlen(where)) == 0 &&
              strstr(err->msg, words) != NULL,
          "%s: '%s' (pos %lld); want '%s' and '%s'", what, err->msg, (long long)err->pos, where,
          words);
}

#define ROW1 "1900-01-01\t10\t20\t30\t40\t50\t60\t70\t80\t90\t100\n"
#define ROW2 "1900-01-02\t11\t33\t31\t41\t51\t61\t71\t81\t91\t101\n"
#define PLUTO(v) "%s1900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t" v "\n"

static void test_ephemeris_errors(void)
{
    static const struct {
        const char *text, *words;
        int64_t line;
    } bad[] = {
        {"",
         "bad header (want date<TAB>sun<TAB>moon<TAB>mercury<TAB>venus<TAB>mars<TAB>"
         "jupiter<TAB>saturn<TAB>uranus<TAB>neptune<TAB>pluto)",
         1},
        {"date\tsun\n" ROW1, "bad header", 1},
        {"date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\tneptune\tpluto\r\n" ROW1,
         "bad header", 1},
        {"%s1900-01-01\t1\t2\n", "wrong number of columns (3, want 11)", 2},
        {"%s" ROW1 "1900-01-02\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\n",
         "wrong number of columns (12, want 11)", 3},
        {"%s" ROW1 "\n", "wrong number of columns (1, want 11)", 3},
        {"%s1900-13-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '1900-13-01' (want YYYY-MM-DD)",
         2},
        {"%s1900-02-29\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '1900-02-29'", 2},
        {"%s-900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '-900-01-01'", 2},
        {"%s0000-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "bad date '0000-01-01'", 2},
        {"%s" ROW1 "1900-01-03\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n",
         "date 1900-01-03 is not one day after the previous row's (1900-01-01)", 3},
        {"%s" ROW1 "1900-01-01\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n", "is not one day after", 3},
        {"%s" ROW1 ROW2 "1900-01-03\t1\t2\tx\t4\t5\t6\t7\t8\t9\t10\n",
         "mercury: 'x' is not a number", 4},
        {PLUTO("nan"), "pluto: 'nan' is not a number", 2},
        {PLUTO("Inf"), "pluto: 'Inf' is not a number", 2},
        {PLUTO("0x1p3"), "pluto: '0x1p3' is not a number", 2},
        {PLUTO("1e5"), "pluto: '1e5' is not a number", 2},
        {PLUTO("+1"), "pluto: '+1' is not a number", 2},
        {PLUTO("1."), "pluto: '1.' is not a number", 2},
        {PLUTO(".5"), "pluto: '.5' is not a number", 2},
        {PLUTO(""), "pluto: '' is not a number", 2},
        {PLUTO("10\r"), "pluto: '10\\r' is not a number", 2},
        {PLUTO("it's"), "pluto: \"it's\" is not a number", 2},
        {PLUTO("\"it's\""), "pluto: '\"it\\'s\"' is not a number", 2},
        {PLUTO("a\\b\x01"), "pluto: 'a\\\\b\\x01' is not a number", 2},
        {PLUTO("\xc3\xa9"), "pluto: '\xef\xbf\xbd\xef\xbf\xbd' is not a number", 2},
        {"%s1900-01-01\t1\t 2\t3\t4\t5\t6\t7\t8\t9\t10\n", "moon: ' 2' is not a number", 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, bad[i].text, HEADER);
        rb_aspects_ephemeris *eph;
        rb_error err;
        rb_status st = eph_from(text, &eph, &err);
        char what[64];
        snprintf(what, sizeof what, "ephemeris case %zu", i);
        check_error(what, st, &err, "eph.tsv", bad[i].line, bad[i].words);
        CHECK(eph == NULL, "%s: a table despite the error", what);
    }
    /* Any number is a longitude; a last line without a newline is a line;
     * a header alone is a table without rows. */
    rb_aspects_ephemeris *eph;
    rb_error err;
    char text[1024];
    snprintf(text, sizeof text, "%s%s", HEADER,
             "1900-01-01\t360\t2\t3\t4\t5\t6\t7\t8\t9\t10\n"
             "1900-01-02\t-1\t2\t3\t4\t5\t6\t7\t8\t9\t10.5");
    CHECK(eph_from(text, &eph, &err) == RB_OK && rb_aspects_ephemeris_rows(eph) == 2,
          "no final newline: %s", err.msg);
    rb_aspects_ephemeris_free(eph);
    CHECK(eph_from(HEADER, &eph, &err) == RB_OK && rb_aspects_ephemeris_rows(eph) == 0,
          "a header alone: %s", err.msg);
    rb_aspects_ephemeris_free(eph);
    CHECK(rb_aspects_ephemeris_load("/nonexistent/eph.tsv", &eph, &err) == RB_ERR_IO &&
              err.sys_errno == ENOENT && strstr(err.msg, "/nonexistent/eph.tsv"),
          "a missing file is RB_ERR_IO naming it: %s", err.msg);
}

static void test_events_errors(void)
{
#define OK "1900-01-01T12:00:00Z\t1\t2\tok\n"
    static const struct {
        const char *text, *words;
        int64_t line;
    } bad[] = {
        {"time\tlat\tlon\n", "bad header (want time<TAB>lat<TAB>lon<TAB>name)", 1},
        {"%s1900-01-01T12:00:00Z\t1\t2\n", "wrong number of columns (3, want 4)", 2},
        {"%s" OK "1900-01-01T12:00:00Z\t1\t2\ta\tb\n", "wrong number of columns (5, want 4)", 3},
        {"%s1900-01-01 12:00:00Z\t1\t2\ta\n",
         "bad time '1900-01-01 12:00:00Z' (want YYYY-MM-DDTHH:MM:SSZ)", 2},
        {"%s1900-01-01T24:00:00Z\t1\t2\ta\n", "bad time '1900-01-01T24:00:00Z'", 2},
        {"%s1900-01-01T12:00:00\t1\t2\ta\n", "bad time", 2},
        {"%s1900-01-01T12:00:00.5Z\t1\t2\ta\n", "bad time", 2},
        {"%s1900-01-01T12:00:00Z\tx\t2\ta\n", "latitude: 'x' is not a number", 2},
        {"%s1900-01-01T12:00:00Z\t90.5\t2\ta\n", "latitude outside [-90, 90]: 90.5", 2},
        {"%s1900-01-01T12:00:00Z\t1\t2e1\ta\n", "longitude: '2e1' is not a number", 2},
        {"%s1900-01-01T12:00:00Z\t1\t-180.01\ta\n", "longitude outside [-180, 180]: -180.01", 2},
        {"%s" OK "1900-01-01T12:00:00Z\t1\t2\t\n", "empty name", 3},
        {"%s1900-01-01T12:00:00Z\t1\t2\tno way\n",
         "bad name 'no way' (want letters, digits, _ and -)", 2},
        {"%s1900-01-02T00:00:00Z\t1\t2\tlate\n",
         "time 1900-01-02T00:00:00Z outside the ephemeris (1900-01-01 .. 1900-01-02)", 2},
        {"%s1899-12-31T23:59:59Z\t1\t2\tearly\n", "time 1899-12-31T23:59:59Z outside the ephemeris",
         2},
        {"%s" OK "1900-01-01T12:00:00Z\t-66.0001\t2\tpolar\n",
         "Ascendant undefined beyond the polar circles (|lat| > 66)", 3},
        /* Line by line: the first bad line is reported. */
        {"%s1900-01-01T12:00:00Z\t70\t2\tpolar\nbad\n", "Ascendant undefined", 2},
    };
    static const char header[] = "time\tlat\tlon\tname\n";
    rb_aspects_ephemeris *eph, *empty;
    rb_error err;
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s", HEADER, ROW1, ROW2);
    CHECK(eph_from(text, &eph, &err) == RB_OK && eph_from(HEADER, &empty, &err) == RB_OK,
          "the tables: %s", err.msg);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, bad[i].text, header);
        rb_aspects_events *ev;
        rb_status st = events_from(text, eph, &ev, &err);
        char what[64];
        snprintf(what, sizeof what, "events case %zu", i);
        check_error(what, st, &err, "ev.tsv", bad[i].line, bad[i].words);
        CHECK(ev == NULL, "%s: events despite the error", what);
    }
    rb_aspects_events *ev;
    CHECK(events_from(header, eph, &ev, &err) == RB_OK && rb_aspects_events_count(ev) == 0,
          "a header alone is an empty list: %s", err.msg);
    rb_aspects_events_free(ev);
    CHECK(events_from("", eph, &ev, &err) == RB_OK && rb_aspects_events_count(ev) == 0,
          "an empty file is an empty list: %s", err.msg);
    rb_aspects_events_free(ev);
    snprintf(text, sizeof text, "%s%s", header, OK);
    check_error("a table without rows", events_from(text, empty, &ev, &err), &err, "ev.tsv", 2,
                "time 1900-01-01T12:00:00Z outside the ephemeris (no rows)");
    snprintf(text, sizeof text, "%s%s%s", header, OK, "1900-01-01T23:59:59Z\t66\t-180\tlast");
    CHECK(events_from(text, eph, &ev, &err) == RB_OK && rb_aspects_events_count(ev) == 2,
          "the last second, latitude 66, longitude -180, no final newline: %s", err.msg);
    rb_aspects_events_free(ev);
    rb_aspects_ephemeris_free(eph);
    rb_aspects_ephemeris_free(empty);
#undef OK
}

static void test_combo(void)
{
    rb_aspects_combo c;
    rb_error err;
    CHECK(rb_aspects_combo_parse(RB_ASPECTS_DEFAULT_COMBO, &c, &err) == RB_OK && c.nterms == 2 &&
              c.terms[0].p1 == 1 && c.terms[0].angle == 120 && c.terms[0].p2 == 5 &&
              c.terms[1].p1 == RB_ASPECTS_ASC && c.terms[1].angle == 90 && c.terms[1].p2 == 4,
          "the default combination: %s", err.msg);
    CHECK(rb_aspects_combo_parse("MC-0-Sun", &c, &err) == RB_OK && c.nterms == 1 &&
              c.terms[0].p1 == RB_ASPECTS_MC && c.terms[0].p2 == 0,
          "MC-0-Sun: %s", err.msg);
    static const struct {
        const char *text, *words;
        int64_t pos;
    } bad[] = {
        {"", "bad term ''", 0},
        {"Moon-120-Jupiter,", "bad term ''", 1},
        {"Moon-120", "bad term 'Moon-120' (want POINT-ANGLE-POINT", 0},
        {"Moon-120-Jupiter-Sun", "bad term 'Moon-120-Jupiter-Sun'", 0},
        {"Sun-0-Moon,Moon-45-Jupiter", "'Moon-45-Jupiter': the angle must be 0, 60, 90, 120 or 180",
         1},
        {"Moon-120-jupiter", "no point 'jupiter'", 0},
        {"Moon-+60-Sun", "the angle must be", 0},
        {"Mars-90-Mars", "'Mars-90-Mars': a point forms no aspect with itself", 0},

    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rb_aspects_combo before = {.nterms = 7};
        rb_status st = rb_aspects_combo_parse(bad[i].text, &before, &err);
        CHECK(st == RB_ERR_ARG && err.arg && strcmp(err.arg, "combo") == 0 &&
                  err.pos == bad[i].pos && strstr(err.msg, bad[i].words),
              "combo '%s': status %d pos %lld '%s'; want '%s' at %lld", bad[i].text, st,
              (long long)err.pos, err.msg, bad[i].words, (long long)bad[i].pos);
        CHECK(before.nterms == 7, "combo '%s' wrote its output on failure", bad[i].text);
    }
    char many[2048] = "";
    for (int k = 0; k <= RB_ASPECTS_MAX_TERMS; k++)
        strcat(many, k ? ",Sun-0-Moon" : "Sun-0-Moon");
    CHECK(rb_aspects_combo_parse(many, &c, &err) == RB_ERR_ARG && err.pos == RB_ASPECTS_MAX_TERMS &&
              strstr(err.msg, "has more than 64 terms"),
          "65 terms: %s", err.msg);
    many[strlen(many) - strlen(",Sun-0-Moon")] = '\0';
    CHECK(rb_aspects_combo_parse(many, &c, &err) == RB_OK && c.nterms == RB_ASPECTS_MAX_TERMS,
          "64 terms: %s", err.msg);
}

/* ---- The search on a small table -------------------------------------------- */

static void test_small_search(void)
{
    /* Three days; the Moon crosses 360 between the first two rows. */
    char text[2048];
    snprintf(text, sizeof text, "%s%s%s%s", HEADER,
             "2000-01-01\t280\t350\t300\t320\t10\t40\t50\t300\t296\t250\n",
             "2000-01-02\t281\t4\t301\t321\t11\t40.1\t50.1\t300\t296\t250\n",
             "2000-01-03\t282\t18\t302\t322\t12\t40.2\t50.2\t300\t296\t250\n");
    rb_aspects_ephemeris *eph;
    rb_error err;
    CHECK(eph_from(text, &eph, &err) == RB_OK, "small table: %s", err.msg);
    if (!eph)
        return;
    int64_t day0 = (int64_t)36524 * 86400; /* 2000-01-01 from 1900-01-01 */
    rb_aspects_chart c;
    CHECK(rb_aspects_chart_at(eph, day0 + 43200, 0, 0, &c, &err) == RB_OK, "chart: %s", err.msg);
    CHECK(c.point[1] == 357.0, "the Moon at noon across the wrap: %.17g; want 357", c.point[1]);
    CHECK(c.point[0] == 280.5, "the Sun at noon: %.17g", c.point[0]);
    CHECK(rb_aspects_chart_at(eph, day0 + 86400 + 64800, 0, 0, &c, &err) == RB_OK &&
              c.point[1] == 14.5,
          "the Moon three quarters into day 2: %.17g", c.point[1]);
    /* The cusps: the angles, then each quadrant trisected, all increasing. */
    CHECK(c.cusp[0] == c.point[RB_ASPECTS_ASC] && c.cusp[9] == c.point[RB_ASPECTS_MC],
          "cusps 1 and 10 are Asc and MC");
    for (int h = 0; h < 12; h++) {
        double step = fmod(c.cusp[(h + 1) % 12] - c.cusp[h] + 360.0, 360.0);
        CHECK(step > 0 && step < 180, "cusp %d to %d steps %.3f", h + 1, (h + 1) % 12 + 1, step);
    }
    CHECK(rb_aspects_chart_at(eph, day0 + 2 * 86400, 0, 0, &c, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "seconds") == 0 &&
              strstr(err.msg, "must be inside the ephemeris (2000-01-01 .. 2000-01-03)"),
          "the last row's own time is outside: %s", err.msg);
    CHECK(rb_aspects_chart_at(eph, day0 - 1, 0, 0, &c, &err) == RB_ERR_ARG,
          "a second before the first row is outside");
    CHECK(rb_aspects_chart_at(eph, day0, 66.0, 0, &c, &err) == RB_OK, "lat 66 is inside");
    CHECK(rb_aspects_chart_at(eph, day0, -66.0001, 0, &c, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "lat") == 0,
          "lat -66.0001: %s", err.msg);

    static const char header[] = "time\tlat\tlon\tname\n";
    rb_aspects_events *ev;
    snprintf(text, sizeof text, "%s%s%s%s", header, "2000-01-01T00:00:00Z\t10\t20\tfirst\n",
             "2000-01-02T06:30:00Z\t-33.5\t151.2\tsecond_2\n",
             "2000-01-02T23:59:59Z\t51.5\t-0.1\tthird-3\n");
    CHECK(events_from(text, eph, &ev, &err) == RB_OK && rb_aspects_events_count(ev) == 3,
          "events: %s", err.msg);
    rb_aspects_combo any;
    CHECK(rb_aspects_combo_parse("Uranus-0-Neptune", &any, &err) == RB_OK, "combo: %s", err.msg);
    rb_buf out = {0}, out2 = {0};
    int64_t matches = -1;
    /* 300 and 296: a conjunction with an orb of 4 at every time. */
    CHECK(rb_aspects_search(eph, ev, 0, 3, &any, 1, &out, &matches, &err) == RB_OK && matches == 3,
          "Uranus-0-Neptune holds for every event: %lld %s", (long long)matches, err.msg);
    static const char first[] = "match\tfirst\t2000-01-01T00:00:00Z\tUranus 0 Neptune 4.00\n"
                                "match\tsecond_2\t2000-01-02T06:30:00Z\tUranus 0 Neptune 4.00\n";
    CHECK(out.len > sizeof first && memcmp(out.data, first, sizeof first - 1) == 0,
          "test 1 starts with the match lines: %.*s", (int)out.len, out.data);
    rb_buf_free(&out);
    rb_aspects_combo_parse("Uranus-0-Pluto", &any, &err); /* 300 and 250: never */
    CHECK(rb_aspects_search(eph, ev, 0, 3, &any, 1, &out, &matches, &err) == RB_OK && matches == 0,
          "Uranus-0-Pluto never holds");
    static const char none[] =
        "count\tSun 0\tMoon 0\tMercury 0\tVenus 0\tMars 0\tJupiter 0\tSaturn "
        "0\tUranus 0\tNeptune 0\tPluto 0\tAsc 0\tMC 0\n";
    CHECK(out.len == sizeof none - 1 && memcmp(out.data, none, out.len) == 0,
          "no match: only the count line, all zero");
    /* Test 2 begins with every event's block; a search over a range is that range's. */
    CHECK(rb_aspects_search(eph, ev, 1, 2, &any, 2, &out2, &matches, &err) == RB_OK, "test 2: %s",
          err.msg);
    CHECK(strncmp(out2.data, "event\tsecond_2\t2000-01-02T06:30:00Z\tasc ", 40) == 0,
          "test 2 starts with the second event's block: %.60s", out2.data);
    CHECK(out2.len > out.len && memcmp(out2.data + out2.len - out.len, none, out.len) == 0,
          "test 2 ends with the count line");
    size_t before = out2.len;
    CHECK(rb_aspects_search(eph, ev, 2, 2, &any, 1, &out2, NULL, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "count") == 0 && out2.len == before,
          "a range past the end is refused, the buffer as it was");
    CHECK(rb_aspects_search(eph, ev, 0, 0, &any, 3, &out2, NULL, &err) == RB_ERR_ARG &&
              strcmp(err.arg, "test") == 0,
          "test 3 is refused");
    rb_aspects_events_free(ev);

    /* Events searched in a table other than theirs: the reader's words,
     * and the output as it was. */
    snprintf(text, sizeof text, "%s%s%s", header, "2000-01-01T00:00:00Z\t10\t20\tok\n",
             "2000-01-02T12:00:00Z\t10\t20\tlater\n");
    CHECK(events_from(text, eph, &ev, &err) == RB_OK, "events: %s", err.msg);
    rb_aspects_ephemeris *other;
    snprintf(text, sizeof text, "%s%s%s", HEADER,
             "2000-01-01\t280\t350\t300\t320\t10\t40\t50\t300\t296\t250\n",
             "2000-01-02\t281\t4\t301\t321\t11\t40.1\t50.1\t300\t296\t250\n");
    CHECK(eph_from(text, &other, &err) == RB_OK, "the other table: %s", err.msg);
    before = out2.len;
    rb_status st = rb_aspects_search(other, ev, 0, 2, &any, 2, &out2, &matches, &err);
    check_error("another table", st, &err, "ev.tsv", 3,
                "time 2000-01-02T12:00:00Z outside the ephemeris (2000-01-01 .. 2000-01-02)");
    CHECK(out2.len == before, "the failed search left %zu bytes more", out2.len - before);
    rb_aspects_events_free(ev);
    rb_aspects_ephemeris_free(other);
    rb_buf_free(&out);
    rb_buf_free(&out2);
    rb_aspects_ephemeris_free(eph);
}

/* ---- The shared vectors ------------------------------------------------------ */

/* The folder of the shared data: testdata/aspects/, beside vectors.txt. */
static char data_dir[4096];

static void interp_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    double x =
        rb_aspects_interpolate(rbt_num(v, "l0"), rbt_num(v, "l1"), rbt_num(v, "sec") / 86400.0);
    char got[64];
    snprintf(got, sizeof got, "%.6f", x);
    CHECK(strcmp(got, rbt_str(v, "x")) == 0, "interpolate(%s, %s, %s s) = %s; want %s",
          rbt_str(v, "l0"), rbt_str(v, "l1"), rbt_str(v, "sec"), got, rbt_str(v, "x"));
}

static void pair_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    double sep, orb;
    int angle = rb_aspects_pair(rbt_num(v, "a"), rbt_num(v, "b"), &sep, &orb);
    char got[128], want[128];
    if (angle < 0)
        snprintf(got, sizeof got, "%.6f none -", sep);
    else
        snprintf(got, sizeof got, "%.6f %d %.2f", sep, angle, orb);
    snprintf(want, sizeof want, "%s %s %s", rbt_str(v, "sep"), rbt_str(v, "aspect"),
             rbt_str(v, "orb"));
    CHECK(strcmp(got, want) == 0, "pair(%s, %s) = %s; want %s", rbt_str(v, "a"), rbt_str(v, "b"),
          got, want);
}

/* YYYY-MM-DDTHH:MM:SSZ to seconds since 1900-01-01: the days of the
 * proleptic Gregorian calendar (years from March, 400-year eras), the
 * test's own arithmetic. */
static int64_t seconds_of(const char *time)
{
    int y, mo, d, h, mi, sec;
    if (sscanf(time, "%4d-%2d-%2dT%2d:%2d:%2dZ", &y, &mo, &d, &h, &mi, &sec) != 6) {
        fprintf(stderr, "vector time %s is not YYYY-MM-DDTHH:MM:SSZ\n", time);
        exit(2);
    }
    int64_t yy = y - (mo <= 2);
    int64_t era = yy / 400, yoe = yy - era * 400;
    int64_t doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    int64_t from1970 = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    return (from1970 + 25567) * 86400 + h * 3600 + mi * 60 + sec;
}

static void angles_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    double ramc, mc, asc, cusps[12];
    rb_aspects_house_angles(seconds_of(rbt_str(v, "time")), rbt_num(v, "lat"), rbt_num(v, "lon"),
                            &ramc, &mc, &asc);
    rb_aspects_porphyry(asc, mc, cusps);
    CHECK(fabs(ramc - rbt_num(v, "ramc")) <= 2e-6, "%s: ramc %.6f; want %s", rbt_str(v, "time"),
          ramc, rbt_str(v, "ramc"));
    char got[256], want[256];
    int k = snprintf(got, sizeof got, "%.2f %.2f ", mc, asc);
    for (int h = 0; h < 12; h++)
        k += snprintf(got + k, sizeof got - (size_t)k, "%s%.2f", h ? "," : "", cusps[h]);
    snprintf(want, sizeof want, "%s %s %s", rbt_str(v, "mc"), rbt_str(v, "asc"),
             rbt_str(v, "cusps"));
    CHECK(strcmp(got, want) == 0, "%s lat %s lon %s: mc asc cusps %s; want %s", rbt_str(v, "time"),
          rbt_str(v, "lat"), rbt_str(v, "lon"), got, want);
}

static void combo_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    rb_aspects_combo c;
    rb_error err;
    CHECK(rb_aspects_combo_parse(rbt_str(v, "combo"), &c, &err) == RB_OK &&
              c.nterms == rbt_int(v, "terms"),
          "combo %s: %d terms, %s", rbt_str(v, "combo"), c.nterms, err.msg);
}

static void combo_error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    rb_aspects_combo c;
    rb_error err;
    char term[300];
    snprintf(term, sizeof term, "'%s'", rbt_str(v, "term"));
    CHECK(rb_aspects_combo_parse(rbt_str(v, "combo"), &c, &err) == RB_ERR_ARG &&
              strstr(err.msg, term) != NULL,
          "combo %s: '%s' does not name %s", rbt_str(v, "combo"), err.msg, term);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    *len = n;
    return buf;
}

/* CRC-32 (zlib's), bit by bit: the test's own, not the runner's. */
static uint32_t crc32_bits(const char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= (unsigned char)p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

static void output_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char eph_path[4200], ev_path[4200], out_path[4200];
    snprintf(eph_path, sizeof eph_path, "%sephemeris.tsv", data_dir);
    snprintf(ev_path, sizeof ev_path, "%s%s", data_dir, rbt_str(v, "events"));
    rb_aspects_ephemeris *eph = NULL;
    rb_aspects_events *ev = NULL;
    rb_aspects_combo combo;
    rb_error err;
    int test = (int)rbt_int(v, "test");
    if (rb_aspects_ephemeris_load(eph_path, &eph, &err) != RB_OK ||
        rb_aspects_events_load(ev_path, eph, &ev, &err) != RB_OK ||
        rb_aspects_combo_parse(rbt_str(v, "combo"), &combo, &err) != RB_OK) {
        CHECK(0, "output %s: %s", ev_path, err.msg);
        goto done;
    }
    rb_buf out = {0};
    int64_t matches = -1;
    rb_status st = rb_aspects_search(eph, ev, 0, rb_aspects_events_count(ev), &combo, test, &out,
                                     &matches, &err);
    CHECK(st == RB_OK, "output %s test %d: %s", ev_path, test, err.msg);
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", crc32_bits(out.data, out.len));
    CHECK(matches == rbt_int(v, "matches") && (long long)out.len == rbt_int(v, "len") &&
              strcmp(crc, rbt_str(v, "crc")) == 0,
          "output %s test %d %s: matches=%lld len=%zu crc=%s; want %lld %lld %s", ev_path, test,
          rbt_str(v, "combo"), (long long)matches, out.len, crc, rbt_int(v, "matches"),
          rbt_int(v, "len"), rbt_str(v, "crc"));
    if (strcmp(rbt_str(v, "out"), "-") != 0) {
        snprintf(out_path, sizeof out_path, "%s%s", data_dir, rbt_str(v, "out"));
        size_t wlen;
        char *want = read_all(out_path, &wlen);
        size_t at = 0;
        while (at < wlen && at < out.len && want[at] == out.data[at])
            at++;
        CHECK(wlen == out.len && at == wlen, "output %s differs from %s at byte %zu: %.60s",
              ev_path, out_path, at, out.data ? out.data + at : "");
        free(want);
    }
    rb_buf_free(&out);
done:
    rb_aspects_events_free(ev);
    rb_aspects_ephemeris_free(eph);
}

static void error_vector(const rbt_vector *v, void *ctx)
{
    (void)ctx;
    char eph_path[4200], ev_path[4200], says[300];
    snprintf(eph_path, sizeof eph_path, "%s%s", data_dir, rbt_str(v, "ephemeris"));
    snprintf(ev_path, sizeof ev_path, "%s%s", data_dir, rbt_str(v, "events"));
    snprintf(says, sizeof says, "%s", rbt_str(v, "says"));
    for (char *p = says; *p; p++)
        if (*p == '+')
            *p = ' ';
    rb_aspects_ephemeris *eph = NULL;
    rb_aspects_events *ev = NULL;
    rb_error err;
    rb_status st = rb_aspects_ephemeris_load(eph_path, &eph, &err);
    int in_eph = st != RB_OK;
    if (st == RB_OK)
        st = rb_aspects_events_load(ev_path, eph, &ev, &err);
    int want_eph = strcmp(rbt_str(v, "file"), "ephemeris") == 0;
    CHECK(st != RB_OK && in_eph == want_eph, "error vector %s %s: status %d in the %s", eph_path,
          ev_path, st, in_eph ? "ephemeris" : "events");
    if (st != RB_OK)
        check_error("error vector", st, &err, want_eph ? eph_path : ev_path, rbt_int(v, "line"),
                    says);
    rb_aspects_events_free(ev);
    rb_aspects_ephemeris_free(eph);
}

static void test_vectors(const char *vpath)
{
    const char *slash = strrchr(vpath, '/');
    snprintf(data_dir, sizeof data_dir, "%.*saspects/", slash ? (int)(slash - vpath + 1) : 0,
             vpath);
    CHECK(rbt_each(vpath, "aspects-interp", interp_vector, NULL) >= 5, "too few aspects-interp");
    CHECK(rbt_each(vpath, "aspects-pair", pair_vector, NULL) >= 8, "too few aspects-pair");
    CHECK(rbt_each(vpath, "aspects-angles", angles_vector, NULL) >= 7, "too few aspects-angles");
    CHECK(rbt_each(vpath, "aspects-combo", combo_vector, NULL) >= 2, "too few aspects-combo");
    CHECK(rbt_each(vpath, "aspects-combo-error", combo_error_vector, NULL) >= 4,
          "too few aspects-combo-error");
    CHECK(rbt_each(vpath, "aspects-output", output_vector, NULL) >= 4, "too few aspects-output");
    CHECK(rbt_each(vpath, "aspects-error", error_vector, NULL) >= 8, "too few aspects-error");
}

int main(int argc, char **argv)
{
    test_vectors(argc > 1 ? argv[1] : "testdata/vectors.txt");
    test_sincosd();
    test_atan2d();
    test_format2();
    test_ephemeris_errors();
    test_events_errors();
    test_combo();
    test_small_search();
    return rbt_done("test_aspects");
}
