#!/usr/bin/env python3
"""Writes round aspects' reference data: testdata/aspects/ (an excerpt of
the ephemeris, small events files, their exact expected outputs, bad input)
and testdata/vectors/aspects.txt (the vectors the C, Go and Python tests
read).

The outputs come from the plain Python variant (roundbench.pure.aspects)
and the events from the generator's robustness rule; tests/test_aspects.py
checks the angles against an independent computation (the ecliptic's
intersection with the horizon and the meridian, by vectors) and every
variant against these files. Run it from the checkout after changing the
rules on purpose, and review the diff:

    python scripts/aspects_testdata.py
"""

import random
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from roundbench.rounds.aspects import ephemeris  # noqa: E402
from roundbench.pure import aspects as pa  # noqa: E402

DATA = ROOT / "testdata" / "aspects"
VECTORS = ROOT / "testdata" / "vectors" / "aspects.txt"
FIRST, DAYS = "2000-03-01", 61  # .. 2000-04-30: the Sun and the Moon cross 0 degrees in it
SECOND_COMBO = "Mercury-90-Pluto,MC-90-Asc"  # 8 matches; a term written with the later point first
THREE_TERMS = "Mars-0-Jupiter,Mercury-0-Venus,Mars-90-Asc"  # 3 matches

HEADER = """\
# Round aspects' vectors, read by the C (csrc/tests/test_aspects.c), Go
# (go/aspects_test.go) and Python (tests/test_aspects.py) tests, in the
# format of testdata/vectors.txt: `KIND key=value ...`, at most 8 fields,
# no spaces inside a value. Written by scripts/aspects_testdata.py from the
# plain Python variant; the files they name are in testdata/aspects/.
#
# Numbers: every input value is a decimal a reader parses as a double
# (strtod, strconv.ParseFloat, float). The rules are roundbench.pure.aspects'
# (docs/rounds/aspects.md).
#
# aspects-interp l0=A l1=B sec=S x=X
#     One body's longitude S seconds into a day whose row holds A and the next
#     row B: f = S / 86400.0, d = B - A folded into [-180, 180], x = A + f*d
#     brought into [0, 360). X is printed %.6f; compare the text.
# aspects-pair a=A b=B sep=S aspect=ANGLE orb=O
#     Two points at A and B: the separation folded into [0, 180] (%.6f), the
#     aspect they form (0, 60, 90, 120, 180, or `none`) and its orb (%.2f, or
#     `-`). Includes separations across 360, orbs of exactly 8 (an aspect:
#     orb <= 8) and 1e-5 either side of 8.
# aspects-angles time=T lat=LAT lon=LON ramc=R mc=MC asc=ASC cusps=C1,...,C12
#     The angles of one event: RAMC (%.6f; compare within 2e-6, it comes
#     from a sum of large numbers), MC, Asc and the 12 Porphyry cusps (%.2f;
#     compare the text: the events are robust). One per quadrant of RAMC,
#     one at latitude 0, at latitude +66 and -66 (the limit, still defined);
#     each is an event of testdata/aspects/events.tsv as well.
# aspects-combo combo=C terms=N
#     A valid combination of N terms.
# aspects-combo-error combo=C term=TERM
#     A bad combination: a usage error whose message contains TERM.
# aspects-output events=E test=1|2 combo=C out=F matches=M len=L crc=X
#     Reading testdata/aspects/ephemeris.tsv and testdata/aspects/E, test T
#     with combination C prints exactly the bytes of testdata/aspects/F
#     (`-`: no file; L bytes with CRC-32 X, zlib's, %08x) with M matches.
# aspects-error ephemeris=P events=E file=ephemeris|events line=N says=TEXT
#     Reading testdata/aspects/P then testdata/aspects/E fails: the message
#     names the file that `file` says (its path as given), the 1-based line N
#     (the header is line 1) as `PATH:N: `, and contains TEXT with each `+`
#     read as a space.
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def output(eph, events, test: int, combo: str) -> tuple:
    out: list = []
    n = pa.search(eph, events, pa.parse_combo(combo), test == 2, out.append)
    return "".join(out), n


def ramc_time(eph, day: str, target: float, lon: float) -> int:
    """The first whole second of `day` at which RAMC is about `target`."""
    s = pa.day_number(day) * pa.DAY
    ramc, _, _ = pa.angles(s, 0.0, lon)
    return s + int(pa.mod360(target - ramc) / 360.98564736629 * 86400.0)


def main() -> None:
    first = pa.day_number(FIRST)
    eph_text = ephemeris.ephemeris_text(first, DAYS)
    write(DATA / "ephemeris.tsv", eph_text)
    eph = pa.load_ephemeris(DATA / "ephemeris.tsv")
    robust = lambda s, lat, lon: ephemeris.robust_time(eph, s, lat, lon)  # noqa: E731

    rows = []  # (time, lat text, lon text, name)
    angle_events = []

    def add(s, lat, lon, name, angles=False):
        s = robust(s, float(lat), float(lon))
        rows.append((pa.time_text(s), lat, lon, name))
        if angles:
            angle_events.append(rows[-1])

    # One event per quadrant of RAMC, the equator, the polar limits, the
    # longitude edges.
    add(ramc_time(eph, "2000-03-02", 45, -0.12), "51.5000", "-0.1200", "q1-london", True)
    add(ramc_time(eph, "2000-03-05", 135, 151.21), "-33.8700", "151.2100", "q2-sydney", True)
    add(ramc_time(eph, "2000-03-09", 225, -74.01), "40.7100", "-74.0100", "q3-new_york", True)
    add(ramc_time(eph, "2000-03-12", 315, 139.69), "35.6800", "139.6900", "q4-tokyo", True)
    add(ramc_time(eph, "2000-03-15", 10, 0.0), "0.0000", "0.0000", "equator", True)
    add(ramc_time(eph, "2000-03-18", 200, 25.0), "66.0000", "25.0000", "polar-north", True)
    add(ramc_time(eph, "2000-03-21", 100, -70.0), "-66.0000", "-70.0000", "polar-south", True)
    add(pa.day_number("2000-03-24") * pa.DAY + 3600, "10.0000", "180.0000", "lon-east-edge")
    add(pa.day_number("2000-03-27") * pa.DAY + 7200, "-10.0000", "-180.0000", "lon-west-edge")

    # The first and the last second the table covers, where robust as they are.
    r = random.Random(7).random
    for s, name in ((first * pa.DAY, "first-second"), ((first + DAYS - 1) * pa.DAY - 1, "last-second")):
        while True:
            lat, lon = f"{r() * 120 - 60:.4f}", f"{r() * 360 - 180:.4f}"
            if not ephemeris.fragile(eph, s, float(lat), float(lon)):
                rows.append((pa.time_text(s), lat, lon, name))
                break

    # Events where the default combination holds, found by scanning.
    terms = pa.parse_combo(pa.DEFAULT_COMBO)
    found = 0
    s = first * pa.DAY
    while found < 3:
        lat, lon = f"{r() * 120 - 60:.4f}", f"{r() * 360 - 180:.4f}"
        for _ in range(400):
            s += 600
            if s // pa.DAY >= eph.last - 1:
                s = first * pa.DAY
            ev = pa.Event("x", "", s, float(lat), float(lon))
            out = []
            if pa.search(eph, [ev], terms, False, out.append) and not ephemeris.fragile(eph, s, ev.lat, ev.lon):
                found += 1
                rows.append((pa.time_text(s), lat, lon, f"match-{found}"))
                s += 5 * pa.DAY
                break

    # Random robust events in the table's span, mixed in.
    for k in range(1, 25):
        s = first * pa.DAY + int(r() * (DAYS - 1) * pa.DAY)
        lat, lon = (
            f"{(int(r() * 1_200_001) - 600_000) / 10000:.4f}",
            f"{(int(r() * 3_600_000) - 1_800_000) / 10000:.4f}",
        )
        rows.insert(
            int(r() * (len(rows) + 1)), (pa.time_text(robust(s, float(lat), float(lon))), lat, lon, f"ev_{k:02d}")
        )

    write(DATA / "events.tsv", ephemeris.events_text(rows))
    write(DATA / "events-header-only.tsv", "\t".join(pa.EVENTS_HEADER) + "\n")
    write(DATA / "events-no-bytes.tsv", "")
    events = pa.load_events(DATA / "events.tsv", eph)

    # A few hundred generated events in the same span, checked by CRC only.
    many = []
    for k in range(1, 301):
        s = first * pa.DAY + int(r() * (DAYS - 1) * pa.DAY)
        lat, lon = (
            f"{(int(r() * 1_200_001) - 600_000) / 10000:.4f}",
            f"{(int(r() * 3_600_000) - 1_800_000) / 10000:.4f}",
        )
        many.append((pa.time_text(robust(s, float(lat), float(lon))), lat, lon, f"event-{k:06d}"))
    write(DATA / "events-300.tsv", ephemeris.events_text(many))

    vec = [HEADER]
    vec += interp_vectors() + pair_vectors()
    for t, lat, lon, _ in angle_events:
        s = pa.parse_time(t)
        ramc, mc, asc = pa.angles(s, float(lat), float(lon))
        c = pa.cusps(asc, mc)
        vec.append(
            f"aspects-angles time={t} lat={lat} lon={lon} ramc={ramc:.6f} mc={mc:.2f} asc={asc:.2f} "
            f"cusps={','.join(f'{x:.2f}' for x in c)}"
        )
    for combo, n in ((pa.DEFAULT_COMBO, 2), ("MC-0-Sun", 1), (THREE_TERMS, 3), ("Asc-180-MC,Pluto-90-Sun", 2)):
        vec.append(f"aspects-combo combo={combo} terms={n}")
    for combo, term in (
        ("Moon-120-Jupiter,Asc-45-Mars", "Asc-45-Mars"),
        ("Moon-120", "Moon-120"),
        ("Moon-120-Moon", "Moon-120-Moon"),
        ("moon-120-Jupiter", "moon-120-Jupiter"),
        ("Moon-120-Jupiter-Mars", "Moon-120-Jupiter-Mars"),
        ("Sun-060-Moon", "Sun-060-Moon"),
        ("Sun-60-Ascendant", "Sun-60-Ascendant"),
    ):
        vec.append(f"aspects-combo-error combo={combo} term={term}")

    outputs = [
        ("events.tsv", 1, pa.DEFAULT_COMBO, "test1.out"),
        ("events.tsv", 2, pa.DEFAULT_COMBO, "test2.out"),
        ("events.tsv", 1, SECOND_COMBO, "test1-second-combo.out"),
        ("events.tsv", 1, THREE_TERMS, "test1-three-terms.out"),
        ("events-header-only.tsv", 1, pa.DEFAULT_COMBO, "empty.out"),
        ("events-header-only.tsv", 2, pa.DEFAULT_COMBO, "empty.out"),
        ("events-no-bytes.tsv", 1, pa.DEFAULT_COMBO, "empty.out"),
        ("events-no-bytes.tsv", 2, pa.DEFAULT_COMBO, "empty.out"),
        ("events-300.tsv", 1, pa.DEFAULT_COMBO, "-"),
        ("events-300.tsv", 2, pa.DEFAULT_COMBO, "-"),
        ("events-300.tsv", 1, SECOND_COMBO, "-"),
    ]
    expect: dict = {}
    for ev_file, test, combo, out_name in outputs:
        text, n = output(eph, pa.load_events(DATA / ev_file, eph), test, combo)
        expect.setdefault(ev_file, []).append(ephemeris.expect_line(test, combo, text, n) + "\n")
        if out_name != "-":
            write(DATA / out_name, text)
        data = text.encode()
        vec.append(
            f"aspects-output events={ev_file} test={test} combo={combo} out={out_name} matches={n} "
            f"len={len(data)} crc={zlib.crc32(data):08x}"
        )
    # The generator's .expect beside each events file, so that a child
    # runner can be pointed at these files as at generated ones.
    for ev_file, lines in expect.items():
        write(DATA / f"{ev_file}.expect", "".join(lines))
    vec += bad_inputs(eph_text, events)
    write(VECTORS, "\n".join(vec) + "\n")
    print(f"{len(events)} events, {sum(1 for v in vec if v.startswith('aspects-'))} vectors")


def interp_vectors() -> list:
    out = []
    for l0, l1, sec in (
        ("10.000000", "11.000000", 43200),
        ("359.500000", "0.700000", 43200),
        ("0.700000", "359.500000", 21600),
        ("0.200000", "359.400000", 43200),
        ("359.900000", "0.300000", 0),
        ("100.500000", "100.200000", 43200),
        ("250.000000", "263.500000", 86399),
    ):
        eph = pa.Ephemeris("-", 0, [(float(l0),) * 10, (float(l1),) * 10])
        x = pa.points(eph, sec, 0.0, 0.0)[0]
        out.append(f"aspects-interp l0={l0} l1={l1} sec={sec} x={x:.6f}")
    return out


def pair_vectors() -> list:
    out = []
    for a, b in (
        ("359.5", "0.7"),
        ("0.3", "240.1"),
        ("10", "190"),
        ("350", "110"),
        ("0", "127.99999"),
        ("0", "128.00001"),
        ("5", "313.00001"),
        ("5", "312.99999"),
        ("100", "100"),
        ("0", "98"),
        ("0", "172"),
        ("351", "359"),
        ("359.99", "180.01"),
        ("90", "270.5"),
        ("0", "135"),
        ("0", "75"),
    ):
        p = [float(a), float(b)] + [0.0] * 10
        sep = abs(p[0] - p[1])
        if sep > 180.0:
            sep = 360.0 - sep
        got = pa.aspects(p).get(0)
        aspect, orb = (str(got[0]), f"{got[1]:.2f}") if got else ("none", "-")
        out.append(f"aspects-pair a={a} b={b} sep={sep:.6f} aspect={aspect} orb={orb}")
    return out


def bad_inputs(eph_text: str, events) -> list:
    """Small bad files and their vectors."""
    lines = eph_text.splitlines(keepends=True)
    head, rows = lines[0], lines[1:9]
    vec = []

    def eph_case(name, text, line, says):
        write(DATA / "bad" / name, text)
        says = says.replace(" ", "+")
        vec.append(f"aspects-error ephemeris=bad/{name} events=events.tsv file=ephemeris line={line} says={says}")

    def field(row: str, k: int, value: str) -> str:
        f = row.rstrip("\n").split("\t")
        f[k] = value
        return "\t".join(f) + "\n"

    eph_case("eph-header.tsv", head.replace("sun", "Sun") + "".join(rows), 1, "bad header")
    eph_case("eph-no-header.tsv", "".join(rows), 1, "bad header")
    eph_case(
        "eph-short-row.tsv",
        head + "".join(rows[:2]) + rows[2].rsplit("\t", 1)[0] + "\n" + "".join(rows[3:]),
        4,
        "wrong number of columns",
    )
    eph_case(
        "eph-long-row.tsv",
        head + rows[0] + rows[1].rstrip("\n") + "\t1.000000\n" + "".join(rows[2:]),
        3,
        "wrong number of columns",
    )
    eph_case(
        "eph-word.tsv", head + "".join(rows[:3]) + field(rows[3], 5, "12.5x") + "".join(rows[4:]), 5, "not a number"
    )
    eph_case("eph-nan.tsv", head + "".join(rows[:4]) + field(rows[4], 2, "nan") + "".join(rows[5:]), 6, "not a number")
    eph_case("eph-exponent.tsv", head + rows[0] + field(rows[1], 10, "1e2") + "".join(rows[2:]), 3, "not a number")
    eph_case("eph-empty-field.tsv", head + "".join(rows[:6]) + field(rows[6], 1, "") + rows[7], 8, "not a number")
    eph_case("eph-gap.tsv", head + "".join(rows[:5]) + "".join(rows[6:]), 7, "not one day after")
    eph_case("eph-repeat.tsv", head + "".join(rows[:3]) + rows[2] + "".join(rows[3:]), 5, "not one day after")
    eph_case("eph-bad-date.tsv", head + rows[0] + field(rows[1], 0, "2000-02-30") + "".join(rows[2:]), 3, "bad date")
    # Numbers of the grammar at any length: one past the largest double
    # (+inf, as strtod and float() read it) and one of 600 bytes, both read;
    # the error is the gap after them (the Go fuzz tests' differential
    # check shows both: strconv.ParseFloat's range error refused the
    # first, the core's 512-byte copy for strtod the second).
    eph_case(
        "eph-long-numbers.tsv",
        head
        + rows[0]
        + field(rows[1], 3, "1" + "0" * 400)
        + field(rows[2], 4, "12.5" + "0" * 600)
        + "".join(rows[3:5])
        + "".join(rows[6:]),
        7,
        "not one day after",
    )

    ev_lines = ephemeris.events_text([(e.time, f"{e.lat:.4f}", f"{e.lon:.4f}", e.name) for e in events[:4]])
    ev_head, ev_rows = ev_lines.splitlines(keepends=True)[0], ev_lines.splitlines(keepends=True)[1:]

    def ev_case(name, bad_row, says, at=2):
        text = ev_head + "".join(ev_rows[:at]) + bad_row + "".join(ev_rows[at:])
        write(DATA / "bad" / name, text)
        vec.append(
            f"aspects-error ephemeris=ephemeris.tsv events=bad/{name} file=events line={at + 2} "
            f"says={says.replace(' ', '+')}"
        )

    ok = "2000-03-10T06:00:00Z\t12.0000\t34.0000\tok\n"
    write(DATA / "bad" / "ev-header.tsv", "time\tlat\tlon\n" + "".join(ev_rows))
    vec.append("aspects-error ephemeris=ephemeris.tsv events=bad/ev-header.tsv file=events line=1 says=bad+header")
    ev_case("ev-short-row.tsv", "2000-03-10T06:00:00Z\t12.0000\t34.0000\n", "wrong number of columns")
    ev_case("ev-long-row.tsv", ok.rstrip("\n") + "\textra\n", "wrong number of columns", at=0)
    ev_case("ev-blank-line.tsv", "\n", "wrong number of columns", at=3)
    ev_case("ev-time-space.tsv", ok.replace("T06", " 06"), "bad time")
    ev_case("ev-time-no-z.tsv", ok.replace("Z", ""), "bad time", at=1)
    ev_case("ev-time-feb30.tsv", ok.replace("03-10", "02-30"), "bad time")
    ev_case("ev-time-hour24.tsv", ok.replace("T06", "T24"), "bad time")
    ev_case("ev-lat-range.tsv", ok.replace("12.0000", "90.5000"), "latitude outside [-90, 90]")
    ev_case("ev-lat-word.tsv", ok.replace("12.0000", "north"), "not a number")
    ev_case("ev-lon-range.tsv", ok.replace("34.0000", "180.0001"), "longitude outside [-180, 180]", at=3)
    ev_case("ev-lon-exponent.tsv", ok.replace("34.0000", "3.4e1"), "not a number")
    ev_case("ev-name-empty.tsv", ok.replace("ok", ""), "empty name")
    ev_case("ev-name-space.tsv", ok.replace("ok", "event 1"), "bad name")
    ev_case(
        "ev-before.tsv",
        ok.replace("2000-03-10T06:00:00Z", "2000-02-29T23:59:59Z"),
        "outside the ephemeris (2000-03-01 .. 2000-04-30)",
    )
    ev_case(
        "ev-at-end.tsv",
        ok.replace("2000-03-10T06:00:00Z", "2000-04-30T00:00:00Z"),
        "outside the ephemeris (2000-03-01 .. 2000-04-30)",
        at=4,
    )
    ev_case(
        "ev-long-ago.tsv",
        ok.replace("2000-03-10", "1850-01-01"),
        "outside the ephemeris (2000-03-01 .. 2000-04-30)",
        at=0,
    )
    polar = "Ascendant undefined beyond the polar circles (|lat| > 66)"
    ev_case("ev-polar-north.tsv", ok.replace("12.0000", "66.0001"), polar)
    ev_case("ev-polar-south.tsv", ok.replace("12.0000", "-70.0000"), polar, at=1)
    # Numbers of the grammar at any length (see eph-long-numbers.tsv).
    ev_case("ev-lat-huge.tsv", ok.replace("12.0000", "9" * 400), "latitude outside [-90, 90]")
    ev_case("ev-polar-long.tsv", ok.replace("12.0000", "66.0001" + "0" * 600), polar)
    return vec


if __name__ == "__main__":
    main()
