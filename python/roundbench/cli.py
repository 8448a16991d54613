"""The roundbench command: run the suite, list what can run, write reports."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

from . import rounds

DESCRIPTION = """\
roundbench measures the same work ("rounds") done in C, through the Python
and Go bindings of one C core, and in pure Python and pure Go, with one
protocol: a fresh process per run, runs interleaved across variants, each
child's own peak memory and CPU time, every result checked.
"""

EPILOG = """\
examples:
  roundbench list                         rounds, variants, and what cannot run here
  roundbench run                          every round at its default sizes, 6 runs each
  roundbench run loop ffi --runs 10       two rounds, 10 runs per variant
  roundbench run loop --impl c --impl py  only these variants
  roundbench run loop --n 1000000         override a size parameter
  roundbench run chain --hop-work 100 --parallel 2   chain round options
  roundbench run --quick                  every round scaled down (tests, CI)
  roundbench run matmul --threads all     BLAS on every core (default: 1 thread)
  roundbench report results/latest        write results/latest/report.md

results go to --out DIR (default results/<date-time>), as DIR/results.txt in
the Go benchmark format, appended run by run (Ctrl-C keeps what was done),
then DIR/report.md. `benchstat -col /impl DIR/results.txt` reads them too.
Exit status: 0 when every run passed, 1 when some failed, 2 on bad usage,
130 when interrupted.
"""


def _rounds_arg(names: list) -> list:
    if not names:
        return rounds.all_rounds()
    out = []
    for n in names:
        try:
            out.append(rounds.get(n))
        except KeyError as e:
            raise SystemExit(f"roundbench: {e.args[0]}") from None
    return out


def cmd_list(args) -> int:
    for rnd in rounds.all_rounds():
        print(f"{rnd.name}: {rnd.title}")
        sizes = "; ".join(", ".join(f"{k}={v}" for k, v in s.items()) or "-" for s in rnd.sizes)
        quick = "; ".join(", ".join(f"{k}={v}" for k, v in s.items()) or "-" for s in rnd.quick)
        print(f"  sizes: {sizes}   (--quick: {quick})   metric: {rnd.metric}")
        for v in rnd.variants:
            why = rounds.unavailable(rnd, v)
            print(f"  {v.name:<16} {v.lang:<3} {v.explain}")
            if why:
                print(f"  {'':<16} {'':<3} cannot run here: {why}")
        print()
    return 0


def _overrides(args) -> dict:
    out = {}
    if args.n is not None:
        if args.n < 0:
            raise SystemExit("roundbench: --n must be >= 0")
        out["n"] = args.n
    for item in args.param or []:
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise SystemExit(f"roundbench: --param {item!r}: want key=value")
        out[k] = v
    # ---- issue 3 ----
    if getattr(args, "threads", None) is not None:
        if args.threads == "all":
            out["threads"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        elif args.threads.isdigit() and int(args.threads) >= 1:
            out["threads"] = int(args.threads)
        else:
            raise SystemExit(f"roundbench: --threads {args.threads!r}: want 'all' or a count >= 1")
    # ---- end issue 3 ----
    # --- round chain (issue 5): options that land in the benchmark name ---
    if getattr(args, "hop_work", None) is not None:
        if args.hop_work < 0:
            raise SystemExit("roundbench: --hop-work must be >= 0")
        out["hop-work"] = args.hop_work
    if getattr(args, "parallel", None) is not None:
        if args.parallel < 1:
            raise SystemExit("roundbench: --parallel must be >= 1")
        out["parallel"] = args.parallel
    # --- end round chain ---
    return out


def cmd_run(args) -> int:
    from . import report, runner

    selected = _rounds_arg(args.rounds)
    impls = set(args.impl or [])
    if impls:
        known = {v.name for r in selected for v in r.variants}
        unknown = impls - known
        if unknown:
            raise SystemExit(
                f"roundbench: unknown variant(s) {', '.join(sorted(unknown))} for these rounds "
                f"(have: {', '.join(sorted(known))})"
            )
    if args.runs < 1:
        raise SystemExit("roundbench: --runs must be at least 1")
    out_dir = Path(args.out or Path("results") / datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    out_file = out_dir / "results.txt"
    plans = runner.make_plans(selected, impls or None, args.quick, _overrides(args))
    header = runner.header_for(selected, args.runs, args.quick)
    total = sum(len(p.variants) * (1 if p.round.facts else args.runs) for p in plans)  # a facts round runs once
    print(f"roundbench: {total} runs ({', '.join(r.name for r in selected)}) -> {out_file}", file=sys.stderr)
    r = runner.Runner(out_file, args.runs, args.timeout, progress=None if args.quiet else sys.stderr)
    t0 = time.monotonic()
    interrupted = False
    try:
        r.run(plans, header)
    except KeyboardInterrupt:
        interrupted = True
        print(f"\nroundbench: interrupted; {r.ok + r.failed} finished runs are saved in {out_file}", file=sys.stderr)
    took = time.monotonic() - t0
    latest = out_dir.parent / "latest"
    try:
        if latest.is_symlink() or not latest.exists():
            if latest.is_symlink():
                latest.unlink()
            latest.symlink_to(out_dir.name)
    except OSError:
        pass
    if not args.no_report and (r.ok or r.failed):
        path = report.write_report(out_dir)
        print(f"roundbench: report in {path}", file=sys.stderr)
    print(f"roundbench: {r.ok} runs passed, {r.failed} failed, in {took:.0f} s", file=sys.stderr)
    if interrupted:
        return 130
    return 1 if r.failed else 0


def cmd_report(args) -> int:
    from . import report

    try:
        path = report.write_report(Path(args.dir), Path(args.output) if args.output else None)
    except FileNotFoundError as e:
        print(f"roundbench report: {e}", file=sys.stderr)
        return 2
    print(path)
    return 0


# ---- round jsonl: the log generator ------------------------------------------


def cmd_gen_log(args) -> int:
    from . import genlog

    kinds = None if args.kinds is None else [k.strip() for k in args.kinds.split(",") if k.strip()]
    try:
        expect = genlog.generate(args.out, args.lines, args.seed, args.bad_rate, kinds)
    except ValueError as e:
        print(f"roundbench {e}", file=sys.stderr)
        return 2
    print(expect)
    return 0


def _add_gen_log(sub) -> None:
    from . import genlog

    g = sub.add_parser(
        "gen-log",
        help="write the jsonl round's deterministic JSON Lines access log",
        description="Writes a deterministic JSON Lines access log (the jsonl round's input) to OUT and "
        "the result every variant must find in it to OUT.expect, and prints that result.",
        epilog=f"bad-line kinds (--kinds, comma-separated; default all): {', '.join(genlog.KINDS)}",
    )
    g.add_argument("out", metavar="OUT", help="the file to write")
    g.add_argument(
        "--lines", type=int, default=genlog.DEFAULT_LINES, metavar="N", help="lines (default 1000000, about 76 MB)"
    )
    g.add_argument("--seed", type=int, default=genlog.DEFAULT_SEED, metavar="S", help="random seed (default 1)")
    g.add_argument(
        "--bad-rate", type=float, default=0.0002, metavar="R", help="fraction of bad or awkward lines (default 0.0002)"
    )
    g.add_argument("--kinds", metavar="K,K", help="which kinds of bad lines (default: all)")
    g.set_defaults(func=cmd_gen_log)


# ---- end round jsonl ---------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roundbench", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser(
        "run",
        help="run rounds and write results and a report",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("rounds", nargs="*", metavar="ROUND", help="rounds to run (default: all; see `roundbench list`)")
    r.add_argument("--impl", action="append", metavar="NAME", help="run only this variant (repeatable)")
    r.add_argument(
        "--runs",
        type=int,
        default=6,
        metavar="K",
        help="runs per variant and size, interleaved across variants (default 6)",
    )
    r.add_argument("--quick", action="store_true", help="every round at its small sizes (for tests and CI)")
    r.add_argument("--out", metavar="DIR", help="where results.txt and report.md go (default results/<date-time>)")
    r.add_argument("--n", type=int, metavar="N", help="set the size parameter n of every round that has one")
    r.add_argument("--param", action="append", metavar="KEY=VALUE", help="set any size parameter (repeatable)")
    # ---- issue 3 ----
    r.add_argument(
        "--threads",
        metavar="T",
        help="BLAS and library threads for rounds that take them (matmul): "
        "1 (the default: every variant pinned to one thread) or 'all' (every usable core); "
        "the count is in each result's name as /threads=T",
    )
    # ---- end issue 3 ----
    r.add_argument(
        "--timeout",
        type=float,
        default=900,
        metavar="S",
        help="kill a run after S seconds and record it as failed (default 900)",
    )
    r.add_argument("--no-report", action="store_true", help="write results only")
    r.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    # --- round chain (issue 5) ---
    r.add_argument(
        "--hop-work",
        type=int,
        metavar="K",
        help="chain: each task first runs a K-iteration arithmetic loop (the hop-work parameter; default 0)",
    )
    r.add_argument(
        "--parallel",
        type=int,
        metavar="P",
        help="chain: P chains at once in one process (the parallel parameter; default 1)",
    )
    # --- end round chain ---
    r.set_defaults(func=cmd_run)

    ls = sub.add_parser("list", help="list rounds and variants, and why any cannot run here")
    ls.set_defaults(func=cmd_list)

    rep = sub.add_parser("report", help="write a Markdown report from result files")
    rep.add_argument("dir", metavar="DIR", help="a results directory (every *.txt in it) or one result file")
    rep.add_argument("-o", "--output", metavar="FILE", help="where to write (default DIR/report.md)")
    rep.set_defaults(func=cmd_report)

    _add_gen_log(sub)  # round jsonl
    return p


def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not getattr(args, "func", None):
        p.print_help()
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:
        # `roundbench list | head`: the reader left; that is not an error.
        sys.stderr.close()
        return 0
