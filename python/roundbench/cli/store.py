"""`roundbench store`: the results of every run, kept and read together."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ..store import db, ingest, query
from . import _types
from ._common import add_rule_options, rule_of

DESCRIPTION = """\
Keeps every results file in one store and reads them together: across
machines, Go releases and Python interpreters, and over time.

  roundbench store import results/2026*      add results folders or files
  roundbench store list go:1.27              the runs a selection holds
  roundbench store machines                  the machines, by fingerprint
  roundbench store export cpu:EPYC round:jsonl -o jsonl.txt
                                             the selection in the Go
                                             benchmark format (roundbench
                                             report, compare, benchstat)
  roundbench store verdict --out DIR         the verdict on every machine
                                             and runtime pair
  roundbench store trends machine:1a2b --out DIR
                                             each series' history and the
                                             changes beyond its noise

The store is a SQLite file: --store PATH, else $ROUNDBENCH_STORE, else
$XDG_DATA_HOME/roundbench/store.sqlite (~/.local/share/roundbench/
store.sqlite). A postgresql:// URL there is a PostgreSQL server instead
(a team's store; pip install 'roundbench[store-pg]'), with the same schema.

Import checks every line of a file and the seal of each END record, and
stores the file whole or not at all: a truncated or edited file is refused
with the line that failed. The same file imported twice is stored once.
`make suite` and `make matrix` import their run at the end.
"""

TERMS_HELP = """\
A selection is KEY:VALUE terms: the same key twice means either, different
keys all. machine:FP (a fingerprint's prefix), cpu:TEXT, go:1.27,
python:3.15 (or python:pypy, python:cpython-3.13.5t), date:2026-12,
since:DATE, until:DATE, round:NAME, variant:NAME, size:TEXT, commit:ABC,
file:SHA, run:ID, or any configuration key of the run (jsonl-kernel:avx512).
No terms: everything."""


def add_parser(sub) -> None:
    s = sub.add_parser(
        "store",
        help="keep every run's results and read them across machines, runtimes and time",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        type=_types.text("a SQLite file or a postgresql:// URL"),
        metavar="PATH|URL",
        help="the store: a SQLite file or a postgresql:// URL (default $ROUNDBENCH_STORE, else "
        f"{db.default_path().as_posix().replace(str(Path.home()), '~')})",
    )
    verbs = s.add_subparsers(dest="verb", metavar="VERB")
    i = verbs.add_parser(
        "import",
        parents=[common],
        help="add results folders or files",
        description="Adds results folders (every *.txt under them) or files. A file is checked whole and stored "
        "in one transaction: a file that does not parse, is truncated or was edited after its run is refused with "
        "its line and nothing of it is stored. The same file again adds nothing.",
    )
    i.add_argument("paths", nargs="+", type=_types.in_path, metavar="PATH")
    i.add_argument(
        "--allow-unended",
        action="store_true",
        help="store a file whose last section has no END record (a killed run) as it is, marked unended",
    )
    i.set_defaults(func=_import)
    for name, func, what in (
        ("list", _list, "the runs the selection holds, oldest first"),
        ("machines", _machines, "the machines the selection's runs were made on"),
    ):
        p = verbs.add_parser(name, parents=[common], help=what, description=f"{what}.\n\n{TERMS_HELP}")
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        p.add_argument("terms", nargs="*", metavar="KEY:VALUE")
        p.set_defaults(func=func)
    e = verbs.add_parser(
        "export",
        parents=[common],
        help="the selection in the Go benchmark format",
        description="Writes the selected lines in the Go benchmark format, one section per run with a "
        "store-source line naming its file, SHA-256, section and lines; roundbench report and compare and "
        f"benchstat read it.\n\n{TERMS_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    e.add_argument("terms", nargs="*", metavar="KEY:VALUE")
    e.add_argument("-o", "--output", type=_types.out_file, metavar="FILE", help="write there (default standard output)")
    e.set_defaults(func=_export)
    for name, func, what, default in (
        (
            "verdict",
            _verdict,
            "the verdict on every machine and runtime pair: each score cell's Go/Python ratio on each, whether each "
            "level's verdict holds, the cells that change side and why",
            "store-verdict",
        ),
        (
            "trends",
            _trends,
            "each series' history (round, variant, size, machine, runtimes) and the changes that exceed both its "
            "noise and the margin",
            "store-trends",
        ),
    ):
        p = verbs.add_parser(
            name,
            parents=[common],
            help=what.split(":")[0],
            description=f"{what}.\n\n{TERMS_HELP}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("terms", nargs="*", metavar="KEY:VALUE")
        p.add_argument(
            "--out", type=_types.out_dir, metavar="DIR", default=f"results/{default}", help=f"default results/{default}"
        )
        if name in ("verdict", "trends"):
            add_rule_options(p, alpha=name == "verdict")
        p.set_defaults(func=func)
    s.set_defaults(func=lambda args: _no_verb(s))


def _no_verb(p) -> int:
    raise UsageError("a verb is required: import, list, machines, export, verdict or trends")


def _import(args) -> int:
    status = EXIT_OK
    added = same = refused = 0
    with db.open_store(args.store) as store:
        print(f"store: {store.target}", file=sys.stderr)
        for p in args.paths:
            try:
                files = ingest.files_under(Path(p))
            except FileNotFoundError as e:
                print(f"  refused {e}", file=sys.stderr)
                refused += 1
                status = EXIT_FAILED
                continue
            for f in files:
                try:
                    out = ingest.import_bytes(store, f.read_bytes(), str(f), args.allow_unended)
                except ingest.Refused as e:
                    print(f"  refused {e}", file=sys.stderr)
                    refused += 1
                    status = EXIT_FAILED
                    continue
                if out.added:
                    added += 1
                else:
                    same += 1
                print(f"  {f}: {out.why}", file=sys.stderr)
    print(f"store: {added} added, {same} already there, {refused} refused", file=sys.stderr)
    return status


def _list(args) -> int:
    terms = query.parse_terms(args.terms)
    with db.open_store(args.store, create=False) as store:
        chosen = query.runs(store, terms)
        if not chosen:
            print(f"no runs match {terms.text()} in {store.target}", file=sys.stderr)
            return EXIT_FAILED
        print(f"{'run':>4}  {'date':20}  {'machine':12}  {'go':8}  {'python':16}  {'seal':8}  rounds  (file)")
        for r in chosen:
            seal = "sealed" if r.sealed else ("unended" if not r.ended else "unsealed")
            # A run with runtimes as an axis (make matrix): the ones its lines name.
            go = ",".join(sorted(x[3:] for x in r.runtimes if x.startswith("go="))) or r.go
            py = ",".join(sorted(x[7:] for x in r.runtimes if x.startswith("python="))) or r.python
            print(f"{r.id:>4}  {r.date:20}  {r.machine:12}  {go:8}  {py:16}  {seal:8}  {r.rounds}  ({r.source})")
    return EXIT_OK


def _machines(args) -> int:
    terms = query.parse_terms(args.terms)
    with db.open_store(args.store, create=False) as store:
        chosen = query.runs(store, terms)
        fps = {r.machine for r in chosen}
        rows = store.all("SELECT fingerprint, cpu, cpu_id, cores, memory, kernel, simd FROM machines ORDER BY id")
        for fp, cpu, cpu_id, cores, memory, kernel, simd in rows:
            if fp not in fps:
                continue
            n = sum(1 for r in chosen if r.machine == fp)
            print(f"{fp}  {cpu}; {cpu_id}; {cores}; {memory}; {kernel}; {n} run(s)")
            if "not recorded" in cpu_id:
                print(f"              instruction sets: {simd}")
    return EXIT_OK


def _export(args) -> int:
    terms = query.parse_terms(args.terms)
    with db.open_store(args.store, create=False) as store:
        text, chosen = query.export(store, terms)
    if not chosen:
        print(f"no runs match {terms.text()}", file=sys.stderr)
        return EXIT_FAILED
    machines = {r.machine for r in chosen}
    if len(machines) > 1:
        print(
            f"warning: the selection spans {len(machines)} machines ({', '.join(sorted(machines))}); "
            "roundbench report on it would pool their runs: select one with machine:FP",
            file=sys.stderr,
        )
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"{len(chosen)} run(s) -> {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _verdict(args) -> int:
    # the store's pages (and matplotlib) load only for the verbs that draw them
    from ..store import verdict, views

    terms = query.parse_terms(args.terms)
    rule = rule_of(args)
    with db.open_store(args.store, create=False) as store:
        found = views.settings(store, terms)
    for source, why in found.left_out:
        print(f"  left out {source}: {why}", file=sys.stderr)
    if not found.shown:
        print(f"no run in {terms.text()} has results of both languages", file=sys.stderr)
        return EXIT_FAILED
    paths = verdict.write_page(found.shown, Path(args.out), older=found.older, rule=rule)
    print(f"{len(found.shown)} setting(s) -> {paths[0]}", file=sys.stderr)
    return EXIT_OK


def _trends(args) -> int:
    # the store's pages (and matplotlib) load only for the verbs that draw them
    from ..store import trends, views

    terms = query.parse_terms(args.terms)
    margin = rule_of(args).margin
    with db.open_store(args.store, create=False) as store:
        found = views.series(store, terms)
    if not found:
        print(f"no series in {terms.text()}", file=sys.stderr)
        return EXIT_FAILED
    paths = trends.write_page(found, Path(args.out), margin=margin)
    print(f"{len(found)} series -> {paths[0]}", file=sys.stderr)
    return EXIT_OK
