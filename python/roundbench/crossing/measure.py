"""`roundbench crossing` end to end: parse, build, run every mechanism with
the suite's runner and protocol, and write the results and a short report.

The mechanisms are the variants of a round made for the run, `crossing`,
whose one cell is `sym=NAME`: the runner interleaves them (A B C A B C), runs
each in a fresh process pinned as the ffi round's children are, adapts the
run count until each median's 95% CI is within ±2% or the cell's budget is
spent, and holds every mechanism's result to the first one's, c-dlsym's (the
round's cross-check: a mechanism that returns another value fails its run,
named). The result file is the suite's (Go benchmark format, the same
provenance lines, `BenchmarkCrossing/impl=py-ctypes/sym=cos ... ns/call`).
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..results import benchfmt, stats
from ..runtimes import gotoolchains, interp
from ..measure import placement
from ..run import plans as run_plans, policy as run_policy, provenance, runner
from .. import rounds, runtimes
from ..errors import UsageError
from . import build as b
from . import decl as d
from . import gen
from . import header as h
from . import report

RESULTS = "results.txt"
REPORT = "report.md"
GO_FOLDER = "go"
# The ffi round's buffer rows hand over 1 MiB: the same by default.
DEFAULT_BUFFER = 1 << 20
BUDGET_S = 60.0  # the ffi round's cell budget (Round.budget_s's default)


@dataclass
class Figure:
    """One mechanism's figures: ns per call, median with its 95% CI."""

    mechanism: str
    python: Optional[str]  # the interpreter's key, for a Python mechanism under --python twice or more
    summary: Optional[stats.Summary]
    runs: int
    explain: str = ""
    go: Optional[str] = None  # the Go release ("1.20.14"), for a Go mechanism under --go

    @property
    def label(self) -> str:
        return self.mechanism + (f" ({self.python})" if self.python else "") + (f" (go{self.go})" if self.go else "")


@dataclass
class Result:
    """What measure() found: per mechanism, its figures; the mechanisms
    that failed (a wrong result names the mechanism), or were skipped,
    with why."""

    declaration: d.Declaration
    library: b.Library
    args: list
    result: Optional[str]  # decl.result_text of c-dlsym's (the reference's) return value
    figures: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    out_dir: Optional[Path] = None
    report: Optional[Path] = None
    built: list = field(default_factory=list)

    def figure(self, mechanism: str, python: Optional[str] = None, go: Optional[str] = None) -> Optional[Figure]:
        return next((f for f in self.figures if (f.mechanism, f.python, f.go) == (mechanism, python, go)), None)

    def baseline(self) -> Optional[float]:
        f = self.figure("c-dlsym")
        return f.summary.median if f and f.summary else None


def parse(declaration: str, args: list, header: Optional[str] = None) -> tuple:
    """(the Declaration, its --args values, the Header or None); UsageError
    saying what is wrong. With `header`, the declaration is preprocessed
    with it and its type names followed through the header's typedefs
    (header.py); the Declaration keeps the text as written."""
    hdr = None
    try:
        if header is not None:
            try:
                hdr = h.read(header, declaration, b.cc())
            except h.HeaderError as e:
                raise UsageError(str(e)) from None
            dc = d.parse(hdr.declaration, hdr.typedefs)
            dc = dataclasses.replace(dc, text=" ".join(declaration.split()).rstrip(";").strip())
        else:
            dc = d.parse(declaration)
    except d.Unsupported as e:
        raise UsageError(str(e)) from None
    if not args:
        # No values given: 0 for each (crc32's start, any integer's or float's).
        args = ["0"] * len(dc.scalars)
    try:
        vals = d.values(dc, [str(a) for a in args])
    except ValueError as e:
        raise UsageError(str(e)) from None
    return dc, vals, hdr


def _round(dc: d.Declaration, mechanisms: list, vals: list, buffer_size: int, lib: b.Library, axis: bool) -> tuple:
    """The round made for this run, and its one cell's Plan."""
    common = {gen.ENV_ARGS: d.env_text(dc, vals), gen.ENV_LIBRARY: lib.path}
    if dc.buffer is not None:
        common[gen.ENV_BUFFER] = str(buffer_size)
    variants, skipped = [], []
    for m in mechanisms:
        extra = {**common, **m.env}
        if m.python is not None:
            extra.update(interp.child_env(m.python))
        rt = None
        if axis and m.python is not None:
            rt = runtimes.Runtime(runtimes.PYTHON, interp.key(m.python), m.python, default=False)
        elif m.go is not None:
            rt = runtimes.Runtime(runtimes.GO, m.go, m.go, default=False)
        v = rounds.Variant(
            m.name,
            "generated",
            m.explain,
            env=lambda params, extra=extra: extra,
            # A mechanism that cannot run here is never started: its skip
            # row needs a Variant, which a generated program's argv names.
            argv=tuple(m.argv) or (m.name,),
            runtime=rt,
            # Every Python and Go mechanism is a crossing into C, as the ffi
            # round declares its rows of the same names (py-pybind11, ...).
            level=None if m.name.startswith("c-") else "core",
        )
        (skipped.append((v, m.why)) if m.why else variants.append(v))
    rnd = rounds.Round(
        name="crossing",
        title=f"crossing: {dc.c_prototype()}",
        explain="ns per call with the loop's own cost subtracted, every mechanism calling the same function",
        variants=[v for v in variants] + [v for v, _ in skipped],
        sizes=[{"sym": dc.name}],
        quick=[{"sym": dc.name}],
        params=[rounds.Param("sym", "the C function the prototype names", parse=str)],
        metric="ns/call",
        units={"ns/call": "lower"},
        metric_explain="ns/call: time of one call, loop overhead subtracted",
        reference="c-dlsym",
        cross_check=True,
        scored=False,
        binding_overhead=False,
        budget_s=BUDGET_S,
    )
    return rnd, run_plans.Plan(rnd, {"sym": dc.name}, variants, skipped)


def _go_releases(specs: list) -> list:
    """The releases --go values mean (gotoolchains.resolve), each once. A
    malformed or too old value is a usage error; a release the proxy does
    not serve stays as given, and its Go mechanisms are skipped saying why."""
    out = []
    for spec in specs:
        try:
            release = gotoolchains.resolve_or_keep(spec)
        except gotoolchains.ToolchainError as e:
            raise UsageError(str(e)) from None
        if release not in out:
            out.append(release)
    return out


def _items(dc: d.Declaration, lib: b.Library, vals: list, buffer_size: int, built: b.Built, pythons: list,
           hdr: Optional[h.Header]) -> dict:  # fmt: skip
    items = {
        "crossing-declaration": dc.text,
        "crossing-prototype": dc.c_prototype() + f" (this ABI: {d.sizes_text()})",
    }
    if hdr is not None:
        names = "; ".join(hdr.chain(n) for n in hdr.used()) or "no typedef of it used"
        items["crossing-header"] = f"{hdr.path} (named {hdr.given}; {hdr.command}): {names}"
    items |= {
        "crossing-library": f"{lib.path} (named {lib.given}; sha256 {lib.sha256})",
        "crossing-args": d.env_text(dc, vals) or "none",
    }
    if dc.buffer is not None:
        items["crossing-buffer"] = f"{buffer_size} bytes, {gen.BUFFER_RULE}"
    items.update(built.flags)
    items["crossing-python-interpreters"] = ", ".join(f"{interp.key(p)}: {interp.info(p).describe()}" for p in pythons)
    return items


def _collect(out_file: Path, rnd: rounds.Round, dc: d.Declaration, vals: list, lib, built) -> Result:
    rs = benchfmt.read_dir(out_file)
    by_name: dict = {}
    for r in rs.runs:
        by_name.setdefault(r.name, []).append(r)
    res = Result(dc, lib, vals, None, built=built.built)
    for f in rs.failures:
        res.failed.setdefault(_label(f.name), f.reason)
    for s in rs.skips:
        res.skipped[_label(s.name)] = s.reason
    facts = {}
    for f in rs.facts:
        if f.key == "result":
            facts.setdefault(f.name, f.value)
    seen = []
    for v in rnd.variants:
        name = run_plans.bench_name(rnd, v.name, {"sym": dc.name}, v.runtime)
        if name in seen:
            continue
        seen.append(name)
        runs = by_name.get(name, [])
        vals_ = [r.metrics["ns/call"] for r in runs if "ns/call" in r.metrics]
        rt = v.runtime
        py = rt.label if rt is not None and rt.kind == runtimes.PYTHON else None
        go = rt.label if rt is not None and rt.kind == runtimes.GO else None
        if runs:
            summary = stats.summarize(vals_) if vals_ else None
            res.figures.append(Figure(v.name, py, summary, len(vals_), v.explain, go=go))
        if v.name == "c-dlsym" and name in facts:
            res.result = facts[name]
    if res.result is None:
        res.result = next(iter(facts.values()), None)
    return res


def _label(name: str) -> str:
    _, params = benchfmt.split_name(name)
    py = params.get(interp.RESULT_KEY)
    go = params.get(runtimes.GO)
    return params.get("impl", name) + (f" ({py})" if py else "") + (f" (go{go})" if go else "")


def measure(
    library: str,
    declaration: str,
    args=(),
    *,
    buffer_size: int = DEFAULT_BUFFER,
    pythons: Optional[list] = None,
    out: Optional[str] = None,
    cache: Optional[str] = None,
    runs: Optional[int] = None,
    budget: Optional[float] = None,
    timeout: float = 900,
    progress=sys.stderr,
    only: Optional[list] = None,
    gos: Optional[list] = None,
    header: Optional[str] = None,
) -> Result:
    """Measures what one call of `declaration` (a C prototype) in `library`
    (a path or a name the dynamic linker finds) costs by every mechanism,
    on the arguments `args` (none: 0 for each), and writes results.txt, report.md and the Go
    benchmark package into `out` (default results/crossing-<symbol>-<time>).
    `pythons`: the interpreters of the Python mechanisms (default: the one
    running this); `runs`: a fixed count per mechanism (default: adaptive,
    as `roundbench run`); `budget`: seconds of runs beyond the minimum;
    `only`: these mechanisms alone, besides the baseline c-dlsym; `gos`:
    the Go releases of the Go mechanisms, as `roundbench run --go` takes
    them ("1.20", "1.22.5"; default: the installed Go), each fetched by the
    go command where it is not yet.
    `header`: the header the declaration is copied from (a path, or an
    include name such as zlib.h), whose macros and typedefs it may use.
    UsageError for a declaration, argument, header, library or symbol that
    cannot be used (its message is one line)."""
    dc, vals, hdr = parse(declaration, list(args), header)
    if dc.buffer is not None and buffer_size < 0:
        raise UsageError(f"--buffer-size {buffer_size}: want a size in bytes >= 0")
    if runs is not None and runs < 1:
        raise UsageError(f"--runs {runs}: want a count of at least 1")
    if budget is not None and not budget >= 0:
        raise UsageError(f"--budget {budget:g}: want a number of seconds >= 0")
    if not timeout > 0:
        raise UsageError(f"--timeout {timeout:g}: want a number of seconds > 0")
    if only:
        unknown = set(only) - set(b.EXPLAIN)
        if unknown:
            raise UsageError(f"unknown mechanism(s) {', '.join(sorted(unknown))} (have: {', '.join(b.EXPLAIN)})")
    try:
        lib = b.find_library(library, dc.name)
    except b.NotFound as e:
        raise UsageError(str(e)) from None
    exes = []
    for p in pythons or [interp.executable()]:
        exe = os.path.abspath(p) if os.sep in p else p
        try:
            interp.info(exe)
        except interp.BadInterpreter as e:
            raise UsageError(f"--python {e}") from None
        if any(interp.key(x) == interp.key(exe) for x in exes):
            raise UsageError(f"--python {p}: {interp.key(exe)} is already named by another --python")
        exes.append(exe)
    releases = _go_releases(gos or [])
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = Path(out or Path("results") / f"crossing-{dc.name}-{stamp}")
    out_file = out_dir / RESULTS
    if out_file.exists():
        out_file.unlink()  # one measurement per folder: its report reads it alone
    built = b.build(dc, lib, exes, cache, progress, only=set(only) if only else None, gos=releases)
    rnd, plan = _round(dc, built.mechanisms, vals, buffer_size, lib, axis=len(exes) > 1)
    policy = run_policy.RunPolicy(fixed=runs, budget_s=budget)
    place = placement.plan("pinned")
    # The crossing round is no suite round: no hook of its own, and the
    # static scan of the timed code reads the suite's sources, not these.
    prov, _ = provenance.collect([], policy.describe(), False, place, [plan])
    prov.update(_items(dc, lib, vals, buffer_size, built, exes, hdr))
    r = runner.Runner(out_file, policy, timeout, progress=progress, placement=place, notices=progress)
    if progress:
        more = "" if runs is not None else " at least"
        print(
            f"roundbench crossing:{more} {r.planned([plan])} runs of {len(plan.variants)} mechanisms -> {out_file}",
            file=progress,
            flush=True,
        )
    # The runner pins this process to its own CPU (placement): given back
    # after, since measure() may be called from a program that goes on.
    affinity = os.sched_getaffinity(0)
    try:
        r.run([plan], prov)
    finally:
        os.sched_setaffinity(0, affinity)
    res = _collect(out_file, rnd, dc, vals, lib, built)
    res.out_dir = out_dir
    if built.go_dir is not None and res.result is not None:
        _go_package(built.go_dir, out_dir / GO_FOLDER, dc, vals, buffer_size, res.result)

    res.report = report.write(res, out_dir, prov)
    return res


def _go_package(src: Path, dst: Path, dc: d.Declaration, vals: list, buffer_size: int, want: str) -> None:
    """The Go package a Go user drops into their own `go test -bench`: the
    cgo calls and BenchmarkCrossing, checked against c-dlsym's result."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("go.mod", "crossing.go", "crossing_go124.go"):
        shutil.copyfile(src / name, dst / name)
    (dst / "crossing_test.go").write_text(gen.go_bench(dc, vals, buffer_size, want))
    (dst / "crossing_go124_test.go").write_text(gen.go_bench_124(dc, vals, buffer_size, want))
    b.gofmt(dst)
