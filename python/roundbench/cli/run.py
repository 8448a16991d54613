"""`roundbench run`: run rounds, write their results and the report."""

from __future__ import annotations

import argparse
import datetime
import signal
import sys
import time
from pathlib import Path

from .. import rounds
from ..errors import EXIT_FAILED, EXIT_OK, UsageError, exit_for_signal
from . import _types
from ._common import add_rule_options, rounds_arg, rule_of, use_python
from ..results import stats
from ..run import placebo, policy as run_policy, userfile

DESCRIPTION = """\
roundbench measures the same work ("rounds") done in C, through the Python
and Go bindings of one C core, and in pure Python and pure Go, with one
protocol: a fresh process per run, runs interleaved across variants, each
child's own peak memory and CPU time, every result checked.
"""

EPILOG = """\
examples:
  roundbench list                         rounds, variants, and what cannot run here
  roundbench run                          every round at its default sizes, adaptive run counts
  roundbench run loop ffi --runs 10       two rounds, 10 runs per variant
  roundbench run loop --impl c --impl py  only these variants
  roundbench run loop --n 1000000         override a size parameter
  roundbench run chain --hop-work 100 --parallel 2   chain round options
  roundbench run --quick                  every round scaled down (tests, CI)
  roundbench run --sizes all              the default cells and those beside the verdict
  roundbench run --time-budget 30         every round, its runs within 30 minutes (beyond the minimum runs)
  roundbench run matmul --threads all     BLAS on every core (default: 1 thread)
  roundbench run loop ffi --go 1.19 --go 1.26 --python .venv/bin/python --python pypy3
                                          every Go row under two Go releases, every Python
                                          row under CPython and PyPy, scored pair by pair
  roundbench report results/latest        write results/latest/report.md and report.html
  roundbench compare results/A results/B  is B different from A? (ratio, CI and a U test per cell)

results go to --out DIR (default results/<date-time>), as DIR/results.txt in
the Go benchmark format, appended run by run, then DIR/report.md and
DIR/report.html with their pictures (report-*.png).
`benchstat -col /impl DIR/results.txt` reads them too.

Ctrl-C (SIGINT) or SIGTERM stops a run: the child running is killed, the
finished runs stay in results.txt and the report is written from them.
A run started with SIGINT ignored, as a non-interactive shell starts a
background job (`roundbench run &` in a script, nohup), keeps ignoring it as
that shell asked: stop it with SIGTERM (`kill PID`).

Exit status: 0 when every run passed, 1 when some failed, 2 on bad usage
(the message says what), 130 when stopped by SIGINT, 143 by SIGTERM. A
check a library is known to fail (a round declares it with the reason: the
http round's uvicorn and granian under the robustness stress) is FAILED in
the report and counted apart on the last line, not in the exit status.
"""


# The defaults the help text names, read from where they are defined.
_DEFAULT = run_policy.RunPolicy()
_ROUND_BUDGET_S = rounds.Round.__dataclass_fields__["budget_s"].default


def add_parser(sub) -> None:
    r = sub.add_parser(
        "run",
        help="run rounds and write results and a report",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("rounds", nargs="*", metavar="ROUND", help="rounds to run (default: all; see `roundbench list`)")
    r.add_argument(
        "--impl",
        action="append",
        type=_types.text("a variant's name"),
        metavar="NAME",
        help="run only this variant (repeatable)",
    )
    r.add_argument(
        "--runs",
        default="auto",
        metavar="K|auto",
        help="runs per variant and size, interleaved across variants. auto (the default): at least "
        f"{_DEFAULT.min_runs}, then more for each variant whose median's 95%% CI is not yet within "
        f"±{_DEFAULT.target * 100:g}%% of it, until it is or it has {_DEFAULT.max_runs} runs, "
        "within its cell's budget (--budget) and the run's (--time-budget); the report says how many each took "
        "and why it stopped. K: exactly K. A cell (a variant at a size) is flagged unstable in the report when "
        "its median's 95%% CI reaches more than "
        f"±{stats.UNSTABLE_CI * 100:g}%% from the median; with fewer than {stats.CI_MIN_RUNS} runs there is no "
        "interval and no flag ('too few runs for an interval'). Outliers (runs beyond 1.5 interquartile ranges from "
        "the quartiles) are counted beside the runs, not flagged",
    )
    r.add_argument(
        "--values",
        default="auto",
        metavar="K|auto",
        help="values each process times, in the rounds whose work can run again in one process (loop, matmul, "
        "temps, jsonl, cores, aspects): the child runs its variant K times and the runner keeps the process's "
        "median value as its run (every value in a --- VALUES: record). auto (the default): 1 in a variant's "
        "first process of a cell, then what its costs and spread call for: more where starting a process costs "
        "far more than one value (numba's import and compile) and where values vary within a process more than "
        f"between processes; odd, at most {run_policy.MAX_VALUES}. Whole programs and published ones give one",
    )
    r.add_argument(
        "--budget",
        type=float,
        metavar="S",
        help="with --runs auto: seconds of runs beyond the minimum that the variants of one cell share (default: "
        f"each round's own Round.budget_s: {_ROUND_BUDGET_S:g} s unless the round sets another, less in round "
        "aspects and none in its launch cells); each variant "
        "still running may use an equal share of what the stopped ones left, so cheap runs are many and costly "
        "ones few",
    )
    r.add_argument(
        "--time-budget",
        type=float,
        metavar="MIN",
        help="minutes the whole run's runs may take (make suite: 30). Every cell still gets its minimum runs, "
        "even beyond it; the time left after them goes to extra runs where the score's decisions are closest "
        "to their threshold and the runs cheapest. The estimate is said after the first wave, what was spent "
        "at the end",
    )
    r.add_argument(
        "--placement",
        choices=("pinned", "pinned-fixed", "none"),
        default="pinned",
        help="pinned (the default): single-threaded children on one CPU, the same for every variant, the runner "
        "on another, multi-threaded cells on every usable CPU; pinned-fixed: the same, and each child's address "
        "layout fixed (ASLR off); none: the kernel places everything (docs/measurement.md, 'Placement')",
    )
    r.add_argument(
        "--quick",
        action="store_true",
        help="every round at its small sizes, for tests and CI (adaptive runs stop at "
        f"{run_policy.QUICK_MAX_RUNS} runs, and a cell's runs beyond the minimum share "
        f"{run_policy.QUICK_BUDGET_S:g} s)",
    )
    r.add_argument(
        "--sizes",
        choices=("default", "all"),
        default="default",
        help="default: each round at its default sizes, the cells the verdict is made of (make suite); all: "
        "those and the cells that carry findings beside it, which the default half hour cannot also pay for "
        "(aspects' output sinks, jsonl's log without bad lines, chain's ten published chains at once; "
        "make suite SIZES=all); --quick's sizes are the same either way",
    )
    r.add_argument(
        "--out",
        type=_types.out_dir,
        metavar="DIR",
        help="where results.txt and report.md go (default results/<date-time>)",
    )
    r.add_argument("--n", type=int, metavar="N", help="set the size parameter n of every round that has one")
    r.add_argument(
        "--param",
        action="append",
        type=_types.text("key=value"),
        metavar="KEY=VALUE",
        help="set any size parameter (repeatable). Your own input instead of the generated one: jsonl "
        "--param file=PATH (a JSON Lines log) and aspects --param events=PATH (an events file; an integer is "
        "still a count of generated events), one cell named by the file, every variant held to the C core's "
        "result (docs/usage.md, 'Your own input')",
    )
    r.add_argument(
        "--timeout",
        type=float,
        default=run_policy.TIMEOUT_S,
        metavar="S",
        help="kill a variant's first run in a cell after S seconds and record it as failed (default %(default)g); "
        "it also caps --bound",
    )
    r.add_argument(
        "--bound",
        type=float,
        metavar="K",
        help="kill a later run after K times the longest run of its variant that finished in the cell "
        f"(default {run_policy.BOUND_FACTOR:g}; never under --bound-floor, never over --timeout), record it as "
        "killed with what it took (not a failure), make no more runs of that variant there, and keep the "
        "runs that finished; 0: every run has --timeout only",
    )
    r.add_argument(
        "--bound-floor",
        type=float,
        metavar="S",
        help=f"the least --bound gives, in seconds (default {run_policy.BOUND_FLOOR_S:g})",
    )
    r.add_argument(
        "--python",
        action="append",
        type=_types.text("an interpreter: a path, a name on PATH or a provisioned version"),
        metavar="PATH",
        help="run every Python child with this interpreter (default: the one running roundbench; also "
        "ROUNDBENCH_PYTHON=PATH), e.g. a newer CPython; a version (3.15, 3.13.5, 3.13t) names one that "
        "`roundbench pythons` provisioned, the newest that matches (the Python side as recent as the Go side); "
        "its C variants need the extension built for it (make build PYTHON=PATH). Repeatable: given twice or "
        "more, every Python variant runs under each interpreter as rows of its own, named by a python= key "
        "(python=cpython-3.11.7, python=pypy-7.3.11), the extension built for each CPython and for PyPy's "
        "C-API emulation where it builds (once, cached), and a skip row saying why wherever one cannot run",
    )
    r.add_argument(
        "--go",
        action="append",
        type=_types.text("a Go release, X.Y or X.Y.Z"),
        metavar="VERSION",
        help="build the Go runners with this Go toolchain and run every Go variant they run under it "
        "(repeatable: one set of rows per toolchain, named by a go= key, e.g. go=1.20.14, so that "
        "`benchstat -col /go` splits by it). X.Y picks the newest X.Y.Z the Go module proxy serves, X.Y.Z "
        "that one; the go command fetches it (once, into its module cache) and each toolchain's programs are "
        "built once into a folder of their own. The pure and cgo variants build with every Go from 1.19 on; a "
        "library variant a toolchain is too old for is a skip row naming the version it needs. Default: the "
        "installed Go, no go= key. The report scores the newest Go against the newest CPython, and the Go "
        "release nearest in date to that CPython against it too (docs/runtimes.md)",
    )
    r.add_argument(
        "--placebo",
        choices=placebo.SIDES,
        metavar="SIDE",
        help="a placebo run, to check the verdict's rule on this machine: SIDE's variants (py or go) stand in for "
        "both sides, each also run under the other side's name (go-placebo-py-numba), interleaved like any "
        "variant; every cell the verdict then decides as faster is a false decision, and the report counts them "
        "against the nominal rate, by this rule and by the rule it replaced",
    )
    add_rule_options(r)
    r.add_argument("--no-report", action="store_true", help="write results only")
    r.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    g = r.add_argument_group(
        "round options", "each sets a parameter of the round that declares it, for that round only"
    )
    for flag, owners in _declared_options().items():
        o = owners[0][1]
        g.add_argument(flag, dest=_option_dest(flag), metavar=o.metavar, help=o.help)
    r.set_defaults(func=cmd_run)


def _overrides(args) -> dict:
    """--n and --param: parameters for every selected round."""
    out = {}
    if args.n is not None:
        if args.n < 0:
            raise UsageError(f"--n {args.n}: want an integer >= 0")
        out["n"] = args.n
    for item in args.param or []:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise UsageError(f"--param {item!r}: want key=value")
        out[k] = v
    return out


def _checked_params(args, selected: list, overrides: dict) -> dict:
    """--n and --param checked against the selected rounds' declared
    parameters (rounds.check_params): round name -> {param: value}. An
    unknown name or a value out of a round's range is a usage error naming
    the option, before any child starts."""
    out: dict = {}
    for key, value in overrides.items():
        flag = f"--n {value}" if key == "n" and args.n is not None and value == args.n else f"--param {key}={value}"
        try:
            mine = rounds.check_params(selected, {key: value})
        except ValueError as e:
            raise UsageError(f"{flag}: {e}") from None
        for name, params in mine.items():
            out.setdefault(name, {}).update(params)
    return out


def _declared_options() -> dict:
    """flag -> [(round, Option)]: the options the rounds declare."""
    out: dict = {}
    for rnd in rounds.all_rounds():
        for o in rnd.options:
            out.setdefault(o.flag, []).append((rnd, o))
    return out


def _option_dest(flag: str) -> str:
    return "round_option" + flag


def _options(args, selected: list) -> dict:
    """The round options given: round name -> {param: value}, each parsed
    by its round, and only for the rounds that declare it."""
    out: dict = {}
    names = {r.name for r in selected}
    for flag, owners in _declared_options().items():
        text = getattr(args, _option_dest(flag), None)
        if text is None:
            continue
        mine = [(rnd, o) for rnd, o in owners if rnd.name in names]
        if not mine:
            which = ", ".join(rnd.name for rnd, _ in owners)
            raise UsageError(f"{flag} is an option of round {which}, which this run does not include")
        for rnd, o in mine:
            try:
                value = o.parse(text)
                next(p for p in rnd.params if p.name == o.param).check(rnd.name, value)
            except ValueError as e:
                raise UsageError(f"{flag} {text!r}: {e}") from None
            out.setdefault(rnd.name, {})[o.param] = value
    return out


def runtime_axes(gos: list, pythons: list) -> dict:
    """--go and --python (given twice or more) as the runtime axis: kind ->
    [runtimes.Runtime], each given once. A version or interpreter that
    cannot be used is a usage error when it is malformed (the message says
    what is wanted) and otherwise a runtime whose rows are skip rows
    saying why (a toolchain the proxy does not serve, one that fails to
    build)."""
    # the runtime axis's modules load only when --go or --python asks for one
    import os
    import sys

    # the runtime axis's modules load only when --go or --python asks for one
    from ..runtimes import interp
    from .. import runtimes

    axes: dict = {}
    if gos:
        # the runtime axis's modules load only when --go or --python asks for one
        from ..runtimes import gotoolchains
    for spec in gos:
        try:
            version = gotoolchains.resolve_or_keep(spec)  # one not served: skip rows, gotoolchains.missing says why
        except gotoolchains.ToolchainError as e:
            raise UsageError(str(e)) from None
        try:
            installed = gotoolchains.installed()
        except gotoolchains.ToolchainError:
            installed = None
        rt = runtimes.Runtime(runtimes.GO, version, version, default=version == installed)
        if all(r.label != rt.label for r in axes.get(runtimes.GO, [])):
            axes.setdefault(runtimes.GO, []).append(rt)
    # the runtime axis's modules load only when --go or --python asks for one
    from ._common import python_path

    for path in pythons:
        path = python_path(path)
        exe = os.path.abspath(path) if os.sep in path else path
        try:
            interp.info(exe)
        except interp.BadInterpreter as e:
            raise UsageError(f"--python {e}") from None
        label = interp.key(exe)
        default = os.path.abspath(exe) == os.path.abspath(sys.executable)
        rt = runtimes.Runtime(runtimes.PYTHON, label, exe, default=default)
        have = axes.setdefault(runtimes.PYTHON, [])
        if any(r.label == label for r in have):
            raise UsageError(f"--python {path}: {label} is already named by another --python")
        have.append(rt)
    return axes


def runtime_items(axes: dict) -> dict:
    """The provenance lines of the runtime axis: each toolchain and
    interpreter, what runs it, and which one a run without the axis uses."""
    # the runtime axis's modules load only when --go or --python asks for one
    from ..runtimes import interp, pybuild
    from .. import runtimes

    items = {}
    gos = axes.get(runtimes.GO, [])
    if gos:
        items["go-toolchains"] = ", ".join(
            f"{rt.label} ({'the installed go' if rt.default else 'fetched by the go command from the module proxy'})"
            for rt in gos
        )
    pys = axes.get(runtimes.PYTHON, [])
    if pys:
        items["python-interpreters"] = ", ".join(f"{rt.label}: {interp.info(rt.where).describe()}" for rt in pys)
        for rt in pys:
            items[f"python-build-{rt.label}"] = pybuild.describe(interp.info(rt.where))
    return items


class _Stop:
    """SIGINT (unless it was ignored when we started) and SIGTERM stop the
    run as Ctrl-C does: KeyboardInterrupt, after which the finished runs
    are kept. `signum` says which one came."""

    def __init__(self):
        self.signum = None
        self.saved = {}

    def _handler(self, signum, frame):
        self.signum = signum
        raise KeyboardInterrupt

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            # An ignored SIGINT was ignored on purpose by whoever started us
            # (a shell's background job): it stays ignored.
            if sig == signal.SIGINT and signal.getsignal(sig) == signal.SIG_IGN:
                continue
            self.saved[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        for sig, old in self.saved.items():
            signal.signal(sig, old)
        return False


def _earlier_run(out_dir: Path):
    """The store's newest earlier run of this run's settings on this
    machine (store/views.py's earlier_run), for the report's repeatability
    figure; None without a store or such a run. A store that cannot be read
    is said in one line and is no failure: the report is written without."""
    # The store's modules load only here, after the runs: a run needs none.
    from ..results import benchfmt
    from ..store import db, views

    try:
        with db.open_store(create=False) as store:
            return views.earlier_run(store, benchfmt.read_dir(out_dir))
    except UsageError as e:
        if "no such store" not in str(e):
            print(f"roundbench: no repeatability figure: {e}", file=sys.stderr)
        return None


def cmd_run(args) -> int:
    # the runner and the report load only when a run starts (--help and usage errors stay quick)
    from ..measure import placement
    from ..report import document
    from ..run import plans as run_plans, runner

    selected = rounds_arg(args.rounds)
    rule = rule_of(args)
    impls = set(args.impl or [])
    if impls:
        known = {v.name for r in selected for v in r.variants}
        unknown = impls - known
        if unknown:
            raise UsageError(
                f"unknown variant(s) {', '.join(sorted(unknown))} for these rounds (have: {', '.join(sorted(known))})"
            )
    if args.runs == "auto":
        fixed = None
    elif args.runs.isdigit() and int(args.runs) >= 1:
        fixed = int(args.runs)
    else:
        raise UsageError(f"--runs {args.runs}: want 'auto' or a count of at least 1")
    if args.values == "auto":
        values = None
    elif args.values.isdigit() and 1 <= int(args.values) <= run_policy.MAX_VALUES_ASKED:
        values = int(args.values)
    else:
        raise UsageError(f"--values {args.values}: want 'auto' or a count from 1 to {run_policy.MAX_VALUES_ASKED}")
    if args.budget is not None and not args.budget >= 0:
        raise UsageError(f"--budget {args.budget:g}: want a number of seconds >= 0")
    if args.time_budget is not None and not args.time_budget > 0:
        raise UsageError(f"--time-budget {args.time_budget:g}: want a number of minutes > 0")
    time_budget = args.time_budget * 60 if args.time_budget is not None else None
    if args.quick:
        # --quick is for tests and CI: adaptive still, but cells stop early.
        budget = args.budget if args.budget is not None else run_policy.QUICK_BUDGET_S
        policy = run_policy.RunPolicy(
            fixed=fixed, budget_s=budget, max_runs=run_policy.QUICK_MAX_RUNS, time_budget_s=time_budget, values=values
        )
    else:
        policy = run_policy.RunPolicy(fixed=fixed, budget_s=args.budget, time_budget_s=time_budget, values=values)
    place = placement.plan(args.placement)
    if not args.timeout > 0:
        raise UsageError(f"--timeout {args.timeout:g}: want a number of seconds > 0")
    if args.bound is None:
        args.bound = run_policy.BOUND_FACTOR
    if args.bound_floor is None:
        args.bound_floor = run_policy.BOUND_FLOOR_S
    if not args.bound >= 0:
        raise UsageError(f"--bound {args.bound:g}: want a factor >= 0 (0: --timeout only)")
    if not args.bound_floor > 0:
        raise UsageError(f"--bound-floor {args.bound_floor:g}: want a number of seconds > 0")
    overrides = _overrides(args)
    # A user's file (jsonl's file=PATH, aspects' events=PATH) is checked now,
    # before any child, and becomes its round's one cell.
    selected, overrides = userfile.user_inputs(selected, overrides)
    # Every other parameter is checked against the rounds' declarations now,
    # and goes only to the rounds that declare it.
    options = _options(args, selected)
    for name, params in _checked_params(args, selected, overrides).items():
        options[name] = {**params, **options.get(name, {})}
    overrides = {}
    # Last, the checks that start something (an interpreter, the go command
    # asking the module proxy): every option above was refused without them.
    pythons = args.python or []
    use_python(pythons[0] if len(pythons) == 1 else None)
    axes = runtime_axes(args.go or [], pythons if len(pythons) > 1 else [])
    out_dir = Path(args.out or Path("results") / datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    out_file = out_dir / "results.txt"
    plans = run_plans.make_plans(
        selected, impls or None, args.quick, overrides, options, axes or None, all_sizes=args.sizes == "all"
    )
    if args.placebo:
        plans = placebo.plans(plans, args.placebo)
        if not plans:
            raise UsageError(f"--placebo {args.placebo}: no selected cell has a {args.placebo} variant to stand in")
    header = runner.header_for(selected, policy, args.quick, place, plans)
    header["sizes"] = "quick" if args.quick else args.sizes
    header.update(runtime_items(axes))
    if args.placebo:
        header.update(placebo.header_line(args.placebo))
    r = runner.Runner(
        out_file,
        policy,
        args.timeout,
        progress=None if args.quiet else sys.stderr,
        placement=place,
        notices=sys.stderr,
        bound_factor=args.bound,
        bound_floor_s=args.bound_floor,
        margin=rule.margin,
    )
    more = "" if fixed is not None else " at least"
    budget_text = (
        f"; time budget {args.time_budget:g} min, the estimate after the first wave"
        if args.time_budget is not None
        else ""
    )
    print(
        f"roundbench:{more} {r.planned(plans)} runs ({', '.join(r.name for r in selected)}) -> {out_file}"
        + budget_text,
        file=sys.stderr,
    )
    # Said before the first run, not only in the report: a reader who stops
    # the run early has seen them.
    fair = header.get("fairness", "")
    if fair and fair != "no unfair condition found":
        for item in fair.split("; "):
            print(f"roundbench: fairness warning: {item}", file=sys.stderr)
    t0 = time.monotonic()
    with _Stop() as stop:
        try:
            r.run(plans, header)
        except KeyboardInterrupt:
            stop.signum = stop.signum or signal.SIGINT
            print(
                f"\nroundbench: interrupted by {signal.Signals(stop.signum).name}; "
                f"{r.ok + r.failed} finished runs are saved in {out_file}",
                file=sys.stderr,
            )
    took = time.monotonic() - t0
    print(f"roundbench: {r.end_text()}", file=sys.stderr)
    latest = out_dir.parent / "latest"
    try:
        if latest.is_symlink() or not latest.exists():
            if latest.is_symlink():
                latest.unlink()
            latest.symlink_to(out_dir.name)
    except OSError:
        pass
    if not args.no_report and (r.ok or r.failed):
        path = document.write_report(out_dir, rule=rule, earlier=_earlier_run(out_dir))
        print(f"roundbench: report in {path}", file=sys.stderr)
    skipped = f", {r.skipped} skipped (this machine cannot run them)" if r.skipped else ""
    known = ""
    if r.known_failures:
        known = (
            f", {len(r.known_failures)} with known failures of their libraries ("
            + "; ".join(f"{where}: {', '.join(sorted(checks))}" for where, checks in sorted(r.known_failures.items()))
            + ", FAILED in the report, not counted as failed runs)"
        )
    killed = (
        f", {r.killed} killed at their cell's bound (their cells keep the runs that finished; the report says why)"
        if r.killed
        else ""
    )
    print(
        f"roundbench: {r.ok} runs passed, {r.failed} failed{killed}{skipped}{known}, in {took:.0f} s", file=sys.stderr
    )
    if stop.signum is not None:
        return exit_for_signal(stop.signum)
    return EXIT_FAILED if r.failed else EXIT_OK
