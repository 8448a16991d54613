"""`roundbench crossing LIBRARY "DECLARATION" [--args ...]`: what one call
to your own C function costs from C, Python and Go, by every mechanism
(roundbench.crossing)."""

from __future__ import annotations

import argparse
import signal
import sys

from ..errors import EXIT_FAILED, EXIT_OK, exit_for_signal
from . import _types

DESCRIPTION = """\
Measures what one call to a C function in a shared library costs by every
mechanism a binding author weighs, with the ffi round's protocol (a fresh
process per run, runs interleaved, a calibrated loop with the empty loop
subtracted, runs until each median's 95% CI is within ±2% or the budget is
spent):

  c-dlsym            C calling through the pointer dlsym returned (the baseline)
  c-linked           C calling the function linked at build time (the PLT)
  py-ctypes          ctypes, argtypes and restype set
  py-cffi-abi        cffi's ABI mode (ffi.dlopen)
  py-cffi-api        cffi's API mode, compiled out of line
  py-ext             a generated extension module (METH_NOARGS, METH_O or METH_FASTCALL)
  py-pybind11        pybind11, m.def of the function itself
  py-nanobind        nanobind, m.def of the function itself
  py-cython-extern   Cython, a cdef extern wrapped in a typed def
  py-pyo3            PyO3 (Rust, built by maturin), a #[pyfunction]
  go-cgo             a cgo call
  go-cgo-noescape    the same, the callee annotated #cgo noescape (Go 1.24)
  go-cgo-nocallback  the same, annotated #cgo nocallback (Go 1.24)
  go-purego          purego (dlopen at run time, no cgo; Go 1.25)

Every mechanism's result on the given arguments must equal c-dlsym's, bit
for bit, or its run fails, named; a mechanism whose tool is missing or
fails to build is a row that says why. Types: integers of 8 to 64 bits
(int8_t .. uint64_t, and C's own names), float, double, void (return), and
a buffer: a const pointer to bytes followed by its length, a size_t or a
type the ABI passes as one (const uint8_t *p, size_t n; also const char *,
const void *), filled from --buffer-size and passed without a copy.
Anything else is refused, naming the type. A prototype copied from a
header may keep the header's macros and type names with --header (zlib's
uLong, Bytef, z_size_t). C's names on this machine:
  {sizes}
"""

EPILOG = """\
examples:
  roundbench crossing libm.so.6 "double cos(double)" --args 0.5
  roundbench crossing ./libfoo.so "uint64_t sum(const uint8_t *p, size_t n)" --buffer-size 4096
  roundbench crossing ./libfoo.so "int32_t add(int32_t a, int32_t b)" --args 2 3 \\
      --python .venv/bin/python --python pypy3
  roundbench crossing libm.so.6 "double cos(double)" --args 0.5 --impl go-cgo --go 1.20 --go 1.26
  roundbench crossing libz.so.1 "uLong crc32_z(uLong crc, const Bytef *buf, z_size_t len)" \\
      --header zlib.h --buffer-size 4096

The output folder (--out, default results/crossing-<symbol>-<time>) holds
results.txt (Go benchmark format: BenchmarkCrossing/impl=py-ctypes/sym=cos
... ns/call, with the provenance), report.md with the ladder picture, and
go/, a Go package with the cgo calls and BenchmarkCrossing for your own
`go test -bench`. The callers are built once into a cache
($ROUNDBENCH_CROSSING_CACHE or --cache, default build/crossing/), keyed by
the declaration, the library's contents and the compilers' versions.

Exit status: 0 when every mechanism ran and agreed, 1 when one failed (its
name and why on stderr), 2 on bad usage: an unsupported type, a header, library
or symbol that cannot be found (one line says which).
"""


def add_parser(sub) -> None:
    # the crossing tool's modules load when its parser or command needs them, not for every other command
    from ..crossing import decl
    from ..crossing.measure import DEFAULT_BUFFER

    c = sub.add_parser(
        "crossing",
        help="what one call to your own C function costs, by every mechanism from C, Python and Go",
        description=DESCRIPTION.format(sizes=decl.sizes_text()),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument(
        "library",
        type=_types.text("a shared library: a path or a name the dynamic linker finds"),
        metavar="LIBRARY",
        help="the shared library: a path, or a name the dynamic linker finds",
    )
    c.add_argument("declaration", metavar="DECLARATION", help='the function\'s C prototype, e.g. "double cos(double)"')
    c.add_argument(
        "--args",
        nargs="+",
        default=[],
        metavar="V",
        help="the values of its scalar arguments, in order (integers in decimal or 0x hex, floats as C reads them; "
        "default: 0 for each)",
    )
    c.add_argument(
        "--header",
        type=_types.text("a C header: a path or an include name such as zlib.h"),
        metavar="FILE",
        help="the header the declaration is copied from: a path, or an include name (zlib.h) found as the C "
        "compiler finds it. The header and the declaration go through the C preprocessor (cc -E) together, "
        "so the declaration may keep the header's macros (ZEXTERN, OF()) and type names (uLong, Bytef, "
        "z_size_t), each followed through the header's typedefs to a C type; one it cannot follow is refused, "
        "named",
    )
    c.add_argument(
        "--buffer-size",
        type=_types.integer(0, 1 << 30),
        default=DEFAULT_BUFFER,
        metavar="N",
        help=f"the buffer's size in bytes, for a declaration with one (default {DEFAULT_BUFFER}, the ffi round's)",
    )
    c.add_argument(
        "--python",
        action="append",
        type=_types.text("an interpreter: a path or a name on PATH"),
        metavar="PATH",
        help="the interpreter of the Python mechanisms (default: the one running roundbench). Repeatable: each "
        "interpreter's rows are named by a python= key, the extension and cffi's module built for each",
    )
    c.add_argument(
        "--go",
        action="append",
        type=_types.text("a Go release, X.Y or X.Y.Z"),
        metavar="VERSION",
        help="build the Go mechanisms with this Go release (1.20 means the newest 1.20.x; 1.20.14 that one), "
        "fetched by the go command from the module proxy as `roundbench run --go` fetches it. Repeatable: each "
        "release's rows are named by a go= key (default: the installed Go, rows unnamed). Go 1.19 or newer; "
        "the annotated calls need 1.24",
    )
    c.add_argument(
        "--impl",
        action="append",
        type=_types.text("a mechanism's name"),
        metavar="NAME",
        help="run only this mechanism (repeatable; c-dlsym, the baseline, always runs)",
    )
    c.add_argument(
        "--out", type=_types.out_dir, metavar="DIR", help="the output folder (default results/crossing-<symbol>-<time>)"
    )
    c.add_argument(
        "--cache",
        type=_types.out_dir,
        metavar="DIR",
        help="the build cache (default $ROUNDBENCH_CROSSING_CACHE, else build/crossing)",
    )
    c.add_argument(
        "--runs",
        type=_types.integer(1),
        metavar="K",
        help="exactly K runs per mechanism (default: adaptive, at least 6)",
    )
    c.add_argument(
        "--budget",
        type=_types.number(0, what="a number of seconds"),
        metavar="S",
        help="seconds of runs beyond the minimum that the mechanisms share (default 60, the ffi round's)",
    )
    c.add_argument(
        "--timeout",
        type=_types.number(0, above=True, what="a number of seconds"),
        default=900,
        metavar="S",
        help="kill a run after S seconds (default 900)",
    )
    c.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    c.set_defaults(func=cmd_crossing)


def cmd_crossing(args) -> int:
    # the crossing tool's modules (and the runner they use) load only when it runs
    from ..crossing import decl
    from ..crossing.measure import measure
    from ..crossing.report import table

    try:
        res = _measure(args, measure)
    except KeyboardInterrupt:
        # The finished runs stay in the output folder's results.txt.
        print("\nroundbench crossing: interrupted", file=sys.stderr)
        return exit_for_signal(signal.SIGINT)
    print(f"{res.declaration.text} in {res.library.path}: result {decl.readable(res.result or 'none')}")
    print(table(res), end="")
    for m, why in sorted(res.skipped.items()):
        print(f"roundbench crossing: not run: {m}: {why}", file=sys.stderr)
    for m, why in sorted(res.failed.items()):
        print(f"roundbench crossing: FAILED: {m}: {why}", file=sys.stderr)
    print(f"roundbench crossing: report in {res.report}", file=sys.stderr)
    return EXIT_FAILED if res.failed else EXIT_OK


def _measure(args, measure):
    return measure(
        args.library,
        args.declaration,
        args.args,
        buffer_size=args.buffer_size,
        pythons=args.python,
        out=args.out,
        cache=args.cache,
        runs=args.runs,
        budget=args.budget,
        timeout=args.timeout,
        progress=None if args.quiet else sys.stderr,
        only=args.impl,
        gos=args.go,
        header=args.header,
    )
