"""Round loop: the sum of i*i % 7 for i in [0, N), 64-bit integers.

Variants: c (the core, timed in C), go (pure Go), go-c (Go calling the core
through cgo), py (pure Python), py-c (Python calling the core through the
extension; the GIL is released and Ctrl-C is checked between 2^24-iteration
chunks). py-c and go-c make one call: what they add over c is the crossing.

py-module-published is the published Python program as published: the same
loop written at module level, where every name it touches is a global of
the module, beside py, which keeps the loop inside a function.

py-numba, py-cython, py-mypyc and py-pythran are the compilers a Python
expert reaches for (level ecosystem): numba's @njit of pure/loop.py's
function, compiled in the child on its first call (timed apart:
compile-ns); a typed Cython module (pure/loop_cython.pyx); pure/loop.py
unchanged, compiled by mypyc, and by Pythran with its exports in
pure/loop.pythran. The last three are built for the children's interpreter
before the runs (runtimes/aotbuild.py), and each run reports the build's
tool and wall time as facts (`tool`, `build-ns`).
"""

from __future__ import annotations

from . import go_build_twins
from ..measure import harness
from ..runtimes import aotbuild
from . import Headline, needs_all, needs_aot, needs_module, Param, Round, Variant

MAX_N = 3037000500  # (n-1)^2 must fit in int64: the same bound as the core's


def expected(n: int) -> int:
    """The sum by the period-7 closed form, to verify results only."""
    prefix = (0, 0, 1, 5, 7, 9, 13)
    return n // 7 * 14 + prefix[n % 7]


# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(1, {}, "alone", "on the arithmetic loop"),
    Headline(1, {}, "ecosystem", "on the arithmetic loop, each side with its compilers and JITs"),
    Headline(3, {}, "core", "calling the C core for the same loop"),
]

ROUND = Round(
    name="loop",
    title="loop: sum of i*i % 7 for i in [0, N)",
    explain="One arithmetic loop of N iterations in 64-bit integers; every run checks its sum.",
    variants=[
        Variant("c", "rb-c", "the C core"),
        Variant("go", "rb-go", "pure Go"),
        Variant("go-c", "rb-go", "Go calling the C core through cgo (one call)"),
        # Go's own toolchain at its fastest, the go variant's build twins:
        # go-pgo, go-v3, go-pgo-v3 (docs/go-builds.md).
        *go_build_twins("loop"),
        Variant("py", "python", "pure Python (a for loop inside a function)"),
        Variant("py-c", "python", "Python calling the C core through the extension (one call)"),
        Variant(
            "py-module-published",
            "python",
            "published program, as published: the py loop at module level, so i and total are module "
            "globals (a dictionary lookup per access) instead of a function's locals",
        ),
        Variant(
            "py-numba",
            "python",
            "numba's @njit of the py function (int64; compiled for this machine's CPU on the first call, which "
            "compile-ns times apart from the runs)",
            requires=needs_module("numba", "pip install numba"),
        ),
        Variant(
            "py-cython",
            "python",
            "a typed Cython module (long long, cdivision), built for the interpreter before the runs",
            requires=needs_all(needs_module("Cython", "pip install Cython"), needs_aot("loop_cython")),
        ),
        Variant(
            "py-mypyc",
            "python",
            "the py function's module unchanged, compiled by mypyc for the interpreter before the runs",
            requires=needs_all(needs_module("mypyc", "pip install mypy"), needs_aot("loop_mypyc")),
        ),
        Variant(
            "py-pythran",
            "python",
            "the py function's module unchanged, its export (int64) in a .pythran file, compiled to C++ by Pythran "
            "for the interpreter before the runs",
            requires=needs_all(
                needs_module(
                    "pythran",
                    "pip install pythran; under Python 3.11: pip install --no-deps pythran==0.19.0 gast==0.7.0 "
                    "beniget==0.5.0 ply==3.11, as scripts/setup.sh does",
                ),
                needs_aot("loop_pythran"),
            ),
        ),
    ],
    params=[Param("n", "iterations", 0, MAX_N)],
    sizes=[{"n": 20_000_000}],
    quick=[{"n": 200_000}],
    metric="ns/iter",
    headlines=HEADLINES,
    order=1,
    values=True,
    units={"ns/iter": "lower", "compile-ns": "lower", "import-ns": "lower"},
    columns=[("compile-ns", "JIT compile (ns)")],
    metric_explain="ns/iter: wall time of the loop divided by N",
)


def _size(args: harness.Args) -> int:
    return args.int("n", 20_000_000, 0, MAX_N)


def _run(args: harness.Args, compute, extra: dict | None = None) -> None:
    """Warms compute up, times compute(n) once, checks its sum and prints
    the result line, with `extra` metrics measured before (py-numba's
    compile-ns)."""
    n = _size(args)
    harness.warm_up(lambda: compute(min(n, 1 << 20)))
    elapsed, got = harness.time_once(lambda: compute(n))
    harness.check("sum", got, expected(n))
    harness.result(f"sum={got}")
    harness.emit(args, 1, elapsed, {"ns/iter": elapsed / n if n else 0.0, **(extra or {})})


@harness.implements("loop", "py", units=["ns/iter"])
def run_py(args: harness.Args) -> None:
    from ..pure.loop import loop

    _run(args, loop)


@harness.implements("loop", "py-c", units=["ns/iter"])
def run_py_c(args: harness.Args) -> None:
    from .._core import loop

    _run(args, loop)


# ---- compiled by the tools Python experts reach for ---------------------------


@harness.implements("loop", "py-numba", units=["ns/iter", "compile-ns", "import-ns"])
def run_py_numba(args: harness.Args) -> None:
    import time

    # Importing numba (and llvmlite) is part of what a numba program pays
    # from start to exit: timed, for the break-even table.
    t0 = time.perf_counter_ns()
    numba = harness.require("numba")
    import_ns = time.perf_counter_ns() - t0
    import llvmlite
    import llvmlite.binding

    from ..pure.loop import loop

    _size(args)  # a bad n is refused before anything is compiled
    jitted = harness.once("loop/py-numba", lambda: numba.njit(loop))
    # numba compiles on the first call, for its argument types (int64):
    # that call, on n = 7, is the compile's cost, timed apart so that the
    # warm-up cannot hide it. Every process pays it (no cache=True); a
    # process's later values find it compiled, and the runner keeps the
    # first value's compile-ns (rounds.PER_PROCESS_UNITS).
    compile_ns, got = harness.time_once(lambda: jitted(7))
    harness.check("sum at n=7, the compiling call", got, expected(7))
    # numba compiles for this machine's CPU (-march=native in C's terms),
    # where the core is built portable: said beside the figures.
    cpu = llvmlite.binding.get_host_cpu_name()
    harness.fact("tool", f"numba {numba.__version__}, llvmlite {llvmlite.__version__}, for the host CPU ({cpu})")
    _run(args, jitted, {"compile-ns": compile_ns, "import-ns": import_ns})


def _built(args: harness.Args, name: str):
    """The loop of module `name` as aotbuild built it for this interpreter,
    its build reported as facts; CannotRun where it is not built."""
    _size(args)  # a bad n is refused before the module is looked for
    try:
        module, record = aotbuild.load(name)
    except aotbuild.NotBuilt as e:
        raise harness.CannotRun(str(e)) from None
    harness.fact("tool", f"{record['tool']} {record['version']}")
    harness.fact("build-ns", str(record["build_ns"]))
    return module.loop


@harness.implements("loop", "py-cython", units=["ns/iter"])
def run_py_cython(args: harness.Args) -> None:
    _run(args, _built(args, "loop_cython"))


@harness.implements("loop", "py-mypyc", units=["ns/iter"])
def run_py_mypyc(args: harness.Args) -> None:
    _run(args, _built(args, "loop_mypyc"))


@harness.implements("loop", "py-pythran", units=["ns/iter"])
def run_py_pythran(args: harness.Args) -> None:
    _run(args, _built(args, "loop_pythran"))


# The variants built once per interpreter before the runs (aotbuild), whose
# build the report section and the break-even table count.
BUILT = ("py-cython", "py-mypyc", "py-pythran")


def report_section(size: dict, cells: dict, config: dict) -> str:
    """What the compiled variants cost outside their timed runs: numba's
    compile in every process, Cython's, mypyc's and Pythran's build once
    per interpreter, from this run's figures."""
    costs = []
    numba = cells.get("py-numba")
    compile_ns = numba.median_of("compile-ns") if numba is not None else None
    if compile_ns is not None:
        tool = numba.facts.get("tool", "numba")
        costs.append(f"py-numba compiles in every process, on its first call: {compile_ns / 1e6:.3g} ms ({tool})")
    for impl in BUILT:
        cell = cells.get(impl)
        built = cell.facts.get("build-ns") if cell is not None else None
        if built:
            tool = cell.facts.get("tool", "?")
            costs.append(f"{impl} was built once for its interpreter, in {int(built) / 1e9:.3g} s ({tool})")
    if not costs:
        return ""
    return "\nCompiling, outside the timed runs: " + "; ".join(costs) + ".\n" + break_even(cells)


# The Go builds the language-alone level takes the fastest of.
GO_ALONE = ("go", "go-pgo", "go-v3", "go-pgo-v3")


def _fmt_n(n: float) -> str:
    return f"{n:,.0f}" if n < 1e15 else f"{n:.3g}"


def break_even(cells: dict) -> str:
    """The N from which each compiled variant's cost outside its timed loop
    (numba's import and compile, paid in every process; Cython's, mypyc's
    and Pythran's build, once per interpreter) is paid back: against the
    pure py loop, and, for numba, against Go's fastest build from start to
    exit (a numba program imports numba and compiles before its loop; a Go
    binary was compiled before it started). From this run's medians; interpreter
    and process start-up are the startup round's."""
    ns = {impl: c.median_of("ns/iter") for impl, c in cells.items() if c.median_of("ns/iter")}
    py = ns.get("py")
    gos = {g: ns[g] for g in GO_ALONE if g in ns}
    rows = []
    numba = cells.get("py-numba")
    if numba is not None and "py-numba" in ns:
        t = ns["py-numba"]
        compile_ns = numba.median_of("compile-ns") or 0.0
        import_ns = numba.median_of("import-ns") or 0.0
        if py and py > t:
            when = _fmt_n(compile_ns / (py - t))
            rows.append(f"| py-numba | compile {compile_ns / 1e6:.3g} ms, every process | py | {when} |")
        if gos:
            go, tg = min(gos.items(), key=lambda kv: kv[1])
            cost = f"import {import_ns / 1e6:.3g} ms + compile {compile_ns / 1e6:.3g} ms, every process"
            when = _fmt_n((import_ns + compile_ns) / (tg - t)) if tg > t else f"never: {t:.3g} against {tg:.3g} ns/iter"
            rows.append(f"| py-numba | {cost} | {go}, from start to exit | {when} |")
    for impl in BUILT:
        cell = cells.get(impl)
        built = cell.facts.get("build-ns") if cell is not None else None
        if built and impl in ns and py and py > ns[impl]:
            rows.append(
                f"| {impl} | build {int(built) / 1e9:.3g} s, once per interpreter | py | "
                f"{_fmt_n(int(built) / (py - ns[impl]))} |"
            )
    if not rows:
        return ""
    head = [
        "",
        "Break-even: the N from which each tool's cost outside the timed loop is paid back (the cost over the "
        "difference of the two medians per iteration; interpreter and process start-up are the startup "
        "round's).",
        "",
        "| variant | its cost | against | break-even N |",
        "|---|---|---|---|",
    ]
    return "\n".join(head + rows) + "\n"


# ---- the published program ----------------------------------------------------

# The loop as a script's top-level code. Compiled as a module ("exec"), its
# names are the module's globals: each access is LOAD_NAME / STORE_NAME, a
# lookup in the globals dictionary, where the function in pure/loop.py uses
# LOAD_FAST slots. Published: 1.85 s here against 1.12 s in a function
# (N = 20,000,000).
MODULE_LOOP = """\
total = 0
for i in range(n):
    total += i * i % 7
"""


def module_loop(code):
    """A compute(n) that runs the compiled module code with a fresh globals
    dictionary holding n, as `python script.py` runs a script's top level,
    and returns the module's global total."""

    def compute(n: int) -> int:
        module = {"__name__": "__main__", "n": n}
        exec(code, module)
        return module["total"]

    return compute


@harness.implements("loop", "py-module-published", units=["ns/iter"])
def run_py_module_published(args: harness.Args) -> None:
    _run(args, module_loop(compile(MODULE_LOOP, "<the published loop, at module level>", "exec")))
