"""The report's data: a result set grouped as round -> size -> variant ->
Cell (each variant's runs, failures, skip reason and facts at one size),
and each round's metric. The summary, the report and the rounds' own report
hooks (sections, charts) all read these Cells."""

from __future__ import annotations

from collections import OrderedDict
from typing import Optional

from ..results import benchfmt, stats
from .. import rounds
from ..results.textfmt import size_key


class Cell:
    """One variant at one size: its runs, failures and skip reason."""

    def __init__(self, impl: str):
        self.impl = impl
        self.runs: list = []
        self.failures: list = []
        self.killed: list = []  # runs killed at the cell's bound (--- KILLED:)
        self.skip: Optional[str] = None
        self.stop: Optional[str] = None  # why no more runs were made (--- RUNS:)
        self.facts: "OrderedDict" = OrderedDict()  # key -> value, from --- FACT: lines

    def values(self, unit: str) -> list:
        return [r.metrics[unit] for r in self.runs if unit in r.metrics]

    def trials(self, unit: str) -> list:
        """The trial of each of values(unit) (None where its file has no
        --- TRIAL: record for it)."""
        return [r.trial for r in self.runs if unit in r.metrics]

    def summary(self, unit: str) -> Optional[stats.Summary]:
        v = self.values(unit)
        return stats.summarize(v) if v else None

    def median_of(self, unit: str) -> Optional[float]:
        v = self.values(unit)
        return stats.median(v) if v else None

    def cpu_seconds(self, unit: str) -> Optional[float]:
        v = [r.metrics[unit] * max(r.iters, 1) / 1e9 for r in self.runs if unit in r.metrics]
        return stats.median(v) if v else None


def group(rs: benchfmt.ResultSet) -> "OrderedDict":
    """round -> size -> impl -> Cell, in the order first seen."""
    out: OrderedDict = OrderedDict()

    def cell(name: str) -> Cell:
        rnd, params = benchfmt.split_name(name)
        impl = params.get("impl", "?")
        sizes = out.setdefault(rnd, OrderedDict())
        impls = sizes.setdefault(size_key(params), OrderedDict())
        return impls.setdefault(impl, Cell(impl))

    for r in rs.runs:
        cell(r.name).runs.append(r)
    for f in rs.failures:
        cell(f.name).failures.append(f)
    for k in rs.killed:
        cell(k.name).killed.append(k)
    for s in rs.skips:
        cell(s.name).skip = s.reason
    for f in rs.facts:
        cell(f.name).facts[f.key] = f.value
    for st in rs.stops:
        cell(st.name).stop = st.why
    return out


def round_info(name: str):
    try:
        return rounds.get(name)
    except KeyError:
        return None


def metric_for(rnd_name: str, rs: benchfmt.ResultSet):
    info = round_info(rnd_name)
    if info:
        return info.metric, info.units.get(info.metric, rs.units.get(info.metric, "lower")), info
    return "ns/op", "lower", None
