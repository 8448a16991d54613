"""What the report says of runtimes as an axis (runtimes.py): the score of
the age-matched pair beside the newest pair's, whether the verdict changes
between the two, and the Runtimes section (each round's metric by Go
toolchain and by Python interpreter, with the findings written from it).

Every figure here is a median of the rows of one runtime, with its 95%
interval; a ratio between two runtimes is of their medians, with the
bootstrap interval the score uses (intervals.Intervals).
"""

from __future__ import annotations

import datetime
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Optional

from ..results import benchfmt, levels
from ..runtimes import releases
from .. import runtimes
from . import summary
from ..judge import intervals
from ..judge import decide, score
from ..judge.cells import Cell, group, round_info
from ..judge.checks import parse_line
from ..results.textfmt import fmt, size_label
from ..results import charts


@dataclass
class AgeScore:
    """The age-matched pair's score, or why there is none (`note`)."""

    note: str
    pair: str = ""  # "CPython 3.11.7 with Go 1.19.13"
    newest: str = ""  # the newest pair, in the same words
    rows: list = field(default_factory=list)  # score.ScoreRow
    tallies: dict = field(default_factory=dict)
    verdict: str = ""
    age_check: str = ""  # the pair's runtime-age check, in words
    change: str = ""  # whether the verdict changes between the two pairs


def _pair_text(pick: dict, rs: benchfmt.ResultSet) -> str:
    go = pick.get(runtimes.GO) or runtimes.config_go(rs) or "?"
    py = pick.get(runtimes.PYTHON)
    py_text = runtimes.describe(runtimes.PYTHON, py) if py else _config_python(rs)
    return f"{py_text} with Go {go}"


def _config_python(rs: benchfmt.ResultSet) -> str:
    v = runtimes.cpython_of(rs, {})
    return f"CPython {v}" if v else "Python"


def age_score(rs: benchfmt.ResultSet, main_rows: list, rule: Optional[decide.Rule] = None) -> AgeScore:
    """The age-matched pair's score (runtimes.age_matched), computed as
    the main score is, with the verdict's changes against `main_rows` (the
    newest pair's score)."""
    match = runtimes.age_matched(rs)
    newest = runtimes.newest(rs)
    if match.pick is None:
        return AgeScore(note=f"Age-matched pair: {match.why}.")
    v = runtimes.view(rs, match.pick)
    rows = score.score(group(v), v, rule)
    check = ""
    for cfg in reversed(v.configs):
        if "fairness-runtime-age" in cfg:
            status, text, _ = _parse(cfg["fairness-runtime-age"])
            check = f"{text} ({status})"
            break
    out = AgeScore(
        note="",
        pair=_pair_text(match.pick, rs),
        newest=_pair_text(newest, rs),
        rows=rows,
        tallies=score.tallies(rows),
        verdict=summary.verdict(rows, rule),
        age_check=check,
    )
    out.change = verdict_change(main_rows, rows, out.newest, out.pair)
    return out


def _parse(text: str) -> tuple:
    return parse_line(text)


WINNER_WORDS = {"go": "Go", "python": "Python", "equivalent": "equivalent", "inconclusive": "inconclusive"}


def verdict_change(new_rows: list, old_rows: list, new_pair: str, old_pair: str) -> str:
    """Whether the score's verdict changes between two pairs of runtimes:
    the cells whose point changes side, and apart from them the points one
    pair has and the other has not (a variant that runs under one release
    only: a library too new for the older Go, a whole program built with
    the installed Go)."""
    old = {r.label: r for r in old_rows}
    changed, unmatched = [], []
    for r in new_rows:
        o = old.get(r.label)
        for lvl in levels.LEVELS:
            a = r.levels[lvl].winner
            b = o.levels[lvl].winner if o is not None else None
            where = f"{r.label}, {levels.LEVEL_TITLES[lvl].lower()}"
            if a is not None and b is not None and a != b:
                changed.append(f"{where}: {WINNER_WORDS[a]} with {new_pair}, {WINNER_WORDS[b]} with {old_pair}")
            elif (a is None) != (b is None):
                unmatched.append(where)
    if not changed:
        text = (
            f"The verdict does not change between the newest pair ({new_pair}) and the age-matched pair "
            f"({old_pair}): every cell both score goes the same way."
        )
    else:
        shown = changed[:8]
        more = f"; and {len(changed) - 8} more" if len(changed) > 8 else ""
        text = (
            f"The verdict changes between the newest pair ({new_pair}) and the age-matched pair ({old_pair}) in "
            f"{len(changed)} of the cells both score: " + "; ".join(shown) + more + "."
        )
    if unmatched:
        text += (
            f" Scored by one pair only ({len(unmatched)}: a variant that runs under one of the two only, such as a "
            "library too new for the older Go or a whole program built with the installed Go): "
            + "; ".join(unmatched[:6])
            + ("; ..." if len(unmatched) > 6 else "")
            + "."
        )
    return text


# ---- the Runtimes section ----------------------------------------------------------


def by_runtime(rs: benchfmt.ResultSet) -> "OrderedDict":
    """round -> size -> impl -> [(kind, label, Cell)], for the rows that
    name a runtime (each kind in its order: Go oldest first)."""
    out: OrderedDict = OrderedDict()
    cells: dict = {}

    def cell(name: str) -> Optional[Cell]:
        rnd, params = benchfmt.split_name(name)
        rest, rt = runtimes.of_params(params)
        if not rt:
            return None
        impl = rest.pop("impl", "?")
        kind, label = next(iter(rt.items()))
        size = tuple(rest.items())
        key = (rnd, size, impl, kind, label)
        if key not in cells:
            cells[key] = Cell(impl)
            out.setdefault(rnd, OrderedDict()).setdefault(size, OrderedDict()).setdefault(impl, []).append(
                (kind, label, cells[key])
            )
        return cells[key]

    for r in rs.runs:
        c = cell(r.name)
        if c is not None:
            c.runs.append(r)
    for f in rs.failures:
        c = cell(f.name)
        if c is not None:
            c.failures.append(f)
    for s in rs.skips:
        c = cell(s.name)
        if c is not None:
            c.skip = s.reason
    for f in rs.facts:
        c = cell(f.name)
        if c is not None:
            c.facts[f.key] = f.value
    for rnd in out.values():
        for size in rnd.values():
            for rows in size.values():
                rows.sort(key=lambda kl: (kl[0], runtimes.go_key(kl[1]) if kl[0] == runtimes.GO else (0,)))
    return out


def _unit(rnd_name: str, size: tuple, rs: benchfmt.ResultSet) -> tuple:
    unit, better, _ = score.cell_unit(rnd_name, dict(size), rs)
    return unit, better


def _median_text(c: Cell, unit: str) -> str:
    s = c.summary(unit)
    if s is None:
        if c.skip:
            return f"skipped: {c.skip}"
        if c.failures:
            return f"FAILED: {c.failures[-1].reason}"
        return "—"
    ci = f" [{fmt(s.ci_low)}, {fmt(s.ci_high)}]" if s.ci_low is not None else " (too few runs for an interval)"
    return f"{fmt(s.median)}{ci}"


def section(rs: benchfmt.ResultSet, iv: intervals.Intervals, found: list) -> str:
    """The Runtimes section's Markdown: the findings, then per round and
    size each variant's median by runtime, with its interval and its ratio
    to the newest runtime of its kind."""
    table = by_runtime(rs)
    newest = runtimes.newest(rs)
    out = [
        "Each variant that ran under more than one runtime, by Go toolchain (`go=`, oldest first) or Python "
        "interpreter (`python=`): its median with the 95% interval, and its median against the same variant under "
        f"the newest runtime of its kind ({', '.join(runtimes.describe(k, v) for k, v in newest.items())}), "
        "> 1 where it is slower (for a higher-is-better unit, where it does less). The score above compares the "
        "newest pair; the age-matched score beside it, the CPython with the Go release nearest to it in date.\n",
    ]
    if found:
        out.append("Findings:\n")
        out += [f"- {f}" for f in found]
        out.append("")
    out += python_table(rs, iv, table)
    out += gil_table(table)
    for rnd_name, sizes in table.items():
        info = round_info(rnd_name)
        title = info.title if info else rnd_name
        for size, impls in sizes.items():
            unit, better = _unit(rnd_name, size, rs)
            out.append(f"### {title}: {size_label(size)} ({unit}, {better} is better)\n")
            out.append("| variant | runtime | median [95% CI] | × newest |")
            out.append("|---|---|---|---|")
            for impl, rows in impls.items():
                ref = next((c for k, lab, c in rows if newest.get(k) == lab), None)
                ref_m = ref.median_of(unit) if ref is not None else None
                for kind, label, c in rows:
                    m = c.median_of(unit)
                    ratio = "—"
                    if m and ref_m:
                        ratio = f"{(m / ref_m if better == 'lower' else ref_m / m):.3g}"
                    out.append(
                        f"| {impl} | {runtimes.describe(kind, label)} | {_median_text(c, unit).replace('|', '/')} "
                        f"| {ratio} |"
                    )
            out.append("")
    return "\n".join(out) + "\n"


def _python_order(label: str) -> tuple:
    """CPython by version (a build with the GIL before its free-threaded
    twin), then the other interpreters."""
    impl, version = runtimes.python_parts(label)
    return (impl != "cpython", runtimes.go_key(version.rstrip("t")) if impl == "cpython" else (0,), label)


def gil_table(table: dict) -> list:
    """For each variant that ran under a free-threaded interpreter, whether
    the GIL was still off when it ended (the child's `gil` fact: importing a
    library that does not declare Py_mod_gil turns it back on). Markdown
    lines, none when no free-threaded interpreter ran."""
    seen: "OrderedDict" = OrderedDict()  # (label, impl) -> {value: rounds}
    for rnd_name, sizes in table.items():
        for impls in sizes.values():
            for impl, rows in impls.items():
                for kind, label, c in rows:
                    value = c.facts.get("gil")
                    if kind == runtimes.PYTHON and value:
                        seen.setdefault((label, impl), OrderedDict()).setdefault(value, set()).add(rnd_name)
    if not seen:
        return []
    out = [
        "### The GIL under free-threaded interpreters\n",
        "Each variant that ran under a free-threaded CPython, and whether the GIL was still off when its run "
        "ended (`sys._is_gil_enabled()`). The interpreter turns it back on, and warns, when the variant imports "
        "an extension module that does not declare itself free-threading safe (`Py_mod_gil`); its threads then "
        "run one at a time.\n",
        "| interpreter | variant | GIL at the end | rounds |",
        "|---|---|---|---|",
    ]
    for (label, impl), values in seen.items():
        for value, rnds in values.items():
            what = "off" if value == "off" else "**back on** (an unmarked extension)"
            out.append(f"| {runtimes.describe(runtimes.PYTHON, label)} | {impl} | {what} | {', '.join(sorted(rnds))} |")
    out.append("")
    return out


def python_table(rs: benchfmt.ResultSet, iv: intervals.Intervals, table: Optional[dict] = None) -> list:
    """The pure Python figure (variant py) of each round by interpreter, in
    one table: each cell its median and its ratio with the 95% interval to
    the reference, the fastest build of the oldest CPython that ran the
    cell (> 1: slower). Markdown lines, none when fewer than two
    interpreters ran a py cell."""
    table = by_runtime(rs) if table is None else table
    cells = []
    labels: set = set()
    for rnd_name, sizes in table.items():
        for size, impls in sizes.items():
            rows = {lab: c for k, lab, c in impls.get("py", []) if k == runtimes.PYTHON}
            if len(rows) >= 2:
                cells.append((rnd_name, size, rows))
                labels.update(rows)
    if not cells:
        return []
    cols = sorted(labels, key=_python_order)
    out = [
        "### The pure Python figure by interpreter\n",
        "Each round's `py` variant (pure Python, the standard library only) under every interpreter that ran it: "
        "its median, and in brackets its median against the reference's with the 95% interval (> 1 where it is "
        "slower; for a higher-is-better unit, where it does less). The reference (ref) is the fastest build of "
        "the oldest CPython that ran the cell. Interpreters: "
        + "; ".join(runtimes.describe(runtimes.PYTHON, c) for c in cols)
        + ".\n",
        "| round, size | unit | " + " | ".join(runtimes.describe(runtimes.PYTHON, c) for c in cols) + " |",
        "|---|---|" + "---|" * len(cols),
    ]
    for rnd_name, size, rows in cells:
        unit, better = _unit(rnd_name, size, rs)
        sign = 1 if better == "lower" else -1
        cpy = [lab for lab in rows if lab.startswith("cpython-") and rows[lab].median_of(unit)]
        ref = None
        if cpy:
            oldest = min(_python_order(lab)[1][:2] for lab in cpy)
            same = [lab for lab in cpy if _python_order(lab)[1][:2] == oldest]
            ref = min(same, key=lambda lab: sign * rows[lab].median_of(unit))
        texts = []
        for col in cols:
            c = rows.get(col)
            if c is None:
                texts.append("—")
                continue
            m = c.median_of(unit)
            if not m:
                texts.append(_median_text(c, unit).replace("|", "/"))
                continue
            if col == ref:
                texts.append(f"{fmt(m)} (ref)")
                continue
            r = None
            if ref is not None:
                r = _ratio(iv, c, rows[ref], unit) if better == "lower" else _ratio(iv, rows[ref], c, unit)
            texts.append(f"{fmt(m)} ({_ratio_text(r)})" if r else fmt(m))
        info = round_info(rnd_name)
        title = info.name if info else rnd_name
        out.append(f"| {title}: {size_label(size)} | {unit} | " + " | ".join(texts) + " |")
    out.append("")
    return out


def _ratio(iv: intervals.Intervals, a: Cell, b: Cell, unit: str) -> Optional[tuple]:
    """median a / median b with its interval, or None."""
    va, vb = a.values(unit), b.values(unit)
    if not va or not vb:
        return None
    ma, mb = a.median_of(unit), b.median_of(unit)
    if not mb:
        return None
    return ma / mb, iv.ratio_ci(vb, va)


def _ratio_text(r: tuple) -> str:
    ratio, ci = r
    return f"{ratio:.3g}×" + (f" [{ci[0]:.3g}, {ci[1]:.3g}]" if ci else "")


# The rounds the PyPy findings are written for, and the variants compared:
# the pure Python one under each interpreter, and the pure Go one.
PYPY_ROUNDS = ("loop", "jsonl", "aspects", "chain")


def findings(rs: benchfmt.ResultSet, iv: intervals.Intervals) -> list:
    """Findings from the runtime rows: the cgo call's cost by Go version
    (round ffi's go-c), and PyPy against CPython and against Go on the
    rounds PyPy is asked about."""
    out = []
    table = by_runtime(rs)
    newest = runtimes.newest(rs)
    ffi = table.get("ffi", {})
    for impls in ffi.values():
        rows = [(lab, c) for k, lab, c in impls.get("go-c", []) if k == runtimes.GO and c.values("ns/call")]
        if len(rows) >= 2:
            parts = [f"{fmt(c.median_of('ns/call'))} ns with Go {lab}" for lab, c in rows]
            first, last = rows[0], rows[-1]
            r = _ratio(iv, last[1], first[1], "ns/call")
            change = f"; Go {last[0]} against Go {first[0]}: {_ratio_text(r)}" if r else ""
            out.append(f"A cgo call (ffi go-c, loop subtracted) costs {', '.join(parts)}{change}.")
            break
    for rnd_name in PYPY_ROUNDS:
        best = None
        for size, impls in table.get(rnd_name, {}).items():
            unit, better = _unit(rnd_name, size, rs)
            pure_py = impls.get("py") or impls.get("py-asyncio") or []
            pypy = next((c for k, lab, c in pure_py if lab.startswith("pypy")), None)
            cpy = next((c for k, lab, c in pure_py if lab == newest.get(runtimes.PYTHON)), None)
            if pypy is None or not pypy.values(unit):
                continue
            # The cell with the most work (PyPy's longest run): a JIT's figure
            # at a size too small to warm it up says little.
            work = pypy.median_of("ns/op") or 0.0
            if best is None or work > best[0]:
                best = (work, size, impls, unit, better, pypy, cpy)
        if best is None:
            continue
        _, size, impls, unit, better, pypy, cpy = best
        texts = []
        if cpy is not None and cpy.values(unit):
            texts.append(_than(iv, pypy, cpy, unit, better, "CPython's"))
        go_rows = impls.get("go", [])
        go = next((c for k, lab, c in go_rows if lab == newest.get(runtimes.GO)), None)
        if go is None:
            go = _plain_cell(rs, rnd_name, size, "go")
        if go is not None and go.values(unit):
            texts.append(_than(iv, pypy, go, unit, better, "pure Go's"))
        texts = [t for t in texts if t]
        if texts:
            where = f"{rnd_name} ({size_label(size)})"
            out.append(f"PyPy's {pypy.impl} on {where}: " + "; ".join(texts) + " (ratios of medians, 95% interval).")
    return out


# The rounds whose pure Python variant says what an interpreter's build
# costs: integer arithmetic (loop) and a small real program (aspects).
BUILD_ROUNDS = ("loop", "aspects", "jsonl")
# How much slower than the fastest build of its own feature version the
# verdict's CPython may be before the fairness section flags it.
BUILD_SLACK = 0.05


def build_cost(rs: benchfmt.ResultSet, iv: intervals.Intervals, verdict_py: Optional[str] = None) -> Optional[tuple]:
    """The verdict's CPython (the newest pair's) against the other CPython
    builds that ran the same pure Python cells: (status, finding, fix) as a
    fairness line has them, or None when no other CPython ran those cells.
    It warns when the verdict's interpreter is more than BUILD_SLACK slower
    than a build of the same feature version (3.11.7 against 3.11.2) on any
    of the cells, its interval above 1 + BUILD_SLACK; the finding also names
    the fastest build of any version, and any other build that is more than
    BUILD_SLACK slower than one of its own version (the venv's 3.11.7 when
    the verdict runs 3.15). `verdict_py` is the verdict's interpreter key
    when `rs` is a companion run of the builds (make suite's python-builds),
    else the newest CPython of `rs`."""
    verdict_py = verdict_py or runtimes.newest(rs).get(runtimes.PYTHON)
    if verdict_py is None or runtimes.python_parts(verdict_py)[0] != "cpython":
        return None
    feature = ".".join(runtimes.python_parts(verdict_py)[1].split(".")[:2])
    parts, aside, slow = [], [], False
    table = by_runtime(rs)
    for rnd_name in BUILD_ROUNDS:
        for size, impls in table.get(rnd_name, {}).items():
            unit, better = _unit(rnd_name, size, rs)
            rows = {lab: c for k, lab, c in impls.get("py", []) if k == runtimes.PYTHON and c.values(unit)}
            mine = rows.get(verdict_py)
            others = {lab: c for lab, c in rows.items() if lab != verdict_py and lab.startswith("cpython-")}
            if mine is None or not others:
                continue
            sign = 1 if better == "lower" else -1
            same = [lab for lab in others if lab.split("-", 1)[1].startswith(feature + ".")]
            texts = []
            fastest = {}
            for what, group_ in (("same", same), ("any", others)):
                if group_:
                    fastest[what] = min(group_, key=lambda lab: sign * others[lab].median_of(unit))
            if fastest.get("same") == fastest.get("any"):
                fastest.pop("any")
            for what, best in fastest.items():
                label = f"the fastest build of CPython {feature}" if what == "same" else "the fastest of any version"
                if what == "same" and "any" not in fastest:
                    label += ", and of any version"
                group_ = same if what == "same" else others
                r = _ratio(iv, mine, others[best], unit) if better == "lower" else _ratio(iv, others[best], mine, unit)
                if r is None:
                    continue
                texts.append(f"{_ratio_text(r)} against {runtimes.describe(runtimes.PYTHON, best)} ({label})")
                if group_ is same and r[0] > 1 + BUILD_SLACK and r[1] and r[1][0] > 1 + BUILD_SLACK:
                    slow = True
            if texts:
                parts.append(f"{rnd_name} ({size_label(size)}): " + "; ".join(texts))
            aside.extend(_same_version_gaps(iv, rows, verdict_py, unit, better, rnd_name, size))
    if not parts:
        return None
    who = runtimes.describe(runtimes.PYTHON, verdict_py)
    finding = (
        f"{who}, the verdict's, against the other CPython builds that ran the pure py variant (its median over "
        "theirs, > 1 where it is slower; 95% interval): " + "; ".join(parts)
    )
    if aside:
        finding += (
            f"; not the verdict's, a build more than {BUILD_SLACK:.0%} slower than another of its version: "
            + "; ".join(aside)
        )
    if slow:
        fix = "run the Python children with the faster build of the same version: --python PATH (ROUNDBENCH_PYTHON)"
        return "warn", finding, fix
    return "ok", finding, ""


def _same_version_gaps(iv, rows: dict, verdict_py: str, unit: str, better: str, rnd_name: str, size) -> list:
    """For the builds other than the verdict's: each one more than
    BUILD_SLACK slower (its interval too) than the fastest build of its own
    feature version, in words."""
    out = []
    by_feature: dict = {}
    for lab in rows:
        if lab.startswith("cpython-") and lab != verdict_py:
            by_feature.setdefault(".".join(runtimes.python_parts(lab)[1].split(".")[:2]), []).append(lab)
    for lab in rows:
        if lab == verdict_py or not lab.startswith("cpython-"):
            continue
        feature = ".".join(runtimes.python_parts(lab)[1].split(".")[:2])
        peers = [p for p in by_feature.get(feature, []) if p != lab and p.endswith("t") == lab.endswith("t")]
        if not peers:
            continue
        sign = 1 if better == "lower" else -1
        best = min(peers, key=lambda p: sign * rows[p].median_of(unit))
        r = _ratio(iv, rows[lab], rows[best], unit) if better == "lower" else _ratio(iv, rows[best], rows[lab], unit)
        if r is None or not (r[0] > 1 + BUILD_SLACK and r[1] and r[1][0] > 1 + BUILD_SLACK):
            continue
        out.append(
            f"{runtimes.describe(runtimes.PYTHON, lab)} {_ratio_text(r)} against "
            f"{runtimes.describe(runtimes.PYTHON, best)} on {rnd_name} ({size_label(size)})"
        )
    return out


def _than(iv: intervals.Intervals, a: Cell, b: Cell, unit: str, better: str, other: str) -> str:
    """'3.2× [3.1, 3.3] faster than OTHER' or '... slower than OTHER': a
    against b, the winner's ratio with its interval; "" without runs."""
    r = _ratio(iv, a, b, unit)
    if r is None:
        return ""
    ratio, ci = r
    faster = ratio < 1 if better == "lower" else ratio > 1
    shown = 1 / ratio if ratio < 1 else ratio
    lo_hi = None
    if ci:
        lo_hi = (1 / ci[1], 1 / ci[0]) if ratio < 1 else ci
    word = "faster" if faster else "slower"
    if ratio == 1:
        return f"as fast as {other}"
    return f"{_ratio_text((shown, lo_hi))} {word} than {other}"


def _plain_cell(rs: benchfmt.ResultSet, rnd_name: str, size: tuple, impl: str) -> Optional[Cell]:
    """A variant's cell where it ran without a runtime key (the installed Go)."""
    g = group(runtimes.view(rs, {}))
    return g.get(rnd_name, {}).get(size, {}).get(impl)


def go_chart(rs: benchfmt.ResultSet, out_dir) -> list:
    """One picture per round with Go rows under two or more toolchains: its
    metric by Go release date, a line per Go variant, each point with its
    95% interval; the Python variants under each CPython as points at their
    release dates where the release table has them."""

    figs = []
    table = by_runtime(rs)
    for rnd_name, sizes in table.items():
        size, impls = next(iter(sizes.items()))
        go_series = {}
        py_series = {}
        unit, better = _unit(rnd_name, size, rs)
        for impl, rows in impls.items():
            for kind, label, c in rows:
                s = c.summary(unit)
                if s is None:
                    continue
                name = "go" if kind == runtimes.GO else "cpython"
                rel = releases.lookup(name, label if kind == runtimes.GO else runtimes.python_parts(label)[1])
                if rel is None or (kind == runtimes.PYTHON and not label.startswith("cpython")):
                    continue
                x = datetime.datetime.combine(rel.released, datetime.time())
                target = go_series if kind == runtimes.GO else py_series
                target.setdefault(f"{impl} ({runtimes.describe(kind, label).split()[0]})", []).append((x, s))
        if sum(len(p) for p in go_series.values()) < 2 or max((len(p) for p in go_series.values()), default=0) < 2:
            continue
        plt = charts.pyplot()
        fig, ax = plt.subplots(figsize=(7.5, 4.2))
        charts.ci_lines(ax, {**go_series, **py_series})
        charts.log_if_spread(ax, [s.median for pts in go_series.values() for _, s in pts], axis="y")
        ax.set_xlabel("release date of the runtime")
        ax.set_ylabel(f"{unit} ({better} is better)")
        title = f"{rnd_name} by Go release ({size_label(size)})"
        ax.set_title(title)
        ax.legend(fontsize=7)
        fig.autofmt_xdate()
        fig.tight_layout()
        caption = (
            f"{unit} of round {rnd_name}'s Go variants under each Go toolchain that ran, placed at the "
            "toolchain's release date (median and 95% interval); CPython's rows, where present, at theirs."
        )
        figs.append(charts.figure(plt, fig, out_dir, f"runtimes-{rnd_name}", title, caption))
    return figs


AGE_EXPLAIN = (
    "The score above compares the newest Go that ran with the newest CPython. Runtimes released years apart "
    "measure one runtime's newer optimisations as much as the languages, so the same score is made for the "
    "age-matched pair: that CPython with the Go release nearest to it in date (data/releases.tsv)."
)


def age_markdown(age: AgeScore) -> str:
    """The age-matched score as the summary shows it: a note when there is
    none; else its table, tallies, verdict and whether it changes."""
    if age.note:
        return f"*{age.note}*\n"
    out = [f"### Score with runtimes of the same age: {age.pair}\n", AGE_EXPLAIN + "\n"]
    if age.age_check:
        out.append(f"Runtime age of this pair: {age.age_check}.\n")
    if age.rows:
        out.append("| round, size | " + " | ".join(levels.LEVEL_TITLES[lvl] for lvl in levels.LEVELS) + " |")
        out.append("|---|" + "---|" * len(levels.LEVELS))
        for r in age.rows:
            cells = " | ".join(r.levels[lvl].text().replace("|", "/") for lvl in levels.LEVELS)
            out.append(f"| {r.label.replace('|', '/')} | {cells} |")
        out.append("| **total** | " + " | ".join(f"**{age.tallies[lvl].text()}**" for lvl in levels.LEVELS) + " |")
        out.append("")
    out.append(f"**Verdict with {age.pair}.** {age.verdict}\n")
    out.append(f"{age.change}\n")
    return "\n".join(out)


# ---- Go's own build settings -------------------------------------------------------

# The builds of the pure Go variant that Go's own toolchain offers beside the
# default one (GOAMD64=v1, no profile): the round's runner built with PGO, for
# GOAMD64=v3, and with both, where a round declares them.
GO_BUILDS = {
    "go-pgo": "PGO",
    "go-v3": "GOAMD64=v3",
    "go-pgo-v3": "PGO and GOAMD64=v3",
}


def go_build_cost(grouped: dict, rs: benchfmt.ResultSet, iv: intervals.Intervals) -> Optional[tuple]:
    """The Go build check, the counterpart of build_cost for CPython's
    builds: in every cell where the default build of the pure Go variant
    (`go`) ran beside a build of the same Go release with the toolchain's
    own options (GO_BUILDS), the default's median over the fastest build's
    (> 1 where the default is slower), with its 95% interval. (status,
    finding, fix) as a fairness line has them, or None where no cell ran
    both. The verdict's "language alone" takes the fastest of them, since
    each is the standard toolchain's; the check says what the default
    would have cost, and warns where a build it takes is more than
    BUILD_SLACK slower than the default (a profile that hurts)."""
    parts, hurts = [], []
    for rnd_name, sizes in grouped.items():
        for size, cells in sizes.items():
            plain = cells.get("go")
            if plain is None:
                continue
            unit, better = _unit(rnd_name, size, rs)
            built = {k: cells[k] for k in GO_BUILDS if k in cells and cells[k].values(unit)}
            if not plain.values(unit) or not built:
                continue
            sign = 1 if better == "lower" else -1
            best = min(built, key=lambda k: sign * built[k].median_of(unit))
            r = _ratio(iv, plain, built[best], unit) if better == "lower" else _ratio(iv, built[best], plain, unit)
            if r is None:
                continue
            others = [
                f"{GO_BUILDS[k]} {_ratio_text(x)}"
                for k in built
                if k != best
                for x in [_ratio(iv, plain, built[k], unit) if better == "lower" else _ratio(iv, built[k], plain, unit)]
                if x is not None
            ]
            text = f"{rnd_name} ({size_label(size)}): {_ratio_text(r)} against {best} ({GO_BUILDS[best]})"
            if others:
                text += " (" + "; ".join(others) + ")"
            parts.append(text)
            for k in built:
                x = _ratio(iv, plain, built[k], unit) if better == "lower" else _ratio(iv, built[k], plain, unit)
                if x is not None and x[1] and x[1][1] < 1 / (1 + BUILD_SLACK):
                    hurts.append(f"{rnd_name} {k}")
    if not parts:
        return None
    go = (rs.configs[-1].get("go-version") if rs.configs else None) or "the run's Go"
    finding = (
        f"{go}'s default build (GOAMD64=v1, no profile) against its fastest build with the toolchain's own "
        "options, which the language-alone level takes (the default's median over that build's, > 1 where the "
        "default is slower; 95% interval): " + "; ".join(parts)
    )
    if hurts:
        finding += f"; slower than the default by more than {BUILD_SLACK:.0%}: " + ", ".join(hurts)
        return "warn", finding, "refresh the profiles (make pgo-profiles) or leave that build out"
    return "ok", finding, ""
