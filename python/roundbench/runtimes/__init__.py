"""What the rounds run under: the Python interpreters (interp.py) and Go
toolchains (gotoolchains.py), how the extension is built for another
interpreter (extbuild.py), where the child programs are and how they are
built (programs.py, from the build table, buildtable.py), and the release
dates of both (releases.py). This module is the runtime axis of the
results, below.

Layer: below rounds, beside measure and pure; imports only results and
errors.

Runtimes as an axis: which Go toolchain and which Python interpreter a
result was measured under.

`roundbench run --go 1.20 --go 1.26 --python .venv/bin/python --python
pypy3` runs every Go variant that a Go runner runs under each toolchain,
and every Python variant under each interpreter, as rows of their own. A
result's name then carries the runtime as its own key, after the variant:

    BenchmarkFfi/impl=go-c/go=1.20.14/n=1000000
    BenchmarkLoop/impl=py/python=pypy-7.3.11/n=20000000

so that `benchstat -col /go` splits by toolchain. A run without `--go` or
`--python` names none, as before.

The report reads such a file through views (`view`): one runtime of each
kind, the keys taken out of the names, so that every table and the score
compare one Go with one Python, as in a plain run. Its main view is the
newest pair (`newest`): the newest Go that ran and the newest CPython (the
first interpreter given when no CPython ran). The age-matched pair
(`age_matched`) is that CPython with the Go release nearest to it in date
(data/releases.tsv): the report scores it beside the newest pair when that
Go ran. The Runtimes section reads every row.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional

from ..results import benchfmt
from . import releases

GO = "go"
PYTHON = "python"
KEYS = (GO, PYTHON)


@dataclass(frozen=True)
class Runtime:
    """One runtime of the axis: `kind` GO or PYTHON; `label` is the key's
    value in result names ("1.20.14", "pypy-7.3.11"); `where` is what runs
    it (the Go version the toolchain is fetched by, the interpreter's
    path); `default`: the runtime a run without the axis would use (the
    installed Go, the runner's own Python)."""

    kind: str
    label: str
    where: str
    default: bool = False

    def key(self) -> str:
        return f"{self.kind}={self.label}"


def of_params(params: dict) -> tuple:
    """A result name's parameters split into (the rest, {kind: label})."""
    rest = {k: v for k, v in params.items() if k not in KEYS}
    return rest, {k: params[k] for k in KEYS if k in params}


def split_runtime(name: str) -> tuple:
    """A result name without its runtime keys, and those keys: (name, {kind: label})."""
    base, *parts = name.split("/")
    kept, found = [], {}
    for p in parts:
        k, sep, v = p.partition("=")
        if sep and k in KEYS:
            found[k] = v
        else:
            kept.append(p)
    return "/".join([base, *kept]), found


def _names(rs: benchfmt.ResultSet) -> list:
    return (
        [r.name for r in rs.runs]
        + [f.name for f in rs.failures]
        + [s.name for s in rs.skips]
        + [s.name for s in rs.stops]
    )


def _labels(names) -> dict:
    """kind -> the runtime labels the names carry, in the order first seen."""
    out: dict = {}
    for name in names:
        for k, v in split_runtime(name)[1].items():
            labels = out.setdefault(k, [])
            if v not in labels:
                labels.append(v)
    return out


def present(rs: benchfmt.ResultSet) -> dict:
    """kind -> the labels that ran (that have a run), Go newest first,
    Python in the order first seen; kinds that have none are absent."""
    out = _labels(r.name for r in rs.runs)
    if GO in out:
        out[GO].sort(key=go_key, reverse=True)
    return out


def mentioned(rs: benchfmt.ResultSet) -> dict:
    """kind -> every label a line names (runs, failures, skips)."""
    return _labels(_names(rs))


def go_key(label: str) -> tuple:
    """'1.20.14' -> (1, 20, 14), for sorting; unparsable labels sort first."""
    nums = re.findall(r"\d+", label)
    return tuple(int(n) for n in nums[:3]) or (0,)


def python_parts(label: str) -> tuple:
    """'cpython-3.11.7' -> ('cpython', '3.11.7'); 'pypy-7.3.11' -> ('pypy', '7.3.11')."""
    impl, _, version = label.partition("-")
    return impl, version


INTERPRETERS = {"cpython": "CPython", "pypy": "PyPy"}


def describe(kind: str, label: str) -> str:
    """'go', '1.20.14' -> 'Go 1.20.14'; 'python', 'pypy-7.3.11' -> 'PyPy 7.3.11'."""
    if kind == GO:
        return f"Go {label}"
    impl, version = python_parts(label)
    return f"{INTERPRETERS.get(impl, impl)} {version}".strip()


def newest(rs: benchfmt.ResultSet) -> dict:
    """The newest pair of the runtimes that ran: kind -> label (a kind that
    never varied is absent)."""
    return newest_of(present(rs))


def newest_of(have: dict) -> dict:
    """The newest pair among labels (kind -> [label]): the newest Go, the
    newest CPython, else the first interpreter."""
    pick = {}
    if have.get(GO):
        pick[GO] = max(have[GO], key=go_key)
    pys = have.get(PYTHON, [])
    if pys:
        cpython = [p for p in pys if python_parts(p)[0] == "cpython"]
        pick[PYTHON] = max(cpython, key=lambda p: go_key(python_parts(p)[1])) if cpython else pys[0]
    return pick


@dataclass(frozen=True)
class AgeMatch:
    """The age-matched pair of a result set: the CPython the newest pair
    uses and the Go release nearest to it in date. `pick` is the view's
    selection (kind -> label) when that Go ran, else None; `why` says what
    the pair is or why it has no view."""

    pick: Optional[dict]
    why: str
    cpython: str = ""
    go_feature: str = ""
    days: int = 0


# The Go release of the published comparison the claims table checks.
PUBLISHED_GO = "1.22"


def matrix_go(cpython_versions: list, newest: str) -> list:
    """make matrix's Go releases (feature versions, each once): the one
    nearest in date to each CPython (1.19 for 3.11), the published
    comparison's (PUBLISHED_GO) and `newest` (the newest the proxy serves)."""
    out = []
    for version in cpython_versions:
        near = nearest_go(version)
        if near:
            out.append(near[0])
    out.append(PUBLISHED_GO)
    out.append(".".join(newest.split(".")[:2]))
    return sorted(set(out), key=lambda v: tuple(int(p) for p in v.split(".")))


def nearest_go(cpython_version: str) -> Optional[tuple]:
    """The Go feature release nearest in date to CPython `cpython_version`'s
    ('3.11.7' -> ('1.19', 83): Go 1.19, 83 days from CPython 3.11), or None
    when the release table lacks that CPython."""
    py = releases.lookup("cpython", cpython_version)
    if py is None:
        return None
    gos = [r for (name, _), r in releases.table().items() if name == "go"]
    if not gos:
        return None
    best = min(gos, key=lambda r: (abs((r.released - py.released).days), r.released))
    return best.version, abs((best.released - py.released).days)


def cpython_of(rs: benchfmt.ResultSet, pick: dict) -> Optional[str]:
    """The CPython version the Python side of `pick` ran under: its label's,
    or (for a run without the Python axis) the provenance's."""
    label = pick.get(PYTHON)
    if label is not None:
        impl, version = python_parts(label)
        return version if impl == "cpython" else None
    for cfg in reversed(rs.configs):
        text = cfg.get("python", "")
        m = re.search(r"CPython (\d+\.\d+\.\d+)", text)
        if m:
            return m.group(1)
    return None


def config_go(rs: benchfmt.ResultSet) -> Optional[str]:
    """The installed Go's release a result set names in its provenance
    (go-version: go1.26.8 -> '1.26.8'), or None."""
    for cfg in reversed(rs.configs):
        m = re.match(r"go(\d+\.\d+(?:\.\d+)?)", cfg.get("go-version", ""))
        if m:
            return m.group(1)
    return None


def age_matched(rs: benchfmt.ResultSet) -> AgeMatch:
    """The age-matched pair (module doc): its view's selection when the
    Go release nearest to the newest pair's CPython ran, else why not."""
    main = newest(rs)
    cpython = cpython_of(rs, main)
    if cpython is None:
        return AgeMatch(None, "no CPython ran, so there is no age-matched pair")
    near = nearest_go(cpython)
    if near is None:
        return AgeMatch(None, f"CPython {cpython} is not in the release table (data/releases.tsv)", cpython)
    feature, days = near
    gos = [g for g in present(rs).get(GO, []) if releases.feature(g) == feature]
    if not gos:
        return AgeMatch(
            None,
            f"the Go release nearest to CPython {releases.feature(cpython)} is Go {feature} ({days} days apart), "
            f"which did not run here (`make matrix` runs it; or `roundbench run --go {feature} --go "
            f"{releases.feature(main.get(GO) or config_go(rs) or '') or 'X.Y'}`)",
            cpython,
            feature,
            days,
        )
    pick = dict(main)
    pick[GO] = gos[0]
    return AgeMatch(
        pick,
        f"CPython {cpython} with Go {gos[0]}, the Go release nearest to it in date ({days} days apart)",
        cpython,
        feature,
        days,
    )


def _keep(name: str, pick: dict) -> Optional[str]:
    """The name in the view of `pick`, or None when it belongs to another
    runtime."""
    base, found = split_runtime(name)
    for k, v in found.items():
        if pick.get(k, v) != v:
            return None
    return base


def view(rs: benchfmt.ResultSet, pick: dict) -> benchfmt.ResultSet:
    """The results of one runtime of each kind in `pick` (kind -> label),
    with the runtime keys taken out of the names; a line that names no
    runtime of a kind (a C variant) is in every view. The provenance says
    which runtimes the view holds, and its runtime-age check is made again
    for them."""
    if not pick and not mentioned(rs):
        return rs
    out = benchfmt.ResultSet(units=dict(rs.units), ends=list(rs.ends), bad_lines=list(rs.bad_lines))
    for attr in ("runs", "failures", "skips", "facts", "stops"):
        kept = []
        for item in getattr(rs, attr):
            name = _keep(item.name, pick)
            if name is not None:
                kept.append(dataclasses.replace(item, name=name))
        setattr(out, attr, kept)
    out.configs = [_view_config(cfg, pick) for cfg in rs.configs]
    return out


def _view_config(cfg: dict, pick: dict) -> dict:
    cfg = dict(cfg)
    if not pick:
        return cfg
    cfg["runtimes-shown"] = ", ".join(describe(k, v) for k, v in pick.items())
    go = pick.get(GO)
    if go is not None:
        cfg["go-version"] = f"go{go}"
    label = pick.get(PYTHON)
    py = python_parts(label) if label else None
    if go is None or "fairness-runtime-age" not in cfg:
        return cfg
    if py is None:
        m = re.search(r"CPython (\d+\.\d+\.\d+)", cfg.get("python", ""))
        py = ("cpython", m.group(1)) if m else None
    if py is None or py[0] != "cpython":
        cfg["fairness-runtime-age"] = f"info: {describe(PYTHON, label or '')} has no release date to compare with Go's"
    else:
        status, text, fix = releases.age_check(
            ("cpython", py[1]),
            ("go", go),
            {"cpython": "run the Python children with a newer CPython: --python PATH", "go": "--go a newer Go"},
        )
        cfg["fairness-runtime-age"] = f"{status}: {text}" + (f" (fix: {fix})" if fix else "")
    return cfg


def views(rs: benchfmt.ResultSet) -> list:
    """Every combination of the runtimes that ran, as (pick, view), the
    newest pair first."""
    have = present(rs)
    main = newest(rs)
    combos = [{}]
    for kind in KEYS:
        labels = have.get(kind)
        if not labels:
            continue
        combos = [{**c, kind: label} for c in combos for label in labels]
    combos.sort(key=lambda c: c != main)
    return [(c, view(rs, c)) for c in combos]


def matches(label: str, want: str, kind: str) -> bool:
    """Whether a runtime label is the one a claim names: a Go feature
    release ('1.26') names every patch release of it; 'pypy' or 'cpython'
    names every version of that interpreter; else the label itself."""
    if label == want:
        return True
    if kind == GO:
        return releases.feature(label) == want or label.startswith(want + ".")
    impl, version = python_parts(label)
    return want == impl or want == f"{impl}-{releases.feature(version)}"
