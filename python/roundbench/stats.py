"""Statistics of one cell (one round, variant and size): what the report
prints. Standard library only."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

UNSTABLE_SD = 0.10  # sigma above 10% of the mean
UNSTABLE_EXTREME = 0.50  # an extreme 50% away from the mean


@dataclass
class Summary:
    n: int
    mean: float
    sd: float
    median: float
    ci_low: Optional[float]  # distribution-free 95% CI of the median
    ci_high: Optional[float]
    ci_level: Optional[float]  # its actual coverage (order statistics)
    min: float
    max: float

    @property
    def unstable(self) -> bool:
        return is_unstable(self)


def median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def median_ci(xs: Sequence[float], level: float = 0.95):
    """The order-statistic confidence interval of the median: the widest
    symmetric pair of ranks (k, n+1-k) whose binomial(n, 1/2) coverage is at
    least `level`, narrowed as far as the coverage allows. Returns
    (low, high, coverage), or (None, None, None) when n is too small for
    any pair to reach the level (n < 6 at 95%)."""
    s = sorted(xs)
    n = len(s)
    best = None
    for k in range(1, n // 2 + 1):
        # P(k <= B <= n-k) for B ~ Bin(n, 1/2): the interval [x_k, x_{n+1-k}].
        tail = sum(math.comb(n, i) for i in range(k)) / 2**n
        coverage = 1 - 2 * tail
        if coverage >= level:
            best = (s[k - 1], s[n - k], coverage)
        else:
            break
    return best if best else (None, None, None)


def summarize(xs: Sequence[float]) -> Summary:
    if not xs:
        raise ValueError("no values to summarize")
    n = len(xs)
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    lo, hi, cov = median_ci(xs)
    return Summary(n, mean, sd, median(xs), lo, hi, cov, min(xs), max(xs))


def is_unstable(s: Summary) -> bool:
    """sigma above 10% of the mean, or an extreme 50% away from the mean."""
    if s.mean == 0:
        return False
    m = abs(s.mean)
    return s.sd > UNSTABLE_SD * m or max(abs(s.max - s.mean), abs(s.min - s.mean)) > UNSTABLE_EXTREME * m
