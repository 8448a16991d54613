"""The registry: what each child program says it implements (`PROGRAM
--list`, one `ROUND VARIANT UNIT...` line per variant) against the Round
declarations, both ways, and the units each variant may print against the
units its round declares. Fast: no variant runs."""

import subprocess
import sys

import pytest

from roundbench.measure import harness
from roundbench.runtimes import programs
from roundbench import rounds
from roundbench.rounds import Round, Variant
from roundbench.run import launch

from conftest import BUILD, child_env

# The three C runners are links of the same sources: rb-c lists for all.
C_LINKS = {"rb-c-so": "rb-c", "rb-c-static": "rb-c"}
# Every program with a --list: one Go runner per round, found as the Python
# side finds them (go/cmd/rb-go/<round>/), so a new round's runner is
# checked without being named here, and the programs of library variants
# built apart. rb-go-http runs helper entry points only.
LISTERS = ("python", "rb-c", *programs.go_runners(), *programs.LIBRARY_PROGRAMS)


def lister_of(rnd: Round, v: Variant) -> str:
    """The program whose --list speaks for variant v of round rnd."""
    return C_LINKS.get(v.program) or launch.program_of(rnd, v)


def shown(lister: str) -> str:
    return "python -m roundbench.run.child" if lister == "python" else f"build/{lister}"


def _round_of_helper(name: str, declared: dict):
    """The round a `<round>-<role>` entry point belongs to, or None."""
    base, sep, role = name.rpartition("-")
    while sep:
        if base in declared:
            return base
        base, sep, _ = base.rpartition("-")
    return None


def declared_not_implemented(declared: dict, lister: str, listed: dict) -> list:
    """Variants whose program `lister` speaks for but does not list."""
    return [
        f"{r.name}/{v.name}: Round {r.name} declares it with program {launch.program_of(r, v)}, "
        f"but `{shown(lister)} --list` has no line `{r.name} {v.name}`"
        for r in declared.values()
        for v in r.variants
        if lister_of(r, v) == lister and (r.name, v.name) not in listed
    ]


def implemented_not_declared(declared: dict, lister: str, listed: dict) -> list:
    """Lines of `lister --list` that no declaration accounts for."""
    problems = []
    where = f"`{shown(lister)} --list`"
    for (rname, vname), units in listed.items():
        rnd = declared.get(rname)
        if rnd is None:
            owner = _round_of_helper(rname, declared)
            if owner is None:
                problems.append(f"{rname}/{vname}: {where} implements it, but no Round is named {rname!r}")
            elif units:
                problems.append(f"{rname}/{vname}: {where} lists units for a helper entry point of round {owner}")
            continue
        if vname in rnd.helpers:
            if units:
                problems.append(f"{rname}/{vname}: {where} lists units for helper entry point {vname}")
            continue
        try:
            v = rnd.variant(vname)
        except KeyError:
            have = ", ".join(v.name for v in rnd.variants)
            problems.append(
                f"{rname}/{vname}: {where} implements it, but Round {rname} declares no such variant ({have})"
            )
            continue
        if lister_of(rnd, v) != lister:
            problems.append(
                f"{rname}/{vname}: {where} implements it, "
                f"but Round {rname} declares it with program {launch.program_of(rnd, v)}"
            )
    return problems


def undeclared_units(declared: dict, lister: str, listed: dict) -> list:
    """Units a variant may print that its round does not declare."""
    problems = []
    for (rname, vname), units in listed.items():
        rnd = declared.get(rname)
        if rnd is None:
            continue
        allowed = set(rnd.units) | set(rounds.BASE_UNITS)
        for unit in units:
            if unit not in allowed:
                problems.append(
                    f"{rname}/{vname}: `{shown(lister)} --list` says it may print unit {unit!r}, "
                    f"which Round {rname} does not declare (declared: {', '.join(rnd.units) or 'none'})"
                )
    return problems


_listings: dict = {}


def listing(lister: str) -> dict:
    """(round, variant) -> units, from `lister --list`, its format checked."""
    if lister not in _listings:
        if lister == "python":
            cmd = [sys.executable, "-m", "roundbench.run.child", "--list"]
        else:
            path = BUILD / lister
            if lister in programs.NEEDS and not path.exists():
                pytest.skip(f"build/{lister} is not built here: it needs {programs.NEEDS[lister]}")
            assert path.exists(), f"build/{lister} is missing: run `make build` first"
            cmd = [str(path), "--list"]
        out = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=120)
        assert out.returncode == 0, f"`{shown(lister)} --list` exited {out.returncode}: {out.stderr.strip()[-500:]}"
        rows = [line.split() for line in out.stdout.splitlines()]
        bad = [" ".join(r) or "(empty line)" for r in rows if len(r) < 2]
        assert not bad, f"`{shown(lister)} --list` printed lines without ROUND VARIANT: {bad}"
        keys = [(r[0], r[1]) for r in rows]
        assert keys == sorted(keys), f"`{shown(lister)} --list` is not sorted by round, then variant"
        dups = sorted({k for k in keys if keys.count(k) > 1})
        assert not dups, f"`{shown(lister)} --list` lists these twice: {dups}"
        _listings[lister] = {(r[0], r[1]): tuple(r[2:]) for r in rows}
    return _listings[lister]


def declared_rounds() -> dict:
    return {r.name: r for r in rounds.all_rounds()}


def test_every_variant_has_a_lister():
    """A variant whose program lists nothing (a Go variant of a round with
    no go/cmd/rb-go/<round>/) is implemented by no child."""
    orphans = [
        f"{r.name}/{v.name}: Round {r.name} declares it with program {launch.program_of(r, v)}, which does not exist"
        for r in declared_rounds().values()
        for v in r.variants
        if lister_of(r, v) not in LISTERS
    ]
    assert not orphans, "declared but implemented by no child:\n" + "\n".join(orphans)
    assert "rb-go-loop" in LISTERS and "rb-go-http" in LISTERS  # the Go runners were found


@pytest.mark.parametrize("lister", LISTERS)
def test_every_declared_variant_is_implemented(lister):
    problems = declared_not_implemented(declared_rounds(), lister, listing(lister))
    assert not problems, "declared but implemented by no child:\n" + "\n".join(problems)


@pytest.mark.parametrize("lister", LISTERS)
def test_every_implemented_variant_is_declared(lister):
    problems = implemented_not_declared(declared_rounds(), lister, listing(lister))
    assert not problems, "implemented but not declared:\n" + "\n".join(problems)


@pytest.mark.parametrize("lister", LISTERS)
def test_every_printed_unit_is_declared(lister):
    problems = undeclared_units(declared_rounds(), lister, listing(lister))
    assert not problems, "units printed but not declared:\n" + "\n".join(problems)


def test_the_python_list_is_what_the_child_registered():
    rounds.modules()
    want = {(i.round, i.variant): i.units for i in harness.implementations()}
    assert listing("python") == want


def test_the_checks_find_each_kind_of_drift():
    """The three checks on a made-up round, so that a check that stopped
    finding anything would fail here and not pass silently above."""
    toy = Round(
        name="toy",
        title="toy",
        explain="",
        variants=[
            Variant("c", "rb-c"),
            Variant("c-so", "rb-c-so"),
            Variant("py", "python"),
            Variant("py-ghost", "python"),
            Variant("go", "rb-go"),
        ],
        sizes=[{}],
        quick=[{}],
        metric="ns/x",
        units={"ns/x": "lower"},
        helpers=("info",),
    )
    declared = {"toy": toy}
    py = {("toy", "py"): ("ns/x", "peak-B"), ("toy", "py-extra"): (), ("toy", "c"): (), ("toy", "info"): ()}
    assert declared_not_implemented(declared, "python", py) == [
        "toy/py-ghost: Round toy declares it with program python, "
        "but `python -m roundbench.run.child --list` has no line `toy py-ghost`"
    ]
    assert implemented_not_declared(declared, "python", py) == [
        "toy/py-extra: `python -m roundbench.run.child --list` implements it, "
        "but Round toy declares no such variant (c, c-so, py, py-ghost, go)",
        "toy/c: `python -m roundbench.run.child --list` implements it, but Round toy declares it with program rb-c",
    ]
    c = {("toy", "c"): ("ns/x", "B/x"), ("toy-serve", "c"): (), ("toy-parse", "c"): ("ns/x",), ("other", "c"): ()}
    assert declared_not_implemented(declared, "rb-c", c) == [
        "toy/c-so: Round toy declares it with program rb-c-so, but `build/rb-c --list` has no line `toy c-so`"
    ]
    assert implemented_not_declared(declared, "rb-c", c) == [
        "toy-parse/c: `build/rb-c --list` lists units for a helper entry point of round toy",
        "other/c: `build/rb-c --list` implements it, but no Round is named 'other'",
    ]
    assert undeclared_units(declared, "rb-c", c) == [
        "toy/c: `build/rb-c --list` says it may print unit 'B/x', which Round toy does not declare (declared: ns/x)"
    ]
    # A Go variant is its round's own runner's: another round's runner
    # that lists it is flagged, and the round's own must.
    assert declared_not_implemented(declared, "rb-go-toy", {}) == [
        "toy/go: Round toy declares it with program rb-go-toy, but `build/rb-go-toy --list` has no line `toy go`"
    ]
    assert declared_not_implemented(declared, "rb-go-toy", {("toy", "go"): ()}) == []
    assert implemented_not_declared(declared, "rb-go-other", {("toy", "go"): ()}) == [
        "toy/go: `build/rb-go-other --list` implements it, but Round toy declares it with program rb-go-toy"
    ]


def test_emit_refuses_an_undeclared_unit(tmp_path):
    """A variant that prints a unit it did not declare exits 2 naming both,
    before printing a result line."""
    (tmp_path / "liar_round.py").write_text(
        "from roundbench.measure import harness\n"
        "from roundbench.rounds import Round, Variant\n"
        "ROUND = Round(name='liar', title='liar', explain='', variants=[Variant('py', 'python')],\n"
        "              sizes=[{}], quick=[{}], metric='ns/x', units={'ns/x': 'lower', 'B/x': 'lower'})\n"
        "@harness.implements('liar', 'py', units=['ns/x'])\n"
        "def run(args):\n"
        "    harness.emit(args, 1, 5.0, {'ns/x': 5.0, 'B/x': 8})\n"
    )
    env = child_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"
    env["ROUNDBENCH_PLUGINS"] = "liar_round"
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "liar", "py"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == harness.EXIT_USAGE, out.stderr
    assert "liar py: unit 'B/x' is not declared for this variant (declared: ns/x)" in out.stderr
    assert "Benchmark" not in out.stdout
    listed = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "--list"], capture_output=True, text=True, env=env, timeout=60
    )
    assert "liar py ns/x\n" in listed.stdout
