"""Round matmul: C = A*B for dense row-major n x n float64 matrices.

Variants: c (the naive i-k-j loop in the core), c-blas (the BLAS's dgemm
through the core), go (naive i-k-j, pure Go), go-gonum (gonum's pure-Go
Dgemm), go-gonum-netlib (gonum's mat.Dense.Mul with its BLAS routed to the
system's OpenBLAS by gonum.org/v1/netlib: Go's own route to OpenBLAS,
without the core; its own program, rb-go-matmul-netlib), go-c (Go slices
handed to the core's dgemm through cgo, no copies), py (lists of lists;
n = 300 only unless a size is given), py-numpy (`np.matmul(A, B, out=C)`), py-c (numpy
arrays handed to the core's dgemm through the buffer protocol, in place,
GIL released).

Fairness is the point of this round. BLAS threads are pinned to 1 by default
for every variant (OPENBLAS_NUM_THREADS and its kin, GOMAXPROCS for gonum,
and an explicit set_num_threads in the core's variants); `--threads all`
gives every variant all cores and the count is in each result's name. The
core runs the very OpenBLAS version numpy bundles (docs/rounds/matmul.md, "The BLAS");
provenance() asks each BLAS-using variant's own program which library,
version, kernel and thread count it runs, and the report flags a mismatch
in bold next to the numbers. go-gonum-netlib cannot run numpy's OpenBLAS
(netlib calls the CBLAS with C ints; numpy's is ILP64 with renamed
symbols): it runs the system's, whose version and kernel the report states
beside the table, and whose thread count is held to the cell's like the
others'. The core links no BLAS: it loads it on the
first BLAS call (roundbench._blas says which file), so importing roundbench
and the other rounds' children stay free of it.

Inputs are the core's seeded small integers (rb_matmul_fill), so every
product is exact in any summation order and every variant prints the same
checksum, which the runner compares; each run also checks its own product
with Freivalds' test (rb_matmul_verify; the bound is stated there).
"""

from __future__ import annotations

import os
import subprocess
import sys
from array import array
from pathlib import Path

from ..measure import harness, machine
from ..runtimes import programs
from . import Headline, needs_module, Option, Param, Round, Variant

MAX_N = 20_000  # three matrices of 20000^2 float64 are 9.6 GB
SEED = 1
# A product shorter than this is repeated and the mean taken (the same rule
# as csrc/runner/run_matmul.c and go/cmd/rb-go/matmul/matmul.go).
MIN_TIMED_NS = 200_000_000
BLAS_VARIANTS = ("c-blas", "go-c", "py-c", "py-numpy")
# Variants on a BLAS of their own by design (the system's OpenBLAS), not
# numpy's: their thread count is checked, their version and kernel stated.
OWN_BLAS_VARIANTS = ("go-gonum-netlib",)
NETLIB_PROGRAM = "rb-go-matmul-netlib"
# The modules go-gonum-netlib's program is built with, for the provenance.
NETLIB_MODULES = ("gonum.org/v1/gonum", "gonum.org/v1/netlib")
UNITS = ["GFLOP/s"]


def all_threads() -> int:
    return len(machine.usable_cpus())


def thread_env(params: dict) -> dict:
    """Every BLAS's thread knobs, set to the cell's thread count. GOMAXPROCS
    too: gonum's Dgemm splits its work over GOMAXPROCS goroutines."""
    t = str(params.get("threads", 1))
    return {
        "OPENBLAS_NUM_THREADS": t,
        "OMP_NUM_THREADS": t,
        "MKL_NUM_THREADS": t,
        "GOMAXPROCS": t,
    }


def _only_300(params: dict) -> bool:
    return int(params.get("n", 0)) <= 300


def parse_threads(text: str) -> int:
    """--threads: 'all' (every core this process may use) or a count."""
    if text == "all":
        return all_threads()
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise ValueError("want 'all' or a count >= 1")


V = Variant
# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(4, {"n": "max", "threads": "1"}, "ecosystem", "on the largest matrix product, one thread"),
]

ROUND = Round(
    name="matmul",
    threads=lambda p: "many" if int(p.get("threads", 1)) > 1 else "one",
    title="matmul: C = A·B, dense float64 n×n",
    explain=(
        "One n×n by n×n product of float64 matrices (seeded small integers, so every variant's "
        "product is exact and checked). BLAS threads as in the size's `threads`."
    ),
    variants=[
        V("c", "rb-c", "the core's naive i-k-j loop (C, -O2)", env=thread_env),
        V("c-blas", "rb-c", "the core's OpenBLAS dgemm, timed in C", env=thread_env),
        V("go", "rb-go", "naive i-k-j loop, pure Go", env=thread_env),
        V("go-gonum", "rb-go", "gonum's pure-Go Dgemm (blas/gonum)", env=thread_env),
        V(
            "go-gonum-netlib",
            NETLIB_PROGRAM,
            "gonum's mat.Dense.Mul, its BLAS routed by gonum.org/v1/netlib (cgo) to the system's OpenBLAS",
            env=thread_env,
        ),
        V("go-c", "rb-go", "Go slices to the core's dgemm through cgo (no copy)", env=thread_env),
        V(
            "py",
            "python",
            "lists of lists, sum(map(mul, row, col)) (n=300 only by default)",
            env=thread_env,
            default_if=_only_300,
        ),
        V(
            "py-numpy",
            "python",
            "numpy: np.matmul(A, B, out=C), A @ B into a product faulted in untimed",
            env=thread_env,
            requires=needs_module("numpy", "pip install numpy"),
        ),
        V(
            "py-c",
            "python",
            "numpy arrays to the core's dgemm (buffer protocol, in place, GIL released)",
            env=thread_env,
            requires=needs_module("numpy", "pip install numpy"),
        ),
    ],
    params=[
        Param("n", "rows and columns of each matrix", 0, MAX_N),
        # The C runner's bound (csrc/runner/run_matmul.c); the others take more.
        Param("threads", "BLAS and library threads", 1, 1024),
    ],
    sizes=[{"n": 300, "threads": 1}, {"n": 1000, "threads": 1}, {"n": 2000, "threads": 1}],
    quick=[{"n": 64, "threads": 1}],
    metric="GFLOP/s",
    headlines=HEADLINES,
    order=2,
    values=True,
    units={"GFLOP/s": "higher"},
    metric_explain="GFLOP/s: 2n³ floating-point operations divided by the product's wall time",
    # The bindings call the core's dgemm: c-blas is what they are held to.
    reference="c-blas",
    options=[
        Option(
            "--threads",
            "threads",
            "matmul: BLAS and library threads, 1 (the default: every variant pinned to one thread) or 'all' "
            "(every usable core); the count is in each result's name as /threads=T",
            parse_threads,
            metavar="T",
            setting=True,
        )
    ],
    helpers=("blas-info",),
)


def timed_product(product, warm) -> tuple:
    """The timing rule of every matmul variant: warm() once (untimed), time
    one product; if it took under MIN_TIMED_NS, time enough more to fill it
    and return their mean. Returns (ns per product, products timed)."""
    warm()
    ns, _ = harness.time_once(product)
    if ns >= MIN_TIMED_NS:
        return float(ns), 1
    reps = MIN_TIMED_NS // max(ns, 1000) + 1

    def many():
        for _ in range(reps):
            product()

    ns, _ = harness.time_once(many)
    return ns / reps, reps


def _finish(args: harness.Args, n: int, a, b, c, ns: float, reps: int) -> None:
    # the extension loads only in the variants that call it
    from .. import _core

    try:
        checksum = _core.matmul_verify(a, b, c)
    except ValueError as e:
        if "'c'" in str(e):
            raise harness.WrongResult("C", "not A*B", str(e)) from None
        raise
    harness.result(f"checksum={checksum}")
    harness.emit(args, reps, ns, {"GFLOP/s": 2.0 * n**3 / ns if ns > 0 else 0.0})


def _inputs(n: int):
    # optional: only this variant's child needs it (Variant.requires says when it is missing)
    import numpy as np

    # the extension loads only in the variants that call it
    from .. import _core

    a = np.empty((n, n))
    b = np.empty((n, n))
    _core.matmul_fill(a, b, SEED)
    return a, b


def _params(args: harness.Args) -> tuple:
    return args.int("n", 300, 0, MAX_N), args.int("threads", 1, 1, 4096)


@harness.implements("matmul", "py-numpy", units=UNITS)
def run_py_numpy(args: harness.Args) -> None:
    import numpy as np
    from threadpoolctl import threadpool_limits

    n, threads = _params(args)
    a, b = _inputs(n)
    # The product into one array whose pages are faulted in untimed, as
    # every other variant's: `a @ b` would take fresh memory each time, and
    # on this VM the first touch of 32 MB (n = 2000) cost up to 170 ms of
    # kernel time a product, a quarter of it, which is the machine's page
    # placement, not numpy. np.matmul(out=) is the same BLAS call.
    c = np.empty((n, n))
    c.fill(0.0)
    w = min(n, 256)
    aw, bw, cw = np.ascontiguousarray(a[:w, :w]), np.ascontiguousarray(b[:w, :w]), np.empty((w, w))

    # The environment already pins numpy's OpenBLAS; threadpoolctl makes
    # sure, whatever BLAS this numpy was built with.
    with threadpool_limits(limits=threads, user_api="blas"):
        ns, reps = timed_product(lambda: np.matmul(a, b, out=c), lambda: np.matmul(aw, bw, out=cw))
    _finish(args, n, a, b, c, ns, reps)


def _load_blas(threads: int) -> None:
    """Loads the core's BLAS (first use) and sets its threads; a machine
    where it cannot be loaded cannot run the variant."""
    # the extension loads only in the variants that call it
    from .. import _core

    try:
        _core.blas_set_threads(threads)
    except OSError as e:
        raise harness.CannotRun(str(e)) from None


@harness.implements("matmul", "py-c", units=UNITS)
def run_py_c(args: harness.Args) -> None:
    import numpy as np

    from .. import _core

    n, threads = _params(args)
    _load_blas(threads)
    a, b = _inputs(n)
    c = np.empty((n, n))
    # Fault the product's pages in, untimed, as the C and Go runners do: a
    # fresh np.zeros is the kernel's zero page until first written, and its
    # page faults would be timed inside the product.
    c.fill(0.0)
    w = min(n, 256)
    aw, bw, cw = np.ascontiguousarray(a[:w, :w]), np.ascontiguousarray(b[:w, :w]), np.empty((w, w))
    ns, reps = timed_product(lambda: _core.matmul_blas(a, b, c), lambda: _core.matmul_blas(aw, bw, cw))
    _finish(args, n, a, b, c, ns, reps)


@harness.implements("matmul", "py", units=UNITS)
def run_py(args: harness.Args) -> None:
    from .. import _core
    from ..pure.matmul import matmul

    n, _ = _params(args)
    fa, fb = array("d", bytes(8 * n * n)), array("d", bytes(8 * n * n))
    _core.matmul_fill(fa, fb, SEED)
    a = [list(fa[i * n : (i + 1) * n]) for i in range(n)]
    b = [list(fb[i * n : (i + 1) * n]) for i in range(n)]
    w = min(n, 16)
    aw, bw = [r[:w] for r in a[:w]], [r[:w] for r in b[:w]]
    out = [None]

    def product():
        out[0] = matmul(a, b)

    ns, reps = timed_product(product, lambda: matmul(aw, bw))
    fc = array("d", (x for row in out[0] for x in row))
    _finish(args, n, fa, fb, fc, ns, reps)


@harness.implements("matmul", "blas-info")
def blas_info(args: harness.Args) -> None:
    """`python -m roundbench.run.child matmul blas-info [threads=T]`: what the
    core's BLAS (py-c) and numpy's BLAS (py-numpy) are in a child with the
    variant's environment, one `variant key=value` line each."""
    from .. import _core

    threads = args.int("threads", 0, 0, 4096)
    if threads:
        _core.blas_set_threads(threads)
    info = _core.blas_get_info()
    print(f"py-c library={info['library']}")
    print(f"py-c config={info['config']}")
    print(f"py-c corename={info['corename']}")
    print(f"py-c threads={info['threads']}")
    try:
        import numpy  # noqa: F401
        from threadpoolctl import threadpool_info
    except ImportError as e:
        print(f"py-numpy error={e}")
        return
    # threadpoolctl lists every BLAS loaded in the process, the core's too:
    # numpy's is the one that is not the core's file.
    core_lib = os.path.realpath(info["library"])
    for lib in threadpool_info():
        if lib.get("user_api") != "blas" or os.path.realpath(lib.get("filepath", "")) == core_lib:
            continue
        print(f"py-numpy library={lib.get('filepath')}")
        print(f"py-numpy config={lib.get('internal_api')} {lib.get('version')}")
        print(f"py-numpy corename={lib.get('architecture')}")
        print(f"py-numpy threads={lib.get('num_threads')}")
        break


# Which BLAS each variant really runs, for the result file's provenance.


def _version(config: str) -> str:
    """'OpenBLAS 0.3.31.188.0  USE64BITINT ...' or 'openblas 0.3.31.188.0' -> '0.3.31.188.0'."""
    parts = config.split()
    for i, p in enumerate(parts):
        if p.lower() == "openblas" and i + 1 < len(parts):
            return parts[i + 1]
    return parts[0] if parts else "unknown"


def probe(threads: int) -> dict:
    """variant -> {library, config, corename, threads, version} (or {error}),
    each read in a child started with that variant's environment."""
    env = dict(os.environ)
    env.update(thread_env({"threads": threads}))
    # The Python probe must import this very package, wherever it runs from.
    pkg_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = pkg_parent + os.pathsep + env.get("PYTHONPATH", "")
    go = programs.path(programs.go_runner(ROUND.name))  # the round's Go runner
    cmds = {
        "c": [str(programs.path("rb-c")), "matmul", "blas-info", f"threads={threads}"],
        "go": [str(go), "matmul", "blas-info", f"threads={threads}"],
        "netlib": [str(programs.path(NETLIB_PROGRAM)), "matmul", "blas-info", f"threads={threads}"],
        "py": [sys.executable, "-m", "roundbench.run.child", "matmul", "blas-info", f"threads={threads}"],
    }
    names = {"c": "c-blas", "go": "go-c", "netlib": "go-gonum-netlib"}
    out: dict = {}
    why = programs.missing(NETLIB_PROGRAM)
    if why:
        out["go-gonum-netlib"] = {"error": why}
        del cmds["netlib"]
    for lang, cmd in cmds.items():
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
            text, err = p.stdout, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            ok = p.returncode == 0
        except OSError as e:
            text, err, ok = "", str(e), False
        if not ok:
            for v in ([names[lang]] if lang in names else ["py-c", "py-numpy"]):
                out[v] = {"error": err}
            continue
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if lang in names:
                variant, k = names[lang], key
            else:
                variant, _, k = key.partition(" ")
            out.setdefault(variant, {})[k] = value
    for info in out.values():
        if "config" in info:
            info["version"] = _version(info["config"])
    return out


def _describe(info: dict) -> str:
    if "error" in info:
        return f"unavailable ({info['error']})"
    flavour = f" ({info['flavour']} build)" if "flavour" in info else ""
    return (
        f"{info.get('library', '?')}; OpenBLAS {info.get('version', '?')}{flavour}; "
        f"kernel {info.get('corename', '?')}; {info.get('threads', '?')} thread(s)"
    )


def mismatches(per_threads: dict) -> list:
    """Warnings for every BLAS variant that does not run what py-numpy runs
    (version, kernel) or not with the thread count asked for (the latter
    for the variants on a BLAS of their own too)."""
    warnings = []
    for threads, infos in per_threads.items():
        ref = infos.get("py-numpy", {})
        for v in BLAS_VARIANTS + OWN_BLAS_VARIANTS:
            info = infos.get(v, {})
            if "error" in info:
                continue
            if str(info.get("threads")) != str(threads):
                warnings.append(
                    f"BLAS mismatch: {v} runs {info.get('threads')} BLAS thread(s) where {threads} were asked for"
                )
            if v in BLAS_VARIANTS and v != "py-numpy" and "version" in ref:
                for key in ("version", "corename"):
                    if str(info.get(key)).lower() != str(ref.get(key)).lower():
                        warnings.append(
                            f"BLAS mismatch: {v} runs OpenBLAS {info.get('version')} kernel {info.get('corename')}, "
                            f"py-numpy runs OpenBLAS {ref.get('version')} kernel {ref.get('corename')}"
                        )
                        break
    return warnings


def provenance() -> tuple:
    """One blas-<variant> line per BLAS-using variant (at 1 thread and at
    all cores), go-gonum's line, go-gonum-netlib's modules, and a warning
    per mismatch."""

    items, per = {"blas": "see the blas-* lines"}, {}
    for threads in sorted({1, all_threads()}):
        per[threads] = probe(threads)
    for v in BLAS_VARIANTS + OWN_BLAS_VARIANTS:
        desc = [f"threads={t}: {_describe(per[t].get(v, {'error': 'no answer'}))}" for t in per]
        items[f"blas-{v}"] = " | ".join(desc)
    netlib = programs.path(NETLIB_PROGRAM)
    mods, settings = programs.go_module_versions(netlib), programs.go_build_settings(netlib)
    if mods:
        items["matmul-go-gonum-netlib"] = (
            ", ".join(f"{m} {mods[m]}" for m in NETLIB_MODULES if m in mods)
            + f"; {NETLIB_PROGRAM} built with -tags={settings.get('-tags', '(none)')}, "
            f"CGO_LDFLAGS={settings.get('CGO_LDFLAGS', '(none)')}"
        )
    else:
        items["matmul-go-gonum-netlib"] = f"{NETLIB_PROGRAM} not built"
    items["blas-go-gonum"] = (
        "gonum.org/v1/gonum/blas/gonum (pure Go, no BLAS library); "
        "its Dgemm uses GOMAXPROCS goroutines, set to the cell's thread count"
    )
    items["blas-threads"] = (
        "pinned per cell by OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, MKL_NUM_THREADS, GOMAXPROCS and "
        "openblas_set_num_threads; the count is /threads=T in each name"
    )
    return items, mismatches(per)


def report_section(size: dict, cells: dict, config: dict) -> str:
    """The BLAS each variant ran, under the table, with any mismatch in bold."""
    threads = str(size.get("threads", 1))
    listed = []
    for v in BLAS_VARIANTS + OWN_BLAS_VARIANTS:
        line = config.get(f"blas-{v}")
        if not line:
            continue
        mine = [part for part in line.split(" | ") if part.startswith(f"threads={threads}:")]
        listed.append(f"- {v}: {(mine or [line])[0]}")
    paras = ["BLAS per variant (from the result file's provenance; threads as asked by this size):", "\n".join(listed)]
    if config.get("blas-go-gonum-netlib"):
        paras.append(
            "go-gonum-netlib runs the system's OpenBLAS, not numpy's: gonum's netlib binding calls the CBLAS "
            "with C ints, and numpy's OpenBLAS is ILP64 with renamed symbols. Its figure is that library's "
            "version and kernel (above) through gonum, not a fairness fault."
        )
    ref = cells.get("c-blas")
    ref_m = ref.median_of("GFLOP/s") if ref else None
    if ref_m:
        over = []
        for b in ("py-c", "go-c"):
            m = cells[b].median_of("GFLOP/s") if b in cells else None
            if m is not None:
                over.append(f"{b} at {m / ref_m * 100:.1f}% of c-blas")
        if over:
            paras.append(
                "Binding overhead (median GFLOP/s against the core's dgemm timed in C): " + "; ".join(over) + "."
            )
        m = cells["go-gonum-netlib"].median_of("GFLOP/s") if "go-gonum-netlib" in cells else None
        if m is not None:
            paras.append(f"Go's own route to OpenBLAS: go-gonum-netlib at {m / ref_m * 100:.1f}% of c-blas.")
    bad = [w for w in (config.get("fairness") or "").split("; ") if w.startswith("BLAS mismatch")]
    if bad:
        paras += [f"**{w}**" for w in bad]
    else:
        paras.append(
            f"Every variant on numpy's OpenBLAS ({', '.join(v for v in BLAS_VARIANTS if v != 'py-numpy')}) runs "
            "its version and kernel, and every BLAS variant the thread count asked for."
        )
    return "\n\n".join(paras) + "\n"


# ---- the round's pictures -----------------------------------------------------------


def charts(sizes: dict, out_dir: Path) -> list:
    """The round's own pictures (report.draw calls it with the round's
    size -> variant -> Cell)."""
    # the pictures (matplotlib) load only when the report draws them
    from ..results import charts as drawing

    # One thread: the BLAS variants against the loops, core for core.
    series = drawing.series(
        sizes, "GFLOP/s", lambda params: drawing.whole(params.get("n")) if params.get("threads", "1") == "1" else None
    )
    if not series:
        return []
    plt = drawing.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    drawing.ci_lines(ax, series, label=lambda impl: f"{impl} ({drawing.KINDS[drawing.level(impl)]})")
    peak = max((s.median for _, s in series.get("c-blas", [])), default=None)
    if peak:
        ax.axhline(
            peak,
            color="#d62728",
            linewidth=1,
            linestyle=":",
            label=f"this machine's single-core peak\n(best c-blas median): {peak:.3g} GFLOP/s",
        )
    drawing.log_if_spread(ax, [s.median for pts in series.values() for _, s in pts], "y")
    ns = sorted({n for pts in series.values() for n, _ in pts})
    drawing.log_axis(ax, "x")
    ax.set_xticks(ns)
    ax.set_xticklabels([str(n) for n in ns])
    ax.set_xlabel("n (n×n matrices)")
    ax.set_ylabel("GFLOP/s (higher is better)")
    ax.set_title("matmul: GFLOP/s against n, one thread\nhigher is better")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return [
        drawing.figure(
            plt,
            fig,
            out_dir,
            "matmul-gflops",
            "matmul: GFLOP/s against n",
            "Each variant's median GFLOP/s with its 95% CI at each n (BLAS on one thread); the dotted line is the best "
            "c-blas figure, this machine's measured single-core peak. Higher is better.",
        )
    ]
