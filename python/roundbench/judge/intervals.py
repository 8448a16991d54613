"""The statistics a judgement rests on: the bootstrap interval of a ratio
of medians, the Mann-Whitney U test of two samples and the smallest p it
can give, and a cache of intervals for one report.

The interval is the percentile bootstrap, resampling each side's runs
(RESAMPLES times, with a fixed SEED, so the same runs always give the same
interval). numpy and scipy are loaded on first use: a result set can be
read, grouped and printed without them (Intervals says what is missing).
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

RESAMPLES = 4000
SEED = 20261130


def min_p(n: int, m: int) -> float:
    """The smallest two-sided p-value an exact U test can give for n and m
    runs: 2 / C(n+m, n)."""
    if n == 0 or m == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n + m, n))


def ratio_ci(a: Sequence[float], b: Sequence[float]) -> Optional[tuple]:
    """The 95% percentile-bootstrap interval of median(b) / median(a), or
    None with fewer than two runs a side (or a zero median in a)."""
    # numpy and scipy are heavy and optional: loaded on the first interval.
    import numpy as np
    from scipy import stats

    if len(a) < 2 or len(b) < 2:
        return None
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.median(xa) == 0:
        return None
    if np.ptp(xa) == 0 and np.ptp(xb) == 0:
        r = float(np.median(xb) / np.median(xa))
        return (r, r)

    def ratio(x, y, axis=-1):
        mx = np.median(x, axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.median(y, axis=axis) / mx

    res = stats.bootstrap(
        (xa, xb),
        ratio,
        vectorized=True,
        paired=False,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(SEED),
    )
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return (lo, hi)


def u_test(a: Sequence[float], b: Sequence[float]) -> Optional[float]:
    """The two-sided Mann-Whitney U test's p-value of a against b, or None
    when a side has no runs."""
    # scipy is heavy and optional: loaded on the first test.
    from scipy import stats

    if not a or not b:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0  # every run of both sides gave the same value
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


class Intervals:
    """Bootstrap intervals of ratios of medians (ratio_ci), each computed
    once per report. Without numpy or scipy the intervals are None and
    `missing` says why, for the report to print."""

    def __init__(self) -> None:
        self._cache: dict = {}
        try:
            ratio_ci([1.0, 2.0], [1.0, 2.0])
            self._ci: Optional[Callable] = ratio_ci
            self.missing = ""
        except ImportError as e:
            self._ci = None
            self.missing = f"no confidence intervals: {e.name} is not installed (pip install 'roundbench[report]')"

    def ratio_ci(self, a: list, b: list) -> Optional[tuple]:
        """The 95% interval of median(b) / median(a)."""
        if self._ci is None:
            return None
        key = (tuple(a), tuple(b))
        if key not in self._cache:
            self._cache[key] = self._ci(a, b)
        return self._cache[key]
