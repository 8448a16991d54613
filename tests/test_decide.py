"""The decision rule (judge/decide.py): three outcomes with a margin, the
false-discovery rate held across a family, and each side's choice of its
best variant inside the interval. Each case is one the replaced rule
(decide.legacy: the interval of the two chosen variants excludes 1 and the
ratio is 2% or more from 1) gets wrong."""

from __future__ import annotations

import math
import random
import sys
import warnings

import pytest

from roundbench.judge import decide
from roundbench.judge.intervals import ratio_ci


def _runs(median: float, spread: float, n: int = 8, seed: int = 1) -> list:
    """n runs around a median, each within ±spread of it, the median exact."""
    rng = random.Random(seed)
    half = [median * (1 + spread * rng.uniform(0.2, 1.0)) for _ in range(n // 2)]
    return [median] * (n % 2) + half + [median * median / x for x in half]


def _one(a: list, b: list) -> decide.Decision:
    return decide.judge_one(decide.evidence({"a": a}, {"b": b}))


def _legacy(a: list, b: list) -> str:
    m = sorted(b)[len(b) // 2] / sorted(a)[len(a) // 2]
    return decide.legacy(m, ratio_ci(a, b))


def test_a_wide_interval_is_inconclusive_and_says_what_would_settle_it():
    a, b = _runs(100.0, 0.30), _runs(110.0, 0.30, seed=2)
    d = _one(a, b)
    assert d.outcome == decide.INCONCLUSIVE and d.ci[0] < 1 < d.ci[1]
    assert "more runs" in d.settle and "a variant" in d.settle
    assert _legacy(a, b) == "tie"  # the old word says "the same": nothing was shown the same


def test_a_narrow_interval_inside_the_margin_is_equivalent():
    a, b = _runs(100.0, 0.005), _runs(100.5, 0.005, seed=2)
    d = _one(a, b)
    assert d.outcome == decide.EQUIVALENT and 1 / 1.05 < d.ci[0] and d.ci[1] < 1.05


def test_a_small_real_difference_inside_the_margin_is_equivalent_not_faster():
    a, b = _runs(100.0, 0.004), _runs(103.0, 0.004, seed=2)
    d = _one(a, b)
    assert d.ci[0] > 1  # a real difference: the interval excludes 1
    assert d.outcome == decide.EQUIVALENT  # but smaller than the 5% that matters
    assert _legacy(a, b) == decide.FASTER  # where the old rule called it a win


def test_a_difference_beyond_the_margin_is_faster_for_the_right_side():
    a, b = _runs(100.0, 0.01), _runs(130.0, 0.01, seed=2)
    d = _one(a, b)
    assert d.outcome == decide.FASTER and d.winner == "a" and d.ci[0] > 1.05
    d = _one(b, a)
    assert d.outcome == decide.FASTER and d.winner == "b" and d.ci[1] < 1 / 1.05


def test_rates_are_better_higher():
    a, b = _runs(130.0, 0.01), _runs(100.0, 0.01, seed=2)
    d = decide.judge_one(decide.evidence({"a": a}, {"b": b}, better="higher"))
    assert d.outcome == decide.FASTER and d.winner == "a" and math.isclose(d.ratio, 1.3, rel_tol=1e-4)


@pytest.mark.parametrize("k", [2, 4, 8])
def test_the_interval_widens_with_the_number_of_equal_variants(k):
    """A side that picks the best of k equal variants gets a wider interval
    than one that has one: the choice is inside the interval."""
    py = {"py": _runs(100.0, 0.05, seed=99)}
    one = decide.evidence({"go0": _runs(100.0, 0.05, seed=0)}, py).half_width(0.95)
    many = decide.evidence({f"go{i}": _runs(100.0, 0.05, seed=i) for i in range(k)}, py).half_width(0.95)
    fewer = decide.evidence({f"go{i}": _runs(100.0, 0.05, seed=i) for i in range(k // 2)}, py).half_width(0.95)
    assert one <= fewer < many or (k == 2 and one < many)


def test_a_candidate_no_replicate_could_choose_widens_nothing():
    """Pure Python, 70 times slower and noisy, beside numba on Python's
    side: no replicate makes it Python's best, so neither its noise nor its
    few runs reach the interval of numba against Go; an equal contender
    does widen it, and its too few runs leave no interval."""
    go = {"go": _runs(1.0, 0.05, seed=3)}
    numba = _runs(0.9, 0.05, seed=4)
    alone = decide.evidence(go, {"py-numba": numba})
    beside = decide.evidence(go, {"py-numba": numba, "py": _runs(70.0, 0.4, n=3, seed=5)})
    assert beside.deviations == alone.deviations and beside.half_width(0.95) is not None
    close = decide.evidence(go, {"py-numba": numba, "py-cython": _runs(0.9, 0.05, seed=6)})
    assert close.half_width(0.95) > alone.half_width(0.95)
    few = decide.evidence(go, {"py-numba": numba, "py-cython": _runs(0.9, 0.05, n=2, seed=6)})
    assert few.half_width(0.95) is None and few.why == "fewer than 3 runs in a variant"


def test_benjamini_hochberg_steps_up():
    assert decide.benjamini_hochberg([0.001, 0.008, 0.029, 0.039, 0.9], 0.05) == 4
    # Step-up: the second fails at its own rank, the third passes and takes it along.
    assert decide.benjamini_hochberg([0.001, 0.03, 0.035, 0.9], 0.05) == 3
    assert decide.benjamini_hochberg([0.2, 0.3], 0.05) == 0
    assert decide.benjamini_hochberg([0.01], 0.05) == 1


def test_a_family_states_every_interval_at_its_level():
    clear = decide.evidence({"a": _runs(100.0, 0.01)}, {"b": _runs(200.0, 0.01, seed=2)})
    vague = decide.evidence({"a": _runs(100.0, 0.3)}, {"b": _runs(104.0, 0.3, seed=2)})
    alone = decide.judge([clear])[0]
    together = decide.judge([clear] + [vague] * 9)
    assert alone.level == pytest.approx(0.95)
    # 10 comparisons, 1 decided: every interval at 1 - 0.05 * 1 / 10, wider than alone.
    assert together[0].outcome == decide.FASTER and together[0].level == pytest.approx(0.995)
    assert together[0].ci[0] < alone.ci[0] and all(d.family == 10 for d in together)
    assert [d.outcome for d in together[1:]] == [decide.INCONCLUSIVE] * 9


def test_too_few_runs_is_inconclusive_with_the_reason():
    d = _one([1.0], [2.0])
    assert d.outcome == decide.INCONCLUSIVE and d.ci is None and d.why == "fewer than 3 runs in a variant"
    assert math.isclose(d.ratio, 2.0)


def test_runs_of_zero_give_no_warning_only_a_reason():
    """A positive median over runs that are often 0 (a spread of start
    times, say): some replicates' medians are 0, which the interval drops,
    and numpy says nothing on the way."""
    runs = [0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = _one(runs, [0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 5.0])
    assert d.outcome == decide.INCONCLUSIVE, d
    assert d.why == "the resampled medians are not all positive" or d.ci is not None, d


def test_without_numpy_a_comparison_is_inconclusive_and_says_so(monkeypatch):
    """A plain `pip install roundbench` has no numpy: the report is still
    written, every cell inconclusive, naming what to install."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy raises ImportError
    d = _one(_runs(100.0, 0.01), _runs(200.0, 0.01, seed=2))
    assert d.outcome == decide.INCONCLUSIVE and d.ci is None
    assert "numpy is not installed" in d.why and "roundbench[report]" in d.why
    assert math.isclose(d.ratio, 2.0, rel_tol=0.05)


def test_the_rule_refuses_a_margin_outside_0_1():
    with pytest.raises(ValueError, match="margin 5: want a fraction"):
        decide.Rule(margin=5)


def test_a_placebo_family_decides_no_cell_faster():
    """Both sides the same programs (each cell 1 to 3 variants of their own
    speed, runs with 1% to 8% noise): every faster cell would be false."""
    rng = random.Random(7)
    family = []
    for _ in range(40):
        k = rng.randint(1, 3)
        speeds = [rng.uniform(1, 2) for _ in range(k)]
        noise = rng.choice([0.01, 0.03, 0.08])
        a = {f"v{i}": _runs(s, noise, 6, seed=rng.randrange(10**6)) for i, s in enumerate(speeds)}
        b = {f"v{i}": _runs(s, noise, 6, seed=rng.randrange(10**6)) for i, s in enumerate(speeds)}
        family.append(decide.evidence(a, b))
    decided = decide.judge(family)
    assert sum(d.outcome == decide.FASTER for d in decided) <= 0.05 * len(decided)
