"""The input of round aspects: a daily ephemeris and dated events, generated
deterministically (`roundbench gen-ephemeris`).

The ephemeris: one row per day at 0h UTC from 1900-01-01 to 2100-12-31
(73,414 rows), tab-separated with a header, `date` then the geocentric
ecliptic longitudes of the Sun, Moon, Mercury .. Pluto in degrees, each in
[0, 360) with 6 decimals. The planets come from mean Keplerian elements and
their rates per Julian century from J2000 (the published table of
approximate planetary positions, valid 1800-2050, used here for the whole
span), Kepler's equation solved by Newton's method, geocentric = planet -
Earth-Moon barycentre; the Sun is the barycentre's heliocentric longitude
plus 180 degrees; the Moon is its mean longitude plus its six largest
periodic terms. The positions are good to a degree or so for the planets
and worse for the Moon, and that does not matter: astronomical accuracy is
not the point of the round, determinism and equal work in every variant
are. This generator is the only program that computes positions; every
variant reads its text.

The events: N lines of a UTC time (whole seconds, uniform in
[1900-01-01T00:00:00Z, 2100-12-31T00:00:00Z)), a latitude in [-60, 60] and
a longitude in [-180, 180) with 4 decimals, and a name `event-000001`,
from a seed.

The robustness rule. Every variant must print the same bytes, and libms
differ by a few ulps (about 1e-13 degrees here). So the generator computes
every quantity of every event with the plain Python variant's own functions
(roundbench.pure.aspects) and moves an event 60 s later, again and again,
until it is not *fragile*. An event is fragile when
  (a) the separation of some pair is within 1e-6 degrees of an orb edge
      (| |sep - angle| - 8 | < 1e-6 for any of the five angles), or
  (b) a printed value (the orb of any aspect it forms, the Ascendant, the
      Midheaven, a cusp) is within 1e-6 degrees of a rounding boundary at
      two decimals (x.xx5; the sort key of "most exact" rounds the same
      way), or
  (c) a printed position (Ascendant, Midheaven, cusp) is within 1e-6
      degrees of 0 or 360.
No variant's answer can then depend on the last bits of a sine.

The generator also writes OUT.expect: for test 1 and test 2 of the default
combination, the number of matches and the byte length and CRC-32 (zlib's)
of the exact output, one line each:
`test=1 combo=Moon-120-Jupiter,Asc-90-Mars matches=M len=L crc=xxxxxxxx`.
Every variant checks its own output against it on every run.

`cached_ephemeris(...)` and `cached_events(...)` give the round its input,
built once per (arguments, generator) in the build directory, like the
jsonl round's log.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import zlib
from pathlib import Path
from typing import Optional

from ...pure import aspects as pa

FIRST_DAY = "1900-01-01"
LAST_DAY = "2100-12-31"
DAYS = pa.day_number(LAST_DAY) - pa.day_number(FIRST_DAY) + 1  # 73,414 rows
DEFAULT_EVENTS = 277
DEFAULT_SEED = 1
SHIFT_S = 60  # the robustness rule's step
MARGIN = 1e-6  # degrees

# Julian date of 1900-01-01T00:00:00Z and of J2000.0.
JD_1900 = 2415020.5
JD_2000 = 2451545.0

# Mean orbital elements at J2000 and their rates per Julian century:
# a (AU), e, I (deg), L (deg), longitude of perihelion (deg), longitude of
# the ascending node (deg); the published table for 1800 AD .. 2050 AD.
ELEMENTS = {
    "mercury": (
        (0.38709927, 0.20563593, 7.00497902, 252.25032350, 77.45779628, 48.33076593),
        (0.00000037, 0.00001906, -0.00594749, 149472.67411175, 0.16047689, -0.12534081),
    ),
    "venus": (
        (0.72333566, 0.00677672, 3.39467605, 181.97909950, 131.60246718, 76.67984255),
        (0.00000390, -0.00004107, -0.00078890, 58517.81538729, 0.00268329, -0.27769418),
    ),
    "earth": (  # the Earth-Moon barycentre
        (1.00000261, 0.01671123, -0.00001531, 100.46457166, 102.93768193, 0.0),
        (0.00000562, -0.00004392, -0.01294668, 35999.37244981, 0.32327364, 0.0),
    ),
    "mars": (
        (1.52371034, 0.09339410, 1.84969142, -4.55343205, -23.94362959, 49.55953891),
        (0.00001847, 0.00007882, -0.00813131, 19140.30268499, 0.44441088, -0.29257343),
    ),
    "jupiter": (
        (5.20288700, 0.04838624, 1.30439695, 34.39644051, 14.72847983, 100.47390909),
        (-0.00011607, -0.00013253, -0.00183714, 3034.74612775, 0.21252668, 0.20469106),
    ),
    "saturn": (
        (9.53667594, 0.05386179, 2.48599187, 49.95424423, 92.59887831, 113.66242448),
        (-0.00125060, -0.00050991, 0.00193609, 1222.49362201, -0.41897216, -0.28867794),
    ),
    "uranus": (
        (19.18916464, 0.04725744, 0.77263783, 313.23810451, 170.95427630, 74.01692503),
        (-0.00196176, -0.00004397, -0.00242939, 428.48202785, 0.40805281, 0.04240589),
    ),
    "neptune": (
        (30.06992276, 0.00859048, 1.77004347, -55.12002969, 44.96476227, 131.78422574),
        (0.00026291, 0.00005105, 0.00035372, 218.45945325, -0.32241464, -0.00508664),
    ),
    "pluto": (
        (39.48211675, 0.24882730, 17.14001206, 238.92903833, 224.06891629, 110.30393684),
        (-0.00031596, 0.00005170, 0.00004818, 145.20780515, -0.04062942, -0.01183482),
    ),
}


def generator_version() -> str:
    """A hash of this file and of the plain variant (the robustness rule and
    the .expect use its functions): cached files are rebuilt when either
    changes."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(Path(pa.__file__).read_bytes())
    return h.hexdigest()[:12]


# ---- positions --------------------------------------------------------------------


def _heliocentric(body: str, t: float) -> tuple:
    """Heliocentric ecliptic (x, y) in AU at t Julian centuries from J2000."""
    base, rate = ELEMENTS[body]
    a, e, inc, mean_lon, peri, node = (b + r * t for b, r in zip(base, rate))
    m = math.radians(math.remainder(mean_lon - peri, 360.0))  # mean anomaly in [-180, 180]
    w, o, inc = math.radians(peri - node), math.radians(node), math.radians(inc)
    ecc = m + e * math.sin(m)
    for _ in range(50):  # Newton's method on E - e sin E = M
        step = (ecc - e * math.sin(ecc) - m) / (1.0 - e * math.cos(ecc))
        ecc -= step
        if abs(step) < 1e-12:
            break
    xp, yp = a * (math.cos(ecc) - e), a * math.sqrt(1.0 - e * e) * math.sin(ecc)
    cw, sw, co, so, ci = math.cos(w), math.sin(w), math.cos(o), math.sin(o), math.cos(inc)
    x = (cw * co - sw * so * ci) * xp + (-sw * co - cw * so * ci) * yp
    y = (cw * so + sw * co * ci) * xp + (-sw * so + cw * co * ci) * yp
    return x, y


def _moon(t: float) -> float:
    """The Moon's geocentric longitude (degrees): mean longitude plus the six
    largest periodic terms."""
    mean = 218.3164477 + 481267.88123421 * t - 0.0015786 * t**2 + t**3 / 538841.0 - t**4 / 65194000.0
    d = 297.8501921 + 445267.1114034 * t - 0.0018819 * t**2 + t**3 / 545868.0 - t**4 / 113065000.0
    m = 357.5291092 + 35999.0502909 * t - 0.0001536 * t**2 + t**3 / 24490000.0
    mp = 134.9633964 + 477198.8675055 * t + 0.0087414 * t**2 + t**3 / 69699.0 - t**4 / 14712000.0
    f = 93.2720950 + 483202.0175233 * t - 0.0036539 * t**2 - t**3 / 3526000.0 + t**4 / 863310000.0
    d, m, mp, f = (math.radians(x) for x in (d, m, mp, f))
    return (
        mean
        + 6.289 * math.sin(mp)
        + 1.274 * math.sin(2 * d - mp)
        + 0.658 * math.sin(2 * d)
        + 0.214 * math.sin(2 * mp)
        - 0.186 * math.sin(m)
        - 0.114 * math.sin(2 * f)
    )


def longitudes(day: int) -> list:
    """The ten bodies' longitudes (degrees, any range) at 0h UTC of `day`
    (days since 1900-01-01), in the table's column order."""
    t = (JD_1900 + day - JD_2000) / 36525.0
    ex, ey = _heliocentric("earth", t)
    out = [math.degrees(math.atan2(-ey, -ex)), _moon(t)]
    for body in ("mercury", "venus", "mars", "jupiter", "saturn", "uranus", "neptune", "pluto"):
        x, y = _heliocentric(body, t)
        out.append(math.degrees(math.atan2(y - ey, x - ex)))
    return out


def _field(x: float) -> str:
    text = f"{x % 360.0:.6f}"
    return "0.000000" if text == "360.000000" else text


def ephemeris_text(first: int = 0, days: int = DAYS) -> str:
    """The table's text for `days` rows from day `first` (days since 1900-01-01)."""
    out = ["\t".join(pa.EPHEMERIS_HEADER) + "\n"]
    for day in range(first, first + days):
        out.append(pa.date_text(day) + "\t" + "\t".join(_field(x) for x in longitudes(day)) + "\n")
    return "".join(out)


def _write(path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def generate_ephemeris(path) -> int:
    """Writes the whole table to path; returns its number of rows."""
    _write(path, ephemeris_text().encode("ascii"))
    return DAYS


# ---- events -----------------------------------------------------------------------


def _near_rounding(x: float) -> bool:
    # Within MARGIN degrees of x.xx5, where %.2f (and the sort key) turn.
    frac = x * 100.0 - math.floor(x * 100.0)
    return abs(frac - 0.5) < MARGIN * 100.0


def fragile(eph: pa.Ephemeris, s: int, lat: float, lon: float) -> Optional[str]:
    """Why an event at this time and place could print differently under
    another libm (the robustness rule), or None."""
    p = pa.points(eph, s, lat, lon)
    for k, (i, j) in enumerate(pa.PAIRS):
        sep = abs(p[i] - p[j])
        if sep > 180.0:
            sep = 360.0 - sep
        for a in pa.ANGLES:
            if abs(abs(sep - a) - pa.ORB) < MARGIN:
                return f"pair {k} is at an orb edge"
    for k, (_, orb) in pa.aspects(p).items():
        if _near_rounding(orb):
            return f"the orb of pair {k} is at a rounding boundary"
    for x in pa.cusps(p[pa.ASC], p[pa.MC]):  # Asc and MC are cusps 1 and 10
        if _near_rounding(x):
            return "an angle or cusp is at a rounding boundary"
        if x < MARGIN or x > 360.0 - MARGIN:
            return "an angle or cusp is at 0/360"
    return None


def robust_time(eph: pa.Ephemeris, s: int, lat: float, lon: float) -> int:
    """s, or the first time 60 s, 120 s, ... later at which the event is not
    fragile (the robustness rule)."""
    while fragile(eph, s, lat, lon):
        s += SHIFT_S
        if s // pa.DAY >= eph.last:
            raise ValueError("gen-ephemeris: an event was moved past the end of the ephemeris")
    return s


def events_rows(eph: pa.Ephemeris, n: int, seed: int) -> list:
    """n events as (time text, lat text, lon text, name), robust."""
    if n < 0:
        raise ValueError("gen-ephemeris: the number of events must be >= 0")
    r = random.Random(seed).random  # random() keeps its sequence across Python versions
    span = (pa.day_number(LAST_DAY) - pa.day_number(FIRST_DAY)) * pa.DAY
    start = pa.day_number(FIRST_DAY) * pa.DAY
    rows = []
    for k in range(1, n + 1):
        s = start + int(r() * span)
        lat_text = f"{(int(r() * 1_200_001) - 600_000) / 10000:.4f}"
        lon_text = f"{(int(r() * 3_600_000) - 1_800_000) / 10000:.4f}"
        s = robust_time(eph, s, float(lat_text), float(lon_text))
        rows.append((pa.time_text(s), lat_text, lon_text, f"event-{k:06d}"))
    return rows


def events_text(rows: list) -> str:
    return "".join("\t".join(r) + "\n" for r in [pa.EVENTS_HEADER, *rows])


def expect_line(test: int, combo: str, text: str, matches: int) -> str:
    """One line of the .expect file."""
    data = text.encode("ascii")
    return f"test={test} combo={combo} matches={matches} len={len(data)} crc={zlib.crc32(data):08x}"


def expectations(eph: pa.Ephemeris, events: list, combo: str = pa.DEFAULT_COMBO) -> list:
    """The .expect lines of test 1 and test 2 for one combination, computed
    by the plain variant."""
    terms = pa.parse_combo(combo)
    lines = []
    for test in (1, 2):
        out: list = []
        matches = pa.search(eph, events, terms, test == 2, out.append)
        lines.append(expect_line(test, combo, "".join(out), matches))
    return lines


def generate_events(path, n: int = DEFAULT_EVENTS, seed: int = DEFAULT_SEED, eph=None) -> list:
    """Writes n events to path and their expectations to path + ".expect";
    returns the .expect lines. eph: the table they are checked against (a
    pure.aspects.Ephemeris, or a path to one; default: the whole table,
    generated in memory)."""
    if eph is None:
        eph = table()
    elif not isinstance(eph, pa.Ephemeris):
        eph = pa.load_ephemeris(eph)
    rows = events_rows(eph, n, seed)
    _write(path, events_text(rows).encode("ascii"))
    events = pa.load_events(path, eph)
    lines = expectations(eph, events)
    _write(str(path) + ".expect", "".join(x + "\n" for x in lines).encode("ascii"))
    return lines


def table() -> pa.Ephemeris:
    """The whole table, generated in memory and read back from its text (so
    that the events are checked against exactly what the variants read)."""
    # only when the table is made in memory
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "ephemeris.tsv"
        generate_ephemeris(p)
        return pa.load_ephemeris(p)


# ---- the cache --------------------------------------------------------------------


def cached_ephemeris(data_dir) -> Path:
    """The table, generated into data_dir the first time (and again when the
    generator changes); returns its path."""
    data_dir = Path(data_dir)
    path = data_dir / f"ephemeris-{FIRST_DAY[:4]}-{LAST_DAY[:4]}-{generator_version()}.tsv"
    if not path.is_file():
        data_dir.mkdir(parents=True, exist_ok=True)
        for old in data_dir.glob(f"ephemeris-{FIRST_DAY[:4]}-{LAST_DAY[:4]}-*.tsv"):
            old.unlink()  # an older generator's table
        generate_ephemeris(path)
    return path


def cached_events(data_dir, n: int = DEFAULT_EVENTS, seed: int = DEFAULT_SEED) -> Path:
    """n events from seed with their .expect, checked against the cached
    table, generated into data_dir the first time; returns the events' path."""
    data_dir = Path(data_dir)
    path = data_dir / f"aspects-events-{n}-s{seed}-{generator_version()}.tsv"
    if not (path.is_file() and Path(str(path) + ".expect").is_file()):
        eph = cached_ephemeris(data_dir)
        for old in data_dir.glob(f"aspects-events-{n}-s{seed}-*.tsv*"):
            old.unlink()
        generate_events(path, n, seed, eph)
    return path


def expected(events_path, test: int, combo: str) -> Optional[dict]:
    """The .expect line of (test, combo) beside an events file, as a dict
    (matches, len, crc), or None when it has none."""
    return read_expected(str(events_path) + ".expect", test, combo)


def read_expected(expect_path, test: int, combo: str) -> Optional[dict]:
    """The line of (test, combo) of the .expect file at expect_path, as
    expected() gives it; None when the file or the line is missing."""
    want = f"test={test} combo={combo} "
    try:
        text = Path(expect_path).read_text()
    except FileNotFoundError:
        return None
    for line in text.splitlines():
        if line.startswith(want):
            return dict(kv.split("=", 1) for kv in line[len(want) :].split())
    return None


def ensure_expected(events_path, ephemeris_path, combo: str) -> None:
    """Adds the lines of another combination to an events file's .expect,
    computed by the plain variant, unless they are there or the combination
    is bad (the child then says why)."""
    if expected(events_path, 1, combo) is not None and expected(events_path, 2, combo) is not None:
        return
    try:
        pa.parse_combo(combo)
    except ValueError:
        return
    eph = pa.load_ephemeris(ephemeris_path)
    lines = expectations(eph, pa.load_events(events_path, eph), combo)
    with open(str(events_path) + ".expect", "a", encoding="ascii") as f:
        f.write("".join(x + "\n" for x in lines))


# ---- the command ------------------------------------------------------------------


def _write_input(args) -> None:
    # Every option is checked, naming it, before OUT is written.
    if args.events is None and args.ephemeris is not None:
        raise ValueError(
            f"--ephemeris {args.ephemeris!r} goes with --events N (the table the events are checked against)"
        )
    if args.events is not None and args.events < 0:
        raise ValueError(f"--events {args.events}: want a count of events >= 0")
    if args.ephemeris is not None and not Path(args.ephemeris).is_file():
        raise ValueError(f"--ephemeris {args.ephemeris!r}: want the ephemeris file gen-ephemeris wrote (there is none)")
    if args.events is None:
        rows = generate_ephemeris(args.out)
        print(f"{args.out}: {rows} rows, {FIRST_DAY} .. {LAST_DAY}")
    else:
        for line in generate_events(args.out, args.events, args.seed, args.ephemeris):
            print(line)


def generator():
    """The `gen-ephemeris` subcommand (rounds.Generator)."""
    # the registry's class, only when the subcommand is made
    from .. import Generator

    return Generator(
        "gen-ephemeris",
        _write_input,
        help="write the aspects round's ephemeris, or its events",
        description="Writes the aspects round's daily ephemeris (1900-01-01 .. 2100-12-31, tab-separated) to OUT; "
        "with --events N, writes N events to OUT instead, moved by the robustness rule, and the expected "
        "output of test 1 and test 2 for the default combination to OUT.expect, and prints those lines.",
        default_seed=DEFAULT_SEED,
        seed_help="the events' seed (default 1)",
        options=(
            ("--events", dict(type=int, metavar="N", help="write N events instead of the ephemeris")),
            (
                "--ephemeris",
                dict(
                    metavar="FILE",
                    help="with --events: the table the events are checked against (default: the whole table, made "
                    "in memory)",
                ),
            ),
        ),
    )
