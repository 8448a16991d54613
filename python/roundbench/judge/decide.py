"""The decision rule: every comparison the suite judges ends in one of three
outcomes, stated with a margin, with the false-discovery rate held across
all the comparisons judged together.

A comparison sets side a against side b in one unit (a time: lower is
better; a rate: higher). Each side has its candidates (the variants of a
level, of which the best counts) and each candidate its runs. The estimate
is how many times better a's best is than b's best: the ratio of the two
best medians, as a log, θ = log(ratio), positive when a is better.

1. The interval includes the choice of each side's best. Each of RESAMPLES
   bootstrap replicates resamples every candidate's runs (with
   replacement). A side's contenders are the candidates that are its best
   in at least one replicate (the observed best always is one): those the
   choice could fall on. Each replicate's D is the largest deviation, over
   every (a, b) pair of contenders, of the pair's log ratio from its
   observed value. The interval at level 1 - q is θ ± the (1 - q) quantile
   of D. It holds for every pair of contenders at once, so it holds for
   whichever candidates are truly each side's best: more contenders, a
   wider interval (a side that picks the best of eight equal variants is
   not eight times lucky), while a candidate that no replicate makes its
   side's best (pure Python beside numba) widens nothing, however noisy
   its runs. With one contender a side, D is the deviation of the one
   ratio. Every contender needs MIN_RUNS runs.
2. Three outcomes, with a margin m (MARGIN, 5%; `--margin`): a difference
   smaller than a factor 1 + m is one nobody acts on. *Faster*: the whole
   interval lies beyond the margin (|θ| - half-width > log(1 + m)).
   *Equivalent*: the whole interval lies inside ±margin. *Inconclusive*:
   the interval straddles the margin; `settle` says what would settle it.
3. Many comparisons, one error rate. A comparison's p is the smallest q at
   which it would be decided (faster or equivalent): (1 + #{D >= | |θ| -
   log(1 + m) |}) / (RESAMPLES + 1). The family's p's go through
   Benjamini-Hochberg at ALPHA (5%): R comparisons are decided, the rest are
   inconclusive, and every interval of the family is stated at level 1 -
   R·ALPHA/k (k comparisons; 1 - ALPHA/k when none is decided), the level
   at which the decided intervals' false coverage rate is held at ALPHA
   (Benjamini and Yekutieli's FCR intervals). Each outcome thus reads off
   its own interval and margin. Why the false-discovery rate, not Holm's
   family-wise error: a report decides some 60 cells, and the useful
   promise is that at most one claim in twenty is false, on average, while
   the cells that differ by a factor of ten are still decided; where no
   cell truly differs (a placebo run), the two are the same guarantee: the
   chance of deciding any cell at all is at most ALPHA.

4. Paired trials. The runner makes each cell's runs in trials, every
   variant of a wave once, in a fresh random order (its `--- TRIAL:`
   records). Where every candidate's runs carry their trial, the bootstrap
   resamples trials, the same draw for every candidate, and a pair of
   candidates with MIN_RUNS trials in common is estimated by the median of
   its trial-by-trial log ratios: what a shared VM does over seconds to
   minutes falls on both runs of a trial and cancels, instead of counting
   as noise on each side. Without the records (older files) the runs are
   compared unpaired, as in rule 1.
5. Equivalence is two one-sided tests. A cell within the margin is
   equivalent when the interval's upper bound lies below +margin and its
   lower bound above -margin, each bound one-sided at q: the interval of
   level 1 - 2q, which the decision shows. Its p is the larger of the two
   one-sided tails.

Example: Go's best loop variant at 0.92 ns/iter against Python's best at
0.95 ns/iter, 6 runs each: θ = log(0.95 / 0.92) = 0.032 (1.033x). If the
replicates' D has its 99.9% quantile at 0.008 (the report's level with 50
comparisons, 1 decided), the interval is 1.033x [1.025, 1.041]: all of it
inside [1/1.05, 1.05], so the two are *equivalent*, where a rule without a
margin would have called Go faster. At 1.10x [1.07, 1.13] Go would be
*faster*; at 1.04x [1.00, 1.08], *inconclusive*.

`legacy` is the rule this one replaced (the interval of the two chosen
variants excludes 1 and the ratio is at least 2% from 1), kept for the
placebo run's baseline (`roundbench run --placebo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

MARGIN = 0.05
ALPHA = 0.05
RESAMPLES = 4000
SEED = 20261205
LEGACY_TIE_WITHIN = 0.02  # the replaced rule's dead zone around 1
# The fewest runs of a candidate that give an interval: with 3 to 5 the
# bootstrap's interval is coarse (a resampled median is one of the runs),
# with 2 it is no interval at all.
MIN_RUNS = 3

FASTER, EQUIVALENT, INCONCLUSIVE = "faster", "equivalent", "inconclusive"
OUTCOMES = (FASTER, EQUIVALENT, INCONCLUSIVE)


@dataclass(frozen=True)
class Rule:
    """The rule's two settings: the margin and the false-discovery rate."""

    margin: float = MARGIN
    alpha: float = ALPHA

    def __post_init__(self) -> None:
        if not 0 < self.margin < 1:
            raise ValueError(f"margin {self.margin:g}: want a fraction in (0, 1), e.g. 0.05 for 5%")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha {self.alpha:g}: want a fraction in (0, 1)")

    @property
    def log_margin(self) -> float:
        return math.log1p(self.margin)

    def describe(self, k: Optional[int] = None) -> str:
        """The rule in one line, for the verdict and the claims table."""
        family = f" across the {k} comparisons" if k is not None else " across the comparisons"
        return (
            f"a cell is *faster* when its whole interval lies beyond a {self.margin * 100:g}% margin, "
            f"*equivalent* when it lies within ±{self.margin * 100:g}%, else *inconclusive*; the "
            f"false-discovery rate is held at {self.alpha * 100:g}%{family} (Benjamini-Hochberg, each interval "
            "at the level that keeps it), and each interval includes the choice of each side's best variant"
        )


DEFAULT_RULE = Rule()

# Why a comparison has no interval when numpy is missing.
NO_NUMPY = "no interval: numpy is not installed (pip install 'roundbench[report]')"


@dataclass
class Evidence:
    """One comparison before its family is judged: the estimate (θ, the log
    of how many times better a's best is than b's) and the bootstrap's
    sorted largest pair deviations D; `why` says why there is none (too
    few runs)."""

    theta: Optional[float]
    deviations: Optional[list] = None  # sorted, RESAMPLES of them
    why: str = ""
    a_best: str = ""
    b_best: str = ""
    runs: int = 0  # the fewest runs of any candidate
    # The one-sided bounds' replicates, sorted: how far the true θ may lie
    # above θ (up) and below it (down), for equivalence's two one-sided
    # tests; None: only the two-sided D (an Evidence made by hand).
    up: Optional[list] = None
    down: Optional[list] = None
    pairs: int = 0  # the trials the two bests share (0: unpaired)

    @property
    def ratio(self) -> Optional[float]:
        return math.exp(self.theta) if self.theta is not None else None

    def half_width(self, level: float) -> Optional[float]:
        """The (level) quantile of D: the interval's half-width, as a log."""
        if not self.deviations:
            return None
        d = self.deviations
        k = min(len(d) - 1, max(0, math.ceil(level * len(d)) - 1))
        return d[k]

    def bound(self, which: str, level: float) -> Optional[float]:
        """The (level) quantile of the one-sided deviations ("up" or
        "down"), as a log; the two-sided D's where there are none."""
        d = getattr(self, which) or self.deviations
        if not d:
            return None
        k = min(len(d) - 1, max(0, math.ceil(level * len(d)) - 1))
        return d[k]

    def p(self, rule: Rule) -> float:
        """The smallest q at which the comparison is decided (rule 3):
        beyond the margin, the two-sided D's tail past |θ| - m; within it,
        equivalence's two one-sided tests, the larger of the tails of `up`
        past m - θ and of `down` past m + θ (rule 5)."""
        if self.theta is None or not self.deviations:
            return 1.0
        m = rule.log_margin
        if abs(self.theta) > m:
            return _tail(self.deviations, abs(self.theta) - m)
        if self.up is None or self.down is None:
            return _tail(self.deviations, m - abs(self.theta))
        return max(_tail(self.up, m - self.theta), _tail(self.down, m + self.theta))


def _tail(sorted_d: list, x: float) -> float:
    """(1 + #{d >= x}) / (n + 1): the bootstrap p of a bound at x."""
    beyond = len(sorted_d) - _bisect_left(sorted_d, x)
    return (1 + beyond) / (len(sorted_d) + 1)


def _bisect_left(xs: list, x: float) -> int:
    lo, hi = 0, len(xs)
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def evidence(a: dict, b: dict, better: str = "lower", trials: Optional[dict] = None) -> Evidence:
    """The evidence of side a against side b: each a dict candidate name ->
    its runs' values (at least one candidate a side). The best of a side is
    its candidate with the lowest median (`better` "lower") or the highest.
    Without MIN_RUNS runs in every contender (rule 1), or with a median
    that is not positive, there is no interval (theta is still given where
    it can be).

    trials: candidate name -> the trial of each of its runs (in the order of
    its values; results/benchfmt.py's --- TRIAL: records). When every
    candidate has them, the comparison is paired (rule 4): the trials are
    resampled, not each candidate's runs apart, and a pair of candidates
    with MIN_RUNS trials in common is estimated by the median of its
    trial-by-trial log ratios."""
    if not a or not b:
        raise ValueError("each side needs a candidate")
    pick = min if better == "lower" else max
    med = {("a", n): _median(v) for n, v in a.items() if v}
    med.update({("b", n): _median(v) for n, v in b.items() if v})
    a_best = pick((m, n) for (side, n), m in med.items() if side == "a")
    b_best = pick((m, n) for (side, n), m in med.items() if side == "b")
    if a_best[0] <= 0 or b_best[0] <= 0:
        return Evidence(None, why="a median that is not positive", a_best=a_best[1], b_best=b_best[1])
    theta = math.log(b_best[0] / a_best[0]) if better == "lower" else math.log(a_best[0] / b_best[0])
    if any(m <= 0 for m in med.values()):
        return Evidence(theta, why="a median that is not positive", a_best=a_best[1], b_best=b_best[1])
    # numpy is the one dependency here, loaded on the first interval; a
    # plain `pip install roundbench` has none, and then every comparison
    # stays inconclusive and says why (the estimate is still given).
    try:
        import numpy as np  # optional: loaded on the first interval
    except ImportError:
        return Evidence(theta, why=NO_NUMPY, a_best=a_best[1], b_best=b_best[1])
    if _pairable(a, b, trials):
        return _paired(a, b, better, trials, a_best[1], b_best[1])

    rng = np.random.default_rng(SEED)

    def resampled(values: list) -> "np.ndarray":
        x = np.asarray(values, dtype=float)
        idx = rng.integers(0, len(x), size=(RESAMPLES, len(x)))
        return np.median(x[idx], axis=1)

    def contenders(side: dict, best: str) -> dict:
        """The candidates some replicate makes the side's best: name ->
        their replicates' medians."""
        reps = {n: resampled(v) for n, v in side.items() if v}
        names = list(reps)
        stacked = np.vstack([reps[n] for n in names])
        won = stacked.argmin(axis=0) if better == "lower" else stacked.argmax(axis=0)
        keep = {names[i] for i in np.unique(won)} | {best}
        return {n: reps[n] for n in names if n in keep}

    ca, cb = contenders(a, a_best[1]), contenders(b, b_best[1])
    runs = min(len(side[n]) for side, c in ((a, ca), (b, cb)) for n in c)
    if runs < MIN_RUNS:
        return Evidence(
            theta, why=f"fewer than {MIN_RUNS} runs in a variant", a_best=a_best[1], b_best=b_best[1], runs=runs
        )

    def deviations(side: dict, c: dict) -> "np.ndarray":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.array([np.log(m) - math.log(_median(side[n])) for n, m in c.items()])

    da, db = deviations(a, ca), deviations(b, cb)
    # A pair's log ratio, log(b / a) for times (log(a / b) for rates: the
    # same deviation, negated), deviates by db_j - da_i; D is the largest
    # |db_j - da_i| over every pair, per replicate.
    # A replicate whose median is 0 has a deviation of -inf, and two of
    # them give inf - inf: not finite, and dropped below, without numpy's
    # warning on the user's terminal.
    with np.errstate(invalid="ignore"):
        rise = db.max(axis=0) - da.min(axis=0)  # the replicate's ratio above the observed one
        fall = da.max(axis=0) - db.min(axis=0)
    if better != "lower":
        rise, fall = fall, rise
    return _from_replicates(theta, rise, fall, a_best[1], b_best[1], runs)


def _pairable(a: dict, b: dict, trials: Optional[dict]) -> bool:
    """Whether every candidate with runs has a trial for each run, and every
    run a positive value (a log ratio is taken trial by trial)."""
    if not trials:
        return False
    for side in (a, b):
        for n, v in side.items():
            if not v:
                continue
            t = trials.get(n)
            if t is None or len(t) != len(v) or any(x is None for x in t) or min(v) <= 0:
                return False
    return True


def _from_replicates(theta, rise, fall, a_best: str, b_best: str, runs: int, pairs: int = 0) -> Evidence:
    """The Evidence from each replicate's largest deviations of a pair's log
    ratio above (rise) and below (fall) its observed value, in θ's sense
    (positive: a better); non-finite replicates dropped."""
    import numpy as np  # optional: evidence() has checked it is there

    keep = np.isfinite(rise) & np.isfinite(fall)
    rise, fall = rise[keep], fall[keep]
    if len(rise) < RESAMPLES // 2:
        return Evidence(theta, why="the resampled medians are not all positive", a_best=a_best, b_best=b_best)
    d = np.maximum(np.abs(rise), np.abs(fall))
    # The true θ lies below θ + (how far replicates fall under θ), above
    # θ - (how far they rise over it): the basic bootstrap's one-sided
    # bounds, which equivalence's two one-sided tests read.
    up = np.maximum(fall, 0.0)
    down = np.maximum(rise, 0.0)
    return Evidence(
        theta,
        sorted(float(x) for x in d),
        a_best=a_best,
        b_best=b_best,
        runs=runs,
        up=sorted(float(x) for x in up),
        down=sorted(float(x) for x in down),
        pairs=pairs,
    )


def _paired(a: dict, b: dict, better: str, trials: dict, a_best: str, b_best: str) -> Evidence:
    """Rule 4: the evidence from randomized paired trials. Every candidate's
    log values are laid out by trial; each replicate draws the trials (with
    replacement) once for every candidate, so that what a trial did to one
    side it does to the other. A pair of candidates with MIN_RUNS trials in
    common is estimated by the median of its trial-by-trial log ratios; a
    pair without, by the ratio of its medians over the same draws."""
    import warnings  # beside numpy, loaded only for an interval

    import numpy as np  # optional: evidence() has checked it is there

    names = [("a", n) for n, v in a.items() if v] + [("b", n) for n, v in b.items() if v]
    values = {("a", n): a[n] for n in a} | {("b", n): b[n] for n in b}
    slots = sorted({t for key in names for t in trials[key[1]]})
    col = {t: i for i, t in enumerate(slots)}
    logs = np.full((len(names), len(slots)), np.nan)
    for row, key in enumerate(names):
        for t, v in zip(trials[key[1]], values[key]):
            logs[row, col[t]] = math.log(v)
    rng = np.random.default_rng(SEED)
    idx = rng.integers(0, len(slots), size=(RESAMPLES, len(slots)))
    reps = logs[:, idx]  # candidate, replicate, draw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a replicate that drew none of a candidate's trials
        rep_med = np.nanmedian(reps, axis=2)
    obs_med = np.array([math.log(_median(values[k])) for k in names])

    def contenders(side: str, best: str) -> list:
        rows = [i for i, k in enumerate(names) if k[0] == side]
        stacked = rep_med[rows]
        filled = np.where(np.isnan(stacked), np.inf if better == "lower" else -np.inf, stacked)
        won = filled.argmin(axis=0) if better == "lower" else filled.argmax(axis=0)
        keep = {rows[i] for i in np.unique(won)} | {names.index((side, best))}
        return sorted(keep)

    ca, cb = contenders("a", a_best), contenders("b", b_best)
    runs = min(len(values[names[i]]) for i in ca + cb)
    ia, ib = names.index(("a", a_best)), names.index(("b", b_best))

    def pair(i: int, j: int) -> tuple:
        """(observed, replicates, trials in common) of log(b_j / a_i)."""
        common = ~np.isnan(logs[i]) & ~np.isnan(logs[j])
        if common.sum() >= MIN_RUNS:
            obs = float(np.median(logs[j, common] - logs[i, common]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                rep = np.nanmedian(reps[j] - reps[i], axis=1)
            return obs, rep, int(common.sum())
        return float(obs_med[j] - obs_med[i]), rep_med[j] - rep_med[i], int(common.sum())

    obs_best, _, pairs = pair(ia, ib)
    theta = obs_best if better == "lower" else -obs_best
    if runs < MIN_RUNS:
        return Evidence(theta, why=f"fewer than {MIN_RUNS} runs in a variant", a_best=a_best, b_best=b_best, runs=runs)
    rise = np.full(RESAMPLES, -np.inf)
    fall = np.full(RESAMPLES, -np.inf)
    # A replicate where a pair has no draw (or a median of -inf) is no
    # replicate at all: dropped by _from_replicates.
    bad = np.zeros(RESAMPLES, dtype=bool)
    for i in ca:
        for j in cb:
            obs, rep, _ = pair(i, j)
            dev = (rep - obs) if better == "lower" else (obs - rep)
            bad |= ~np.isfinite(dev)
            rise = np.fmax(rise, dev)
            fall = np.fmax(fall, -dev)
    rise[bad] = np.nan
    fall[bad] = np.nan
    return _from_replicates(theta, rise, fall, a_best, b_best, runs, pairs)


@dataclass
class Decision:
    """One comparison judged in its family: the outcome, who is faster
    ("a" or "b", "" unless faster), the ratio (how many times better a is
    than b) with its interval at the family's level, and p."""

    outcome: str
    winner: str
    ratio: Optional[float]
    ci: Optional[tuple]
    level: Optional[float]
    p: float
    margin: float
    why: str = ""  # why there is no interval
    settle: str = ""  # for an inconclusive outcome: what would settle it
    family: int = 0  # how many comparisons were judged together

    @property
    def decided(self) -> bool:
        return self.outcome != INCONCLUSIVE


def benjamini_hochberg(ps: Sequence[float], alpha: float) -> int:
    """R, how many of the p's the step-up rule rejects at false-discovery
    rate alpha: the largest r with the r-th smallest p <= r·alpha/k."""
    k = len(ps)
    r = 0
    for i, p in enumerate(sorted(ps), 1):
        if p <= i * alpha / k:
            r = i
    return r


# An estimate this close to the margin's edge (as a ratio) is a real
# difference about the size of the margin: no affordable run count settles it.
ON_MARGIN = 0.01


def _settle(ev: Evidence, half: float, rule: Rule) -> str:
    """Why an inconclusive comparison is so, in figures: its estimate sits
    on the margin (within ON_MARGIN of its edge), or its interval is wider
    than the distance from the estimate to the margin (the machine's noise
    for these variants, at this many runs)."""
    gap = abs(abs(ev.theta) - rule.log_margin)
    want = math.ceil(ev.runs * (half / gap) ** 2) if gap > 0 else math.inf
    runs = f"about {want} a variant" if math.isfinite(want) else "no number of runs"
    if gap < math.log1p(ON_MARGIN):
        return (
            f"the estimate lies within {ON_MARGIN * 100:g}% of the {rule.margin * 100:g}% margin: a real difference "
            f"about the size of the margin, which more runs ({runs}, if the medians hold) would settle"
        )
    return (
        f"the machine's noise: the interval is ±{math.expm1(half) * 100:.3g}% after {ev.runs} runs, wider than the "
        f"{math.expm1(gap) * 100:.2g}% from the estimate to the margin; more runs ({runs}, if the medians hold) "
        "or a quieter machine"
    )


def judge(family: Sequence[Evidence], rule: Optional[Rule] = None) -> list:
    """Every comparison of a family decided together (rules 2 and 3), in
    order."""
    rule = rule or DEFAULT_RULE
    k = len(family)
    if not k:
        return []
    ps = [ev.p(rule) for ev in family]
    r = benjamini_hochberg(ps, rule.alpha)
    q = (r if r else 1) * rule.alpha / k
    level = 1 - q
    out = []
    for ev, p in zip(family, ps):
        half = ev.half_width(level) if ev.theta is not None else None
        if ev.theta is None or half is None:
            out.append(
                Decision(
                    INCONCLUSIVE, "", ev.ratio, None, None, 1.0, rule.margin, why=ev.why or "no interval", family=k
                )
            )
            continue
        ci = (math.exp(ev.theta - half), math.exp(ev.theta + half))
        decided = r > 0 and p <= q
        shown = level
        if decided and abs(ev.theta) > rule.log_margin:
            outcome, winner = FASTER, ("a" if ev.theta > 0 else "b")
        elif decided:
            outcome, winner = EQUIVALENT, ""
            # Two one-sided tests at q each: the interval of level 1 - 2q
            # whose ends they are, inside ±margin.
            ci = (math.exp(ev.theta - ev.bound("down", level)), math.exp(ev.theta + ev.bound("up", level)))
            shown = 1 - 2 * q if ev.up is not None else level
        else:
            outcome, winner = INCONCLUSIVE, ""
        settle = _settle(ev, half, rule) if outcome == INCONCLUSIVE else ""
        out.append(Decision(outcome, winner, ev.ratio, ci, shown, p, rule.margin, settle=settle, family=k))
    return out


def judge_one(ev: Evidence, rule: Optional[Rule] = None) -> Decision:
    """A comparison judged alone (a family of one)."""
    return judge([ev], rule)[0]


def legacy(ratio: float, ci: Optional[tuple]) -> str:
    """The replaced rule, for the placebo run's baseline: 'faster' when the
    95% interval of the two chosen variants' ratio excludes 1 and the ratio
    is at least 2% from 1, else 'tie'."""
    if abs(ratio - 1) < LEGACY_TIE_WITHIN:
        return "tie"
    if ci is not None and ci[0] <= 1 <= ci[1]:
        return "tie"
    return FASTER
