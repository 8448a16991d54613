"""Importing results files into the store.

A file is checked whole before anything of it is stored, and is stored in
one transaction, so a refused file leaves the store as it was:

- it is UTF-8 and ends with a newline (a file cut in the middle of a line
  is refused at that line);
- every line is a line of the result format (benchfmt.classify): a
  configuration line, a Unit line, a result line with ns/op, a FAIL, SKIP,
  FACT, KILLED, RUNS or END record, a failure's indented detail, or blank;
- it is one or more sections, each closed by the END record the runner
  writes last; a section without one is a truncated file or a killed run,
  refused unless `allow_unended` (then stored and marked so);
- an END record with a seal (sha256=, written since the store exists)
  matches the section's bytes before it; a file edited after its run is
  refused at that END line. A file written before seals is stored as
  unsealed, which `roundbench store list` shows.

The same bytes are stored once (files.sha256): importing a file again adds
nothing. Each section becomes a run with its machine: a fingerprint of the
CPU model, the CPU's identity (family, model, stepping and instruction
sets: `cpu-id`, "not recorded" in files older than it), the online cores,
the memory and the kernel. Two runs share a machine only when all of these
agree, so results of different machines are never merged; a file that does
not record one of them gets "not recorded" there, and its machine is told
apart from one that does.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..results import benchfmt
from ..runtimes import GO, PYTHON
from .db import Store

NOT_RECORDED = "not recorded"


class Refused(ValueError):
    """A file the store will not take; the message names the file and line."""


@dataclass
class Item:
    line: int
    kind: str  # result, fail, skip, fact, killed, stop
    name: str
    iters: Optional[int] = None
    metrics: dict = field(default_factory=dict)
    detail: str = ""


@dataclass
class Section:
    number: int  # 1, 2, ... in the file
    first_line: int
    last_line: int  # the END line (or the file's last line when unended)
    config: dict
    items: list
    end: Optional[benchfmt.End]
    sealed: bool


def _refuse(name: str, line: int, why: str, text: Optional[str] = None) -> Refused:
    shown = f": {text[:120]!r}" if text is not None else ""
    return Refused(f"{name}:{line}: {why}{shown}")


def check(data: bytes, name: str, allow_unended: bool = False) -> list:
    """The sections of a results file, checked as the module says; raises
    Refused naming the first line that fails."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise _refuse(name, line, f"not UTF-8 (byte {e.start})") from None
    if not text:
        raise _refuse(name, 1, "empty file")
    lines = text.split("\n")
    if lines[-1] != "":
        raise _refuse(name, len(lines), "the file ends in the middle of a line (truncated)", lines[-1])
    lines.pop()
    sections: list = []
    cur: Optional[dict] = None
    seal = None
    may_detail = False
    for number, line in enumerate(lines, 1):
        kind = benchfmt.classify(line)
        if kind is None:
            raise _refuse(name, number, "not a line of the result format", line)
        what, m = kind
        if what == "detail":
            if not may_detail:
                raise _refuse(name, number, "an indented line that follows no FAIL or KILLED record", line)
            cur["items"][-1].detail += "\n" + line[4:]
            seal.update(line.encode("utf-8") + b"\n")
            continue
        may_detail = what in ("fail", "killed")
        if cur is None:
            if what == "blank":
                continue
            cur = {"first": number, "config": {}, "items": []}
            seal = hashlib.sha256()
        if what == "end":
            end = benchfmt.End(m.group(1), float(m.group(2)), bool(m.group(3)), m.group(4))
            if end.sha256 is not None and end.sha256 != seal.hexdigest():
                raise _refuse(
                    name,
                    number,
                    f"the seal does not match lines {cur['first']}-{number - 1}: "
                    "the section was edited after its run (or cut and joined)",
                    line,
                )
            sections.append(_section(len(sections) + 1, cur, number, end, name))
            cur, seal = None, None
            continue
        seal.update(line.encode("utf-8") + b"\n")
        if what == "config":
            cur["config"][m.group(1)] = m.group(2)
        elif what == "bench":
            try:
                run = benchfmt.parse_bench_line(line)
                benchfmt.split_name(run.name)
            except ValueError as e:
                raise _refuse(name, number, str(e)) from None
            cur["items"].append(Item(number, "result", run.name, run.iters, run.metrics))
        elif what == "fail":
            run_no = f"run {m.group(2)}: " if m.group(2) else ""
            cur["items"].append(Item(number, "fail", m.group(1), detail=run_no + m.group(3)))
        elif what == "killed":
            cur["items"].append(Item(number, "killed", m.group(1), detail=f"run {m.group(2)}: {m.group(3)}"))
        elif what == "skip":
            cur["items"].append(Item(number, "skip", m.group(1), detail=m.group(2)))
        elif what == "fact":
            cur["items"].append(Item(number, "fact", m.group(1), detail=f"{m.group(2)} {m.group(3)}".strip()))
        elif what == "stop":
            cur["items"].append(Item(number, "stop", m.group(1), detail=f"{m.group(2)} runs, {m.group(3)}"))
        if cur["items"] and cur["items"][-1].line == number:
            try:
                benchfmt.split_name(cur["items"][-1].name)
            except ValueError as e:
                raise _refuse(name, number, str(e)) from None
    if cur is not None:
        if not allow_unended:
            raise _refuse(
                name,
                len(lines),
                f"the section that starts at line {cur['first']} ends without the --- END record the runner "
                "writes last: the file is truncated, or its run was killed (--allow-unended stores it as it is)",
            )
        sections.append(_section(len(sections) + 1, cur, len(lines), None, name))
    if not sections:
        raise _refuse(name, len(lines), "no run in the file (no configuration or result line)")
    return sections


def _section(number: int, cur: dict, last: int, end, name: str) -> Section:
    if not cur["config"]:
        raise _refuse(name, cur["first"], "a section without its configuration lines (not a file the runner wrote)")
    return Section(number, cur["first"], last, cur["config"], cur["items"], end, bool(end and end.sha256))


# ---- the machine and the runtimes of a run -----------------------------------------


MACHINE_FIELDS = ("cpu", "cpu_id", "cores", "memory", "kernel", "simd")


def machine_of(cfg: dict) -> dict:
    """The machine fields of a run's configuration and their fingerprint."""
    cores = cfg.get("cores", "")
    m = re.match(r"(\d+) online", cores)
    mem = re.search(r"(\d+(?:\.\d+)? [KMGT]iB)", cfg.get("machine-memory", ""))
    kernel = " ".join(cfg.get("kernel", "").split()[:2])
    cpu_id = cfg.get("cpu-id") or NOT_RECORDED
    if cpu_id != NOT_RECORDED and ";" in cpu_id:
        simd = cpu_id.split(";", 1)[1].strip()
    else:
        kern = cfg.get("jsonl-kernel", "").split()
        simd = f"the jsonl kernel {kern[0]} (cpu-id not recorded)" if kern else NOT_RECORDED
    fields = {
        "cpu": cfg.get("cpu") or NOT_RECORDED,
        "cpu_id": cpu_id,
        "cores": f"{m.group(1)} online" if m else NOT_RECORDED,
        "memory": mem.group(1) if mem else NOT_RECORDED,
        "kernel": kernel or NOT_RECORDED,
        "simd": simd,
    }
    # simd is derived from cpu_id (or a hint where it is not recorded): it
    # describes, it does not identify.
    key = "\n".join(f"{k}={fields[k]}" for k in MACHINE_FIELDS if k != "simd")
    return {"fingerprint": hashlib.sha256(key.encode()).hexdigest()[:12], **fields}


def go_of(cfg: dict) -> str:
    m = re.match(r"go(\d+\.\d+(?:\.\d+)?\S*)", cfg.get("go-version", ""))
    return m.group(1) if m else NOT_RECORDED


def python_of(cfg: dict) -> str:
    """The children's interpreter as the runtime axis names it
    (cpython-3.15.2, pypy-7.3.11): python-key, else what the provenance's
    python-children or python line says."""
    if cfg.get("python-key"):
        return cfg["python-key"]
    for key in ("python-children", "python"):
        m = re.search(r"\b(CPython|PyPy) (\d+\.\d+\.\d+[a-z0-9]*)", cfg.get(key, ""))
        if m:
            return f"{m.group(1).lower()}-{m.group(2)}"
    return NOT_RECORDED


def split(name: str) -> tuple:
    """(round, variant, size, runtimes, params) of a result name: size is
    the name's other parameters as k=v/k=v, runtimes its go= and python=
    keys."""
    rnd, params = benchfmt.split_name(name)
    variant = params.get("impl", "")
    rt = "/".join(f"{k}={params[k]}" for k in (GO, PYTHON) if k in params)
    size = "/".join(f"{k}={v}" if v else k for k, v in params.items() if k not in ("impl", GO, PYTHON))
    return rnd, variant, size, rt, params


# ---- storing -----------------------------------------------------------------------


@dataclass
class Outcome:
    path: str
    sha256: str
    added: bool
    runs: int
    lines: int
    why: str  # what happened, in words


def import_bytes(store: Store, data: bytes, name: str, allow_unended: bool = False) -> Outcome:
    """Checks and stores one file; a file already stored adds nothing.
    Raises Refused (nothing stored)."""
    digest = hashlib.sha256(data).hexdigest()
    row = store.one("SELECT id, name, imported FROM files WHERE sha256 = ?", (digest,))
    if row is not None:
        return Outcome(name, digest, False, 0, 0, f"already in the store (imported {row[2]} as {row[1]})")
    sections = check(data, name, allow_unended)
    text = data.decode("utf-8")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    store.begin()
    try:
        fid = store.one(
            "INSERT INTO files (sha256, name, bytes, imported, raw) VALUES (?, ?, ?, ?, ?) RETURNING id",
            (digest, name, len(data), now, text),
        )[0]
        n_lines = 0
        for sec in sections:
            n_lines += _store_section(store, fid, sec)
        store.commit()
    except store.integrity_error:
        store.rollback()
        row = store.one("SELECT name, imported FROM files WHERE sha256 = ?", (digest,))
        if row is None:
            raise
        return Outcome(name, digest, False, 0, 0, f"already in the store (imported {row[1]} as {row[0]}, meanwhile)")
    except BaseException:
        store.rollback()
        raise
    unsealed = sum(1 for s in sections if not s.sealed)
    unended = sum(1 for s in sections if s.end is None)
    notes = []
    if unsealed:
        notes.append(f"{unsealed} unsealed (written before seals, or unended)")
    if unended:
        notes.append(f"{unended} without its END record")
    why = f"added: {len(sections)} run(s), {n_lines} lines" + (f" ({'; '.join(notes)})" if notes else "")
    return Outcome(name, digest, True, len(sections), n_lines, why)


def _machine_id(store: Store, cfg: dict) -> int:
    mach = machine_of(cfg)
    row = store.one("SELECT id FROM machines WHERE fingerprint = ?", (mach["fingerprint"],))
    if row is not None:
        return row[0]
    cols = ("fingerprint",) + MACHINE_FIELDS
    return store.one(
        f"INSERT INTO machines ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) RETURNING id",
        tuple(mach[c] for c in cols),
    )[0]


def _store_section(store: Store, fid: int, sec: Section) -> int:
    cfg = sec.config
    mid = _machine_id(store, cfg)
    rounds = sorted({split(i.name)[0] for i in sec.items})
    options = "; ".join(f"{k}: {cfg[k]}" for k in ("runs", "quick", "placement") if k in cfg)
    end = sec.end
    rid = store.one(
        "INSERT INTO runs (file_id, section, first_line, last_line, machine_id, date, commit_id, go, python, "
        "python_build, command, options, rounds, ended, seconds, interrupted, sealed) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            fid,
            sec.number,
            sec.first_line,
            sec.last_line,
            mid,
            cfg.get("date", NOT_RECORDED),
            cfg.get("roundbench-commit", NOT_RECORDED),
            go_of(cfg),
            python_of(cfg),
            cfg.get("python-build", NOT_RECORDED),
            cfg.get("command", NOT_RECORDED),
            options,
            " ".join(rounds),
            end.date if end else "",
            end.seconds if end else None,
            int(bool(end and end.interrupted)),
            int(sec.sealed),
        ),
    )[0]
    store.executemany("INSERT INTO config (run_id, key, value) VALUES (?, ?, ?)", [(rid, k, v) for k, v in cfg.items()])
    lines, labels, metrics = [], [], []
    for it in sec.items:
        rnd, variant, size, rt, params = split(it.name)
        lines.append((rid, it.line, it.kind, it.name, rnd, variant, size, rt, it.iters, it.detail))
        labels.extend((rid, it.line, k, v) for k, v in params.items())
        metrics.extend((rid, it.line, u, v) for u, v in it.metrics.items())
    store.executemany(
        "INSERT INTO lines (run_id, line, kind, name, round, variant, size, runtimes, iters, detail) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        lines,
    )
    store.executemany("INSERT INTO labels (run_id, line, key, value) VALUES (?, ?, ?, ?)", labels)
    store.executemany("INSERT INTO metrics (run_id, line, unit, value) VALUES (?, ?, ?, ?)", metrics)
    return len(lines)


def files_under(path: Path) -> list:
    """The result files a path names: the file itself, or every *.txt
    under a folder (a suite's folder holds its results.txt and the
    build-cost companion's python-builds/results.txt), each once."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such file or folder")
    seen, out = set(), []
    for f in sorted(path.rglob("*.txt")):
        real = f.resolve()
        if real not in seen and f.is_file():
            seen.add(real)
            out.append(f)
    if not out:
        raise FileNotFoundError(f"{path}: no result files (*.txt) in it")
    return out
