"""The short report of `roundbench crossing`: report.md beside results.txt,
with the ffi round's ladder for this symbol (report-crossing-ladder.png)."""

from __future__ import annotations

from pathlib import Path

from ..results import stats
from ..rounds import ffi
from . import decl as d
from . import gen


def _ns(x) -> str:
    if x is None:
        return "–"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def _ci(s: stats.Summary) -> str:
    if s.ci_low is None:
        return "too few runs"
    return f"{_ns(s.ci_low)} – {_ns(s.ci_high)}"


def table(res) -> str:
    """The mechanisms' figures as a Markdown table, fastest first."""
    base = res.baseline()
    rows = [f for f in res.figures if f.summary is not None]
    rows.sort(key=lambda f: f.summary.median)
    out = [
        "| mechanism | how | ns/call (median) | 95% CI | runs | over c-dlsym | × c-dlsym |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for f in rows:
        s = f.summary
        over = f"{s.median - base:+.3g} ns" if base is not None and f.mechanism != "c-dlsym" else "–"
        ratio = f"{s.median / base:.2f}" if base and base > 0 else "–"
        out.append(f"| {f.label} | {f.explain} | {_ns(s.median)} | {_ci(s)} | {f.runs} | {over} | {ratio} |")
    return "\n".join(out) + "\n"


def write(res, out_dir: Path, header: dict) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    dc: d.Declaration = res.declaration
    lines = [f"# crossing: what one call to `{dc.text}` costs, by mechanism", ""]
    args = d.env_text(dc, res.args) or "none"
    lines += [
        f"- **Library**: `{res.library.path}` (named `{res.library.given}`; sha256 `{res.library.sha256[:16]}…`)",
        f"- **Called as** `{dc.c_prototype()}` with arguments {args}"
        + (f" and a buffer of {header.get('crossing-buffer', '')}" if dc.buffer else ""),
        *([f"- **Header**: {header['crossing-header']}"] if "crossing-header" in header else []),
        f"- **Result**: {d.readable(res.result) if res.result else 'none (no mechanism ran)'}; every mechanism "
        "that ran returned it (bit for bit), or failed its run, named below",
        f"- **Machine**: {header.get('cpu', '?')}, {header.get('cores', '?')}; load average "
        f"{header.get('loadavg', '?')} at the start; {header.get('date', '')}",
        "",
        "ns/call is the time of one call with the loop's own cost subtracted (the same loop without the call, "
        "timed in the same process): a calibrated loop of at least 100 ms, best of three, one fresh process per "
        "run, the mechanisms' runs interleaved, as the ffi round measures. The 95% CI is the median's "
        "(distribution-free). *over c-dlsym* is the median's difference from the direct call through the "
        "pointer dlsym returned: what the mechanism adds to a C caller's cost.",
        "",
        table(res),
    ]
    if res.failed:
        lines.append("**Failed** (no figure is shown for a failed run):\n")
        lines += [f"- {m}: {why}" for m, why in sorted(res.failed.items())]
        lines.append("")
    if res.skipped:
        lines.append("**Not run here**:\n")
        lines += [f"- {m}: {why}" for m, why in sorted(res.skipped.items())]
        lines.append("")
    built = "; ".join(
        f"{k.removeprefix('crossing-build-')} {v.partition(': built in ')[2].partition(' (')[0]}"
        for k, v in header.items()
        if k.startswith("crossing-build-") and ": built in " in v
    )
    figs = ffi.ladder(
        [(f.label, f.summary) for f in res.figures],
        out_dir,
        "crossing-ladder",
        f"crossing: {dc.name}, one call by each mechanism",
        f"crossing: ns per call to {dc.name} by mechanism",
        "Each mechanism's median ns per call with its 95% CI, coloured by caller (C, Python, Go).",
    )
    for fig in figs:
        lines += [f"![{fig.title}]({fig.path.name})", "", fig.caption, ""]
    lines += [
        "## Notes",
        "",
        f"- py-ext uses {gen.convention(dc)} (METH_NOARGS without arguments, METH_O for one, METH_FASTCALL "
        "for more); it keeps the GIL, as a call this short should.",
        "- Each Python mechanism is set up once before its loop (ctypes' argtypes and restype, cffi's cdef); "
        "a buffer is made once in the form each passes without a copy.",
        "- go-cgo-noescape and go-cgo-nocallback annotate the callee (`#cgo noescape`, `#cgo nocallback`, Go "
        "1.24): both are sound for a plain C function that never calls into Go"
        + (
            "; for a buffer, noescape also promises that the function keeps no pointer to it after it returns, "
            "which is assumed here"
            if dc.buffer
            else ""
        )
        + ".",
        "- py-pybind11, py-nanobind, py-cython-extern and py-pyo3 are each a thin wrapper written as its tool's "
        "documentation recommends for speed (pybind11's and nanobind's m.def of the function itself, Cython's "
        "cdef extern in a def with C-typed arguments, PyO3's #[pyfunction] with typed arguments), "
        "a buffer taken through the buffer protocol without a copy; each is compiled once per declaration and "
        "interpreter into the cache.",
        "- go-purego loads the library at run time through purego, in a program built without cgo "
        "(CGO_ENABLED=0); purego converts each call's arguments through reflection (RegisterFunc).",
        *(
            [f"- What each binding cost to build (once; the provenance has the tools' versions): {built}."]
            if built
            else []
        ),
        f"- The Go package in `{'go'}/` holds the cgo calls and `BenchmarkCrossing`: "
        "`cd go && go test -bench Crossing` (or copy its files into your own package).",
        f"- Sizes of C's integer names on this ABI: {d.sizes_text()}.",
        "",
        "## Provenance",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in header.items()]
    path = out_dir / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
