"""How the adaptive runs spend their budgets (RunPolicy): a cell's
budget goes to the variants whose runs buy the most, the run's time budget
to the cells whose score decisions are closest, never below the minimum.

The children here are fakes (FakeChildren stands in for spawn.run_child):
each run of a variant costs a declared number of seconds on a fake clock and
gives the next of its declared values, so that the allocation is decided
exactly, whatever this machine's speed; no test here times anything."""

import itertools
import sys

import pytest

from roundbench.results import benchfmt
from roundbench import rounds
from roundbench.run import runner
from roundbench.judge.closeness import closeness, decision_weights, out_of_contention
from roundbench.run.plans import Plan
from roundbench.run.policy import RunPolicy, UNDECIDING_WEIGHT
from roundbench.run.schedule import _Cell
from roundbench.run.spawn import Outcome
from roundbench.results import textfmt
from roundbench.rounds import Param, Round, Variant

# A figure that never settles: its median's 95% CI stays at ±50%.
NOISY = [50.0, 150.0]
# One that settles slowly: ±3% at 6 runs, within ±2% after some more.
SETTLING = [97.0, 103.0, 100.0, 98.0, 102.0, 99.0, 101.0]
STEADY = [100.0]


class FakeChildren:
    """spawn.run_child's stand-in: variant -> (seconds a run costs, values
    the runs give by turns, scaled by `scale`), on a clock of its own."""

    def __init__(self, specs: dict):
        self.specs = specs
        self.now = 0.0
        self.counts = {}
        self.order = []  # (round, variant) of each run, in order

    def clock(self) -> float:
        return self.now

    def __call__(self, cmd, name, timeout, env=None, cpus=None, fixed_layout=False, values=1, pick=None):
        assert values == 1, "these rounds declare no values a process"
        rnd, params = benchfmt.split_name(name)
        impl = params["impl"]
        key = (rnd, impl) if (rnd, impl) in self.specs else impl
        cost, values = self.specs[key]
        k = self.counts.get(key, 0)
        self.counts[key] = k + 1
        self.now += cost
        self.order.append((rnd, impl))
        v = values[k % len(values)]
        line = f"{name} 1 {v} ns/op {v} ns/iter {v * 10} p99-ns 4096 peak-B 1 user-ns/op 0 sys-ns/op"
        return Outcome(name, True, line=line, wall_s=cost)


def make_round(name: str, impls, **kw) -> Round:
    return Round(
        name=name,
        title=name,
        explain="Test round.",
        variants=[Variant(i, "python", i) for i in impls],
        sizes=[{"n": 1}],
        quick=[{"n": 1}],
        params=[Param("n", "the size", 0, 10)],
        metric="ns/iter",
        units={"ns/iter": "lower", "p99-ns": "lower"},
        cross_check=False,
        **kw,
    )


def plan(rnd: Round) -> Plan:
    return Plan(rnd, {"n": 1}, list(rnd.variants), [])


def run(tmp_path, monkeypatch, plans, specs, **policy):
    fake = FakeChildren(specs)
    monkeypatch.setattr(runner, "run_child", fake)
    r = runner.Runner(tmp_path / "results.txt", RunPolicy(**policy), 60, progress=None)
    r.clock = fake.clock
    r.run(plans, {"pkg": "roundbench"})
    return fake, r, benchfmt.read_dir(tmp_path)


def stops(rs) -> dict:
    return {(benchfmt.split_name(s.name)[0], s.name.split("impl=")[1].split("/")[0]): s for s in rs.stops}


def trials_of_both(order: list, a: str, b: str) -> int:
    """How many trials `order` is, each of a and b once in either order
    (the runner shuffles each trial); fails if it is not such a sequence."""
    assert len(order) % 2 == 0 and all(
        sorted(order[i : i + 2]) == sorted([a, b]) for i in range(0, len(order), 2)
    ), order
    return len(order) // 2


def runs_of(rs, impl: str) -> int:
    return sum(1 for r in rs.runs if r.params["impl"] == impl)


# ---- one cell's budget -----------------------------------------------------------------


def test_the_cheap_wide_variant_gets_the_runs_and_the_costly_converged_one_none(tmp_path, monkeypatch):
    rnd = make_round("cellbudget", ["go", "py"])
    fake, r, rs = run(tmp_path, monkeypatch, [plan(rnd)], {"go": (0.1, SETTLING), "py": (10.0, STEADY)}, budget_s=60.0)
    got = stops(rs)
    assert got[("cellbudget", "py")].runs == 6 and got[("cellbudget", "py")].why.startswith("converged")
    assert got[("cellbudget", "go")].why.startswith("converged") and got[("cellbudget", "go")].runs > 6
    # Before the shares, the costly variant's minimum runs spent the cell's
    # budget and the cheap one stopped at 7 runs, its interval at ±3%.


def test_a_cells_budget_is_shared_and_what_one_leaves_goes_to_the_others(tmp_path, monkeypatch):
    """60 s between a 0.1 s variant and a 10 s one, both never settling:
    each may spend 30 s beyond the minimum, the cheap one reaches the most
    runs with 3.4 s, and the costly one then has 56.6 s: five runs more."""
    rnd = make_round("cellshare", ["go", "py"])
    fake, r, rs = run(tmp_path, monkeypatch, [plan(rnd)], {"go": (0.1, NOISY), "py": (10.0, NOISY)}, budget_s=60.0)
    got = stops(rs)
    assert got[("cellshare", "go")].runs == 40 and got[("cellshare", "go")].why.startswith("at the most runs (40)")
    assert got[("cellshare", "py")].runs == 11
    assert got[("cellshare", "py")].why.startswith("cell budget of 60 s spent: this variant's share 56.6 s, 50 s used")
    extra = sum(cost * (n - 6) for cost, n in ((0.1, 40), (10.0, 11)))
    assert extra <= 60.0
    # Interleaved: the minimum in trials of both (each in a random order),
    # then both while both fit, then the cheap one alone while the costly
    # one sits out, then the costly one.
    order = [impl for _, impl in fake.order]
    assert trials_of_both(order[:18], "go", "py") == 9
    assert order[18:49] == ["go"] * 31 and order[49:] == ["py"] * 2


def test_a_cell_of_one_costly_variant_stops_when_its_next_run_would_overspend(tmp_path, monkeypatch):
    rnd = make_round("overspend", ["py"])
    _, _, rs = run(tmp_path, monkeypatch, [plan(rnd)], {"py": (25.0, NOISY)}, budget_s=60.0)
    got = stops(rs)[("overspend", "py")]
    assert got.runs == 8 and got.why.startswith("cell budget of 60 s spent")


def test_an_undecided_cell_gets_no_extra_runs(tmp_path, monkeypatch):
    rnd = make_round("undecided", ["go", "py"], undecided=lambda params: "every speed-up at one worker is 1")
    _, _, rs = run(tmp_path, monkeypatch, [plan(rnd)], {"go": (0.1, NOISY), "py": (0.1, NOISY)}, budget_s=60.0)
    for impl in ("go", "py"):
        s = stops(rs)[("undecided", impl)]
        assert s.runs == 6
        assert s.why.startswith("no extra runs (the cell decides no point): every speed-up at one worker is 1")


def test_convergence_is_judged_by_the_cells_score_unit(tmp_path, monkeypatch):
    """rounds.score_unit: http's fixed-rate cells are scored by p99 latency,
    and their runs converge on it, not on the metric."""
    rnd = make_round("scoreunit", ["go"], score_unit=lambda params: "p99-ns")
    fake = FakeChildren({"go": (0.1, NOISY)})

    def steady_p99(cmd, name, *args, **kw):
        o = fake(cmd, name, *args, **kw)
        fields = o.line.split()
        fields[fields.index("p99-ns") - 1] = "1000"
        return Outcome(name, True, line=" ".join(fields), wall_s=o.wall_s)

    monkeypatch.setattr(runner, "run_child", steady_p99)
    r = runner.Runner(tmp_path / "results.txt", RunPolicy(budget_s=60.0), 60, progress=None)
    r.clock = fake.clock
    r.run([plan(rnd)], {})
    got = stops(benchfmt.read_dir(tmp_path))[("scoreunit", "go")]
    assert got.runs == 6 and got.why.startswith("converged: median 95% CI +0.0%/+0.0%")


# ---- the run's time budget -------------------------------------------------------------


def _overrun(tmp_path, monkeypatch, budget, **policy):
    """Three cells of two variants, 5 s a run: 180 s of minimum runs."""
    cells = [make_round(f"over{i}", ["go", "py"]) for i in range(3)]
    specs = {(c.name, impl): (5.0, NOISY) for c in cells for impl in ("go", "py")}
    fake = FakeChildren(specs)
    monkeypatch.setattr(runner, "run_child", fake)
    policy = RunPolicy(budget_s=1e9, time_budget_s=budget, **policy)
    r = runner.Runner(tmp_path / "results.txt", policy, 60, progress=None, notices=sys.stderr)
    r.clock = fake.clock
    r.run([plan(c) for c in cells], {})
    return fake, r, benchfmt.read_dir(tmp_path)


def test_the_minimum_runs_are_made_even_beyond_the_time_budget(tmp_path, monkeypatch, capsys):
    # floor_runs = min_runs: the minimum is never lowered.
    fake, r, rs = _overrun(tmp_path, monkeypatch, 60.0, floor_runs=6)
    assert len(rs.runs) == 36  # 3 cells x 2 variants x 6 runs: 180 s of a 60 s budget
    assert all(s.runs == 6 and s.why.startswith("time budget spent") for s in rs.stops)
    err = capsys.readouterr().err
    assert "more than the 60 s time budget: they are all made (never fewer than the minimum)" in err
    assert err.count("the 60 s time budget is spent, but not every cell has had its minimum runs") == 1
    assert "the runs took 3 min, 2 min beyond the 60 s time budget: the minimum runs alone took that (never fewer)" in (
        r.end_text()
    )


def test_a_minimum_that_would_overrun_the_budget_becomes_the_floor(tmp_path, monkeypatch, capsys):
    # 180 s of minimum runs against 100 s: 3 runs each (90 s), then what fits.
    fake, r, rs = _overrun(tmp_path, monkeypatch, 100.0)
    assert fake.now <= 100.0
    assert len(rs.runs) == 20  # 18 at the floor, and two more in the 10 s left
    assert all(s.runs >= 3 and s.why.startswith("time budget spent") for s in rs.stops)
    err = capsys.readouterr().err
    assert "more than the 100 s time budget: the minimum becomes 3 runs per variant (about 90 s)" in err, err
    assert "even that" not in err and "not every cell has had its minimum runs" not in err


def test_a_floor_the_budget_cannot_pay_for_becomes_what_it_pays_for(tmp_path, monkeypatch, capsys):
    # A wave costs 30 s: after the first, the 30 s left pay for one more,
    # not the two more that 3 runs a variant would take.
    fake, r, rs = _overrun(tmp_path, monkeypatch, 60.0)
    assert fake.now <= 60.0
    assert len(rs.runs) == 12
    assert all(s.runs == 2 for s in rs.stops)
    err = capsys.readouterr().err
    assert "the minimum becomes 2 runs per variant (about 60 s)" in err, err
    assert "the budget pays for no more than 2 of the 3 the floor asks" in err
    assert "calls a cell with fewer inconclusive" in err
    assert "even that" not in err


def test_a_first_wave_beyond_the_budget_is_all_the_run_makes(tmp_path, monkeypatch, capsys):
    fake, r, rs = _overrun(tmp_path, monkeypatch, 25.0)
    assert len(rs.runs) == 6  # the first wave, 30 s of a 25 s budget
    assert all(s.runs == 1 for s in rs.stops)
    err = capsys.readouterr().err
    assert "the minimum becomes 1 run per variant" in err
    assert "the first wave alone took more than the budget: no more runs" in err


def test_a_runs_bound_comes_from_its_cells_finished_runs():
    c = _Cell(plan(make_round("bound", ["py"])), 6, 60.0, None)
    assert c.bound("py", 10, 60, 900) == (900, "")  # nothing finished: the flat timeout
    c.finished["py"] += [8.0, 12.9]
    b, why = c.bound("py", 10, 60, 900)
    assert b == pytest.approx(129.0) and why == "10 x the longest of its 2 runs that finished here, 12.9 s"
    assert c.bound("py", 10, 200, 900)[0] == 200 and c.bound("py", 10, 200, 900)[1].startswith("the floor: ")
    assert c.bound("py", 100, 60, 900)[0] == 900  # never over the timeout
    assert c.bound("py", 0, 60, 900) == (900, "")  # --bound 0: the timeout only


def test_the_run_ends_within_the_time_budget(tmp_path, monkeypatch):
    """Runs of uneven costs that never settle: the extra runs stop when no
    run fits in the time left, and the time spent stays within the budget."""
    cells = [make_round(f"within{i}", ["go", "py", "go-c", "py-c"]) for i in range(3)]
    costs = itertools.cycle([0.3, 2.0, 0.7, 4.5, 1.1])
    specs = {(c.name, v.name): (next(costs), NOISY) for c in cells for v in c.variants}
    minimum = sum(cost * 6 for cost, _ in specs.values())
    budget = minimum + 100.0
    fake, r, rs = run(tmp_path, monkeypatch, [plan(c) for c in cells], specs, budget_s=1e9, time_budget_s=budget)
    assert fake.now <= budget
    assert len(rs.runs) > 12 * 6  # some extra runs were made
    cheapest = min(cost for cost, _ in specs.values())
    assert budget - fake.now < 4.5 + cheapest  # and the time left could not pay for much more
    assert all(s.runs >= 6 for s in rs.stops)
    assert {s.why.split(":")[0] for s in rs.stops} <= {"time budget spent", "at the most runs (40)"}
    assert r.end_text().startswith(f"the runs took {textfmt.duration_text(fake.now)} of the ")


def test_extra_runs_go_to_the_close_decision_first(tmp_path, monkeypatch):
    """Two cells, the same costs and noise: in one Go and Python are 1%
    apart (a tie or a point, undecided), in the other 50 times apart. The
    time left after the minimum pays for a few extra runs: the close cell
    gets them."""
    close = make_round("close", ["go", "py"])
    clear = make_round("clear", ["go", "py"])
    wide = [90.0, 110.0, 95.0, 105.0, 100.0, 92.0, 108.0]
    specs = {
        ("close", "go"): (1.0, wide),
        ("close", "py"): (1.0, [v * 1.01 for v in wide]),
        ("clear", "go"): (1.0, wide),
        ("clear", "py"): (1.0, [v * 50 for v in wide]),
    }
    fake, r, rs = run(tmp_path, monkeypatch, [plan(clear), plan(close)], specs, budget_s=1e9, time_budget_s=24.0 + 10.0)
    extra = {key: n - 6 for key, n in fake.counts.items()}
    assert extra[("close", "go")] + extra[("close", "py")] == 10
    assert extra[("clear", "go")] == extra[("clear", "py")] == 0
    # Within the wave the two sides still run in the same trials.
    tail = [impl for rnd, impl in fake.order[24:]]
    assert trials_of_both(tail, "go", "py") == 5


def test_a_variant_out_of_contention_stops_short_of_the_minimum(tmp_path, monkeypatch):
    """A library 50 times behind numba after its first run cannot become
    its side's best: it stops there, keeps its run and its row. A variant
    20% behind, its range of runs clear of the best's after 3 runs, stops
    at 3 (no replicate of the verdict's bootstrap makes it the best). One
    whose runs overlap the best's keeps its minimum; so does the C core,
    on no side."""
    rnd = make_round("contention", ["c", "go", "py-pandas", "py-numba", "py-numpy", "py-cython"])
    tight = [99.0, 101.0, 100.0]
    specs = {
        "c": (1.0, tight),
        "go": (1.0, tight),
        "py-pandas": (1.0, [v * 50 for v in tight]),
        "py-numba": (1.0, tight),
        "py-numpy": (1.0, [v * 1.2 for v in tight]),
        "py-cython": (1.0, [95.0, 104.0, 102.0, 98.0]),  # 1% behind, overlapping
    }
    fake, r, rs = run(tmp_path, monkeypatch, [plan(rnd)], specs, fixed=None, budget_s=0.0)
    got = stops(rs)
    assert fake.counts["py-pandas"] == 1
    # 4950 against py-cython's first run, 95: 52.1 times.
    assert got[("contention", "py-pandas")].why.startswith("out of contention: 52.1 x its side's best")
    assert fake.counts["py-numpy"] == 3
    assert got[("contention", "py-numpy")].why.startswith("out of contention: 1.2 x")
    assert fake.counts["py-cython"] == fake.counts["go"] == fake.counts["c"] == 6
    assert runs_of(rs, "py-pandas") == 1  # its run is kept, in its row
    assert "2 out of contention" in r.end_text()
    # A fixed run count is what it says.
    (tmp_path / "fixed").mkdir()
    fixed, _, _ = run(tmp_path / "fixed", monkeypatch, [plan(rnd)], specs, fixed=4)
    assert fixed.counts["py-pandas"] == 4


def test_a_variant_out_of_contention_comes_back_when_the_best_slows(tmp_path, monkeypatch):
    """A library twice numba's first run stops; numba's third run takes
    three times its first, so the library could be the side's best after
    all: it runs again, to the minimum, as every contender of the
    verdict's interval must."""
    rnd = make_round("comeback", ["go", "py-pandas", "py-numba"])
    specs = {
        "go": (1.0, [100.0]),
        "py-pandas": (1.0, [200.0]),
        "py-numba": (1.0, [100.0, 100.0, 300.0]),
    }
    fake, r, rs = run(tmp_path, monkeypatch, [plan(rnd)], specs, fixed=None, budget_s=0.0)
    assert fake.counts["py-pandas"] == 6 and fake.counts["go"] >= 6 and fake.counts["py-numba"] >= 6
    got = stops(rs)
    assert not got[("comeback", "py-pandas")].why.startswith("out of contention")
    # Stopped after its first trial, back after the third: trials 2 and 3
    # ran without it.
    order = [impl for _, impl in fake.order]
    assert order[:3].count("py-pandas") == 1 and "py-pandas" not in order[3:7] and order[7:10].count("py-pandas") == 1


def test_out_of_contention_is_judged_at_every_level_a_variant_is_at():
    """A variant behind at one level but its side's best at another stays;
    a side's only variant always stays; the C core is on no side."""
    rnd = make_round("levels", ["c", "go", "go-c", "py", "py-c", "py-ctypes"])
    one = [100.0]
    values = {
        "c": [v * 9 for v in one],
        "go": one,
        "go-c": [v * 3 for v in one],  # behind go at ecosystem... but best calling C
        "py": [v * 40 for v in one],  # Python alone: its only variant
        "py-c": [v * 3 for v in one],
        "py-ctypes": [v * 6 for v in one],  # 2x behind py-c calling C
    }
    out = out_of_contention(rnd, {"n": 1}, values)
    assert out == {"py-ctypes": pytest.approx(2.0)}
    undecided = make_round("levels2", ["go", "py", "py-c"], undecided=lambda p: "fixed by construction")
    assert out_of_contention(undecided, {"n": 1}, values) == {}


def test_closeness_of_a_decision():
    wide = [90.0, 110.0, 95.0, 105.0, 100.0, 92.0, 108.0]
    near = closeness(wide, [v * 1.05 for v in wide])  # on the margin itself
    far = closeness(wide, [v * 50 for v in wide])
    assert near == pytest.approx(1.0)
    assert far < UNDECIDING_WEIGHT  # weighs no more than no decision at all
    assert closeness([100.0] * 6, [100.0] * 6) == 0.0  # a certain tie: nothing to decide
    assert closeness([100.0] * 3, [200.0] * 3) == 1.0  # no interval yet: counted as undecided


def test_decision_weights_name_the_sides_of_the_points():
    rnd = make_round("weights", ["c", "go", "py", "py-numpy", "go-c", "py-c"])
    wide = [90.0, 110.0, 95.0, 105.0, 100.0, 92.0, 108.0]
    values = {
        "c": wide,
        "go": wide,
        "py": [v * 1.01 for v in wide],
        "py-numpy": [v * 50 for v in wide],  # no better than py: not the ecosystem's best
        "go-c": wide,
        "py-c": [v * 30 for v in wide],
    }
    w = decision_weights(rnd, {"n": 1}, values)
    assert w["c"] == 0.0 and w["py-numpy"] == 0.0
    assert w["go"] > 0.5 and w["py"] > 0.5  # alone and ecosystem: 1% apart
    assert w["py-c"] < UNDECIDING_WEIGHT and w["go-c"] == w["py-c"]  # calling C: 30 times apart
    # A contender for a side's best is weighed with it: the interval is
    # drawn over both (decide.evidence); one that cannot be best is not.
    rnd = make_round("weights3", ["go", "py", "py-numpy", "py-numba"])
    values = {"go": wide, "py": [v * 70 for v in wide], "py-numpy": [v * 1.2 for v in wide], "py-numba": wide}
    w = decision_weights(rnd, {"n": 1}, values)
    assert w["py-numba"] > 0.5 and w["py-numpy"] == w["py-numba"] and w["py"] < UNDECIDING_WEIGHT
    undecided = make_round("weights2", ["go", "py"], undecided=lambda p: "fixed by construction")
    assert decision_weights(undecided, {"n": 1}, {"go": wide, "py": wide}) == {"go": 0.0, "py": 0.0}


def test_policy_describes_both_budgets():
    text = RunPolicy(time_budget_s=1800).describe()
    assert "at least 6 per variant" in text and "equal share of what the stopped ones left" in text
    assert "time budget 30 min for the whole run" in text and "never fewer" in text
    assert "time budget" not in RunPolicy().describe()
    assert RunPolicy(fixed=3).describe().startswith("3 per variant (fixed); values a process where the round allows")
    assert RunPolicy(fixed=3, values=5).describe() == (
        "3 per variant (fixed); 5 values a process where the round allows several"
    )


def test_round_registry_untouched():
    """The fake rounds above are built here, never registered."""
    assert not any(r.name.startswith(("cellbudget", "within", "close")) for r in rounds.all_rounds())
