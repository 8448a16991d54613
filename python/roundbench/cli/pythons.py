"""`roundbench pythons`: provisions the CPython builds people run
(runtimes/provision.py says which and how) and lists them."""

from __future__ import annotations

from pathlib import Path

from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ..runtimes import extbuild, interp, provision


def add_parser(sub) -> None:
    p = sub.add_parser(
        "pythons",
        help="provision CPython 3.13.5 (PGO+LTO, and its free-threaded twin) and Debian unstable's 3.14 and 3.15",
        description="Gets the CPython builds the verdict runs: CPython 3.13.5 built from Debian 13's source "
        "package with --enable-optimizations --with-lto (cpython-3.13.5) and again with --disable-gil "
        "(cpython-3.13.5t), and Debian unstable's own 3.14 and 3.15 in a debootstrap root; each with a "
        "virtual environment holding the project's requirements from wheels. Needs Linux, Debian, root and "
        "the network, and says in one line which is missing (exit 0: the suite runs with what it has). "
        "Everything lives outside the checkout, in ROUNDBENCH_PYTHONS (default ~/.cache/roundbench/pythons), "
        "and is reused by the next call. `roundbench run --python 3.15` then names one by its version.",
        epilog='How long each takes to provision, on a 2-vCPU machine: docs/runtimes.md, "The Pythons people run".',
    )
    p.add_argument(
        "--newest",
        action="store_true",
        help="print the newest provisioned CPython with the GIL (its venv's python) and exit; nothing when none is "
        "(make suite runs its Python children under it)",
    )
    p.add_argument(
        "--cpythons",
        action="store_true",
        help="print every CPython with the GIL on this machine, one path per line, one per version and build: the "
        "one running roundbench (the venv's), the system's /usr/bin/python3, every provisioned one (make suite runs "
        "its build-cost cells under them, make matrix its Python side)",
    )
    p.add_argument(
        "--free-threaded",
        action="store_true",
        help="with --cpythons: the free-threaded ones too (built with --disable-gil), after those with the GIL "
        "(make matrix runs them as well)",
    )
    p.add_argument(
        "--list", action="store_true", help="list what is provisioned (name, version, build, where) and exit"
    )
    p.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="provision only these: a name --list prints, cpython-3.13.5 or cpython-3.13.5t (one build), "
        "cpython-3.13 (both 3.13.5 builds), cpython-3.14, cpython-3.15 or sid (Debian unstable's root, which holds "
        "3.14 and 3.15), all; repeatable; anything else is refused (exit 2). make suite provisions sid itself",
    )
    p.add_argument(
        "--rebuild",
        action="append",
        metavar="NAME",
        help="make NAME again although it is there: the names --only takes (cpython-3.13 both 3.13.5 builds, sid "
        "or cpython-3.14/3.15 the root, all everything); anything else is refused (exit 2)",
    )
    p.set_defaults(func=main_args)


def _show(interps: dict) -> None:
    if not interps:
        print(f"nothing provisioned in {provision.cache_dir()} (roundbench pythons makes it)")
        return
    for i in sorted(interps.values(), key=lambda i: provision._version_tuple(i.version) + (i.free_threaded,)):
        extra = f"; no wheel for {', '.join(i.missing_wheels)}" if i.missing_wheels else ""
        print(f"{i.name:<18} {i.python}")
        print(f"{'':<18} {i.source}; {i.build}; {i.seconds / 60:.1f} min, {i.bytes / 2**20:.0f} MiB{extra}")


def main_args(args) -> int:
    # The names are checked first, before anything is listed, fetched or built.
    for option, given in (("--only", args.only), ("--rebuild", args.rebuild)):
        try:
            provision.check_names(option, given)
        except ValueError as e:
            raise UsageError(str(e)) from None
    # --newest, --cpythons and --list only read; each is a question of its own.
    asked = [
        flag for flag, on in (("--newest", args.newest), ("--cpythons", args.cpythons), ("--list", args.list)) if on
    ]
    if len(asked) > 1:
        raise UsageError(f"{' and '.join(asked)}: give one of them (each prints its own answer)")
    if asked and (args.only or args.rebuild):
        raise UsageError(f"{asked[0]} only reads what is provisioned: --only and --rebuild provision, give them alone")
    if args.free_threaded and not args.cpythons:
        raise UsageError("--free-threaded goes with --cpythons (it adds the free-threaded builds to that list)")
    if args.newest:
        got = provision.newest()
        if got is not None:
            print(got.python)
        return EXIT_OK
    if args.cpythons:
        for path in interp.cpythons():
            print(path)
        for path in interp.free_threaded_pythons() if args.free_threaded else ():
            print(path)
        return EXIT_OK
    if args.list:
        _show(provision.read_manifest())
        return EXIT_OK
    root = extbuild.checkout()
    if root is None:
        print("roundbench pythons: needs the project's checkout (its requirements-dev.txt)")
        return EXIT_FAILED
    try:
        got = provision.provision(Path(root), only=args.only, rebuild=args.rebuild)
    except provision.Refused as e:
        print(e)
        return EXIT_OK
    except provision.Failed as e:
        print(f"roundbench pythons: {e}")
        return EXIT_FAILED
    _show(got)
    return EXIT_OK
