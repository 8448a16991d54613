"""Judging results: the cells of a result set and their metrics
(cells.py), the statistics a judgement rests on (intervals.py), the score
and its decision rule (score.py), how near a running cell's decisions
are to that rule's margin (closeness.py), the fairness checks
(checks.py) and the audit of a run's conditions (fairness.py), and the
static scan of the timed code (scan.py).

Layer: below run, report, store and crossing, which all judge through it;
above rounds, results, runtimes and measure. It writes no document.
"""
