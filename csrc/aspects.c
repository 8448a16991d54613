/* aspects.c: round aspects, a small real program. An ephemeris (daily
 * geocentric longitudes of the Sun, the Moon and eight planets, as text)
 * and a list of dated events; for each event the ten positions at its
 * time, the Ascendant and the Midheaven, the twelve Porphyry house cusps,
 * the aspects among the twelve points, and a search for a combination of
 * aspects. docs/rounds/aspects.md states the formulas and the output; every
 * variant in every language computes the same formulas in the same order
 * and prints the same bytes.
 *
 * Three things shape this file.
 *
 * - No fused multiply-add. A product that feeds an addition is rounded
 *   before the addition in every variant (Python cannot fuse, Go is told
 *   not to by a conversion), so a tuned build (-march=native, which offers
 *   FMA) must not fuse here either: the pragma below does for this file
 *   what -ffp-contract=off would, in every build of it (the Makefile, the
 *   extension, cgo).
 *
 * - No libm. The core links no libm (a Go child would map it: 0.3 MiB of
 *   its peak RSS; csrc/matmul.c, round_even), so the trigonometry is here:
 *   sine and cosine of an angle in degrees, reduced exactly in degrees and
 *   evaluated by their Taylor polynomials on [-45, 45] degrees, and the
 *   arctangent in degrees by a table of atan(k/8) and a short series. Each
 *   is within a
 *   few ulps of libm's (csrc/tests/test_aspects.c compares them), and the
 *   robustness rule of the events' generator keeps every printed value
 *   1e-6 degrees away from where a few ulps could change a byte.
 *
 * - %.2f is printed by integer arithmetic, exactly as printf rounds it (to
 *   nearest, ties to even, from the double's exact binary value): printf's
 *   own conversion costs more than an event's arithmetic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "roundbench.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static const char *const point_names[RB_ASPECTS_POINTS] = {
    "Sun",    "Moon",   "Mercury", "Venus", "Mars", "Jupiter",
    "Saturn", "Uranus", "Neptune", "Pluto", "Asc",  "MC",
};
static const uint8_t point_name_len[RB_ASPECTS_POINTS] = {3, 4, 7, 5, 4, 7, 6, 6, 7, 5, 3, 2};
static const int angles[RB_ASPECTS_ANGLES] = {0, 60, 90, 120, 180};
static const char *const angle_text[RB_ASPECTS_ANGLES] = {"0", "60", "90", "120", "180"};

#define ORB 8.0
/* 2000-01-01T12:00:00Z (J2000) in seconds since 1900-01-01T00:00:00Z. */
#define J2000_SECONDS INT64_C(3155716800)
#define DAY_SECONDS INT64_C(86400)
/* days_from_civil(1900, 1, 1): day numbers here count from 1970-01-01. */
#define DAY_1900 INT64_C(-25567)

/* ---- Calendar -------------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar: the
 * year is counted from March, so the leap day ends it, in 400-year eras of
 * 146097 days. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The inverse: y-m-d of a day number. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int64_t y, int m)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : mdays[m - 1];
}

/* Reads `n` decimal digits at p into *out; 0 when one is not a digit. */
static int digits(const char *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 1;
}

/* YYYY-MM-DD (exactly, a date of the years 1 to 9999) to a day number
 * from 1970-01-01; 0 when malformed. */
static int parse_date(const char *p, size_t len, int64_t *day)
{
    int y, m, d;
    if (len != 10 || p[4] != '-' || p[7] != '-' || !digits(p, 4, &y) || !digits(p + 5, 2, &m) ||
        !digits(p + 8, 2, &d) || y < 1 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
        return 0;
    *day = days_from_civil(y, m, d);
    return 1;
}

/* YYYY-MM-DDTHH:MM:SSZ (exactly) to seconds since 1900-01-01T00:00:00Z. */
static int parse_time(const char *p, size_t len, int64_t *seconds)
{
    int64_t day;
    int h, mi, s;
    if (len != 20 || !parse_date(p, 10, &day) || p[10] != 'T' || p[13] != ':' || p[16] != ':' ||
        p[19] != 'Z' || !digits(p + 11, 2, &h) || !digits(p + 14, 2, &mi) ||
        !digits(p + 17, 2, &s) || h > 23 || mi > 59 || s > 59)
        return 0;
    *seconds = (day - DAY_1900) * DAY_SECONDS + h * 3600 + mi * 60 + s;
    return 1;
}

static void format_date(int64_t day, char out[48])
{
    int64_t y;
    int m, d;
    civil_from_days(day, &y, &m, &d);
    snprintf(out, 48, "%04lld-%02d-%02d", (long long)y, m, d);
}

/* ---- Numbers ----------------------------------------------------------------- */

/* A number as every variant's reader takes it: -?[0-9]+(\.[0-9]+)?, no
 * exponent, no nan or inf, nothing around it; 0 when the text is not one.
 * Its value is the nearest double: with at most 19 significant digits
 * whose value is below 2^53 and at most 22 decimals (every number an
 * ephemeris or events file holds) it is an exact integer divided by an
 * exact power of ten, one correctly rounded division, which is what strtod
 * and every other language's parser give; longer numbers, of any length,
 * go to strtod itself (the core never changes the locale, so its decimal
 * point is '.'), through a copy on the stack or, past 511 bytes, on the
 * heap: -1 when there is no memory for it. */
static int parse_number(const char *p, size_t len, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = p, *end = p + len;
    int neg = s < end && *s == '-';
    s += neg;
    uint64_t mant = 0;
    int whole = 0, decimals = 0, sig = 0, exact = 1;
    for (; s < end && *s >= '0' && *s <= '9'; s++, whole++) {
        exact &= sig < 19;
        mant = exact ? mant * 10 + (uint64_t)(*s - '0') : mant;
        sig += mant != 0;
    }
    if (!whole)
        return 0;
    if (s < end && *s == '.') {
        for (s++; s < end && *s >= '0' && *s <= '9'; s++, decimals++) {
            exact &= sig < 19;
            mant = exact ? mant * 10 + (uint64_t)(*s - '0') : mant;
            sig += mant != 0;
        }
        if (!decimals)
            return 0;
    }
    if (s != end)
        return 0;
    if (exact && mant < (UINT64_C(1) << 53) && decimals <= 22) {
        double v = (double)mant / pow10[decimals];
        *out = neg ? -v : v;
        return 1;
    }
    char small[512], *buf = len < sizeof small ? small : malloc(len + 1);
    if (!buf)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    *out = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return 1;
}

/* %.2f of x into p, as printf rounds it; returns the end. x * 100 is
 * m * 2^e * 100 exactly (m the 53-bit significand): below 2^53 that is the
 * integer part (m * 100) >> -e and a remainder compared with one half,
 * all in 64 bits (m * 100 < 2^60). Larger values (never a longitude or an
 * orb) go to snprintf. */
static char *put_fixed2(char *p, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased >= 1023 + 53) /* >= 2^53, inf, nan */
        return p + sprintf(p, "%.2f", x);
    if (bits >> 63)
        *p++ = '-';
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    int shift; /* x = m * 2^-shift */
    if (biased == 0) {
        shift = 1074;
    } else {
        m |= UINT64_C(1) << 52;
        shift = 1075 - biased;
    }
    uint64_t prod = m * 100, n;
    if (shift <= 0) {
        n = prod << -shift;
    } else if (shift > 60) {
        n = 0; /* prod < 2^60 <= half */
    } else {
        n = prod >> shift;
        uint64_t rem = prod & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
        n += rem > half || (rem == half && (n & 1));
    }
    uint64_t whole = n / 100;
    unsigned frac = (unsigned)(n % 100);
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    while (k)
        *p++ = tmp[--k];
    p[0] = '.';
    p[1] = (char)('0' + frac / 10);
    p[2] = (char)('0' + frac % 10);
    return p + 3;
}

/* ---- Trigonometry without libm ----------------------------------------------- */

#define DEG2RAD 0.017453292519943295 /* pi / 180, as Python's math.radians uses */
#define RAD2DEG 57.29577951308232    /* 180 / pi, as math.degrees uses */

/* x mod 360 in [0, 360), as Python's x % 360.0: the remainder of fmod
 * (exact), plus 360 when it is negative (rounded: a tiny negative x gives
 * 360.0, as in Python). The quotient q * 360 is an exact integer and
 * x - q * 360 is a multiple of x's ulp no larger than x, so exact too; a
 * quotient one too large (x / 360 rounded up to an integer) is corrected
 * exactly. Only |x| < 2^52 comes here (GMST, at most about 1e7). */
static double mod360(double x)
{
    if (x >= 0.0 && x < 360.0)
        return x;
    if (x >= 360.0 && x < 720.0)
        return x - 360.0;
    if (x < 0.0 && x > -360.0)
        return x + 360.0;
    double q = (double)(int64_t)(x / 360.0);
    double r = x - q * 360.0;
    if (x > 0.0 && r < 0.0)
        r += 360.0;
    else if (x < 0.0 && r > 0.0)
        r -= 360.0;
    if (r < 0.0)
        r += 360.0;
    return r;
}

/* sin and cos of t radians, |t| <= pi/4: Taylor polynomials to t^17 and
 * t^18, whose next terms are below 1e-19. */
static inline double sin_poly(double t)
{
    double z = t * t;
    double p =
        -1.0 / 6.0 +
        z * (1.0 / 120.0 +
             z * (-1.0 / 5040.0 +
                  z * (1.0 / 362880.0 +
                       z * (-1.0 / 39916800.0 +
                            z * (1.0 / 6227020800.0 +
                                 z * (-1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0)))))));
    return t + t * z * p;
}

static inline double cos_poly(double t)
{
    double z = t * t;
    double p =
        -1.0 / 2.0 +
        z * (1.0 / 24.0 +
             z * (-1.0 / 720.0 +
                  z * (1.0 / 40320.0 + z * (-1.0 / 3628800.0 +
                                            z * (1.0 / 479001600.0 +
                                                 z * (-1.0 / 87178291200.0 +
                                                      z * (1.0 / 20922789888000.0 +
                                                           z * (-1.0 / 6402373705728000.0))))))));
    return 1.0 + z * p;
}

/* sin and cos of x degrees. x is reduced in degrees, exactly: mod 360, then
 * to the nearest multiple of 90 (x - 90k is exact, the two within a factor
 * of two of each other), so only the final |y| <= 45 degrees is turned into
 * radians. */
static void sincosd(double x, double *s, double *c)
{
    double r = x >= 0.0 && x < 360.0 ? x : mod360(x);
    int k = (int)(r / 90.0 + 0.5);
    double t = (r - 90.0 * k) * DEG2RAD;
    double st = sin_poly(t), ct = cos_poly(t);
    switch (k & 3) {
    case 0: *s = st, *c = ct; break;
    case 1: *s = ct, *c = -st; break;
    case 2: *s = -st, *c = -ct; break;
    default: *s = -ct, *c = st; break;
    }
}

/* atan(k/8) in degrees for k = 0..8, correctly rounded. */
static const double atan_eighths[9] = {
    0.0,
    7.12501634890179756195330084120684474905214921626072,
    14.0362434679264785828923201591634243209744313805812,
    20.5560452195834643082936127473437989791071479050792,
    26.5650511770779893515721937204532946712042142996452,
    32.0053832080834955607906457504046593579533059827398,
    36.8698976458440212968556125590934106575915714007095,
    41.1859251657096458050885863671792182784212741409753,
    45.0,
};

/* atan(t) in degrees for 0 <= t <= 1: atan(c) + atan((t - c) / (1 + t c))
 * with c = k/8 the eighth at or below t, so the two terms never cancel and
 * the series runs on 0 <= u < 1/8, to u^21 (the next term is below 1e-20
 * of u). t - c is exact (the two within a factor of two of each other, or
 * c = 0). Only the small second term is turned from radians into degrees. */
static inline double atan01d(double t)
{
    int k = (int)(t * 8.0);
    double c = k * 0.125;
    double u = (t - c) / (1.0 + t * c);
    double z = u * u;
    double p = 1.0 / 3.0 -
               z * (1.0 / 5.0 -
                    z * (1.0 / 7.0 -
                         z * (1.0 / 9.0 -
                              z * (1.0 / 11.0 -
                                   z * (1.0 / 13.0 -
                                        z * (1.0 / 15.0 -
                                             z * (1.0 / 17.0 - z * (1.0 / 19.0 - z / 21.0))))))));
    return atan_eighths[k] + (u - u * z * p) * RAD2DEG;
}

/* atan2(y, x) in degrees, in [-180, 180], as libm's atan2 times 180/pi:
 * the octant from the signs and the larger of |x| and |y|, whose
 * reflections (90 - a, 180 - a) are exact in degrees. */
static double atan2d(double y, double x)
{
    double ax = __builtin_fabs(x), ay = __builtin_fabs(y), a;
    if (ay <= ax)
        a = ax == 0.0 ? 0.0 : atan01d(ay / ax);
    else
        a = 90.0 - atan01d(ax / ay);
    if (__builtin_signbit(x))
        a = 180.0 - a;
    return __builtin_signbit(y) ? -a : a;
}

void rb_aspects_sincosd(double x, double *s, double *c)
{
    sincosd(x, s, c);
}

double rb_aspects_atan2d(double y, double x)
{
    return atan2d(y, x);
}

size_t rb_aspects_format2(char *out, double x)
{
    char *end = put_fixed2(out, x);
    *end = '\0';
    return (size_t)(end - out);
}

/* ---- The per-event work ------------------------------------------------------ */

/* An angle of atan2 in [0, 360). */
static inline double circle(double deg)
{
    return deg < 0.0 ? deg + 360.0 : deg;
}

/* A body's longitude a fraction f into the day whose row holds l0 and the
 * next row l1, across the 360 degree wrap. */
static inline double interpolate(double l0, double l1, double f)
{
    double d = l1 - l0;
    if (d > 180.0)
        d -= 360.0;
    else if (d < -180.0)
        d += 360.0;
    double x = l0 + f * d;
    if (x >= 360.0)
        x -= 360.0;
    if (x < 0.0)
        x += 360.0;
    return x;
}

/* The sidereal angle RAMC, the Midheaven and the Ascendant (degrees) at
 * `seconds` since 1900 for latitude `lat` and east longitude `lon`. atan2
 * with both signs puts the Ascendant in the right half of the circle. */
static inline void house_angles(int64_t seconds, double lat, double lon, double *ramc_out,
                                double *mc, double *asc)
{
    double dt = (double)(seconds - J2000_SECONDS);
    double t = dt / 86400.0 / 36525.0;
    double eps = 23.439291 - 0.0130042 * t;
    double gmst = mod360(280.46061837 + 360.98564736629 * dt / 86400.0);
    double ramc = mod360(gmst + lon);
    double sr, cr, se, ce, sl, cl;
    sincosd(ramc, &sr, &cr);
    sincosd(eps, &se, &ce);
    sincosd(lat, &sl, &cl);
    *ramc_out = ramc;
    *mc = circle(atan2d(sr, cr * ce));
    *asc = circle(atan2d(cr, -(sr * ce + sl / cl * se)));
}

/* The twelve Porphyry cusps: each quadrant between the angles trisected. */
static inline void porphyry(double asc, double mc, double *h)
{
    h[0] = asc;
    h[9] = mc;
    h[3] = mod360(mc + 180.0);
    h[6] = mod360(asc + 180.0);
    double q = mod360(asc - mc);
    h[10] = mod360(mc + q / 3.0);
    h[11] = mod360(mc + 2.0 * q / 3.0);
    double r = mod360(h[3] - asc);
    h[1] = mod360(asc + r / 3.0);
    h[2] = mod360(asc + 2.0 * r / 3.0);
    h[4] = mod360(h[10] + 180.0);
    h[5] = mod360(h[11] + 180.0);
    h[7] = mod360(h[1] + 180.0);
    h[8] = mod360(h[2] + 180.0);
}

/* The aspect two points at a and b form (an index into angles[], or -1),
 * its orb, and their separation folded into [0, 180]: the first angle, in
 * order, within the orb. Every angle is tried, with a select instead of a
 * branch: whether a pair forms an aspect is data, and a branch on it is
 * mispredicted about a third of the time, which cost more than the rest
 * of the event's work. */
static inline int pair_aspect(double a, double b, double *sep_out, double *orb)
{
    double sep = __builtin_fabs(a - b);
    sep = sep > 180.0 ? 360.0 - sep : sep;
    int found = -1;
    for (int k = RB_ASPECTS_ANGLES - 1; k >= 0; k--)
        found = __builtin_fabs(sep - angles[k]) <= ORB ? k : found;
    *sep_out = sep;
    *orb = __builtin_fabs(sep - angles[found < 0 ? 0 : found]);
    return found;
}

/* Every quantity of one event: the twelve points and the cusps, from the
 * row of its day and the next. */
static void chart_at(const double *row, double f, int64_t seconds, double lat, double lon,
                     rb_aspects_chart *c)
{
    const double *next = row + RB_ASPECTS_BODIES;
    for (int b = 0; b < RB_ASPECTS_BODIES; b++)
        c->point[b] = interpolate(row[b], next[b], f);
    double ramc;
    house_angles(seconds, lat, lon, &ramc, &c->point[RB_ASPECTS_MC], &c->point[RB_ASPECTS_ASC]);
    porphyry(c->point[RB_ASPECTS_ASC], c->point[RB_ASPECTS_MC], c->cusp);
}

/* The aspect each pair forms (an index into angles[], or -1) and its orb,
 * for every pair (i < j, in index order). */
static void aspects_of(const double *p, int8_t *aspect, double *orb)
{
    int pair = 0;
    for (int i = 0; i < RB_ASPECTS_POINTS; i++) {
        for (int j = i + 1; j < RB_ASPECTS_POINTS; j++, pair++) {
            double sep;
            aspect[pair] = (int8_t)pair_aspect(p[i], p[j], &sep, &orb[pair]);
        }
    }
}

double rb_aspects_interpolate(double l0, double l1, double f)
{
    return interpolate(l0, l1, f);
}

void rb_aspects_house_angles(int64_t seconds, double lat, double lon, double *ramc, double *mc,
                             double *asc)
{
    house_angles(seconds, lat, lon, ramc, mc, asc);
}

void rb_aspects_porphyry(double asc, double mc, double cusps[12])
{
    porphyry(asc, mc, cusps);
}

int rb_aspects_pair(double a, double b, double *sep, double *orb)
{
    int k = pair_aspect(a, b, sep, orb);
    return k < 0 ? -1 : angles[k];
}

/* The pair index of points i < j: pairs are numbered row by row. */
static int pair_index(int i, int j)
{
    return i * (2 * RB_ASPECTS_POINTS - i - 1) / 2 + (j - i - 1);
}

static const struct {
    uint8_t i, j;
} pair_points[RB_ASPECTS_PAIRS] = {
    {0, 1},  {0, 2},  {0, 3},  {0, 4},  {0, 5},  {0, 6},   {0, 7},  {0, 8},  {0, 9},  {0, 10},
    {0, 11}, {1, 2},  {1, 3},  {1, 4},  {1, 5},  {1, 6},   {1, 7},  {1, 8},  {1, 9},  {1, 10},
    {1, 11}, {2, 3},  {2, 4},  {2, 5},  {2, 6},  {2, 7},   {2, 8},  {2, 9},  {2, 10}, {2, 11},
    {3, 4},  {3, 5},  {3, 6},  {3, 7},  {3, 8},  {3, 9},   {3, 10}, {3, 11}, {4, 5},  {4, 6},
    {4, 7},  {4, 8},  {4, 9},  {4, 10}, {4, 11}, {5, 6},   {5, 7},  {5, 8},  {5, 9},  {5, 10},
    {5, 11}, {6, 7},  {6, 8},  {6, 9},  {6, 10}, {6, 11},  {7, 8},  {7, 9},  {7, 10}, {7, 11},
    {8, 9},  {8, 10}, {8, 11}, {9, 10}, {9, 11}, {10, 11},
};

/* ---- Output ------------------------------------------------------------------- */

void rb_buf_free(rb_buf *buf)
{
    if (buf) {
        free(buf->data);
        buf->data = NULL;
        buf->len = buf->cap = 0;
    }
}

/* Room for `extra` more bytes in b; 0 when out of memory. */
static int reserve(rb_buf *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2)
            return 0;
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (!data)
        return 0;
    b->data = data;
    b->cap = cap;
    return 1;
}

static char *put(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

static char *put_point(char *p, int point)
{
    return put(p, point_names[point], point_name_len[point]);
}

/* "<TAB>P1 A P2 ORB" */
static char *put_aspect(char *p, int p1, int angle, int p2, double orb)
{
    *p++ = '\t';
    p = put_point(p, p1);
    *p++ = ' ';
    p = put(p, angle_text[angle], strlen(angle_text[angle]));
    *p++ = ' ';
    p = put_point(p, p2);
    *p++ = ' ';
    return put_fixed2(p, orb);
}

static char *put_int(char *p, int64_t v)
{
    char tmp[24];
    int k = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (k)
        *p++ = tmp[--k];
    return p;
}

/* ---- Reading the files ------------------------------------------------------- */

/* The messages are the plain Python variant's, word for word
 * (roundbench/pure/aspects.py): `PATH:LINE: what was wrong`, a field
 * quoted as Python's repr() quotes it, so that every language reports bad
 * input in the same words. */

static const char *const ephemeris_columns[RB_ASPECTS_BODIES + 1] = {
    "date",    "sun",    "moon",   "mercury", "venus", "mars",
    "jupiter", "saturn", "uranus", "neptune", "pluto"};
static const char ephemeris_header[] =
    "date\tsun\tmoon\tmercury\tvenus\tmars\tjupiter\tsaturn\turanus\tneptune\tpluto";
static const char events_header[] = "time\tlat\tlon\tname";

struct rb_aspects_ephemeris {
    int64_t first_day; /* row 0's day, counted from 1900-01-01 */
    int64_t rows;
    double *lon; /* rows x RB_ASPECTS_BODIES, row-major */
};

/* One event; its time (20 bytes, as written) and its name are in the
 * events' text pool at `text`. */
typedef struct event {
    int64_t seconds; /* since 1900-01-01T00:00:00Z */
    double lat, lon;
    int64_t line;
    size_t text, name_len;
} event;

struct rb_aspects_events {
    int64_t count;
    event *ev;
    char *pool;
    char *name; /* the file's name, for messages */
};

/* The lines of a text, one at a time, without their "\n". A last line
 * without a newline is a line; nothing after the last newline is none. */
typedef struct lines {
    const char *p, *end;
    int64_t no; /* the 1-based number of the line last returned */
} lines;

static int next_line(lines *l, const char **s, size_t *len)
{
    if (l->p >= l->end)
        return 0;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    const char *e = nl ? nl : l->end;
    *s = l->p;
    *len = (size_t)(e - *s);
    l->p = nl ? nl + 1 : l->end;
    l->no++;
    return 1;
}

/* Splits a line at its tabs into at most `max` fields; returns how many
 * fields the line has (which may be more than max). */
static int split_tabs(const char *s, size_t len, const char **f, size_t *flen, int max)
{
    int n = 0;
    const char *end = s + len;
    for (;;) {
        const char *tab = memchr(s, '\t', (size_t)(end - s));
        const char *e = tab ? tab : end;
        if (n < max) {
            f[n] = s;
            flen[n] = (size_t)(e - s);
        }
        n++;
        if (!tab)
            return n;
        s = tab + 1;
    }
}

static int64_t count_lines(const char *text, size_t len)
{
    int64_t n = 1;
    for (const char *p = text, *end = text + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        n++;
    return n;
}

/* A field as Python's repr() of it, the file decoded as ASCII with every
 * other byte replaced by U+FFFD: in single quotes, or double quotes when
 * it holds a single quote and no double one; backslash escapes for the
 * quote, the backslash and control characters. At most cap - 1 bytes and a
 * NUL into out. */
static const char *py_repr(char *out, size_t cap, const char *s, size_t n)
{
    int dq = memchr(s, '\'', n) && !memchr(s, '"', n);
    char q = dq ? '"' : '\'';
    size_t k = 0;
#define OUT(c)                                                                                     \
    do {                                                                                           \
        if (k + 1 < cap)                                                                           \
            out[k++] = (c);                                                                        \
    } while (0)
    OUT(q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            OUT('\\');
            OUT((char)c);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            OUT('\\');
            OUT(c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else if (c < 0x20 || c == 0x7f) {
            static const char hex[] = "0123456789abcdef";
            OUT('\\');
            OUT('x');
            OUT(hex[c >> 4]);
            OUT(hex[c & 15]);
        } else if (c >= 0x80) {
            OUT('\xef'); /* U+FFFD in UTF-8 */
            OUT('\xbf');
            OUT('\xbd');
        } else {
            OUT((char)c);
        }
    }
    OUT(q);
#undef OUT
    out[k] = '\0';
    return out;
}

/* The text of a field for a message: as in the file (non-ASCII bytes as
 * U+FFFD), at most cap - 1 bytes. */
static const char *as_text(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 3 < cap; i++) {
        if ((unsigned char)s[i] >= 0x80) {
            memcpy(out + k, "\xef\xbf\xbd", 3);
            k += 3;
        } else {
            out[k++] = s[i];
        }
    }
    out[k] = '\0';
    return out;
}

/* The failure of a bad file: RB_ERR_ARG, the line in pos, the message
 * "PATH:LINE: " and the rest. */
static rb_status bad_input(rb_error *err, const char *path, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static rb_status bad_input(rb_error *err, const char *path, int64_t line, const char *fmt, ...)
{
    if (err) {
        char what[RB_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        return rb_failf(err, RB_ERR_ARG, NULL, line, "%s:%lld: %s", path, (long long)line, what);
    }
    return RB_ERR_ARG;
}

/* Reads a whole file into a malloc'd buffer. */
static rb_status read_file(const char *path, char **text, size_t *len, rb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rb_fail_sys(err, errno, "path", -1, "cannot open %s", path);
    size_t cap = 1 << 16, have = 0;
    char *buf = malloc(cap);
    rb_status st = RB_OK;
    for (;;) {
        if (!buf) {
            st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory reading a file", -1);
            break;
        }
        if (have == cap) {
            char *bigger = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = rb_fail_sys(err, errno, "path", (int64_t)have, "cannot read %s", path);
            break;
        }
        if (n == 0)
            break;
        have += (size_t)n;
    }
    close(fd);
    if (st != RB_OK) {
        free(buf);
        return st;
    }
    *text = buf;
    *len = have;
    return RB_OK;
}

void rb_aspects_ephemeris_free(rb_aspects_ephemeris *eph)
{
    if (eph) {
        free(eph->lon);
        free(eph);
    }
}

int64_t rb_aspects_ephemeris_rows(const rb_aspects_ephemeris *eph)
{
    return eph ? eph->rows : 0;
}

rb_status rb_aspects_ephemeris_parse(const char *text, size_t len, const char *name,
                                     rb_aspects_ephemeris **out, rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (!text && len)
        return rb_fail(err, RB_ERR_ARG, "text", "must not be NULL", -1);
    if (!name)
        name = "ephemeris";
    lines l = {text, text + len, 0};
    const char *s = "";
    size_t n = 0;
    if (!next_line(&l, &s, &n) || n != sizeof ephemeris_header - 1 ||
        memcmp(s, ephemeris_header, n) != 0)
        return bad_input(
            err, name, 1,
            "bad header (want date<TAB>sun<TAB>moon<TAB>mercury<TAB>venus<TAB>mars<TAB>"
            "jupiter<TAB>saturn<TAB>uranus<TAB>neptune<TAB>pluto)");
    rb_aspects_ephemeris *eph = calloc(1, sizeof *eph);
    int64_t cap = count_lines(l.p, (size_t)(l.end - l.p));
    if (!eph || !(eph->lon = malloc((size_t)cap * RB_ASPECTS_BODIES * sizeof(double)))) {
        rb_aspects_ephemeris_free(eph);
        return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the ephemeris", -1);
    }
    rb_status st = RB_OK;
    int64_t prev_day = 0;
    char q[128], t[48];
    while (next_line(&l, &s, &n)) {
        const char *f[RB_ASPECTS_BODIES + 1];
        size_t fl[RB_ASPECTS_BODIES + 1];
        int cols = split_tabs(s, n, f, fl, RB_ASPECTS_BODIES + 1);
        if (cols != RB_ASPECTS_BODIES + 1) {
            st = bad_input(err, name, l.no, "wrong number of columns (%d, want %d)", cols,
                           RB_ASPECTS_BODIES + 1);
            goto fail;
        }
        int64_t day;
        if (!parse_date(f[0], fl[0], &day)) {
            st = bad_input(err, name, l.no, "bad date %s (want YYYY-MM-DD)",
                           py_repr(q, sizeof q, f[0], fl[0]));
            goto fail;
        }
        day -= DAY_1900;
        if (eph->rows && day != prev_day + 1) {
            format_date(prev_day + DAY_1900, t);
            st = bad_input(err, name, l.no,
                           "date %.10s is not one day after the previous row's (%s)", f[0], t);
            goto fail;
        }
        double *row = eph->lon + eph->rows * RB_ASPECTS_BODIES;
        for (int b = 0; b < RB_ASPECTS_BODIES; b++) {
            int number = parse_number(f[b + 1], fl[b + 1], &row[b]);
            if (number < 0) {
                st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for a number", -1);
                goto fail;
            }
            if (!number) {
                st = bad_input(err, name, l.no, "%s: %s is not a number", ephemeris_columns[b + 1],
                               py_repr(q, sizeof q, f[b + 1], fl[b + 1]));
                goto fail;
            }
        }
        if (!eph->rows)
            eph->first_day = day;
        prev_day = day;
        eph->rows++;
    }
    *out = eph;
    return RB_OK;
fail:
    rb_aspects_ephemeris_free(eph);
    return st;
}

rb_status rb_aspects_ephemeris_load(const char *path, rb_aspects_ephemeris **out, rb_error *err)
{
    if (!path)
        return rb_fail(err, RB_ERR_ARG, "path", "must not be NULL", -1);
    char *text;
    size_t len;
    rb_status st = read_file(path, &text, &len, err);
    if (st == RB_OK) {
        st = rb_aspects_ephemeris_parse(text, len, path, out, err);
        free(text);
    }
    return st;
}

void rb_aspects_events_free(rb_aspects_events *ev)
{
    if (ev) {
        free(ev->ev);
        free(ev->pool);
        free(ev->name);
        free(ev);
    }
}

int64_t rb_aspects_events_count(const rb_aspects_events *ev)
{
    return ev ? ev->count : 0;
}

static int is_word(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return n > 0;
}

/* The table's span for messages: "FIRST .. LAST", or "no rows". */
static const char *span_text(const rb_aspects_ephemeris *eph, char out[100])
{
    if (!eph->rows)
        return "no rows";
    char first[48], last[48];
    format_date(eph->first_day + DAY_1900, first);
    format_date(eph->first_day + eph->rows - 1 + DAY_1900, last);
    snprintf(out, 100, "%s .. %s", first, last);
    return out;
}

/* Whether an event at `seconds` lies inside the table: the row of its day
 * and the next one exist (never extrapolated). */
static int inside(const rb_aspects_ephemeris *eph, int64_t seconds)
{
    int64_t day = seconds / DAY_SECONDS - (seconds % DAY_SECONDS < 0);
    return day >= eph->first_day && day < eph->first_day + eph->rows - 1;
}

rb_status rb_aspects_events_parse(const char *text, size_t len, const char *name,
                                  const rb_aspects_ephemeris *eph, rb_aspects_events **out,
                                  rb_error *err)
{
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (!eph)
        return rb_fail(err, RB_ERR_ARG, "eph", "must not be NULL", -1);
    if (!text && len)
        return rb_fail(err, RB_ERR_ARG, "text", "must not be NULL", -1);
    if (!name)
        name = "events";
    lines l = {text, text + len, 0};
    const char *s;
    size_t n;
    if (next_line(&l, &s, &n) &&
        (n != sizeof events_header - 1 || memcmp(s, events_header, n) != 0))
        return bad_input(err, name, 1, "bad header (want time<TAB>lat<TAB>lon<TAB>name)");
    rb_aspects_events *ev = calloc(1, sizeof *ev);
    int64_t cap = count_lines(l.p, (size_t)(l.end - l.p));
    if (!ev || !(ev->ev = malloc((size_t)cap * sizeof *ev->ev)) ||
        !(ev->pool = malloc((size_t)(l.end - l.p) + 1)) || !(ev->name = strdup(name))) {
        rb_aspects_events_free(ev);
        return rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the events", -1);
    }
    size_t pool = 0;
    rb_status st = RB_OK;
    char q[128], span[100];
    while (next_line(&l, &s, &n)) {
        const char *f[4];
        size_t fl[4];
        int cols = split_tabs(s, n, f, fl, 4);
        event *e = &ev->ev[ev->count];
        if (cols != 4) {
            st = bad_input(err, name, l.no, "wrong number of columns (%d, want 4)", cols);
            goto fail;
        }
        if (!parse_time(f[0], fl[0], &e->seconds)) {
            st = bad_input(err, name, l.no, "bad time %s (want YYYY-MM-DDTHH:MM:SSZ)",
                           py_repr(q, sizeof q, f[0], fl[0]));
            goto fail;
        }
        static const char *const what[3] = {NULL, "latitude", "longitude"};
        static const char *const range[3] = {NULL, "[-90, 90]", "[-180, 180]"};
        for (int k = 1; k <= 2; k++) {
            double v, lim = k == 1 ? 90.0 : 180.0;
            int number = parse_number(f[k], fl[k], &v);
            if (number < 0) {
                st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for a number", -1);
                goto fail;
            }
            if (!number) {
                st = bad_input(err, name, l.no, "%s: %s is not a number", what[k],
                               py_repr(q, sizeof q, f[k], fl[k]));
                goto fail;
            }
            if (!(v >= -lim && v <= lim)) {
                st = bad_input(err, name, l.no, "%s outside %s: %s", what[k], range[k],
                               as_text(q, sizeof q, f[k], fl[k]));
                goto fail;
            }
            *(k == 1 ? &e->lat : &e->lon) = v;
        }
        if (!fl[3]) {
            st = bad_input(err, name, l.no, "empty name");
            goto fail;
        }
        if (!is_word(f[3], fl[3])) {
            st = bad_input(err, name, l.no, "bad name %s (want letters, digits, _ and -)",
                           py_repr(q, sizeof q, f[3], fl[3]));
            goto fail;
        }
        if (!inside(eph, e->seconds)) {
            st = bad_input(err, name, l.no, "time %.20s outside the ephemeris (%s)", f[0],
                           span_text(eph, span));
            goto fail;
        }
        if (__builtin_fabs(e->lat) > RB_ASPECTS_MAX_LAT) {
            st = bad_input(err, name, l.no,
                           "Ascendant undefined beyond the polar circles (|lat| > 66)");
            goto fail;
        }
        e->line = l.no;
        e->text = pool;
        e->name_len = fl[3];
        memcpy(ev->pool + pool, f[0], 20);
        memcpy(ev->pool + pool + 20, f[3], fl[3]);
        pool += 20 + fl[3];
        ev->count++;
    }
    *out = ev;
    return RB_OK;
fail:
    rb_aspects_events_free(ev);
    return st;
}

rb_status rb_aspects_events_load(const char *path, const rb_aspects_ephemeris *eph,
                                 rb_aspects_events **out, rb_error *err)
{
    if (!path)
        return rb_fail(err, RB_ERR_ARG, "path", "must not be NULL", -1);
    char *text;
    size_t len;
    rb_status st = read_file(path, &text, &len, err);
    if (st == RB_OK) {
        st = rb_aspects_events_parse(text, len, path, eph, out, err);
        free(text);
    }
    return st;
}

/* ---- The combination ---------------------------------------------------------- */

const char *rb_aspects_point_name(int point)
{
    return point >= 0 && point < RB_ASPECTS_POINTS ? point_names[point] : NULL;
}

static int find_point(const char *s, size_t n)
{
    for (int i = 0; i < RB_ASPECTS_POINTS; i++)
        if (n == point_name_len[i] && memcmp(s, point_names[i], n) == 0)
            return i;
    return -1;
}

rb_status rb_aspects_combo_parse(const char *text, rb_aspects_combo *out, rb_error *err)
{
    if (!text)
        return rb_fail(err, RB_ERR_ARG, "combo", "must not be NULL", -1);
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    rb_aspects_combo c = {0};
    const char *s = text;
    for (int k = 0;; k++) {
        size_t n = strcspn(s, ",");
        int w = (int)n;
        if (k == RB_ASPECTS_MAX_TERMS)
            return rb_failf(err, RB_ERR_ARG, "combo", k, "has more than %d terms",
                            RB_ASPECTS_MAX_TERMS);
        const char *d1 = memchr(s, '-', n);
        const char *d2 = d1 ? memchr(d1 + 1, '-', n - (size_t)(d1 + 1 - s)) : NULL;
        if (!d2 || memchr(d2 + 1, '-', n - (size_t)(d2 + 1 - s)))
            return rb_failf(err, RB_ERR_ARG, "combo", k,
                            "has a bad term '%.*s' (want POINT-ANGLE-POINT, e.g. Moon-120-Jupiter)",
                            w, s);
        rb_aspects_term *t = &c.terms[k];
        t->p1 = find_point(s, (size_t)(d1 - s));
        t->p2 = find_point(d2 + 1, n - (size_t)(d2 + 1 - s));
        if (t->p1 < 0 || t->p2 < 0) {
            const char *bad = t->p1 < 0 ? s : d2 + 1;
            int bn = t->p1 < 0 ? (int)(d1 - s) : (int)(n - (size_t)(d2 + 1 - s));
            return rb_failf(err, RB_ERR_ARG, "combo", k,
                            "has a bad term '%.*s': no point '%.*s' (the points: Sun, Moon, "
                            "Mercury, Venus, Mars, Jupiter, Saturn, Uranus, Neptune, Pluto, Asc, "
                            "MC)",
                            w, s, bn, bad);
        }
        t->angle = -1;
        for (int a = 0; a < RB_ASPECTS_ANGLES; a++)
            if ((size_t)(d2 - d1 - 1) == strlen(angle_text[a]) &&
                memcmp(d1 + 1, angle_text[a], strlen(angle_text[a])) == 0)
                t->angle = angles[a];
        if (t->angle < 0)
            return rb_failf(err, RB_ERR_ARG, "combo", k,
                            "has a bad term '%.*s': the angle must be 0, 60, 90, 120 or 180", w, s);
        if (t->p1 == t->p2)
            return rb_failf(err, RB_ERR_ARG, "combo", k,
                            "has a bad term '%.*s': a point forms no aspect with itself", w, s);
        c.nterms++;
        if (!s[n])
            break;
        s += n + 1;
    }
    *out = c;
    return RB_OK;
}

/* ---- The search ---------------------------------------------------------------- */

static int angle_index(int angle)
{
    for (int a = 0; a < RB_ASPECTS_ANGLES; a++)
        if (angles[a] == angle)
            return a;
    return -1;
}

/* The row of the day of `seconds` and the fraction of the day past it
 * (the row must have a next one: inside()). */
static inline int64_t locate(const rb_aspects_ephemeris *eph, int64_t seconds, double *frac)
{
    int64_t day = seconds / DAY_SECONDS, in_day = seconds % DAY_SECONDS;
    if (in_day < 0) {
        day--;
        in_day += DAY_SECONDS;
    }
    *frac = (double)in_day / 86400.0;
    return day - eph->first_day;
}

rb_status rb_aspects_chart_at(const rb_aspects_ephemeris *eph, int64_t seconds, double lat,
                              double lon, rb_aspects_chart *out, rb_error *err)
{
    if (!eph)
        return rb_fail(err, RB_ERR_ARG, "eph", "must not be NULL", -1);
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    char span[100];
    if (!inside(eph, seconds))
        return rb_failf(err, RB_ERR_ARG, "seconds", -1,
                        "must be inside the ephemeris (%s), not %lld", span_text(eph, span),
                        (long long)seconds);
    if (!(__builtin_fabs(lat) <= RB_ASPECTS_MAX_LAT))
        return rb_failf(err, RB_ERR_ARG, "lat", -1,
                        "must be in [-66, 66] (the Ascendant is undefined beyond the polar "
                        "circles), not %g",
                        lat);
    if (!(lon >= -180.0 && lon <= 180.0))
        return rb_failf(err, RB_ERR_ARG, "lon", -1, "must be in [-180, 180], not %g", lon);
    double f;
    int64_t row = locate(eph, seconds, &f);
    chart_at(eph->lon + row * RB_ASPECTS_BODIES, f, seconds, lat, lon, out);
    return RB_OK;
}

/* Per event, the most that its lines can take beyond its name (twice: an
 * event line and a match line): the event line with 14 numbers, 20 aspect
 * lines, a match line of RB_ASPECTS_MAX_TERMS terms. */
#define EVENT_ROOM (256 + 14 * 24 + 20 * 48 + RB_ASPECTS_MAX_TERMS * 48)

rb_status rb_aspects_search(const rb_aspects_ephemeris *eph, const rb_aspects_events *events,
                            int64_t first, int64_t count, const rb_aspects_combo *combo, int test,
                            rb_buf *out, int64_t *matches, rb_error *err)
{
    if (!eph)
        return rb_fail(err, RB_ERR_ARG, "eph", "must not be NULL", -1);
    if (!events)
        return rb_fail(err, RB_ERR_ARG, "events", "must not be NULL", -1);
    if (!combo)
        return rb_fail(err, RB_ERR_ARG, "combo", "must not be NULL", -1);
    if (!out)
        return rb_fail(err, RB_ERR_ARG, "out", "must not be NULL", -1);
    if (test != 1 && test != 2)
        return rb_failf(err, RB_ERR_ARG, "test", -1, "must be 1 or 2, not %d", test);
    if (first < 0 || first > events->count)
        return rb_failf(err, RB_ERR_ARG, "first", -1, "must be in [0, %lld], not %lld",
                        (long long)events->count, (long long)first);
    if (count < 0 || count > events->count - first)
        return rb_failf(err, RB_ERR_ARG, "count", -1, "must be in [0, %lld], not %lld",
                        (long long)(events->count - first), (long long)count);
    int nterms = combo->nterms;
    int term_pair[RB_ASPECTS_MAX_TERMS], term_angle[RB_ASPECTS_MAX_TERMS];
    if (nterms < 1 || nterms > RB_ASPECTS_MAX_TERMS)
        return rb_failf(err, RB_ERR_ARG, "combo", -1, "must have 1 to %d terms, not %d",
                        RB_ASPECTS_MAX_TERMS, nterms);
    for (int k = 0; k < nterms; k++) {
        const rb_aspects_term *t = &combo->terms[k];
        if (t->p1 < 0 || t->p1 >= RB_ASPECTS_POINTS || t->p2 < 0 || t->p2 >= RB_ASPECTS_POINTS ||
            t->p1 == t->p2 || angle_index(t->angle) < 0)
            return rb_failf(err, RB_ERR_ARG, "combo", k, "has a bad term (number %d)", k + 1);
        term_pair[k] = t->p1 < t->p2 ? pair_index(t->p1, t->p2) : pair_index(t->p2, t->p1);
        term_angle[k] = angle_index(t->angle);
    }

    size_t start = out->len;
    rb_buf held = {0}; /* test 2: the match lines, which follow every event block */
    rb_buf *mbuf = test == 2 ? &held : out;
    int64_t counts[RB_ASPECTS_POINTS] = {0}, nmatch = 0;
    rb_status st = RB_OK;
    for (int64_t k = first; k < first + count; k++) {
        const event *e = &events->ev[k];
        const char *text = events->pool + e->text;
        /* Checked when the events were read, against this table (if it is
         * the one they were read with): the same words if it is not. */
        if (!inside(eph, e->seconds)) {
            char span[100];
            st = bad_input(err, events->name, e->line, "time %.20s outside the ephemeris (%s)",
                           text, span_text(eph, span));
            goto fail;
        }
        if (__builtin_fabs(e->lat) > RB_ASPECTS_MAX_LAT) {
            st = bad_input(err, events->name, e->line,
                           "Ascendant undefined beyond the polar circles (|lat| > 66)");
            goto fail;
        }
        double f;
        int64_t row = locate(eph, e->seconds, &f);
        rb_aspects_chart c;
        chart_at(eph->lon + row * RB_ASPECTS_BODIES, f, e->seconds, e->lat, e->lon, &c);
        int8_t aspect[RB_ASPECTS_PAIRS];
        double orb[RB_ASPECTS_PAIRS];
        aspects_of(c.point, aspect, orb);
        int match = 1;
        for (int t = 0; t < nterms; t++)
            match &= aspect[term_pair[t]] == term_angle[t];

        const char *name = text + 20;
        size_t room = EVENT_ROOM + 2 * e->name_len;
        if (test == 2) {
            if (!reserve(out, room))
                goto nomem;
            char *p = out->data + out->len;
            p = put(p, "event\t", 6);
            p = put(p, name, e->name_len);
            *p++ = '\t';
            p = put(p, text, 20);
            p = put(p, "\tasc ", 5);
            p = put_fixed2(p, c.point[RB_ASPECTS_ASC]);
            p = put(p, "\tmc ", 4);
            p = put_fixed2(p, c.point[RB_ASPECTS_MC]);
            p = put(p, "\tcusps", 6);
            for (int h = 0; h < 12; h++) {
                *p++ = ' ';
                p = put_fixed2(p, c.cusp[h]);
            }
            *p++ = '\n';
            /* The most exact first: by the orb in hundredths, then the
             * pair, one integer key each, insertion-sorted (about 24). */
            int32_t key[RB_ASPECTS_PAIRS];
            int nkeys = 0;
            for (int pr = 0; pr < RB_ASPECTS_PAIRS; pr++) {
                if (aspect[pr] < 0)
                    continue;
                int32_t kv = (int32_t)(orb[pr] * 100.0 + 0.5) * 128 + pr;
                int at = nkeys++;
                while (at > 0 && key[at - 1] > kv) {
                    key[at] = key[at - 1];
                    at--;
                }
                key[at] = kv;
            }
            for (int x = 0; x < nkeys && x < 20; x++) {
                int pr = key[x] & 127;
                p = put_aspect(p, pair_points[pr].i, aspect[pr], pair_points[pr].j, orb[pr]);
                *p++ = '\n';
            }
            out->len = (size_t)(p - out->data);
        }
        if (match) {
            if (!reserve(mbuf, room))
                goto nomem;
            char *p = mbuf->data + mbuf->len;
            p = put(p, "match\t", 6);
            p = put(p, name, e->name_len);
            *p++ = '\t';
            p = put(p, text, 20);
            for (int t = 0; t < nterms; t++)
                p = put_aspect(p, combo->terms[t].p1, term_angle[t], combo->terms[t].p2,
                               orb[term_pair[t]]);
            *p++ = '\n';
            mbuf->len = (size_t)(p - mbuf->data);
            nmatch++;
            for (int pr = 0; pr < RB_ASPECTS_PAIRS; pr++) {
                if (aspect[pr] >= 0) {
                    counts[pair_points[pr].i]++;
                    counts[pair_points[pr].j]++;
                }
            }
        }
    }
    if (!reserve(out, held.len + 32 + RB_ASPECTS_POINTS * 32))
        goto nomem;
    if (held.len) {
        memcpy(out->data + out->len, held.data, held.len);
        out->len += held.len;
    }
    char *p = out->data + out->len;
    p = put(p, "count", 5);
    for (int i = 0; i < RB_ASPECTS_POINTS; i++) {
        *p++ = '\t';
        p = put_point(p, i);
        *p++ = ' ';
        p = put_int(p, counts[i]);
    }
    *p++ = '\n';
    out->len = (size_t)(p - out->data);
    rb_buf_free(&held);
    if (matches)
        *matches = nmatch;
    return RB_OK;
nomem:
    st = rb_fail(err, RB_ERR_NOMEM, NULL, "out of memory for the output", -1);
fail:
    rb_buf_free(&held);
    out->len = start;
    return st;
}
