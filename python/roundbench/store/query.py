"""Selecting from the store by `key:value` terms, and the export.

A term is KEY:VALUE. Terms of one key are alternatives (any may match);
terms of different keys must all match. The keys:

    machine:FP        a machine fingerprint (a prefix of it will do)
    cpu:TEXT          the CPU's model or identity contains TEXT (any case)
    go:1.27           the Go release: 1.27 matches 1.27.x; in a file with
                      the runtime axis, a run that ran that Go, and only
                      its lines of that Go (and those of no Go)
    python:3.15       the Python children: cpython-3.15.x, or python:pypy,
                      python:cpython-3.13.5t; the axis as for go:
    date:2026-12      the run's date begins so
    since:DATE until:DATE   the run's date from, up to (inclusive, by prefix)
    round:NAME variant:NAME size:TEXT   the lines of that round, variant
                      (impl), size (k=v as in the names)
    commit:ABC file:SHA run:N   the project's commit, the file's SHA-256
                      (a prefix), the run's id
    KEY:VALUE         any other configuration key of the run, whose value
                      begins with VALUE (jsonl-kernel:avx512)

The export writes the selected lines back in the Go benchmark format, each
run as its own section: its configuration (with a `store-source` line
naming the file, its SHA-256, the section and its lines, so that every
figure leads back to where it came from), its Unit lines, the selected
lines as the file had them, and its END record without the seal (the
export is not the runner's file). `roundbench report`, `compare` and
benchstat read it unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from ..errors import UsageError
from ..results import benchfmt
from .db import Store

RUN_KEYS = ("machine", "cpu", "go", "python", "date", "since", "until", "commit", "file", "run")
LINE_KEYS = ("round", "variant", "size")


@dataclass
class Terms:
    by_key: dict = field(default_factory=dict)  # key -> [values]

    def get(self, key: str) -> list:
        return self.by_key.get(key, [])

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def text(self) -> str:
        return " ".join(f"{k}:{v}" for k, vs in self.by_key.items() for v in vs) or "(everything)"


_TERM = re.compile(r"^([a-z][a-z0-9_.-]*):(.+)$")


def parse_terms(args: list) -> Terms:
    t = Terms()
    for a in args:
        m = _TERM.match(a)
        if not m:
            raise UsageError(f"{a!r}: a term is KEY:VALUE (machine:, cpu:, go:, python:, date:, round:, ...)")
        t.by_key.setdefault(m.group(1), []).append(m.group(2))
    return t


@dataclass
class Run:
    id: int
    file_id: int
    file_name: str
    sha256: str
    section: int
    first_line: int
    last_line: int
    machine: str  # fingerprint
    cpu: str
    cpu_id: str
    date: str
    commit: str
    go: str
    python: str
    rounds: str
    sealed: bool
    ended: str
    seconds: Optional[float]
    interrupted: bool
    runtimes: set = field(default_factory=set)  # the go=/python= values its lines name
    config: dict = field(default_factory=dict)

    @property
    def source(self) -> str:
        return f"{self.file_name} sha256 {self.sha256[:12]} section {self.section}"


def _version_match(have: str, want: str) -> bool:
    """go:1.27 matches 1.27.4 (a release and its patches), not 1.270."""
    have = have[2:] if have.startswith("go") else have
    want = want[2:] if want.startswith("go") else want
    return have == want or have.startswith(want + ".") or have.startswith(want + "-")


def _python_match(have: str, want: str) -> bool:
    """python:3.15 matches cpython-3.15.2; python:pypy every PyPy;
    python:cpython-3.13.5t that build exactly, python:cpython-3.13 every 3.13."""
    if "-" in want:
        impl, _, ver = want.partition("-")
        h_impl, _, h_ver = have.partition("-")
        return h_impl == impl and _version_match(h_ver, ver)
    if want.replace(".", "").isdigit():
        return _version_match(have.partition("-")[2], want)
    return have.partition("-")[0] == want or have == want


def runs(store: Store, terms: Terms) -> list:
    """The runs the run-level terms select, oldest first."""
    rows = store.all(
        "SELECT r.id, r.file_id, f.name, f.sha256, r.section, r.first_line, r.last_line, m.fingerprint, m.cpu, "
        "m.cpu_id, r.date, r.commit_id, r.go, r.python, r.rounds, r.sealed, r.ended, r.seconds, r.interrupted "
        "FROM runs r JOIN files f ON f.id = r.file_id JOIN machines m ON m.id = r.machine_id "
        "ORDER BY r.date, r.id"
    )
    out = []
    for row in rows:
        out.append(Run(*row[:15], bool(row[15]), row[16], row[17], bool(row[18])))
    if not out:
        return out
    by_id = {r.id: r for r in out}
    for rid, rt in store.all("SELECT DISTINCT run_id, runtimes FROM lines WHERE runtimes <> ''"):
        by_id[rid].runtimes.update(rt.split("/"))
    kept = [r for r in out if _run_matches(r, terms)]
    kept_ids = {r.id for r in kept}
    for rid, k, v in store.all("SELECT run_id, key, value FROM config"):
        if rid in kept_ids:
            by_id[rid].config[k] = v
    generic = [k for k in terms.by_key if k not in RUN_KEYS + LINE_KEYS]
    for k in generic:
        kept = [r for r in kept if any(r.config.get(k, "").startswith(v) for v in terms.get(k))]
    if any(terms.get(k) for k in LINE_KEYS):
        kept = [r for r in kept if selected_lines(store, r, terms)]
    return kept


def _run_matches(r: Run, t: Terms) -> bool:
    checks = {
        "machine": lambda v: r.machine.startswith(v),
        "cpu": lambda v: v.lower() in r.cpu.lower() or v.lower() in r.cpu_id.lower(),
        "go": lambda v: _version_match(r.go, v) or any(_version_match(x[3:], v) for x in r.runtimes if x[:3] == "go="),
        "python": lambda v: _python_match(r.python, v)
        or any(_python_match(x[7:], v) for x in r.runtimes if x.startswith("python=")),
        "date": lambda v: r.date.startswith(v),
        "since": lambda v: r.date >= v,
        "until": lambda v: r.date[: len(v)] <= v,
        "commit": lambda v: r.commit.startswith(v),
        "file": lambda v: r.sha256.startswith(v),
        "run": lambda v: str(r.id) == v,
    }
    for key, test in checks.items():
        values = t.get(key)
        if values and not any(test(v) for v in values):
            return False
    return True


def _line_matches(rnd: str, variant: str, size: str, rt: str, t: Terms) -> bool:
    if t.get("round") and rnd not in t.get("round"):
        return False
    if t.get("variant") and variant not in t.get("variant"):
        return False
    if t.get("size") and not any(v in size for v in t.get("size")):
        return False
    have = dict(kv.split("=", 1) for kv in rt.split("/") if "=" in kv)
    if t.get("go") and "go" in have and not any(_version_match(have["go"], v) for v in t.get("go")):
        return False
    if t.get("python") and "python" in have and not any(_python_match(have["python"], v) for v in t.get("python")):
        return False
    return True


def selected_lines(store: Store, run: Run, terms: Terms) -> set:
    """The line numbers of `run`'s records the line-level terms keep."""
    rows = store.all("SELECT line, round, variant, size, runtimes FROM lines WHERE run_id = ?", (run.id,))
    return {ln for ln, rnd, var, size, rt in rows if _line_matches(rnd, var, size, rt, terms)}


def section_text(store: Store, run: Run, terms: Terms) -> str:
    """The run's section as the export writes it (module doc)."""
    raw = store.one("SELECT raw FROM files WHERE id = ?", (run.file_id,))[0]
    lines = raw.split("\n")[run.first_line - 1 : run.last_line]
    keep = selected_lines(store, run, terms)
    out = [
        benchfmt.config_line(
            "store-source",
            f"{run.file_name} sha256 {run.sha256} section {run.section} lines {run.first_line}-{run.last_line}",
        )
    ]
    keeping_detail = False
    for offset, line in enumerate(lines):
        number = run.first_line + offset
        kind = benchfmt.classify(line)
        what = kind[0] if kind else None
        if what == "detail":
            if keeping_detail:
                out.append(line + "\n")
            continue
        keeping_detail = False
        if what in ("config", "unit", "blank", "trial", "values"):
            # A trial record names runs the selection may leave out: a
            # reader pairs only the runs that are there (and a values
            # record left without its run line is dropped by the reader).
            out.append(line + "\n")
        elif what == "end":
            m = kind[1]
            out.append(benchfmt.end_line(m.group(1), float(m.group(2)), bool(m.group(3))))
        elif number in keep:
            out.append(line + "\n")
            keeping_detail = what in ("fail", "killed")
    return "".join(out)


def export(store: Store, terms: Terms) -> tuple:
    """(text, runs): the selection in the Go benchmark format."""
    chosen = runs(store, terms)
    return "".join(section_text(store, r, terms) for r in chosen), chosen
