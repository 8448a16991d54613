"""Statistics of one cell (one round, variant and size): what the report
prints. Standard library only.

A cell is *unstable* when its median is not pinned down: the median's
distribution-free 95% confidence interval (median_ci, the quantity the
runner's adaptive runs narrow) reaches more than ±5% from the median. With
fewer than 6 runs there is no such interval, and the cell is not flagged
(the report says "too few runs for an interval"). *Outliers* (runs beyond
1.5 interquartile ranges from the quartiles, as hyperfine and pyperf warn
of them) are counted and shown beside the runs, not used as the flag: one
slow run among many moves the median's interval little, and the interval
is what the score and the findings rest on.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Optional, Sequence

UNSTABLE_CI = 0.05  # the median's 95% CI reaching more than 5% from it
OUTLIER_IQR = 1.5  # Tukey's fences: 1.5 interquartile ranges beyond the quartiles
CI_LEVEL = 0.95
CI_MIN_RUNS = 6  # the fewest runs whose order statistics reach 95% coverage


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
    outliers: int = 0  # runs beyond OUTLIER_IQR interquartile ranges from the quartiles

    @property
    def unstable(self) -> bool:
        return is_unstable(self)

    @property
    def ci_half_width(self) -> Optional[float]:
        """The median's CI as a fraction of the median: its farther end's
        distance, or None without an interval."""
        return half_width(self.median, self.ci_low, self.ci_high)


def median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def median_ci(xs: Sequence[float], level: float = CI_LEVEL):
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


def relative_ci(m: float, low: Optional[float], high: Optional[float]) -> Optional[tuple]:
    """The interval [low, high] around the median m as fractions of m away
    from it, (low/m - 1, high/m - 1) for a positive m: (-0.03, +0.02).
    None without an interval or for a median of 0."""
    if low is None or high is None or m == 0:
        return None
    return ((low - m) / abs(m), (high - m) / abs(m))


def half_width(m: float, low: Optional[float], high: Optional[float]) -> Optional[float]:
    """How far the farther end of [low, high] lies from the median m, as a
    fraction of m (0.05: ±5%). A median of 0 has an infinite one unless its
    interval is [0, 0]; None without an interval."""
    if low is None or high is None:
        return None
    if m == 0:
        return 0.0 if low == high == 0 else math.inf
    rel = relative_ci(m, low, high)
    return max(-rel[0], rel[1])


def median_half_width(xs: Sequence[float]) -> Optional[float]:
    """half_width of the median's 95% CI of xs; None with fewer than 6."""
    if not xs:
        return None
    lo, hi, _ = median_ci(xs)
    return half_width(median(xs), lo, hi)


def outliers(xs: Sequence[float]) -> int:
    """How many of xs lie beyond OUTLIER_IQR interquartile ranges below the
    first quartile or above the third (Tukey's fences; quartiles by linear
    interpolation between order statistics, numpy's default). Fewer than
    four values cannot pass the fences; identical values have none, and one
    value apart from many identical ones is one."""
    if len(xs) < 4:
        return 0
    q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    reach = OUTLIER_IQR * (q3 - q1)
    return sum(1 for x in xs if x < q1 - reach or x > q3 + reach)


def summarize(xs: Sequence[float]) -> Summary:
    if not xs:
        raise ValueError("no values to summarize")
    n = len(xs)
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    lo, hi, cov = median_ci(xs)
    return Summary(n, mean, sd, median(xs), lo, hi, cov, min(xs), max(xs), outliers(xs))


def is_unstable(s: Summary) -> bool:
    """The median's 95% CI reaches more than UNSTABLE_CI (5%) from the
    median. Without an interval (fewer than 6 runs) a cell is not flagged:
    too few runs to say (the report says so in words)."""
    hw = s.ci_half_width
    return hw is not None and hw > UNSTABLE_CI
