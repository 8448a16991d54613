"""Round aspects: every variant against the shared vectors
(testdata/vectors/aspects.txt) and the reference files (testdata/aspects/),
the angles against an independent computation, bad input, and the
generator (deterministic, robust, and its .expect right)."""

import math
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from roundbench.runtimes import programs
from roundbench.rounds.aspects import ephemeris
from roundbench.pure import aspects as pa
from roundbench.rounds import aspects as rnd
from roundbench.run import launch

from conftest import BUILD, ROOT, child_env, load_at_least, run_roundbench

DATA = ROOT / "testdata" / "aspects"
EPHEMERIS = DATA / "ephemeris.tsv"


INTERP = load_at_least("aspects-interp", 6)
PAIRS = load_at_least("aspects-pair", 12)
ANGLES = load_at_least("aspects-angles", 7)
COMBOS = load_at_least("aspects-combo", 3)
COMBO_ERRORS = load_at_least("aspects-combo-error", 6)
OUTPUTS = load_at_least("aspects-output", 8)
ERRORS = load_at_least("aspects-error", 25)


# ---- the Python implementations, one interface ------------------------------------


def _py(eph_path, events_path, combo, print_all):
    return pa.run(eph_path, events_path, combo, print_all)


def _module_runner(module_name):
    def run(eph_path, events_path, combo, print_all):
        import importlib

        m = importlib.import_module(f"roundbench.rounds.aspects.{module_name}")
        terms = pa.parse_combo(combo)
        data = m.load(eph_path, events_path)
        out = []
        n = m.search(data, terms, print_all, out.append)
        return "".join(out), n

    return run


def _py_c(eph_path, events_path, combo, print_all):
    from roundbench import _core

    text, n = _core.aspects_search(_core.aspects_load(eph_path, events_path), combo, 2 if print_all else 1)
    return text.decode(), n


IMPLS = {
    "py": _py,
    "py-numpy": _module_runner("with_numpy"),
    "py-numba": _module_runner("with_numba"),
    "py-pandas": _module_runner("with_pandas"),
    "py-c": _py_c,
}


def test_library_variants_present():
    """numpy, numba and pandas are in requirements-dev.txt: their absence is a setup failure."""
    import numba  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401


def _out_text(v) -> str:
    return (DATA / v["out"]).read_text() if v["out"] != "-" else None


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("v", OUTPUTS, ids=lambda v: f"{v['events']}-test{v['test']}-{v['combo']}")
def test_output_vectors(impl, v):
    text, n = IMPLS[impl](EPHEMERIS, DATA / v["events"], v["combo"], v["test"] == "2")
    want = _out_text(v)
    if want is not None:
        assert text == want
    data = text.encode()
    assert (n, len(data), f"{zlib.crc32(data):08x}") == (int(v["matches"]), int(v["len"]), v["crc"])


def test_reference_outputs_are_sound():
    """The reference files say what the vectors say, and show what the
    tests must see: matches, a wrap of 360 in the table, and blocks of at
    most 20 aspects."""
    for v in OUTPUTS:
        if v["out"] == "-":
            continue
        text = (DATA / v["out"]).read_text()
        assert len(text.encode()) == int(v["len"]) and f"{zlib.crc32(text.encode()):08x}" == v["crc"]
        assert text.count("\nmatch\t") + text.startswith("match\t") == int(v["matches"])
        assert text.endswith("\n") and text.splitlines()[-1].startswith("count\t")
    t1 = (DATA / "test1.out").read_text()
    assert t1.count("match\t") >= 3  # the default combination holds somewhere
    t2 = (DATA / "test2.out").read_text()
    blocks = t2.split("event\t")[1:]
    assert len(blocks) == len(pa.load_events(DATA / "events.tsv", pa.load_ephemeris(EPHEMERIS)))
    assert max(b.count("\n\t") for b in blocks) == pa.MAX_LISTED
    rows = pa.load_ephemeris(EPHEMERIS).rows
    wraps = {k for a, b in zip(rows, rows[1:]) for k in range(10) if abs(b[k] - a[k]) > 180}
    assert {0, 1} <= wraps  # the Sun and the Moon cross 0 degrees in the excerpt


@pytest.mark.parametrize("impl", list(IMPLS))
@pytest.mark.parametrize("v", ERRORS, ids=lambda v: f"{v['ephemeris']}:{v['events']}")
def test_error_vectors(impl, v):
    eph, events = DATA / v["ephemeris"], DATA / v["events"]
    with pytest.raises(ValueError) as e:
        IMPLS[impl](eph, events, pa.DEFAULT_COMBO, False)
    path = eph if v["file"] == "ephemeris" else events
    msg = str(e.value)
    assert f"{path}:{v['line']}: " in msg
    assert v["says"].replace("+", " ") in msg


@pytest.mark.parametrize("v", INTERP, ids=lambda v: f"{v['l0']}-{v['l1']}-{v['sec']}")
def test_interpolation_vectors(v):
    eph = pa.Ephemeris("-", 0, [(float(v["l0"]),) * 10, (float(v["l1"]),) * 10])
    p = pa.points(eph, int(v["sec"]), 0.0, 0.0)
    assert {f"{x:.6f}" for x in p[:10]} == {v["x"]}


def test_interpolation_numpy_agrees():
    from roundbench.rounds.aspects import with_numpy as an

    for v in INTERP:
        eph = pa.Ephemeris("-", 0, [(float(v["l0"]),) * 10, (float(v["l1"]),) * 10])
        data = an.Data(eph, [pa.Event("x", "", int(v["sec"]), 0.0, 0.0)])
        assert {f"{x:.6f}" for x in an.points(data, 0, 1)[0, :10].tolist()} == {v["x"]}


@pytest.mark.parametrize("v", PAIRS, ids=lambda v: f"{v['a']}-{v['b']}")
def test_pair_vectors(v):
    from roundbench.rounds.aspects import with_numpy as an

    a, b = float(v["a"]), float(v["b"])
    p = [a, b] + [0.0] * 10
    got = pa.aspects(p).get(0)
    got = (str(got[0]), f"{got[1]:.2f}") if got else ("none", "-")
    assert got == (v["aspect"], v["orb"])
    sep = abs(a - b)
    assert f"{(360.0 - sep if sep > 180 else sep):.6f}" == v["sep"]
    angle, orb = an.aspects(np.array([p]))
    if v["aspect"] == "none":
        assert angle[0, 0] == -1
    else:
        assert (int(angle[0, 0]), f"{orb[0, 0]:.2f}") == (int(v["aspect"]), v["orb"])


def test_pair_vectors_cover_the_edges():
    kinds = {(v["aspect"], v["orb"]) for v in PAIRS}
    assert ("none", "-") in kinds
    assert {a for a, _ in kinds} >= {"0", "60", "90", "120", "180", "none"}
    assert any(v["orb"] == "8.00" for v in PAIRS)  # exactly 8: within orb
    assert any(abs(float(v["a"]) - float(v["b"])) > 180 for v in PAIRS)  # across 360


# ---- the angles ------------------------------------------------------------------


def geometric_angles(ramc: float, eps: float, lat: float) -> tuple:
    """(MC, Asc) in degrees by another route than the round's formulas:
    the ecliptic's intersections with the meridian and the horizon as
    vectors in equatorial coordinates, the Ascendant being the one on the
    eastern horizon."""
    t, e, f = math.radians(ramc), math.radians(eps), math.radians(lat)
    zenith = (math.cos(f) * math.cos(t), math.cos(f) * math.sin(t), math.sin(f))
    east = (-math.sin(t), math.cos(t), 0.0)
    south_meridian = (math.cos(t), math.sin(t), 0.0)  # the meridian's side of RA = RAMC
    pole = (0.0, -math.sin(e), math.cos(e))  # the ecliptic's north pole

    def cross(u, v):
        return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])

    def dot(u, v):
        return sum(a * b for a, b in zip(u, v))

    def longitude(d):
        return math.degrees(math.atan2(d[1] * math.cos(e) + d[2] * math.sin(e), d[0])) % 360.0

    asc = cross(pole, zenith)
    if dot(asc, east) < 0:
        asc = tuple(-x for x in asc)
    mc = cross(pole, cross((0.0, 0.0, 1.0), zenith))
    if dot(mc, south_meridian) < 0:
        mc = tuple(-x for x in mc)
    return longitude(mc), longitude(asc)


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs((a - b + 180.0) % 360.0 - 180.0) < tol


@pytest.mark.parametrize("v", ANGLES, ids=lambda v: f"{v['time']}-{v['lat']}")
def test_angle_vectors(v):
    s = pa.parse_time(v["time"])
    lat, lon = float(v["lat"]), float(v["lon"])
    ramc, mc, asc = pa.angles(s, lat, lon)
    assert abs(ramc - float(v["ramc"])) < 2e-6
    assert (f"{mc:.2f}", f"{asc:.2f}") == (v["mc"], v["asc"])
    assert ",".join(f"{x:.2f}" for x in pa.cusps(asc, mc)) == v["cusps"]
    eps = 23.439291 - 0.0130042 * ((s - pa.J2000) / 86400.0 / 36525.0)
    gmc, gasc = geometric_angles(ramc, eps, lat)
    assert _close(mc, gmc) and _close(asc, gasc)


def test_angle_vectors_cover_every_quadrant_and_the_limits():
    quadrants = {int(float(v["ramc"]) // 90) for v in ANGLES}
    assert quadrants == {0, 1, 2, 3}
    lats = {float(v["lat"]) for v in ANGLES}
    assert {0.0, 66.0, -66.0} <= lats


@pytest.mark.parametrize("lat", [-66.0, -45.0, -10.0, 0.0, 10.0, 45.0, 66.0])
def test_ascendant_in_every_quadrant(lat):
    """RAMC all the way round at each latitude up to the polar limit: the
    round's atan2 formulas agree with the geometry everywhere, and the
    Porphyry cusps come in zodiacal order from the Ascendant."""
    for k in range(0, 360 * 4):
        ramc = k * 0.25 + 0.1
        mc, asc = pa.house_angles(ramc, 23.44, lat)
        gmc, gasc = geometric_angles(ramc, 23.44, lat)
        assert _close(mc, gmc) and _close(asc, gasc), (ramc, lat, mc, gmc, asc, gasc)
        c = pa.cusps(asc, mc)
        steps = [(c[(i + 1) % 12] - c[i]) % 360.0 for i in range(12)]
        assert abs(sum(steps) - 360.0) < 1e-9 and all(0 < s < 180 for s in steps)


def test_naive_arctangent_is_caught():
    """The classic bug (atan of the quotient) puts the Ascendant in the
    wrong half of the circle for half of the day: the geometry above sees it."""
    wrong = 0
    for k in range(360):
        r, e = math.radians(k + 0.5), math.radians(23.44)
        y, x = math.cos(r), -(math.sin(r) * math.cos(e) + math.tan(math.radians(40.0)) * math.sin(e))
        naive = math.degrees(math.atan(y / x)) % 360.0
        wrong += not _close(naive, geometric_angles(k + 0.5, 23.44, 40.0)[1])
    assert 100 < wrong < 260


def test_beyond_the_polar_circle_the_formula_fails():
    """Why |lat| > 66 is an error: beyond 90 - obliquity the ecliptic can
    lie along the horizon, and at some times the formula's point is not on
    the eastern horizon any more."""
    bad = 0
    for k in range(720):
        mc, asc = pa.house_angles(k * 0.5, 23.44, 75.0)
        bad += not _close(asc, geometric_angles(k * 0.5, 23.44, 75.0)[1], 1e-6)
    assert bad > 0


# ---- combinations ---------------------------------------------------------------


@pytest.mark.parametrize("v", COMBOS, ids=lambda v: v["combo"])
def test_combo_vectors(v):
    assert len(pa.parse_combo(v["combo"])) == int(v["terms"])


@pytest.mark.parametrize("v", COMBO_ERRORS, ids=lambda v: v["combo"])
def test_combo_error_vectors(v):
    with pytest.raises(ValueError, match="bad combo term") as e:
        pa.parse_combo(v["combo"])
    assert f"'{v['term']}'" in str(e.value)


def test_combo_terms_in_either_order():
    """Asc-90-Mars and Mars-90-Asc are the same pair; the match line prints
    the term as written."""
    eph = pa.load_ephemeris(EPHEMERIS)
    events = pa.load_events(DATA / "events.tsv", eph)
    out_a, out_b = [], []
    na = pa.search(eph, events, pa.parse_combo("Moon-120-Jupiter,Asc-90-Mars"), False, out_a.append)
    nb = pa.search(eph, events, pa.parse_combo("Jupiter-120-Moon,Mars-90-Asc"), False, out_b.append)
    assert na == nb > 0
    assert "".join(out_a).replace("Moon 120 Jupiter", "Jupiter 120 Moon").replace("Asc 90 Mars", "Mars 90 Asc") == (
        "".join(out_b)
    )


# ---- the script -------------------------------------------------------------------


SCRIPT = ROOT / "python" / "roundbench" / "pure" / "aspects.py"


def _script(*args):
    # Run as a user runs it: a file, not the package's module.
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=60)


def test_script_prints_the_reference_outputs():
    out = _script(EPHEMERIS, DATA / "events.tsv")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (DATA / "test1.out").read_text()
    out = _script(EPHEMERIS, DATA / "events.tsv", "--print")
    assert out.stdout == (DATA / "test2.out").read_text()
    out = _script(EPHEMERIS, DATA / "events.tsv", "--combo", "Mercury-90-Pluto,MC-90-Asc")
    assert out.stdout == (DATA / "test1-second-combo.out").read_text()


def test_script_errors():
    out = _script(EPHEMERIS, DATA / "events.tsv", "--combo", "Moon-120-Jupiter,Asc-45-Mars")
    assert out.returncode == 2 and "bad combo term 'Asc-45-Mars'" in out.stderr
    bad = DATA / "bad" / "ev-polar-north.tsv"
    out = _script(EPHEMERIS, bad)
    assert out.returncode == 1 and out.stdout == ""
    assert f"{bad}:4: Ascendant undefined beyond the polar circles (|lat| > 66)" in out.stderr
    out = _script(EPHEMERIS, DATA / "no-such-file.tsv")
    assert out.returncode == 1 and "No such file" in out.stderr


# ---- the generator ------------------------------------------------------------------


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The whole table, generated once for these tests."""
    path = tmp_path_factory.mktemp("aspects") / "ephemeris.tsv"
    assert ephemeris.generate_ephemeris(path) == 73_414
    return path


def test_whole_table(table):
    eph = pa.load_ephemeris(table)
    assert (pa.date_text(eph.first), pa.date_text(eph.last)) == ("1900-01-01", "2100-12-31")
    assert len(eph.rows) == ephemeris.DAYS == 73_414
    text = table.read_text()
    assert text.endswith("\n") and "360.000000" not in text
    # The excerpt in testdata is the same generator's rows.
    excerpt = EPHEMERIS.read_text().splitlines(keepends=True)
    start = pa.day_number("2000-03-01") + 1
    assert text.splitlines(keepends=True)[start : start + len(excerpt) - 1] == excerpt[1:]
    # Roughly right (a degree or so for the Sun): 2000-01-01 0h UT.
    row = eph.rows[pa.day_number("2000-01-01")]
    assert abs(row[0] - 279.9) < 1.0 and abs(row[5] - 25.2) < 2.0


def test_generator_is_deterministic(table, tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    la = ephemeris.generate_events(a, 120, 5, table)
    lb = ephemeris.generate_events(b, 120, 5, table)
    assert a.read_bytes() == b.read_bytes() and la == lb
    assert Path(f"{a}.expect").read_bytes() == Path(f"{b}.expect").read_bytes()
    assert ephemeris.ephemeris_text(36000, 40) == ephemeris.ephemeris_text(36000, 40)
    c = tmp_path / "c.tsv"
    ephemeris.generate_events(c, 120, 6, table)
    assert c.read_bytes() != a.read_bytes()  # the seed matters


def test_generated_events_are_robust_and_expected(table, tmp_path):
    """Every generated event passes the robustness rule, lies in the span
    with the documented ranges, and every Python variant prints what the
    .expect says."""
    # 3,000 events: without the rule about 25 of them would be fragile.
    path = tmp_path / "events.tsv"
    lines = ephemeris.generate_events(path, 3000, 1, table)
    eph = pa.load_ephemeris(table)
    events = pa.load_events(path, eph)
    assert len(events) == 3000
    assert [e.name for e in events[:2]] == ["event-000001", "event-000002"]
    for e in events:
        assert ephemeris.fragile(eph, e.s, e.lat, e.lon) is None
        assert -60.0 <= e.lat <= 60.0 and -180.0 <= e.lon < 180.0
        assert pa.day_number("1900-01-01") * pa.DAY <= e.s < pa.day_number("2100-12-31") * pa.DAY
    assert lines[0].startswith(f"test=1 combo={pa.DEFAULT_COMBO} matches=")
    small = tmp_path / "small.tsv"
    small.write_text("".join(path.read_text().splitlines(keepends=True)[:301]))
    for impl in ("py", "py-numpy", "py-numba", "py-pandas"):
        for test in (1, 2):
            # The whole set for the fast variants, the first 300 for pandas.
            events = small if impl == "py-pandas" else path
            text, n = IMPLS[impl](table, events, pa.DEFAULT_COMBO, test == 2)
            want = lines[test - 1] if events == path else IMPLS["py"](table, small, pa.DEFAULT_COMBO, test == 2)
            got = ephemeris.expect_line(test, pa.DEFAULT_COMBO, text, n) if events == path else (text, n)
            assert got == want, impl


def test_fragile_events_are_moved():
    """Each clause of the robustness rule on made-up tables, and the move."""

    def table_with(sun: float, moon: float) -> pa.Ephemeris:
        row = (sun, moon) + (sun,) * 8
        return pa.Ephemeris("-", 0, [row, row, row])

    s = 43200
    assert "orb edge" in ephemeris.fragile(table_with(0.0, 128.0000005), s, 10.0, 20.0)
    assert "rounding" in ephemeris.fragile(table_with(0.0, 120.0050000001), s, 10.0, 20.0)
    # Clause (b) and (c) on the Midheaven: the longitude that puts it at
    # 140.005 (a rounding boundary) and at 0 - 5e-8, found by bisection.
    eph = table_with(0.0, 33.0)

    def miss(lon: float, target: float) -> float:
        return abs((pa.angles(s, 10.0, lon)[1] - target + 180.0) % 360.0 - 180.0)

    for target, why in ((140.005, "rounding boundary"), (360.0 - 5e-8, "at 0/360")):
        lon = min((k / 10 for k in range(-1800, 1800)), key=lambda x: miss(x, target))
        step = 0.1
        for _ in range(60):  # narrow down around the best grid point
            lon = min((lon - step, lon, lon + step), key=lambda x: miss(x, target))
            step /= 2
        assert miss(lon, target) < 1e-7
        reason = ephemeris.fragile(eph, s, 10.0, lon)
        assert reason is not None and "angle or cusp" in reason and why in reason, reason
        moved = ephemeris.robust_time(eph, s, 10.0, lon)
        assert moved == s + ephemeris.SHIFT_S  # a minute moves the Midheaven by a quarter degree
        assert ephemeris.fragile(eph, moved, 10.0, lon) is None


def test_expect_for_another_combination(table, tmp_path):
    path = tmp_path / "events.tsv"
    ephemeris.generate_events(path, 40, 3, table)
    assert ephemeris.expected(path, 1, "MC-0-Sun") is None
    ephemeris.ensure_expected(path, table, "MC-0-Sun")
    got = ephemeris.expected(path, 2, "MC-0-Sun")
    text, n = pa.run(table, path, "MC-0-Sun", True)
    assert got == {"matches": str(n), "len": str(len(text)), "crc": f"{zlib.crc32(text.encode()):08x}"}
    before = Path(f"{path}.expect").read_text()
    ephemeris.ensure_expected(path, table, "MC-0-Sun")  # already there: unchanged
    ephemeris.ensure_expected(path, table, "MC-45-Sun")  # bad: the child says why
    assert Path(f"{path}.expect").read_text() == before


def test_gen_ephemeris_command(tmp_path, table):
    out = run_roundbench(
        "gen-ephemeris", "--events", "30", "--seed", "2", "--ephemeris", str(table), str(tmp_path / "e.tsv")
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"test=1 combo={pa.DEFAULT_COMBO} matches=")
    assert (tmp_path / "e.tsv.expect").read_text() == out.stdout
    out = run_roundbench("gen-ephemeris", "--events", "-1", str(tmp_path / "x.tsv"))
    assert out.returncode == 2 and "--events -1: want a count of events >= 0" in out.stderr


# ---- the children: every variant of the round -----------------------------------


def _child(impl: str, env_extra: dict, *params):
    v = rnd.ROUND.variant(impl)
    if v.program == "python":
        cmd = [sys.executable, "-m", "roundbench.run.child", "aspects", impl, *params]
    else:
        prog = launch.program_of(rnd.ROUND, v)
        path = BUILD / prog
        if not path.exists():
            pytest.skip(f"build/{prog} is not built (make build)")
        listed = subprocess.run([str(path), "--list"], capture_output=True, text=True, timeout=60).stdout
        if f"aspects {impl} " not in listed and f"aspects {impl}\n" not in listed:
            pytest.skip(f"build/{prog} does not implement aspects {impl} yet (the registry test says so)")
        cmd = [str(path), "aspects", impl, *params]
    env = child_env()
    env.update(env_extra)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


# The in-process variants (the launch modes have tests of their own: test_aspects_launch.py).
LAUNCH = {v.name for v in rnd.LAUNCH_VARIANTS}
VARIANTS = [v.name for v in rnd.ROUND.variants if v.name not in LAUNCH]


def _data_env(tmp_path, events: str) -> dict:
    for name in (events, f"{events}.expect"):
        if (DATA / name).exists():
            shutil.copy(DATA / name, tmp_path / name)
    return {rnd.EPHEMERIS_ENV: str(EPHEMERIS), rnd.EVENTS_ENV: str(tmp_path / events)}


@pytest.mark.parametrize("impl", VARIANTS)
def test_every_variant_child_on_the_reference_files(tmp_path, impl):
    """Each child loads the files the env names, checks itself against the
    .expect and prints the same result line, for both tests, a second
    combination and no events."""
    cases = [v for v in OUTPUTS if (DATA / f"{v['events']}.expect").exists()]
    assert len(cases) >= 8
    for v in cases:
        n = len(pa.load_events(DATA / v["events"], pa.load_ephemeris(EPHEMERIS)))
        params = [f"events={n}", f"test={v['test']}", f"combo={v['combo']}"]
        out = _child(impl, _data_env(tmp_path, v["events"]), *params)
        assert out.returncode == 0, (v, out.stderr)
        assert f"result: matches={v['matches']} crc={v['crc']} len={v['len']}\n" in out.stdout
        assert f"BenchmarkAspects/impl={impl}/events={n}/test={v['test']}/combo={v['combo']} 1 " in out.stdout


@pytest.mark.parametrize("impl", VARIANTS)
def test_every_variant_child_refuses_bad_input(tmp_path, impl):
    env = _data_env(tmp_path, "events.tsv")
    n = len(pa.load_events(DATA / "events.tsv", pa.load_ephemeris(EPHEMERIS)))
    out = _child(impl, env, f"events={n}", "combo=Moon-120-Jupiter,Asc-45-Mars")
    assert out.returncode == 2 and "Asc-45-Mars" in out.stderr
    out = _child(impl, env, f"events={n + 1}")
    assert out.returncode == 2 and "events" in out.stderr
    for v in ERRORS[:: max(1, len(ERRORS) // 6)] + [e for e in ERRORS if "polar" in e["events"]]:
        eph, events = DATA / v["ephemeris"], DATA / v["events"]
        shutil.copy(events, tmp_path / "bad.tsv")
        (tmp_path / "bad.tsv.expect").write_text((tmp_path / "events.tsv.expect").read_text())
        path = eph if v["file"] == "ephemeris" else tmp_path / "bad.tsv"
        n = max(len(events.read_text().splitlines()) - 1, 0)
        env = {rnd.EPHEMERIS_ENV: str(eph), rnd.EVENTS_ENV: str(tmp_path / "bad.tsv")}
        out = _child(impl, env, f"events={n}")
        assert out.returncode not in (0, 3) and out.returncode > 0, (v, out.stdout)
        assert f"{path}:{v['line']}: " in out.stderr and v["says"].replace("+", " ") in out.stderr, (v, out.stderr)


def _implemented(impl: str) -> bool:
    """Whether the program of variant impl is built and implements it."""
    v = rnd.ROUND.variant(impl)
    if v.program == "python":
        from roundbench import _core

        return impl != "py-c" or hasattr(_core, "aspects_load")
    path = BUILD / launch.program_of(rnd.ROUND, v)
    if not path.exists():
        return False
    listed = subprocess.run([str(path), "--list"], capture_output=True, text=True, timeout=60).stdout
    return f"aspects {impl} " in listed or f"aspects {impl}\n" in listed


def test_round_runs_with_generated_data(tmp_path):
    """The round as the suite runs it: the env hook generates the table and
    277 events into the build directory, every variant built here checks
    itself against the generator's .expect, and the runner finds their
    result lines equal."""
    impls = [v for v in VARIANTS if _implemented(v)]
    assert {"py", "py-numpy", "py-numba", "py-pandas"} <= set(impls)
    args = ["run", "aspects", "--quick", "--runs", "1", "--no-report", "--out", str(tmp_path)]
    out = run_roundbench(*args, *(x for impl in impls for x in ("--impl", impl)))
    assert out.returncode == 0, out.stderr[-2000:]
    text = (tmp_path / "results.txt").read_text()
    for impl in impls:
        assert f"BenchmarkAspects/impl={impl}/events=277 1 " in text
    assert "FAIL" not in text
    # numba's import and its compile, each timed apart, beside the search
    (line,) = [ln for ln in text.splitlines() if ln.startswith("BenchmarkAspects/impl=py-numba/")]
    assert " import-ns" in line and " compile-ns" in line


def test_declaration():
    names = {v.name for v in rnd.ROUND.variants} - LAUNCH
    assert names == {
        "c",
        "go",
        "go-columns",
        "go-reflect",
        "go-c",
        "py",
        "py-c",
        "py-numpy",
        "py-numba",
        "py-pandas",
    } | {
        "go-pgo",
        "go-v3",
        "go-pgo-v3",
    }
    assert rnd.ROUND.sizes[:2] == [{"events": 277}, {"events": 100_000}]
    pandas = rnd.ROUND.variant("py-pandas")
    assert pandas.default_if({"events": 277}) and not pandas.default_if({"events": 100_000})
    assert "newcomer" in pandas.explain
    assert programs  # the module the children are found through
    numba = rnd.ROUND.variant("py-numba")
    assert numba.level == "ecosystem" and numba.runs_if({"events": 100_000})
    assert not numba.runs_if({"events": 277, "test": 1, "sink": "pipe"})  # no launch cell
    assert {"compile-ns", "import-ns"} <= set(rnd.ROUND.units)


def test_report_section_ratios_and_steps():
    from types import SimpleNamespace

    from roundbench.judge.cells import Cell

    def cell(impl, ns):
        c = Cell(impl)
        c.runs = [SimpleNamespace(metrics={"ns/event": ns}, iters=1)]
        return c

    medians = {"py-pandas": 300_000.0, "py": 30_000.0, "py-numpy": 3_000.0, "go": 1_200.0, "go-reflect": 2_400.0}
    medians["go-columns"], medians["c"] = 1_000.0, 800.0
    text = rnd.report_section({"events": 277}, {k: cell(k, v) for k, v in medians.items()}, {})
    assert "3.8x" in text and "404x" in text and "about 300x" in text
    assert "| py-pandas against the fastest pure Go | 3.8x .. 404x, about 300x | 300x |" in text
    assert "| py-pandas against go-reflect (the published port's style) | | 125x |" in text
    for a, b, factor in (("py-pandas", "py", "10x"), ("py", "py-numpy", "10x"), ("py-numpy", "go-columns", "3x")):
        rows = [line for line in text.splitlines() if f"| {a}: " in line and f"| {b}" in line]
        assert len(rows) == 1 and rows[0].endswith(f"| {factor} |"), rows
    assert "go-columns (the fastest pure Go): 1,000 ns/event | c: 800 ns/event | 1.25x |" in text
    assert "go-columns / go = 0.833; go-reflect / go = 2" in text
    # Without the C and Go rows (not built), the section says what it lacks.
    text = rnd.report_section({"events": 277}, {k: cell(k, medians[k]) for k in ("py", "py-numpy")}, {})
    assert "| py-pandas against the fastest pure Go | 3.8x .. 404x, about 300x | not measured |" in text
    assert "| the language: compiled Go, one event at a time | py-numpy | the fastest pure Go | not measured |" in text


@pytest.mark.parametrize("block", [1, 7, 64])
def test_numpy_blocks_join_seamlessly(monkeypatch, block):
    """py-numpy's blocks of events (512 by default) split the reference sets
    at many places and print the same bytes."""
    from roundbench.rounds.aspects import with_numpy as an

    monkeypatch.setattr(an, "BLOCK", block)
    for v in OUTPUTS:
        if v["events"] == "events-300.tsv" or v["out"] == "test2.out":
            text, n = IMPLS["py-numpy"](EPHEMERIS, DATA / v["events"], v["combo"], v["test"] == "2")
            data = text.encode()
            assert (n, len(data), f"{zlib.crc32(data):08x}") == (int(v["matches"]), int(v["len"]), v["crc"])


def test_combo_has_at_most_64_terms():
    """The same cap as the C core's (RB_ASPECTS_MAX_TERMS)."""
    terms = [f"Sun-0-{p}" for p in pa.POINTS[1:]] * 6
    assert len(pa.parse_combo(",".join(terms[:64]))) == 64
    with pytest.raises(ValueError, match=f"bad combo term '{terms[64]}': a combination has at most 64 terms"):
        pa.parse_combo(",".join(terms[:65]))


# ---- py-numba: the compiled kernel, in process and as a program ------------------


@pytest.mark.parametrize("block", [1, 7, 64])
def test_numba_blocks_join_seamlessly(monkeypatch, block):
    """The kernel's blocks (512 events by default) split the reference sets
    at many places and print the same bytes, through one compiled kernel."""
    from roundbench.rounds.aspects import with_numba as nb

    monkeypatch.setattr(nb, "BLOCK", block)
    for v in OUTPUTS:
        if v["events"] == "events-300.tsv" or v["out"] == "test2.out":
            text, n = IMPLS["py-numba"](EPHEMERIS, DATA / v["events"], v["combo"], v["test"] == "2")
            data = text.encode()
            assert (n, len(data), f"{zlib.crc32(data):08x}") == (int(v["matches"]), int(v["len"]), v["crc"])
    assert len(nb.kernel().signatures) == 1


def test_numba_kernel_numbers_are_numpys():
    """The kernel's block arrays against py-numpy's, event by event, on the
    reference events: the same angles, and orbs and cusps equal to the last
    few bits (libm's sine against LLVM's call of it)."""
    from roundbench.rounds.aspects import with_numba as nb
    from roundbench.rounds.aspects import with_numpy as an

    data = an.load(EPHEMERIS, DATA / "events-300.tsv")
    terms = pa.parse_combo("Mercury-90-Pluto,MC-90-Asc")
    got = [(lo, a.copy(), o.copy(), c.copy(), m.copy(), k.copy()) for lo, a, o, c, m, k in nb._blocks(data, terms)]
    want = list(an._blocks(data, terms))
    assert len(got) == len(want) >= 1
    for g, w in zip(got, want):
        assert g[0] == w[0]
        assert np.array_equal(g[1], w[1]) and np.array_equal(g[4], w[4]) and np.array_equal(g[5], w[5])
        assert np.allclose(g[2], w[2], rtol=0, atol=1e-9) and np.allclose(g[3], w[3], rtol=0, atol=1e-9)


def test_numba_compile_input_is_robust_and_checked():
    """The compiling first call's input (one event on two generated days)
    obeys the robustness rule, so the plain variant's text for it is what
    the kernel must print, and that text has a whole test 2 block."""
    from roundbench.rounds.aspects import with_numba as nb

    data, terms, (text, matches) = rnd._compile_input(nb.Data)
    eph = pa.Ephemeris("-", data.first, [tuple(r) for r in data.table.tolist()])
    assert ephemeris.fragile(eph, int(data.s[0]), float(data.lat[0]), float(data.lon[0])) is None
    assert text.startswith("event\tcompile\t") and text.count("\n\t") >= 1 and matches in (0, 1)
    out = []
    assert (nb.search(data, terms, True, out.append), "".join(out)) == (matches, text)


NUMBA_SCRIPT = ROOT / "python" / "roundbench" / "rounds" / "aspects" / "with_numba.py"


def _numba_script(*args, importtime=False, cwd=None):
    # Run as a user runs it: a file, from elsewhere, no PYTHONPATH.
    env = {k: v for k, v in child_env().items() if k != "PYTHONPATH"}
    flags = ["-X", "importtime"] if importtime else []
    cmd = [sys.executable, *flags, str(NUMBA_SCRIPT), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_numba_script_prints_the_reference_outputs(tmp_path):
    out = _numba_script(EPHEMERIS, DATA / "events.tsv", importtime=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout == (DATA / "test1.out").read_text()
    # A program, not the suite: the round's package (its declaration, the
    # runner's machinery) is never imported; numpy and numba are.
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert {"numpy", "numba", "roundbench.pure.aspects"} <= imported
    assert not {m for m in imported if m.startswith("roundbench.") and not m.startswith("roundbench.pure")} - {
        "roundbench._core"
    }
    out = _numba_script(EPHEMERIS, DATA / "events.tsv", "--print", cwd=tmp_path)
    assert out.stdout == (DATA / "test2.out").read_text()
    out = _numba_script(EPHEMERIS, DATA / "events.tsv", "--combo=Mercury-90-Pluto,MC-90-Asc", cwd=tmp_path)
    assert out.stdout == (DATA / "test1-second-combo.out").read_text()
    out = _numba_script(EPHEMERIS, DATA / "events-no-bytes.tsv", cwd=tmp_path)
    assert out.returncode == 0 and out.stdout == (DATA / "empty.out").read_text()


def test_numba_script_errors(tmp_path):
    out = _numba_script(EPHEMERIS, DATA / "events.tsv", "--combo", "Moon-120-Jupiter,Asc-45-Mars")
    assert out.returncode == 2 and "bad combo term 'Asc-45-Mars'" in out.stderr
    assert out.stderr.startswith("usage: with_numba.py EPHEMERIS EVENTS")
    out = _numba_script("--help")
    assert out.returncode == 0 and "(round aspects, numba)" in out.stdout
    bad = DATA / "bad" / "ev-polar-north.tsv"
    out = _numba_script(EPHEMERIS, bad)
    assert out.returncode == 1 and out.stdout == ""
    assert f"with_numba.py: {bad}:4: Ascendant undefined beyond the polar circles (|lat| > 66)" in out.stderr
    out = _numba_script(EPHEMERIS, DATA / "no-such-file.tsv")
    assert out.returncode == 1 and "No such file" in out.stderr


def test_numba_child_reports_its_import_and_compile(tmp_path):
    out = _child("py-numba", _data_env(tmp_path, "events.tsv"), "events=38")
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("BenchmarkAspects/"))
    for unit in ("ns/event", "import-ns", "compile-ns"):
        assert re.search(rf" [0-9.e+]+ {unit}( |$)", line), (unit, line)
    import numba

    assert f"fact: tool numba {numba.__version__}, llvmlite " in out.stdout


def test_numba_child_without_numba_cannot_run_and_says_so(tmp_path):
    """Where numba is missing (a package on the path that fails to import,
    as an absent one does), the child exits 4 (a skip row) naming it."""
    shadow = tmp_path / "shadow" / "numba"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'numba'\", name='numba')\n")
    env = _data_env(tmp_path, "events.tsv")
    env["PYTHONPATH"] = f"{shadow.parent}:{ROOT / 'python'}"
    out = _child("py-numba", env, "events=38")
    assert out.returncode == 4, out.stderr
    assert out.stderr.startswith("cannot run here: ") and "Python module numba is not installed" in out.stderr
