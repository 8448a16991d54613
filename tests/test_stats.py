"""A cell's statistics (stats.py): the median's interval, the unstable flag
it decides, and the outliers counted beside the runs."""

import math

import pytest

from roundbench.results import stats


def test_median_ci_order_statistics():
    xs = [5.0, 1.0, 3.0, 2.0, 6.0, 4.0]
    lo, hi, cov = stats.median_ci(xs)
    assert (lo, hi) == (1.0, 6.0)
    assert cov == pytest.approx(1 - 2 / 64)
    assert stats.median_ci(xs[:5]) == (None, None, None)
    lo, hi, cov = stats.median_ci(list(range(1, 21)))
    assert (lo, hi) == (6, 15) and cov >= 0.95  # ranks 6 and 15 of 20


def test_summary():
    s = stats.summarize([1.0, 2.0, 3.0, 4.0])
    assert s.mean == 2.5 and s.median == 2.5 and s.min == 1.0
    assert s.sd == pytest.approx(1.2909944)
    with pytest.raises(ValueError):
        stats.summarize([])


class TestUnstable:
    """Unstable: the median's 95% CI reaches more than ±5% from the median."""

    def test_a_narrow_interval_is_stable_whatever_sigma_says(self):
        # σ above 10% of the mean (the old flag), yet the median is pinned:
        # with 20 runs its interval is ranks 6 to 15, all at 100.
        xs = [100.0] * 16 + [40.0, 160.0, 30.0, 170.0]
        s = stats.summarize(xs)
        assert s.sd > 0.10 * s.mean
        assert not s.unstable and s.ci_half_width == 0.0

    def test_an_interval_wider_than_5_percent_is_unstable(self):
        assert stats.summarize([100, 106, 100, 100, 100, 100]).unstable  # [100, 106]: +6%
        assert not stats.summarize([100, 105, 100, 100, 95, 100]).unstable  # [95, 105]: ±5%, not more
        assert stats.summarize([100, 101, 99, 100, 100, 94]).unstable  # -6% below

    def test_one_far_run_among_many_is_an_outlier_not_a_flag(self):
        s = stats.summarize([100.0] * 20 + [210.0])
        assert not s.unstable and s.outliers == 1

    @pytest.mark.parametrize("xs", [[5.0], [5.0, 50.0], [1.0, 2.0, 30.0, 4.0, 500.0]])
    def test_fewer_than_6_runs_have_no_interval_and_no_flag(self, xs):
        s = stats.summarize(xs)
        assert s.ci_low is None and s.ci_half_width is None
        assert not s.unstable

    def test_identical_values(self):
        s = stats.summarize([7.0] * 6)
        assert s.ci_half_width == 0.0 and not s.unstable and s.outliers == 0

    def test_a_median_of_zero(self):
        assert not stats.summarize([0.0] * 8).unstable
        assert stats.summarize([0.0] * 4 + [-1.0, 1.0, 2.0, -2.0]).unstable  # [x1, x8] around 0


class TestOutliers:
    """Runs beyond 1.5 interquartile ranges from the quartiles."""

    @pytest.mark.parametrize("xs", [[], [3.0], [3.0, 300.0], [1.0, 1.0, 100.0]])
    def test_too_few_values_have_none(self, xs):
        assert stats.outliers(xs) == 0

    def test_identical_values_have_none(self):
        assert stats.outliers([2.5] * 10) == 0

    def test_both_sides_count(self):
        xs = [100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 100.0, 150.0, 40.0]
        assert stats.outliers(xs) == 2

    def test_within_the_fences_is_no_outlier(self):
        # 0..10 and one more: quartiles 2.75 and 8.25 (linear interpolation
        # between order statistics), the upper fence at 8.25 + 1.5 x 5.5 = 16.5.
        assert stats.outliers([float(x) for x in range(11)]) == 0
        assert stats.outliers([float(x) for x in range(11)] + [16.5]) == 0
        assert stats.outliers([float(x) for x in range(11)] + [16.6]) == 1


def test_half_width_and_relative_ci():
    assert stats.relative_ci(100.0, 97.0, 102.0) == pytest.approx((-0.03, 0.02))
    assert stats.half_width(100.0, 97.0, 102.0) == pytest.approx(0.03)
    assert stats.relative_ci(0.0, -1.0, 1.0) is None
    assert stats.half_width(0.0, -1.0, 1.0) == math.inf
    assert stats.half_width(100.0, None, None) is None
    assert stats.median_half_width([]) is None
    assert stats.median_half_width([1.0, 2.0]) is None
