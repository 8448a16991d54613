"""From a selection of the store to what the pages read: the verdict's
settings (one per machine and runtime pair) and the trends' series.

A setting is a machine (fingerprint) with a Go release and a Python
interpreter. A run with the runtime axis (`make matrix`) gives one setting
per pair that ran in it (runtimes.views). When several runs give the same
setting, the newest is the one shown and the others are named beside it
(`Settings.older`): pooling runs of different days would narrow intervals
that the machine's drift does not narrow.

A series is (round, variant, size, the runtime that variant runs under,
machine, unit): each run that measured it gives one point, that run's
samples in the round's metric (compare.primary_unit). A C variant's series
does not depend on the Go or Python release of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .. import rounds, runtimes
from ..report import compare
from ..results import benchfmt
from . import ingest, query, trends, verdict
from .db import Store


@dataclass
class Settings:
    shown: list  # verdict.Setting, oldest run first
    older: dict = field(default_factory=dict)  # setting key -> [source of a run not shown]
    left_out: list = field(default_factory=list)  # (source, why) of runs that give no setting


def _cpu_short(run: query.Run) -> str:
    ident = run.cpu_id.split(";")[0]
    parts = ident.split()
    fam = dict(zip(parts[1::2], parts[2::2])) if len(parts) > 2 else {}
    tag = f" {fam['family']}/{fam['model']}" if "family" in fam and "model" in fam else ""
    return f"{run.cpu}{tag}"


def result_set(store: Store, run: query.Run, terms: query.Terms) -> benchfmt.ResultSet:
    text = query.section_text(store, run, terms)
    return benchfmt.parse_lines(text.splitlines(keepends=True), source=run.source)


def settings(store: Store, terms: query.Terms) -> Settings:
    out = Settings([])
    by_key: dict = {}
    for run in query.runs(store, terms):
        rs = result_set(store, run, terms)
        langs = {rounds.language(benchfmt.split_name(r.name)[1].get("impl", "")) for r in rs.runs}
        if not {"go", "py"} <= langs:
            out.left_out.append((run.source, "it has results of only one language"))
            continue
        for pick, view in runtimes.views(rs):
            go = pick.get(runtimes.GO) or run.go
            py = pick.get(runtimes.PYTHON) or run.python
            go = go if go.startswith("go") else f"go{go}"
            cfg: dict = {}
            for c in view.configs:
                cfg.update(c)
            label = f"{_cpu_short(run)} [{run.machine[:6]}] · {go} · {py}"
            s = verdict.Setting(label, run.machine, go, py, cfg, view, run.source + f" ({run.date})")
            key = (run.machine, go, py)
            if key in by_key:
                out.older.setdefault(key, []).append(by_key[key].source)
            by_key[key] = s
    out.shown = list(by_key.values())
    return out


def series(store: Store, terms: query.Terms) -> list:
    """trends.Series of the selection, each with its points in date order."""
    found: dict = {}
    for run in query.runs(store, terms):
        rs = result_set(store, run, terms)
        units = {}
        for r in rs.runs:
            units.setdefault(r.name, set()).update(r.metrics)
        samples: dict = {}
        for r in rs.runs:
            rnd, params = benchfmt.split_name(r.name)
            impl = params.get("impl", "")
            unit = compare.primary_unit(r.name, units[r.name])
            if unit not in r.metrics:
                continue
            lang = rounds.language(impl)
            if lang == "go":
                rt = f"go {params.get(runtimes.GO) or run.go}"
            elif lang == "py":
                rt = f"python {params.get(runtimes.PYTHON) or run.python}"
            else:
                rt = ""
            size = "/".join(f"{k}={v}" for k, v in params.items() if k not in ("impl", runtimes.GO, runtimes.PYTHON))
            key = (rnd, impl, size, run.machine, rt, unit)
            samples.setdefault(key, []).append(r.metrics[unit])
        for key, values in samples.items():
            rnd, impl, size, machine, rt, unit = key
            better = rs.units.get(unit) or compare.default_better(unit)
            s = found.get(key)
            if s is None:
                s = found[key] = trends.Series(rnd, impl, size, machine, rt, unit, better, [])
            s.points.append(trends.Point(run.date, values, run.source))
    out = list(found.values())
    for s in out:
        s.points.sort(key=lambda p: p.date)
    out.sort(key=lambda s: (s.machine, s.round, s.size, s.variant, s.runtimes, s.unit))
    return out


def earlier_run(store: Store, rs: benchfmt.ResultSet) -> Optional[benchfmt.ResultSet]:
    """The newest stored run of the same settings as result set rs, on the
    same machine: the same machine fingerprint, Go release, interpreter,
    rounds, --quick and --sizes, dated before rs and not rs itself; None when the
    store holds none. The suite's report holds its outcomes to it
    (repeatability)."""
    cfg: dict = {}
    for c in rs.configs:
        cfg.update(c)
    machine = ingest.machine_of(cfg)["fingerprint"]
    go, py = ingest.go_of(cfg), ingest.python_of(cfg)
    names = sorted({ingest.split(i.name)[0] for i in (*rs.runs, *rs.failures, *rs.skips)})
    date = cfg.get("date", "")
    found = None
    for run in query.runs(store, query.Terms()):
        same = (
            run.machine,
            run.go,
            run.python,
            run.rounds.split(),
            run.config.get("quick"),
            run.config.get("sizes"),
        ) == (
            machine,
            go,
            py,
            names,
            cfg.get("quick"),
            cfg.get("sizes"),
        )
        if same and run.date < date:
            found = run
    return result_set(store, found, query.Terms()) if found is not None else None
