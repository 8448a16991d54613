"""`roundbench report DIR`: result files in, a Markdown report out.

Per round and size, a table of the variants with their statistics (see
stats.py), the cost of the crossing (py-c and go-c against c), the point
between Python and Go by the round's declared metric, failures and variants
that could not run; then the score, the provenance and every fairness
warning. Every column is explained in the report itself.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Optional

from . import benchfmt, rounds, stats

# A published program, as published, flaws included (DESIGN.md, "Variants").
PUBLISHED_SUFFIX = "-published"

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
        "within ±2% of it), the cell's time budget spent, the most runs reached, or a failure",
    ),
    ("flag", "unstable: σ above 10% of the mean or a run 50% away from it; FAILED: see the failures below"),
]


def fmt(x: Optional[float], digits: int = 3) -> str:
    if x is None:
        return "—"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}" if ax >= 1 else f"{x:.{digits}g}"


def fmt_bytes(b: Optional[float]) -> str:
    if b is None:
        return "—"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} GiB"


def fmt_unit(x: Optional[float], unit: str) -> str:
    """Bytes in binary units, anything else as a number."""
    if unit.endswith("-B") or unit == "B":
        return fmt_bytes(x)
    return fmt(x)


def _size_key(params: dict) -> tuple:
    return tuple((k, v) for k, v in params.items() if k != "impl")


def _size_label(size: tuple) -> str:
    return ", ".join(f"{k}={v}" for k, v in size) or "default"


class Cell:
    """One variant at one size: its runs, failures and skip reason."""

    def __init__(self, impl: str):
        self.impl = impl
        self.runs: list = []
        self.failures: list = []
        self.skip: Optional[str] = None
        self.stop: Optional[str] = None  # why no more runs were made (--- RUNS:)
        self.facts: "OrderedDict" = OrderedDict()  # key -> value, from --- FACT: lines

    def values(self, unit: str) -> list:
        return [r.metrics[unit] for r in self.runs if unit in r.metrics]

    def summary(self, unit: str) -> Optional[stats.Summary]:
        v = self.values(unit)
        return stats.summarize(v) if v else None

    def median_of(self, unit: str) -> Optional[float]:
        v = self.values(unit)
        return stats.median(v) if v else None

    def cpu_seconds(self, unit: str) -> Optional[float]:
        v = [r.metrics[unit] * max(r.iters, 1) / 1e9 for r in self.runs if unit in r.metrics]
        return stats.median(v) if v else None


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


def group(rs: benchfmt.ResultSet) -> "OrderedDict":
    """round -> size -> impl -> Cell, in the order first seen."""
    out: OrderedDict = OrderedDict()

    def cell(name: str) -> Cell:
        rnd, params = benchfmt.split_name(name)
        impl = params.get("impl", "?")
        sizes = out.setdefault(rnd, OrderedDict())
        impls = sizes.setdefault(_size_key(params), OrderedDict())
        return impls.setdefault(impl, Cell(impl))

    for r in rs.runs:
        cell(r.name).runs.append(r)
    for f in rs.failures:
        cell(f.name).failures.append(f)
    for s in rs.skips:
        cell(s.name).skip = s.reason
    for f in rs.facts:
        cell(f.name).facts[f.key] = f.value
    for st in rs.stops:
        cell(st.name).stop = st.why
    return out


def _round_info(name: str):
    try:
        return rounds.get(name)
    except KeyError:
        return None


def _metric_for(rnd_name: str, rs: benchfmt.ResultSet):
    info = _round_info(rnd_name)
    if info:
        return info.metric, info.units.get(info.metric, rs.units.get(info.metric, "lower")), info
    return "ns/op", "lower", None


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


def render(rs: benchfmt.ResultSet, source: str) -> str:
    out = []
    w = out.append
    grouped = group(rs)
    nfail = len(rs.failures)
    w("# roundbench report\n")
    w(
        f"Source: `{source}`: {len(rs.runs)} successful runs, {nfail} failed runs, "
        f"{len(rs.skips)} variant/size pairs that could not run here.\n"
    )
    w(
        "Every number below comes from the result files named above (Go benchmark format; "
        "`benchstat -col /impl FILE` reads them too). Times are wall-clock times of the timed work only, "
        "measured inside each child process; memory and CPU are the child's own, from wait4.\n"
    )
    w("## How to read the tables\n")
    for col, meaning in COLUMNS:
        w(f"- **{col}**: {meaning}.")
    w("")
    score: OrderedDict = OrderedDict(python=0, go=0, tie=0)
    points = []
    # The provenance the rounds' own sections may quote (matmul's BLAS lines).
    config = rs.configs[-1] if rs.configs else {}
    for rnd_name, sizes in grouped.items():
        unit, better, info = _metric_for(rnd_name, rs)
        title = info.title if info else rnd_name
        w(f"## {title}\n")
        if info:
            w(f"{info.explain} Metric: {info.metric_explain} ({better} is better).\n")
        ref_name = info.reference if info else "c"
        for size, cells in sizes.items():
            w(f"### {rnd_name}: {_size_label(size)}\n")
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
                attempted = len(c.runs) + len(c.failures)
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
                if c.failures:
                    flags.append(f"FAILED {len(c.failures)}")
                scanned = _scan_kinds(config, rnd_name, c.impl)
                if scanned:
                    flags.append(f"**scan: {scanned}**")
                user, sys_ = c.cpu_seconds("user-ns/op"), c.cpu_seconds("sys-ns/op")
                w(
                    f"| {c.impl} | {what} | {fmt(s.mean)} ± {fmt(s.sd, 2)} | {fmt(s.median)} {ci} | {fmt(s.min)} | "
                    f"{fmt(_ratio(s.median, best_m, better), 3)} | {fmt(_ratio(s.median, ref_m, better), 3)} | "
                    + "".join(f"{fmt_unit(c.median_of(u), u)} | " for u, _ in extra)
                    + f"{fmt_bytes(c.median_of('peak-B'))} | {fmt(user, 3)} s / {fmt(sys_, 3)} s | "
                    f"{len(c.runs)}/{attempted}{_stop_label(c.stop)} | {' '.join(flags)} |"
                )
            w("")
            hits = [
                (c.impl, config[f"scan-{rnd_name}/{c.impl}"]) for c in ordered if f"scan-{rnd_name}/{c.impl}" in config
            ]
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
            # The point between Python and Go. A published program, as
            # published (`-published`), is shown beside the fair variant but
            # never scores: it is the claim under test, not a user's best.
            contenders = [c for c in ordered if not c.impl.endswith(PUBLISHED_SUFFIX)]
            py_m, py_c = _best([c for c in contenders if rounds.language(c.impl) == "py"], unit, better)
            go_m, go_c = _best([c for c in contenders if rounds.language(c.impl) == "go"], unit, better)
            if py_c and go_c and (info is None or info.scored):
                r = _ratio(py_m, go_m, better)
                if r is None or abs(r - 1) < 0.02:
                    winner = "tie"
                else:
                    winner = "go" if r > 1 else "python"
                score[winner] += 1
                points.append((rnd_name, _size_label(size), winner))
                verdict = "a tie (within 2%)" if winner == "tie" else f"point to {'Go' if winner == 'go' else 'Python'}"
                py_what, go_what = f"{fmt(py_m)} {unit}", f"{fmt(go_m)} {unit}"
                across = ""
                if info is not None and info.models:
                    # a concurrency round: a time is never quoted without the memory it cost
                    py_what += f", peak RSS {fmt_bytes(py_c.median_of('peak-B'))}"
                    go_what += f", peak RSS {fmt_bytes(go_c.median_of('peak-B'))}"
                    pm, gm = info.models.get(py_c.impl), info.models.get(go_c.impl)
                    if pm and gm and pm != gm:
                        across = (
                            f" The point goes across concurrency models: {rounds.MODELS[pm]} ({py_c.impl}) "
                            f"against {rounds.MODELS[gm]} ({go_c.impl})."
                        )
                w(
                    f"Python against Go: best Python variant {py_c.impl} ({py_what}) against best Go variant "
                    f"{go_c.impl} ({go_what}): {verdict}.{across}\n"
                )
            fails = [(c.impl, f) for c in ordered for f in c.failures]
            if fails:
                w("Failed runs:\n")
                for impl, f in fails:
                    w(f"- {impl}, run {f.run}: {f.reason}")
                    for d in f.detail[-6:]:
                        w(f"    `{d}`")
                w("")
    w("## Score\n")
    w(
        "One point per round and size to the language whose best variant wins by the round's metric "
        "(any variant of that language counts, binding included: that is what a user of the language can get).\n"
    )
    if points:
        w("| round | size | point |")
        w("|---|---|---|")
        for rnd_name, size, winner in points:
            w(f"| {rnd_name} | {size} | {winner} |")
        w("")
    w(f"**Python {score['python']}, Go {score['go']}, ties {score['tie']}.**\n")
    w("## Provenance\n")
    for i, cfg in enumerate(rs.configs, 1):
        if len(rs.configs) > 1:
            w(f"### Section {i}\n")
        w("| key | value |")
        w("|---|---|")
        for k, v in cfg.items():
            if k != "fairness" and not k.startswith(("fairness-", "machine-")):
                w(f"| {k} | {v.replace('|', '/')} |")
        w("")
    w("## Fairness\n")
    warned = False
    for cfg in rs.configs:
        fair = cfg.get("fairness")
        if fair and fair != "no unfair condition found":
            for item in fair.split("; "):
                w(f"- **{item}**")
                warned = True
    if not warned:
        w("No unfair condition was found.")
    w("")
    w(fairness_table(rs.configs))
    return "\n".join(out)


def fairness_table(configs: list) -> str:
    """Every check the run made, passed ones included (fairness-* and
    machine-* provenance lines), so a reader sees what was looked for."""
    from . import fairness

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
        status, finding, fix = fairness.parse_line(v)
        result = f"**{status}**" if status == "warn" else status
        out.append(f"| {k} | {result} | {finding.replace('|', '/')} | {fix.replace('|', '/')} |")
    return "\n".join(out) + "\n"


def write_report(result_dir: Path, out: Optional[Path] = None) -> Path:
    rs = benchfmt.read_dir(result_dir)
    result_dir = Path(result_dir)
    target = out or ((result_dir if result_dir.is_dir() else result_dir.parent) / "report.md")
    target.write_text(render(rs, str(result_dir)), encoding="utf-8")
    return target
