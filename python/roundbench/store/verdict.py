"""The verdict across machines and runtimes: one page (verdict.md,
verdict.html and a picture per level) that reads the same score on every
setting of a selection of the store.

A setting is one machine (its fingerprint) with one Go release and one
Python interpreter, and the results of one run there (views.py picks them).
Each setting is scored on its own by the report's rules (score.score over
cells.group, with the same 95% bootstrap intervals): nothing is pooled
across settings.

The rules this page applies:

- Only ratios cross machines. A score cell's point is the ratio of Go's
  side to Python's, both measured in one run on one machine; the page sets
  these ratios (and the names of the two variants) side by side, never the
  raw times or memory of different hardware.
- A level's verdict on a setting is the side that is faster in more of
  that level's counted cells there: "Go" or "Python", "split" when both are
  faster in as many (equivalent and inconclusive cells count for neither,
  so a level with no cell decided faster is split). A cell listed and not
  counted (score.ScoreCell.undecided) is shown and never counts; a setting
  with no counted cell at a level has no verdict there.
- A level's verdict holds when it is the same on every setting that has
  counted cells at that level.
- A cell changes outcome when its outcomes (Go faster, Python faster,
  equivalent or inconclusive, by judge/decide.py's rule; a setting without
  a point is left out) are not all the same, and changes side when Go is
  faster on one setting and Python on another. Each
  setting whose outcome differs from that of the first setting with a point
  (the reference) says why, as `roundbench compare` does between two result
  sets (scorechanges.py): a different best variant on a side, the ratio's
  interval now beyond, within or straddling the margin, and the provenance that differs
  between the two runs: the machine (cpu, cpu-id, cores, kernel, its
  fingerprint), the runtimes (go-version, python-key, python-children, or
  the setting's own Go release and interpreter where a run with the runtime
  axis gives several), the round's own lines (keys starting with
  "<round>-", such as jsonl-kernel; blas-* for matmul) and the version line
  of a library a side's variant is named after (numpy for py-numpy).

Layer: the store; imports judge (cells, score, intervals), report
(summary), results and nothing above them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple, Optional, Sequence

from ..judge import cells as report_cells
from ..judge import decide, score
from ..results import benchfmt, charts
from ..results.levels import LEVEL_TITLES, LEVELS
from ..results.textfmt import size_key
from . import _page

# Provenance keys that say which machine and which runtimes a run had; the
# round's own keys are found by ROUND_KEY_PREFIXES and "<round>-".
MACHINE_KEYS = ("cpu", "cpu-id", "cores", "kernel")
RUNTIME_KEYS = ("go-version", "python-key", "python-children")
# Provenance lines a round writes under a name other than its own.
ROUND_KEY_PREFIXES = {"matmul": ("blas",)}
# A provenance value longer than this is shown around where it differs.
VALUE_WIDTH = 60

VERDICT_RULE = (
    "A level's verdict on a setting is the side that is faster in more of that level's counted cells there "
    '("split" when Go and Python are faster in as many; equivalent and inconclusive cells count for neither); it '
    "holds when it is the same on every setting that has counted cells at that level. Cells listed and not "
    "counted are shown and never count."
)
RATIO_RULE = (
    "Each setting is scored on its own by the report's rule (judge/decide.py): a cell is the ratio of the medians "
    "of Go's best variant and Python's best at that level, measured in one run on one machine, with an interval "
    "that includes the choice of each side's best; a side is faster when the whole interval lies beyond the "
    "margin, the two are equivalent when it lies within it, else the cell is inconclusive, with the "
    "false-discovery rate held across the setting's cells. Only these ratios cross machines: raw times of "
    "different hardware are never set side by side."
)


# ---- what the page reads ---------------------------------------------------------------------


@dataclass
class Setting:
    """One machine with one Go release and one Python interpreter, and the
    results of one run there."""

    label: str  # short column label, e.g. "AMD EPYC 25/17 · go1.27.4 · cpython-3.15.2"
    machine: str  # the machine's fingerprint id (hex)
    go: str  # e.g. "go1.27.4"
    python: str  # e.g. "cpython-3.15.2"
    config: dict  # the run's provenance: its configuration lines, key -> value
    rs: benchfmt.ResultSet  # that run's results
    source: str  # where it came from, e.g. "results.txt sha256 1a2b3c4d5e6f section 1"

    @property
    def key(self) -> tuple:
        """(machine, go, python): what makes two runs the same setting."""
        return (self.machine, self.go, self.python)


@dataclass
class CellAcross:
    """One score cell (a score row's label at one level) across the settings."""

    label: str
    level: str
    cells: list  # score.ScoreCell or None (the setting has no such row), per setting
    winners: list  # "go" | "python" | "equivalent" | "inconclusive" | None, per setting
    changes_side: bool  # Go is faster on one setting and Python on another
    why: list  # per setting, why it differs from the reference ("" when it agrees)
    round: str = ""
    size: str = ""
    pair: str = ""  # a round of crossings: the kind of crossing ("" the round's own row)
    reference: Optional[int] = None  # the first setting with a point in this cell
    changes_outcome: bool = False  # the outcomes are not all the same


class LevelVerdict(NamedTuple):
    """One level's verdict on each setting."""

    tallies: list  # score.Tally per setting
    verdicts: list  # "Go" | "Python" | "split" | None (no counted cell), per setting
    holds: Optional[bool]  # the same verdict on every setting that has one; None: no setting has one


# ---- the cells across the settings -----------------------------------------------------------


def _key(r: score.ScoreRow) -> tuple:
    return (r.round, r.size, r.pair)


def _pair(c: Optional[score.ScoreCell]) -> Optional[tuple]:
    return (c.point.a.impl, c.point.b.impl) if c is not None and c.point is not None else None


def _interval(c: score.ScoreCell) -> str:
    """The point as its outcome has it: 'Go 1.27× [1.25×, 1.29×]', or
    'equivalent (ratio 1.003 [0.99, 1.01])'."""
    p = c.point
    if p.outcome != decide.FASTER:
        return f"{p.outcome} (ratio {p.interval_text()})"
    return f"{'Go' if p.winner == 'a' else 'Python'} {p.times()}"


def _ran(cells: dict, impl: str) -> bool:
    c = cells.get(impl)
    return c is not None and bool(c.runs)


def _side_moves(pr: tuple, ph: tuple, cells_ref: dict, cells_here: dict) -> list:
    """How each side's variant differs from the reference's."""
    out = []
    for old, new, side in ((pr[0], ph[0], "Go"), (pr[1], ph[1], "Python")):
        if old == new:
            continue
        if not _ran(cells_ref, new):
            out.append(f"{side}'s side here is {new}, which the reference did not run (there: {old})")
        elif not _ran(cells_here, old):
            skipped = cells_here.get(old)
            how = f" ({skipped.skip})" if skipped is not None and skipped.skip else ""
            out.append(f"{side}'s side here is {new}: {old} did not run here{how}")
        else:
            out.append(f"{side}'s best here is {new}, there {old}")
    return out


def _moved(cr: score.ScoreCell, ch: score.ScoreCell) -> str:
    """How the point's interval moved against the margin."""
    pr, ph = cr.point, ch.point
    if pr.outcome == ph.outcome == decide.FASTER:
        return "the other side is faster here"
    return {
        decide.FASTER: f"its interval lies beyond the margin here ({pr.outcome} there)",
        decide.EQUIVALENT: f"its interval lies within the margin here ({pr.outcome} there)",
        decide.INCONCLUSIVE: f"its interval straddles the margin here ({pr.outcome} there)",
    }[ph.outcome]


def _shown(value: Optional[str], other: Optional[str]) -> str:
    """A provenance value, cut around where it differs from the other."""
    if value is None:
        return "not recorded"
    if len(value) <= VALUE_WIDTH or other is None:
        return value if len(value) <= VALUE_WIDTH else value[:VALUE_WIDTH] + "…"
    start = 0
    while start < min(len(value), len(other)) and value[start] == other[start]:
        start += 1
    start = value.rfind(" ", 0, start) + 1  # from the word where they part
    text = value[start : start + VALUE_WIDTH]
    return ("…" if start else "") + text + ("…" if start + VALUE_WIDTH < len(value) else "")


def _round_keys(rnd: str, cfgs: Sequence[dict]) -> list:
    prefixes = ROUND_KEY_PREFIXES.get(rnd, ())
    found = []
    for cfg in cfgs:
        for k in cfg:
            if k in found:
                continue
            if k.startswith(f"{rnd}-") or any(k == p or k.startswith(f"{p}-") for p in prefixes):
                found.append(k)
    return found


def _library_keys(impls: Sequence[str], cfgs: Sequence[dict]) -> list:
    """The version line of a library a variant is named after (numpy for py-numpy)."""
    found = []
    for impl in impls:
        _, _, rest = impl.partition("-")
        word = rest.split("-")[0]
        if word and word not in found and any(word in cfg for cfg in cfgs):
            found.append(word)
    return found


_PATH = re.compile(r"(?<![\w.])/[^\s;:,()|]*/")


def _unplaced(value: Optional[str]) -> Optional[str]:
    """A provenance value without the folders of its paths: two checkouts
    (or two users' homes) that load the same library file are not a
    difference of the setting."""
    return None if value is None else _PATH.sub("", value)


def differing(ref: Setting, here: Setting, rnd: str, impls: Sequence[str] = ()) -> list:
    """The provenance that differs between two settings for a cell of round
    `rnd` whose sides are `impls`, as 'key (reference's → this one's)'."""
    cfgs = (ref.config, here.config)
    keys = list(MACHINE_KEYS) + list(RUNTIME_KEYS) + _round_keys(rnd, cfgs) + _library_keys(impls, cfgs)
    out, seen = [], set()
    for k in keys:
        if k in seen:
            continue
        seen.add(k)
        a, b = ref.config.get(k), here.config.get(k)
        if _unplaced(a) != _unplaced(b):
            out.append((k, f"{k} ({_shown(a, b)} → {_shown(b, a)})"))
    named = {k for k, _ in out}
    if ref.machine != here.machine and not named & set(MACHINE_KEYS):
        out.append(("machine", f"the machine's fingerprint ({ref.machine[:12]} → {here.machine[:12]})"))
    if ref.go != here.go and "go-version" not in named:
        out.append(("go", f"the Go release ({ref.go} → {here.go})"))
    if ref.python != here.python and not named & {"python-key", "python-children"}:
        out.append(("python", f"the Python interpreter ({ref.python} → {here.python})"))
    return [text for _, text in out]


def _why(settings: list, i: int, ref: int, rows: list, cs: list, groups: list) -> str:
    """Why setting i's cell differs from the reference's."""
    s, r = settings[i], settings[ref]
    ch, cr = cs[i], cs[ref]
    row = rows[i]
    lead = f"against #{ref + 1} ({r.label}): "
    if row is None:
        return lead + "this setting has no such cell (its run has no point of this round and size)"
    if ch.point is None:
        return lead + f"no point here: {ch.why or 'a side did not run'}"
    if ch.undecided and not cr.undecided:
        return lead + f"listed, not counted here: {ch.undecided}"
    if cr.undecided and not ch.undecided:
        return lead + "counted here, listed and not counted there"
    cells_here = groups[i][row.round][size_key(row.params)]
    ref_row = rows[ref]
    cells_ref = groups[ref][ref_row.round][size_key(ref_row.params)]
    parts = []
    pr, ph = _pair(cr), _pair(ch)
    if pr != ph:
        parts.append("the pair changed: " + "; ".join(_side_moves(pr, ph, cells_ref, cells_here)))
    else:
        parts.append(f"the same pair ({ph[0]} vs {ph[1]})")
    parts.append(f"{_interval(cr)} there, {_interval(ch)} here: {_moved(cr, ch)}")
    found = differing(r, s, row.round, sorted(set(pr) | set(ph)))
    if found:
        parts.append("provenance that differs: " + ", ".join(found))
    else:
        parts.append("no recorded provenance differs (the same machine and runtimes: the runs' own noise)")
    return lead + "; ".join(parts)


def across(settings: list, rule: Optional[decide.Rule] = None) -> list:
    """Every score cell across the settings (list[CellAcross]): the rows in
    the first setting's score order, then the rows only later settings
    have, each at every level where some setting has a point."""
    groups, by_key, keys = [], [], []
    for s in settings:
        grouped = report_cells.group(s.rs)
        rows = score.score(grouped, s.rs, rule)
        groups.append(grouped)
        by_key.append({_key(r): r for r in rows})
        keys += [_key(r) for r in rows if _key(r) not in keys]
    out = []
    for k in keys:
        rows = [by.get(k) for by in by_key]
        first = next(r for r in rows if r is not None)
        for lvl in LEVELS:
            cs = [r.levels[lvl] if r is not None else None for r in rows]
            with_point = [i for i, c in enumerate(cs) if c is not None and c.point is not None]
            if not with_point:
                continue
            ref = with_point[0]
            winners = [c.winner if c is not None else None for c in cs]
            decided = {w for w in winners if w is not None}
            sides = decided & {"go", "python"}
            why = [
                "" if i == ref or winners[i] == winners[ref] else _why(settings, i, ref, rows, cs, groups)
                for i in range(len(settings))
            ]
            cell = CellAcross(first.label, lvl, cs, winners, len(sides) > 1, why, k[0], k[1], k[2], ref)
            cell.changes_outcome = len(decided) > 1
            out.append(cell)
    return out


# ---- each level's verdict ------------------------------------------------------------------------


def verdict_text(t: score.Tally) -> Optional[str]:
    """ "Go", "Python" or "split" from a level's tally; None without a counted cell."""
    if not t.total:
        return None
    if t.go != t.python:
        return "Go" if t.go > t.python else "Python"
    return "split"


def holds(settings: list, rows: list) -> dict:
    """level -> LevelVerdict (per-setting tallies, per-setting verdicts,
    whether the verdict holds on every setting that has one), for every
    level."""
    out = {}
    for lvl in LEVELS:
        tallies = [score.Tally() for _ in settings]
        for r in rows:
            if r.level != lvl:
                continue
            for i, w in enumerate(r.winners):
                tallies[i].add(w)
        verdicts = [verdict_text(t) for t in tallies]
        decided = {v for v in verdicts if v is not None}
        out[lvl] = LevelVerdict(tallies, verdicts, (len(decided) == 1) if decided else None)
    return out


# ---- the page ------------------------------------------------------------------------------------


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _date(cfg: dict) -> str:
    text = cfg.get("date", "")
    try:
        t = datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return text or "date not recorded"
    return t.strftime("%Y-%m-%d %H:%M UTC")


def _name(settings: list, i: int) -> str:
    return f"#{i + 1} ({settings[i].label})"


def _contributes(rows: list, i: int) -> bool:
    return any(r.cells[i] is not None and r.cells[i].point is not None for r in rows)


def _numbered(indices: list) -> str:
    names = [f"#{i + 1}" for i in indices]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _level_sentence(lvl: str, v: LevelVerdict) -> str:
    title = LEVEL_TITLES[lvl]
    having = [i for i, x in enumerate(v.verdicts) if x is not None]
    if v.holds is None:
        return f"{title}: no setting has a counted cell"
    if v.holds:
        if len(having) > 1:
            return f"{title}: {v.verdicts[having[0]]}, which holds on all {len(having)} settings that have its cells"
        return f"{title}: {v.verdicts[having[0]]}, on the one setting that has its cells ({_numbered(having)})"
    by: dict = {}
    for i in having:
        by.setdefault(v.verdicts[i], []).append(i)
    return f"{title}: does not hold ({'; '.join(f'{who} on {_numbered(idx)}' for who, idx in by.items())})"


def _lead(settings: list, rows: list, verdicts: dict) -> str:
    if not settings:
        return "No setting: the selection holds no run with results of both languages."
    parts = []
    for i, s in enumerate(settings):
        parts.append(
            f"#{i + 1} **{s.label}**: machine `{s.machine[:12]}`, {s.go} against {s.python}, "
            f"run {_date(s.config)}, from {s.source}"
        )
    text = f"{len(settings)} setting(s), each a machine with a Go release and a Python interpreter: " + "; ".join(parts)
    text += "."
    idle = [i for i in range(len(settings)) if not _contributes(rows, i)]
    for i in idle:
        text += f" Setting {_name(settings, i)} has no score cell (no cell measured both languages there)"
        text += ": it contributes nothing."
    text += " Each level's verdict: " + "; ".join(_level_sentence(lvl, verdicts[lvl]) for lvl in LEVELS) + "."
    flips = sum(1 for r in rows if r.changes_side)
    moved = sum(1 for r in rows if r.changes_outcome)
    text += (
        f" {flips} of {len(rows)} cell(s) change side from one setting to another, and {moved} change outcome "
        "(faster, equivalent or inconclusive)."
    )
    return text


def _header(settings: list, first: list, last: list) -> list:
    cols = first + [f"#{i + 1} {s.label}" for i, s in enumerate(settings)] + last
    return ["| " + " | ".join(_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]


def _verdict_table(settings: list, verdicts: dict) -> str:
    out = _header(settings, ["level"], ["holds"])
    for lvl in LEVELS:
        v = verdicts[lvl]
        shown = [f"**{x}** ({t.text()})" if x is not None else "—" for x, t in zip(v.verdicts, v.tallies)]
        held = {None: "no counted cell", True: "yes", False: "**no**"}[v.holds]
        out.append("| " + " | ".join(_cell(c) for c in [LEVEL_TITLES[lvl], *shown, held]) + " |")
    return "\n".join(out)


def _across_text(r: CellAcross, n: int) -> str:
    decided = [w for w in r.winners if w is not None]
    if r.changes_side:
        return "**changes side**"
    if r.changes_outcome:
        return "changes outcome"
    if not decided:
        return "not counted"
    if len(decided) == 1 and n > 1:
        return "counted on one setting only"
    return f"same outcome on {len(decided)} of {n}" if len(decided) < n else f"same outcome on all {n}"


def _cells_table(settings: list, rows: list) -> str:
    if not rows:
        return "No cell measured both languages on any setting."
    out = _header(settings, ["cell", "level"], ["across the settings"])
    for r in rows:
        shown = [c.text() if c is not None else "— (no such cell here)" for c in r.cells]
        cols = [r.label, LEVEL_TITLES[r.level], *shown, _across_text(r, len(settings))]
        out.append("| " + " | ".join(_cell(c) for c in cols) + " |")
    return "\n".join(out)


WINNER_WORDS = {
    "go": "Go",
    "python": "Python",
    "equivalent": "equivalent",
    "inconclusive": "inconclusive",
    None: "no counted point",
}


def _why_list(settings: list, rows: list) -> str:
    out = []
    for r in rows:
        sides = ", ".join(f"{WINNER_WORDS[w]} on #{i + 1}" for i, w in enumerate(r.winners))
        out.append(f"- **{r.label}, {LEVEL_TITLES[r.level]}**: {sides}.")
        for i, why in enumerate(r.why):
            if why:
                out.append(f"  - #{i + 1} ({settings[i].label}), {why}")
    return "\n".join(out)


def _older(settings: list, older: Optional[dict]) -> str:
    if not older:
        return ""
    out = []
    for s in settings:
        for source in older.get(s.key, []):
            out.append(f"- {s.label}: {source}")
    if not out:
        return ""
    return (
        "Where one setting has several runs the newest is shown; these are not (pooling runs of different days "
        "would narrow intervals that the machine's drift does not):\n\n" + "\n".join(out)
    )


def _sections(settings: list, rows: list, notes: Sequence = (), older: Optional[dict] = None) -> list:
    """(heading, Markdown) of the page before its pictures."""
    verdicts = holds(settings, rows)
    flipped = [r for r in rows if r.changes_outcome]
    other = [r for r in rows if not r.changes_outcome and any(r.why)]
    out = [("", _lead(settings, rows, verdicts)), ("", f"{VERDICT_RULE} {RATIO_RULE}")]
    if notes:
        out.append(("", "\n".join(f"- *{n}.*" for n in notes)))
    out.append(("Each level's verdict", _verdict_table(settings, verdicts)))
    out.append(
        (
            "Every cell",
            "Each column is one setting: the outcome (the faster side and its advantage, or equivalent, or "
            "inconclusive) with its interval, and the pair of variants it compares.\n\n" + _cells_table(settings, rows),
        )
    )
    out.append(
        (
            "Cells that change outcome",
            _why_list(settings, flipped) if flipped else "No cell changes outcome: every counted cell agrees.",
        )
    )
    if other:
        out.append(("Cells missing or not counted on some setting", _why_list(settings, other)))
    shown = _older(settings, older)
    if shown:
        out.append(("Runs not shown", shown))
    return out


def markdown(
    settings: list, rows: list, figures: Sequence = (), notes: Sequence = (), older: Optional[dict] = None
) -> str:
    """verdict.md: the lead (the settings, each level's verdict), the rules,
    the notes, the verdict table, every cell, the cells that change side
    with their reasons, and the pictures (charts.Figure, files beside the
    page). older: Setting.key -> [source of a run not shown]."""
    out = ["# The verdict across machines and runtimes", ""]
    for heading, text in _sections(settings, rows, notes, older):
        if heading:
            out += [f"## {heading}", ""]
        out += [text, ""]
    out += ["## Pictures", ""]
    if figures:
        for f in figures:
            out += [f"![{f.title}]({Path(f.path).name})", "", f"*{f.caption}*", ""]
    else:
        missing = [n.partition(": ")[2] for n in notes if n.startswith("no pictures: ")]
        out += [f"This page has no pictures: {missing[0]}." if missing else "No cell has a point to draw.", ""]
    return "\n".join(out).rstrip() + "\n"


def render_html(
    settings: list, rows: list, figures: Sequence = (), notes: Sequence = (), older: Optional[dict] = None
) -> str:
    """verdict.html: markdown()'s page in one self-contained file. Raises
    ImportError without jinja2 or markdown-it-py."""
    return _page.html(
        "roundbench: the verdict across machines and runtimes",
        "The verdict across machines and runtimes",
        _sections(settings, rows, notes, older),
        figures,
        no_pictures="No pictures on this page.",
    )


# ---- the pictures --------------------------------------------------------------------------------


def _plain_ticks(ax, lo: float, hi: float) -> None:
    """Ticks on a log x axis of ratios that spans less than SPREAD_LOG:
    round ratios (1, 1.5, 2, 3, 5, 7 per decade), at most 9, 1 among them."""
    # matplotlib loads only when the picture is drawn
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    found = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in (1.0, 1.5, 2.0, 3.0, 5.0, 7.0):
            v = m * 10.0**e
            if lo <= v <= hi:
                found.append(v)
    fine = [0.8, 0.9, 1.1, 1.2, 1.3]
    if len(found) < 4:
        found = sorted(set(found) | {v for v in fine if lo <= v <= hi})
    while len(found) > 9:
        found = found[::2]
    if lo <= 1 <= hi and 1.0 not in found:
        found = sorted(found + [1.0])
    ax.xaxis.set_major_locator(FixedLocator(found))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _draw_level(plt, settings: list, rows: list, lvl: str, out_dir: Path) -> Optional[charts.Figure]:
    drawn = [r for r in rows if r.level == lvl and any(c is not None and c.point is not None for c in r.cells)]
    if not drawn:
        return None
    names = [r.label + (" (not counted)" if any(c is not None and c.undecided for c in r.cells) else "") for r in drawn]
    n, k = len(drawn), max(len(settings), 1)
    row_in = max(0.5, 0.22 * k)
    legend_in = 0.15 + 0.16 * k
    left = min(0.4 + charts.CHAR_IN * max(len(x) for x in names), 4.5)
    width = left + 6.5
    height = charts.TOP_IN + row_in * n + 0.55 + legend_in
    fig, ax = plt.subplots(figsize=(width, height))
    values = [1.0]
    for i, s in enumerate(settings):
        xs, ys, below, above = [], [], [], []
        for j, r in enumerate(drawn):
            c = r.cells[i]
            if c is None or c.point is None or not (c.point.ratio > 0 and math.isfinite(c.point.ratio)):
                continue
            p = c.point
            lo, hi = p.ci if p.ci else (p.ratio, p.ratio)
            lo, hi = min(lo, p.ratio), max(hi, p.ratio)
            offset = (i - (k - 1) / 2) * (0.6 / k) if k > 1 else 0.0
            xs.append(p.ratio)
            ys.append(n - 1 - j - offset)
            below.append(p.ratio - lo)
            above.append(hi - p.ratio)
            values += [x for x in (lo, hi) if x > 0]
        if not xs:
            continue
        ax.errorbar(
            xs,
            ys,
            xerr=[below, above],
            fmt=charts.MARKERS[i % len(charts.MARKERS)],
            markersize=4.5,
            capsize=2,
            elinewidth=1,
            label=f"#{i + 1} {s.label}",
        )
    lo, hi = min(values) / 1.15, max(values) * 1.15
    ax.axvline(1.0, color="#444444", linewidth=0.9)
    ax.set_xlim(lo, hi)
    if hi / lo > charts.SPREAD_LOG:
        charts.log_axis(ax, "x", hi / lo)
    else:
        ax.set_xscale("log")
        _plain_ticks(ax, lo, hi)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_yticks(list(range(n))[::-1])
    ax.set_yticklabels(names)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("Go's advantage: the ratio of the medians (log scale; right of 1: Go ahead, left: Python ahead)")
    title = LEVEL_TITLES[lvl]
    ax.set_title(f"{title[:1].upper()}{title[1:]}: Go's advantage on each setting\nwhiskers: the 95% interval")
    fig.subplots_adjust(
        left=left / width,
        right=1 - 0.3 / width,
        top=1 - charts.TOP_IN / height,
        bottom=(0.55 + legend_in) / height,
    )
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower left", ncol=1, fontsize=7, frameon=False, bbox_to_anchor=(0.02, 0.0))
    path = out_dir / f"verdict-{lvl}.png"
    fig.savefig(path, dpi=charts.DPI)
    plt.close(fig)
    return charts.Figure(
        f"verdict-{lvl}",
        f"{title}: Go's advantage on each setting",
        f"{title[:1].upper()}{title[1:]}: one row per cell, Go's advantage (the ratio of the medians of the two "
        "sides' best variants, measured on one setting) with its 95% interval as whiskers, a marker per setting; "
        "the line at 1 is where neither side is ahead.",
        path,
    )


def draw(settings: list, rows: list, out_dir: Path) -> list:
    """verdict-<level>.png in out_dir for each level that has a point;
    returns their charts.Figure. Raises ImportError without matplotlib."""
    plt = charts.pyplot()
    out_dir = Path(out_dir)
    figures = []
    for lvl in LEVELS:
        f = _draw_level(plt, settings, rows, lvl, out_dir)
        if f is not None:
            figures.append(f)
    return figures


def write_page(settings: list, out_dir, older: Optional[dict] = None, rule: Optional[decide.Rule] = None) -> list:
    """verdict.md, verdict.html (self-contained) and verdict-<level>.png in
    out_dir; returns their paths, verdict.md first. Without matplotlib the
    page says it has no pictures; without jinja2 or markdown-it-py it has no
    HTML and the Markdown says so. older: Setting.key -> [source of a run
    of that setting not shown]."""
    rows = across(settings, rule)
    return _page.write(
        out_dir,
        "verdict",
        lambda d: (draw(settings, rows, d), []),
        lambda figures, notes: render_html(settings, rows, figures, notes, older),
        lambda figures, notes: markdown(settings, rows, figures, notes, older),
        [],
    )
