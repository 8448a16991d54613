"""`roundbench report DIR`: result files in, report.md and report.html out.

build() turns a result set into a Document: the summary first (summary.py:
the run, its fairness warnings, the score by level, the headline
findings), the published claims checked (claims.py), then one Section per
round (per size: a table of the variants with their statistics (stats.py),
the round's own section, the cost of the crossing (py-c and go-c against c),
the score at that size, failures and variants that could not run), the
provenance and every fairness check. draw() adds the pictures (charts.py);
render_markdown() and render_html() (one Jinja2 template,
templates/report.html.j2) are two renderings of the same Document. Every
column is explained in the report itself.
"""

from __future__ import annotations

import base64
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..results import benchfmt, levels, stats
from . import runtime_axis, scorechanges, summary
from ..judge import checks
from ..judge import intervals
from ..judge import decide, score
from .. import rounds, runtimes
from ..judge.cells import group, metric_for
from ..results.textfmt import fmt, fmt_bytes, fmt_unit, size_label
from . import claims
from ..results import charts

COLUMNS = [
    (
        "variant",
        "the implementation (c: the C core; py-c, go-c: Python or Go calling it; py, go: the language alone; "
        "-published: a published program as published, shown beside the fair variant, never scored)",
    ),
    ("mean ± σ", "mean of the runs and their sample standard deviation, in the round's metric"),
    (
        "median [95% CI]",
        "median of the runs and its distribution-free 95% confidence interval (order statistics; needs 6 runs or more)",
    ),
    ("min", "the best run"),
    (
        "× best",
        "median divided by the best variant's median "
        "(1.00 is the best; for higher-is-better metrics, best divided by median)",
    ),
    ("× c", "the same against the C core's own variant, the ceiling"),
    ("peak RSS", "median peak resident memory of the child process, from wait4"),
    (
        "user / sys CPU",
        "median user and system CPU seconds of the whole child process "
        "(start-up, set-up and checks included), from wait4",
    ),
    (
        "runs",
        "runs that succeeded / runs attempted, and why no more were made: converged (the median's 95% CI "
        "within ±2% of it), the cell's budget spent (the seconds beyond the minimum runs that a cell's variants "
        "share, cheap runs many and costly ones few), the run's time budget spent, the most runs reached, no "
        "extra runs (a cell that decides no point), or a failure; then the outliers among them, runs beyond "
        f"{stats.OUTLIER_IQR:g} interquartile ranges from the quartiles (counted, kept in every figure, not a flag)",
    ),
    (
        "flag",
        f"unstable: the median's 95% CI reaches more than ±{stats.UNSTABLE_CI * 100:g}% from the median, so the "
        f"median is not pinned down; with fewer than {stats.CI_MIN_RUNS} runs there is no interval and no flag "
        "(too few runs for an interval); FAILED: see the failures below",
    ),
]


def _section(rnd_name: str, section, size: tuple, cells: dict, config: dict) -> str:
    """A round's own report section; a section that fails says so in the
    report instead of taking the whole report down with it."""
    try:
        return section(dict(size), cells, config)
    except Exception as e:  # noqa: BLE001 - any bug in a round's hook
        return f"**The {rnd_name} round's own section failed: {type(e).__name__}: {e}** (the tables above stand)\n"


def _scan_kinds(config: dict, rnd_name: str, impl: str) -> str:
    """'print, sleep': the kinds of trick the scan found in a variant's code."""
    text = config.get(f"scan-{rnd_name}/{impl}")
    if not text:
        return ""
    return ", ".join(sorted({item.split(" ", 1)[0] for item in text.split("; ")}))


def _stop_label(why: Optional[str]) -> str:
    """' (converged)', ' (budget of 60 s spent)'...: the first clause of a
    --- RUNS: reason, beside the run count."""
    if not why or why == "fixed":
        return ""
    return f" ({why.split(':')[0]})"


def _outlier_label(count: int) -> str:
    """', 1 outlier' beside the run count (stats.outliers)."""
    if not count:
        return ""
    return f", {count} outlier" + ("s" if count > 1 else "")


def _ratio(value: Optional[float], ref: Optional[float], better: str) -> Optional[float]:
    if value is None or ref is None or value == 0 or ref == 0:
        return None
    return value / ref if better == "lower" else ref / value


def _best(cells: list, unit: str, better: str):
    scored = [(c.median_of(unit), c) for c in cells]
    scored = [(m, c) for m, c in scored if m is not None]
    if not scored:
        return None, None
    pick = min if better == "lower" else max
    m, c = pick(scored, key=lambda mc: mc[0])
    return m, c


# A variant's runs are reported as heavy-tailed when its slowest finished
# run is this many times its median, or a run was killed at its cell's bound.
TAIL_RATIO = 3.0


def _tail_lines(rnd_name: str, info, ordered: list, unit: str) -> list:
    """A result, not a failure: each variant of the cell whose runs are
    heavy-tailed (TAIL_RATIO) or had a run killed at the cell's bound
    (run/policy.py, BOUND_FACTOR), with its runs' distribution, the killed runs,
    and the round's reason for the tail where it declares one
    (Round.tails)."""
    out = []
    for c in ordered:
        walls = sorted(r.metrics["ns/op"] * max(r.iters, 1) / 1e9 for r in c.runs if "ns/op" in r.metrics)
        vals = sorted(c.values(unit))
        if not vals:
            continue
        med = stats.median(vals)
        heavy = med > 0 and vals[-1] >= TAIL_RATIO * med
        if not (heavy or c.killed):
            continue
        q = ", ".join(fmt_unit(v, unit) for v in vals)
        text = f"- **{c.impl} is heavy-tailed here**: its {len(vals)} finished runs ({unit}, sorted): {q}"
        if heavy:
            text += f"; the slowest is {vals[-1] / med:.3g}x the median"
        if walls:
            text += f"; the timed work took {walls[0]:.3g} s to {walls[-1]:.3g} s"
        out.append(text + ".")
        for k in c.killed:
            out.append(f"  - run {k.run} {k.reason}; its median and interval are over the runs that finished")
        why = info.tails.get(c.impl) if info is not None else None
        if why:
            out.append(f"  - why: {why}")
    if out:
        out.insert(
            0, "Heavy tails (a result: the distribution of each run's figure, and runs stopped at the cell's bound):\n"
        )
        out.append("")
    return out


def _facts_round(w, rnd_name: str, size: tuple, cells: dict, ordered: list, config: dict) -> None:
    """A round of facts (Round.facts): its own section, then what did not run."""
    section = rounds.hook(rnd_name, "report_section")
    if section:
        w(_section(rnd_name, section, size, cells, config))
    for c in ordered:
        if c.skip:
            w(f"- {c.impl}: not run: {c.skip}")
        for f in c.failures:
            w(f"- {c.impl}: FAILED: {f.reason}")
            for d in f.detail[-6:]:
                w(f"    `{d}`")
    w("")


def _score_lines(row: Optional["score.ScoreRow"], info, unit: str) -> list:
    """The score by level of one round and size, for its section: the
    same points as the summary's table, with the memory behind a
    concurrency round's times and the models a point goes across."""
    out = []
    if row is not None:
        parts = [f"{levels.LEVEL_TITLES[lvl]}: {row.levels[lvl].text()}" for lvl in levels.LEVELS]
        out.append(f"Score at this size (Go against Python, by {unit}): " + "; ".join(parts) + ".\n")
    for lvl in levels.LEVELS:
        cell = row.levels[lvl] if row is not None else None
        if cell is None or cell.point is None or info is None or not info.models:
            continue
        go, py = cell.point.a, cell.point.b
        mem = (
            f"{go.impl}: peak RSS {fmt_bytes(go.cell.median_of('peak-B'))}, "
            f"{py.impl}: peak RSS {fmt_bytes(py.cell.median_of('peak-B'))}"
        )
        across = ""
        pm, gm = info.models.get(py.impl), info.models.get(go.impl)
        if pm and gm and pm != gm:
            across = (
                f" The point goes across concurrency models: {rounds.MODELS[pm]} ({py.impl}) "
                f"against {rounds.MODELS[gm]} ({go.impl})."
            )
        out.append(f"Memory beside the times ({levels.LEVEL_TITLES[lvl]}): {mem}.{across}\n")
    return out


def _round_section(rnd_name: str, sizes: dict, rs: benchfmt.ResultSet, config: dict, score_rows: dict) -> "Section":
    """One round's section: per size its table, scan findings, the round's
    own section, the crossing's cost, its score and its failures."""
    out = []
    w = out.append
    unit, better, info = metric_for(rnd_name, rs)
    title = info.title if info else rnd_name
    if info:
        w(f"{info.explain} Metric: {info.metric_explain} ({better} is better).\n")
    ref_name = info.reference if info else "c"
    for size, cells in sizes.items():
        w(f"### {rnd_name}: {size_label(size)}\n")
        order = [v.name for v in info.variants] if info else []
        ordered = sorted(cells.values(), key=lambda c: order.index(c.impl) if c.impl in order else len(order))
        if info and info.facts:
            _facts_round(w, rnd_name, size, cells, ordered, config)
            continue
        best_m, best_c = _best(ordered, unit, better)
        ref = cells.get(ref_name)
        ref_m = ref.median_of(unit) if ref else None
        extra = list(info.columns) if info else []
        w(
            f"| variant | what | mean ± σ ({unit}) | median [95% CI] | min | × best | × {ref_name} | "
            + "".join(f"{h} | " for _, h in extra)
            + "peak RSS | user / sys CPU | runs | flag |"
        )
        w("|---|---|---|---|---|---|---|" + "---|" * len(extra) + "---|---|---|---|")
        for c in ordered:
            what = ""
            if info:
                try:
                    what = info.variant(c.impl).explain
                except KeyError:
                    pass
                if c.impl in info.models:
                    what = f"[{info.models[c.impl]}] {what}"
            s = c.summary(unit)
            attempted = len(c.runs) + len(c.failures) + len(c.killed)
            if s is None:
                why = c.skip or (c.failures[-1].reason if c.failures else "no runs")
                label = "not run" if c.skip else "FAILED"
                w(
                    f"| {c.impl} | {what} | {label}: {why} | | | | | "
                    + "| " * len(extra)
                    + f"| | 0/{attempted} | {label} |"
                )
                continue
            ci = f"[{fmt(s.ci_low)}, {fmt(s.ci_high)}]" if s.ci_low is not None else "[n<6]"
            flags = []
            if s.unstable:
                flags.append("unstable")
            elif s.ci_low is None:
                flags.append("too few runs for an interval")
            if c.failures:
                flags.append(f"FAILED {len(c.failures)}")
            if c.killed:
                flags.append(f"killed {len(c.killed)} at the cell's bound (see below)")
            scanned = _scan_kinds(config, rnd_name, c.impl)
            if scanned:
                flags.append(f"**scan: {scanned}**")
            user, sys_ = c.cpu_seconds("user-ns/op"), c.cpu_seconds("sys-ns/op")
            w(
                f"| {c.impl} | {what} | {fmt(s.mean)} ± {fmt(s.sd, 2)} | {fmt(s.median)} {ci} | {fmt(s.min)} | "
                f"{fmt(_ratio(s.median, best_m, better), 3)} | {fmt(_ratio(s.median, ref_m, better), 3)} | "
                + "".join(f"{fmt_unit(c.median_of(u), u)} | " for u, _ in extra)
                + f"{fmt_bytes(c.median_of('peak-B'))} | {fmt(user, 3)} s / {fmt(sys_, 3)} s | "
                f"{len(c.runs)}/{attempted}{_stop_label(c.stop)}{_outlier_label(s.outliers)} | {' '.join(flags)} |"
            )
        w("")
        hits = [(c.impl, config[f"scan-{rnd_name}/{c.impl}"]) for c in ordered if f"scan-{rnd_name}/{c.impl}" in config]
        if hits:
            w("What the static scan of the timed code found (fairness section; scan.py):\n")
            for impl, text in hits:
                w(f"- **{impl}**: {text}")
            w("")
        # A round may add its own section (e.g. matmul's BLAS per variant).
        section = rounds.hook(rnd_name, "report_section") if info else None
        if section:
            w(_section(rnd_name, section, size, cells, config))
        # The crossing: what calling the core from Python or Go adds.
        if ref_m is not None and ref_name == "c" and (info is None or info.binding_overhead):
            lines = []
            for b in ("py-c", "go-c"):
                if b in cells and cells[b].median_of(unit) is not None:
                    d = cells[b].median_of(unit) - ref_m
                    lines.append(f"{b} − c = {d:+.3g} {unit} ({d / ref_m * 100:+.1f}%)")
            if lines:
                w("Binding overhead (median minus the C core's median): " + "; ".join(lines) + ".\n")
        if info is None or info.scored:
            row = score_rows.get((rnd_name, size_label(size)))
            for line in _score_lines(row, info, row.unit if row is not None else unit):
                w(line)
        for line in _tail_lines(rnd_name, info, ordered, unit):
            w(line)
        fails = [(c.impl, f) for c in ordered for f in c.failures]
        if fails:
            w("Failed runs:\n")
            for impl, f in fails:
                w(f"- {impl}, run {f.run}: {f.reason}")
                for d in f.detail[-6:]:
                    w(f"    `{d}`")
            w("")
    return Section(f"round-{rnd_name}", title, "\n".join(out), round=rnd_name)


@dataclass
class Section:
    """A part of the report after the summary: its body is Markdown, which
    the HTML renders with markdown-it."""

    id: str
    title: str
    markdown: str
    round: Optional[str] = None
    figures: list = field(default_factory=list)


@dataclass
class Document:
    """Everything the report says; report.md and report.html are two
    renderings of it."""

    source: str
    info: summary.RunInfo
    verdict: str
    score: list  # score.ScoreRow
    tallies: dict  # level -> score.Tally
    findings: list  # summary.Finding
    claims: list  # claims.Checked
    claim_counts: dict
    sections: list  # Section
    figures: list = field(default_factory=list)  # charts.Figure: the summary's pictures
    notes: list = field(default_factory=list)  # what the report could not do here, and why
    grouped: dict = field(default_factory=dict, repr=False)  # group(results), for the pictures
    results: Optional[benchfmt.ResultSet] = field(default=None, repr=False)
    # Runtimes as an axis (runtimes.py): the age-matched pair's score, and
    # every row, the other runtimes' included (results holds the newest pair's).
    age: Optional[runtime_axis.AgeScore] = None
    all_results: Optional[benchfmt.ResultSet] = field(default=None, repr=False)
    # A placebo run's false decisions (run/placebo.py), in words; "" otherwise.
    placebo: str = ""
    # The outcomes held to an earlier run of the same settings on this
    # machine (`earlier`), in words; "" without one.
    repeatability: str = ""


# make suite's companion run: the pure py loop and aspects cells under every
# CPython on the machine (scripts/suite.sh), beside the results it reads against.
BUILDS_DIR = "python-builds"


def build(
    rs: benchfmt.ResultSet,
    source: str,
    files: Optional[list] = None,
    builds: Optional[benchfmt.ResultSet] = None,
    rule: Optional[decide.Rule] = None,
    earlier: Optional[benchfmt.ResultSet] = None,
) -> Document:
    """The report's content from a result set (pictures are added by
    write_report, which knows where to put them). `builds` is make suite's
    companion run of the pure py cells under every CPython on the machine
    (BUILDS_DIR), read against the interpreter the verdict's run used;
    `rule` the decision rule (its margin); `earlier` an earlier run of the
    same settings on the same machine, whose outcomes the report holds
    this run's to (repeatability)."""
    rule = rule or decide.DEFAULT_RULE
    # With runtimes as an axis, every table and the score compare the newest
    # pair; the Runtimes section and the age-matched score read the rest.
    full = rs
    axis = bool(runtimes.mentioned(full))
    all_views = runtimes.views(full) if axis else [({}, full)]
    rs = all_views[0][1]
    grouped = group(rs)
    iv = intervals.Intervals()
    rows = score.score(grouped, rs, rule)
    by_size = {}
    for r in rows:
        by_size.setdefault((r.round, r.size), r)
    # The provenance the rounds' own sections may quote (matmul's BLAS lines).
    config = rs.configs[-1] if rs.configs else {}
    sections = [
        Section(
            "how-to-read",
            "How to read the tables",
            "\n".join(f"- **{col}**: {meaning}." for col, meaning in COLUMNS) + "\n",
        )
    ]
    for rnd_name, sizes in grouped.items():
        sections.append(_round_section(rnd_name, sizes, rs, config, by_size))
    if axis:
        found = runtime_axis.findings(full, iv)
        sections.append(Section("runtimes", "Runtimes", runtime_axis.section(full, iv, found)))
    sections.append(Section("provenance", "Provenance", _provenance(rs) + _builds_provenance(builds)))
    # Computed once: the summary's paragraph and the fairness section say the same.
    warned = checks.warned(rs.configs)
    # What the verdict's interpreter costs against the other CPython builds
    # that ran (runtimes as an axis): checked here, from the runs.
    built = []
    if builds is not None and runtimes.mentioned(builds):
        cost = runtime_axis.build_cost(builds, iv, verdict_py=config.get("python-key"))
        if cost is not None:
            status, finding, fix = cost
            cost = status, f"{finding} (make suite's companion run, {BUILDS_DIR}/)", fix
    else:
        cost = runtime_axis.build_cost(full, iv) if axis else None
    if cost is not None:
        status, finding, fix = cost
        built = [
            (
                checks.warn("python-build-cost", finding, fix)
                if status == "warn"
                else checks.ok("python-build-cost", finding)
            )
        ]
        if status == "warn":
            warned.append(("python-build-cost", finding, fix))
    # What Go's default build costs against its toolchain's own options
    # (PGO, GOAMD64=v3), from the runs of this result set.
    go_cost = runtime_axis.go_build_cost(grouped, rs, iv)
    if go_cost is not None:
        status, finding, fix = go_cost
        built.append(
            checks.warn("go-build-cost", finding, fix) if status == "warn" else checks.ok("go-build-cost", finding)
        )
        if status == "warn":
            warned.append(("go-build-cost", finding, fix))
    sections.append(Section("fairness", "Fairness", _fairness(rs, warned, built)))
    others = [(claims.runtime_pick(pick, v), group(v)) for pick, v in all_views]
    checked = claims.check_all(grouped, rule, views=others)
    notes = [iv.missing] if iv.missing else []
    t = score.tallies(rows)
    return Document(
        source=source,
        info=summary.run_info(rs, files or [], warned),
        verdict=summary.verdict(rows, rule),
        score=rows,
        tallies=t,
        findings=summary.findings(rows),
        claims=checked,
        claim_counts=claims.counts(checked),
        sections=sections,
        notes=notes,
        grouped=grouped,
        results=rs,
        age=runtime_axis.age_score(full, rows, rule),
        placebo=_placebo_text(rows, iv, rule, config),
        repeatability=_repeatability_text(rows, earlier, rule),
        all_results=full,
    )


def _provenance(rs: benchfmt.ResultSet) -> str:
    out = []
    for i, cfg in enumerate(rs.configs, 1):
        if len(rs.configs) > 1:
            out.append(f"### Section {i}\n")
        out.append("| key | value |")
        out.append("|---|---|")
        for k, v in cfg.items():
            if k != "fairness" and not k.startswith(("fairness-", "machine-")):
                out.append(f"| {k} | {v.replace('|', '/')} |")
        out.append("")
    return "\n".join(out)


def _builds_provenance(builds: Optional[benchfmt.ResultSet]) -> str:
    """The interpreters of make suite's companion run (BUILDS_DIR): each
    one's build, as its result file records it."""
    if builds is None or not builds.configs:
        return ""
    cfg = builds.configs[-1]
    keys = [k for k in cfg if k == "python-interpreters" or k.startswith("python-build-")]
    if not keys:
        return ""
    out = [
        "",
        f"### The CPython builds of the build check ({BUILDS_DIR}/)\n",
        "| key | value |",
        "|---|---|",
    ]
    out += [f"| {k} | {cfg[k].replace('|', '/')} |" for k in keys]
    return "\n".join(out) + "\n"


def _fairness(rs: benchfmt.ResultSet, warned: list, built: list = ()) -> str:
    """The fairness section: every warning in bold, then every check, the
    run's (its provenance lines) and those the report makes (`built`)."""
    out = []
    for name, finding, fix in warned:
        out.append(f"- **{name}: {finding}**" + (f" (fix: {fix})" if fix else ""))
    if not warned:
        out.append("No unfair condition was found.")
    out.append("")
    out.append(fairness_table([*rs.configs, checks.provenance_items(list(built))]))
    return "\n".join(out)


def _placebo_text(rows: list, iv, rule: decide.Rule, config: dict) -> str:
    """A placebo run's false-decision rate beside the nominal one, by the
    rule in force and by the one it replaced; "" for any other run."""
    if "placebo" not in config:
        return ""
    c = score.placebo_counts(rows, iv, rule)
    if not c.cells:
        return f"**Placebo run** ({config['placebo']}): no cell measured both names."
    return (
        f"**Placebo run** ({config['placebo']}). Of its {c.cells} counted cells the rule decided "
        f"{c.faster} as faster ({c.rate * 100:.1f}%, every one false; nominal: at most {c.alpha * 100:g}%, the "
        f"false-discovery rate it holds) and {c.equivalent} as equivalent. The rule it replaced (the chosen "
        "variants' 95% interval excluding 1, the ratio 2% from 1) decides "
        f"{c.legacy_faster} of the same cells as faster ({c.legacy_rate * 100:.1f}%)."
    )


def _repeatability_text(rows: list, earlier: Optional[benchfmt.ResultSet], rule: decide.Rule) -> str:
    """The score's outcomes held to an earlier run's, scored by the same
    rule; "" without one."""
    if earlier is None:
        return ""
    when = earlier.configs[0].get("date", "an earlier date") if earlier.configs else "an earlier date"
    old = score.score(group(earlier), earlier, rule)
    return (
        f"**Repeatability**, against the run of {when} with the same settings on this machine (from the results "
        f"store): {scorechanges.agreement_text(old, rows)}."
    )


SCORE_EXPLAIN = (
    "One row per round and size; per level, the best Go variant against the best Python variant of that level, "
    "by the round's metric (or the unit the round scores that cell by: http at a fixed rate, where every server "
    "serves the same rate, by p99 latency): the ratio of their medians (how many times better the winner is) "
    "with its interval. *The language alone*: pure code and the standard library; *with its "
    "ecosystem*: the best of pure code and named libraries (numpy, orjson, gonum, ...); *calling C*: the same C "
    "core through each binding, which is what the crossing costs (ffi compares each kind of crossing with its "
    "counterpart); *whole program*: programs started from outside and timed from start to exit (start-up, "
    "printing and the work together). Each cell is one of three outcomes: a side is *faster* when the whole "
    "interval lies beyond the margin (5% unless `--margin` says otherwise), the two are *equivalent* when it "
    "lies within ±margin, and the cell is *inconclusive* when the interval straddles the margin. The interval "
    "includes the choice of each side's best variant (every candidate resampled), and all the cells are judged "
    "together with the false-discovery rate held at 5% (Benjamini-Hochberg): every interval is stated at the "
    "level that keeps it, wider than 95%. A cell whose metric is fixed by "
    "construction (cores at one worker: every speed-up is 1) is listed and not counted. Published programs as "
    "published and the facts rounds score nothing."
)


def claims_explain() -> str:
    return (
        "Each claim as published, the same comparison in this run (the ratio of medians with its interval, the "
        "claims judged together by the score's rule: the false-discovery rate held across them), and the verdict: "
        f"*reproduced* when this run's ratio is within a factor {claims.REPRODUCED:g} of the published one; *same "
        "direction, different size* when it is not, but the interval lies wholly beyond the margin on the "
        "published side of 1; *not reproduced* otherwise; *not measured here* when a cell did not run. The "
        "claims and the cells that measure them are in `python/roundbench/data/claims.tsv`."
    )


def _md_escape(text: str) -> str:
    return text.replace("|", "/")


def render_markdown(doc: Document) -> str:
    out = []
    w = out.append
    info = doc.info
    w("# roundbench report\n")
    w(f"- **Machine:** {info.machine}")
    w(f"- **Runtimes:** {info.runtimes}")
    w(f"- **Date:** {info.date}; **commit:** {info.commit}")
    w(f"- **The suite took:** {info.duration}")
    w(f"- **Runs:** {info.counts}; **source:** `{doc.source}`\n")
    w("## Summary\n")
    if info.warnings:
        w("Fairness warnings (each explained, with its fix, in the Fairness section):\n")
        for name, finding, fix in info.warnings:
            w(f"- **{name}: {finding}**" + (f" (fix: {fix})" if fix else ""))
        w("")
    else:
        w("Fairness warnings: none; every check is listed in the Fairness section.\n")
    for note in doc.notes:
        w(f"*{note}.*\n")
    pair = f" ({doc.info.pair})" if doc.info.pair else ""
    w(f"**Verdict{pair}.** {_cap(doc.verdict)}\n")
    for extra in (doc.placebo, doc.repeatability):
        if extra:
            w(extra + "\n")
    w("### Score: Go against Python, level by level\n")
    w(SCORE_EXPLAIN + "\n")
    if doc.score:
        w("| round, size | " + " | ".join(levels.LEVEL_TITLES[lvl] for lvl in levels.LEVELS) + " |")
        w("|---|" + "---|" * len(levels.LEVELS))
        for r in doc.score:
            w(
                f"| {_md_escape(r.label)} | "
                + " | ".join(_md_escape(r.levels[lvl].text()) for lvl in levels.LEVELS)
                + " |"
            )
        w("| **total** | " + " | ".join(f"**{doc.tallies[lvl].text()}**" for lvl in levels.LEVELS) + " |")
        w("")
        w(_widths_text(score.widths(doc.score)) + "\n")
        timed = _timed_text(doc.all_results or doc.results)
        if timed:
            w(timed + "\n")
    else:
        w("No round and size measured both languages.\n")
    if doc.age is not None:
        w(runtime_axis.age_markdown(doc.age))
    w("### Headline findings\n")
    if doc.findings:
        for i, f in enumerate(doc.findings, 1):
            w(f"{i}. **{f.level_title}:** {f.text}")
        w("")
        w(
            "Each ratio is of the two variants' medians, with its 95% bootstrap interval in brackets; "
            '"within this run\'s noise" means the interval includes 1.\n'
        )
    else:
        w("No finding: these results hold no cell that compares the two languages.\n")
    w("### Published claims, checked on this machine\n")
    w(claims_explain() + "\n")
    w("| claim | published | this run | verdict | why |")
    w("|---|---|---|---|---|")
    for c in doc.claims:
        w(
            f"| {_md_escape(c.claim.claim)} | {_md_escape(c.claim.published)} | {_md_escape(c.this_run())} | "
            f"**{c.verdict}** | {_md_escape(c.why())} |"
        )
    w("")
    w("Verdicts: " + ", ".join(f"{n} {v}" for v, n in doc.claim_counts.items()) + ".\n")
    if doc.figures:
        w("### Pictures\n")
        for fig in doc.figures:
            w(f"![{fig.title}]({fig.path.name})\n")
            w(f"*{fig.caption}*\n")
    for sec in doc.sections:
        w(f"## {sec.title}\n")
        for fig in sec.figures:
            w(f"![{fig.title}]({fig.path.name})\n")
        w(sec.markdown)
    return "\n".join(out).rstrip("\n") + "\n"


def _widths_text(widths: dict) -> str:
    """The score's sharpness in one line: each level's median interval
    half-width and how many of its intervals pair the sides trial by trial."""
    parts = []
    for lvl in levels.LEVELS:
        mid, paired, n = widths[lvl]
        if n:
            parts.append(f"{levels.LEVEL_TITLES[lvl]} ±{mid * 100:.3g}% ({paired} of {n} paired)")
    if not parts:
        return "No cell has an interval."
    return (
        "Median half-width of the intervals, level by level, and how many of them pair the two sides' runs "
        'trial by trial (docs/measurement.md, "Paired trials"): ' + "; ".join(parts) + "."
    )


def timed_seconds(rs: benchfmt.ResultSet) -> tuple:
    """(level -> the seconds its runs spent in their timed regions, the
    runs' seconds as the files' end records give them, or None where a
    section has none): a run's timed seconds are its iterations x ns/op,
    times the values its process timed."""
    by: dict = {}
    for r in rs.runs:
        if "ns/op" not in r.metrics:
            continue
        k = len(r.values) if r.values else 1
        lvl = levels.level(r.params.get("impl", ""))
        by[lvl] = by.get(lvl, 0.0) + r.metrics["ns/op"] * max(r.iters, 1) * k / 1e9
    took = sum(e.seconds for e in rs.ends) if rs.ends and len(rs.ends) == len(rs.configs) else None
    return by, took


def _timed_text(rs: Optional[benchfmt.ResultSet]) -> str:
    """What share of the runs' seconds their timed regions took, level by
    level: the rest is starting processes, imports, compiling, warming up
    and checking results (docs/measurement.md, "Values per process")."""
    if rs is None:
        return ""
    by, took = timed_seconds(rs)
    total = sum(by.values())
    if not total:
        return ""
    parts = [
        f"{levels.LEVEL_TITLES.get(lvl, levels.KINDS.get(lvl, lvl))} {by[lvl]:.3g} s"
        for lvl in (*levels.LEVELS, "c", "published")
        if by.get(lvl)
    ]
    text = f"Timed work: the runs' timed regions (iterations × ns/op) took {total:.3g} s"
    if took:
        text += f" of the run's {took:.0f} s ({total / took:.0%})"
    return text + "; by level, " + ", ".join(parts) + "."


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def render(rs: benchfmt.ResultSet, source: str) -> str:
    """The Markdown report of a result set, without pictures."""
    return render_markdown(build(rs, source))


def fairness_table(configs: list) -> str:
    """Every check the run made, passed ones included (fairness-* and
    machine-* provenance lines), so a reader sees what was looked for."""
    rows: "OrderedDict" = OrderedDict()
    for cfg in configs:
        for k, v in cfg.items():
            if k.startswith("fairness-") or k.startswith("machine-"):
                rows.setdefault(k, v)
    if not rows:
        return "This result file predates the list of fairness checks.\n"
    out = [
        "Every check this run made (ok: passed; warn: harms the comparison, in bold above; info: a fact, or a "
        "check this machine cannot answer):\n",
        "| check | result | finding | fix |",
        "|---|---|---|---|",
    ]
    for k, v in rows.items():
        status, finding, fix = checks.parse_line(v)
        result = f"**{status}**" if status == "warn" else status
        out.append(f"| {k} | {result} | {finding.replace('|', '/')} | {fix.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def draw(doc: Document, out_dir: Path) -> None:
    """The pictures, as PNG files in out_dir, attached to the document: the
    claims picture, each round's own (its `charts` hook) and each round's bars. Raises ImportError
    without matplotlib; a picture that fails is a note, not a lost report."""
    import matplotlib  # noqa: F401 - raise ImportError before anything is drawn

    grouped, rs = doc.grouped, doc.results

    def attempt(name: str, make, *args):
        try:
            return make(*args)
        except Exception as e:  # noqa: BLE001 - a bug in one picture
            doc.notes.append(f"the picture {name} failed: {type(e).__name__}: {e}")
            return None

    out_dir.mkdir(parents=True, exist_ok=True)
    claims_fig = attempt("claims", claims.chart, doc.claims, out_dir)
    if doc.all_results is not None and runtimes.mentioned(doc.all_results):
        for sec in doc.sections:
            if sec.id == "runtimes":
                sec.figures += attempt("runtimes", runtime_axis.go_chart, doc.all_results, out_dir) or []
    doc.figures = [claims_fig] if claims_fig is not None else []
    # Each round's own pictures (its module's `charts` hook) go to the
    # summary's gallery, in suite order.
    for rnd_name, sizes in grouped.items():
        hook = rounds.hook(rnd_name, "charts")
        if hook is not None:
            doc.figures += attempt(rnd_name, hook, sizes, out_dir) or []
    by_round = {sec.round: sec for sec in doc.sections if sec.round}
    for rnd_name, sizes in grouped.items():
        unit, better, info = metric_for(rnd_name, rs)
        # Facts and unscored rounds (delivery, loc) have their tables only.
        if rnd_name not in by_round or (info is not None and (info.facts or not info.scored)):
            continue
        title = info.title if info else rnd_name
        order = [v.name for v in info.variants] if info else []
        fig = attempt(rnd_name, charts.round_bars, rnd_name, order, sizes, unit, better, title, out_dir)
        if fig is not None:
            by_round[rnd_name].figures.append(fig)


def render_html(doc: Document) -> str:
    """One self-contained page (pictures inline as data URIs, no network)
    from the same document as the Markdown, through one Jinja2 template.
    Raises ImportError without jinja2 or markdown-it-py."""
    # optional, for report.html only: report.md needs neither
    import jinja2
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("roundbench.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
    )
    env.filters["md"] = lambda text: jinja2.utils.markupsafe.Markup(md.render(text))
    env.filters["mdi"] = lambda text: jinja2.utils.markupsafe.Markup(md.renderInline(text))
    env.filters["datauri"] = lambda path: "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode()
    env.filters["slug"] = lambda text: re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    env.filters["capfirst"] = _cap
    return env.get_template("report.html.j2").render(
        doc=doc,
        levels=levels.LEVELS,
        level_titles=levels.LEVEL_TITLES,
        score_explain=SCORE_EXPLAIN,
        claims_explain=claims_explain(),
        age_md=runtime_axis.age_markdown(doc.age) if doc.age is not None else "",
    )


def write_report(
    result_dir: Path,
    out: Optional[Path] = None,
    rule: Optional[decide.Rule] = None,
    earlier: Optional[benchfmt.ResultSet] = None,
) -> Path:
    """report.md, report.html beside it, and the pictures (report-*.png)
    beside both, the score decided by `rule` (build's `earlier`: an earlier
    run of the same settings on the same machine). Without matplotlib,
    jinja2 or markdown-it-py (the `report` extra) the Markdown says what it
    could not do."""
    result_dir = Path(result_dir)
    files = [result_dir] if result_dir.is_file() else sorted(result_dir.glob("*.txt"))
    rs = benchfmt.read_dir(result_dir)
    builds = None
    companion = result_dir / BUILDS_DIR if result_dir.is_dir() else None
    if companion is not None and any(companion.glob("*.txt")):
        builds = benchfmt.read_dir(companion)
    target = Path(out) if out else ((result_dir if result_dir.is_dir() else result_dir.parent) / "report.md")
    doc = build(rs, str(result_dir), files, builds=builds, rule=rule, earlier=earlier)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        draw(doc, target.parent)
    except ImportError as e:
        doc.notes.append(f"no pictures: {e.name} is not installed (pip install 'roundbench[report]')")
    html = target.with_suffix(".html")
    try:
        html.write_text(render_html(doc), encoding="utf-8")
    except ImportError as e:
        html.unlink(missing_ok=True)  # an older page would contradict this report
        doc.notes.append(f"no report.html: {e.name} is not installed (pip install 'roundbench[report]')")
    target.write_text(render_markdown(doc), encoding="utf-8")
    return target
