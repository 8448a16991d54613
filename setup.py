"""Build of the roundbench Python package.

The extension roundbench._core compiles the C core (csrc/*.c) into itself,
so `import roundbench` needs no shared library at run time. The flags are
the core's portable release flags; the full command line is recorded in the
module (roundbench._core.build_info()) and so in every result file.

A package built for installation (a wheel, `pip install .`) also carries
what the suite's child processes are (roundbench.programs finds them):

- roundbench/bin/: the C programs, built here with the core's flags, the
  same programs the Makefile builds into build/ in a checkout;
- roundbench/gosrc/: the Go module (go.mod, go.sum, go/ with the links to
  csrc/ resolved to files), from which the Go programs are built on first
  use, since a Go binary is tied to the toolchain present where it runs.

An in-place build (`make py`, `setup.py build_ext --inplace`, an editable
install) builds the extension only: a checkout runs the programs in build/.
"""

import glob
import os
import runpy
import shlex
import shutil
import subprocess
import sysconfig
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _sources(pattern: str) -> list:
    """The files matching pattern, relative to this folder, sorted."""
    return sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, pattern)))


CORE_SOURCES = _sources("csrc/*.c")

# Portable by default (shared/DESIGN.md, "Build flags are part of fairness");
# ROUNDBENCH_TUNE=1 gives the tuned build, and says so in build_info().
TUNED = os.environ.get("ROUNDBENCH_TUNE") == "1"
OPT = ["-O3", "-march=native"] if TUNED else ["-O2"]
EXTRA = OPT + ["-std=gnu11", "-fno-strict-aliasing"]
FLAGS = " ".join([sysconfig.get_config_var("CFLAGS") or "", *EXTRA]).strip()

# ---- The BLAS ----------------------------------------------------------------
# The core uses the OpenBLAS of the scipy-openblas64 package, the same
# library numpy's wheels bundle (README, "The BLAS"), but links no BLAS: it
# dlopen()s it on the first BLAS call, from the path roundbench._blas finds
# at run time, so that `import roundbench` neither maps it nor starts its
# threads. Building needs no BLAS; the symbols carry the prefix and suffix
# below and take 64-bit integers.
BLAS_MACROS = [("BLAS_SYMBOL_PREFIX", "scipy_"), ("BLAS_SYMBOL_SUFFIX", "64_"), ("BLAS_ILP64", None)]
BLAS_LINK = ["-ldl"]

core = Extension(
    "roundbench._core",
    sources=["python/roundbench/_core.c", *CORE_SOURCES],
    include_dirs=["csrc"],
    define_macros=[("RB_CFLAGS", '"%s"' % FLAGS.replace('"', "'")), *BLAS_MACROS],
    extra_compile_args=EXTRA,
    extra_link_args=BLAS_LINK,
)

# ---- The C programs of an installed package ----------------------------------
# The Makefile's CFLAGS_CORE: the programs in a wheel are the programs a
# checkout builds, flags included (they are written into every result file).
PROGRAM_CFLAGS = OPT + ["-g", "-std=gnu11", "-Wall", "-Wextra", "-Wshadow", "-fPIC", "-fno-strict-aliasing"]
# Installed, the programs are in site-packages/roundbench/bin/ and the BLAS
# in site-packages/scipy_openblas64/lib/, and the loader expands $ORIGIN in
# a path given to dlopen (ld.so(8)); ROUNDBENCH_BLAS_LIB still overrides it.
BLAS_FROM_BIN = "$ORIGIN/../../scipy_openblas64/lib/libscipy_openblas64_.so"
PROGRAM_DEFINES = [
    '-DRB_CFLAGS="%s"' % " ".join(PROGRAM_CFLAGS),
    *("-D%s=%s" % (k, v) if v is not None else "-D" + k for k, v in BLAS_MACROS),
    '-DRB_BLAS_DEFAULT_LIB="%s"' % BLAS_FROM_BIN,
    "-Icsrc",
    "-Icsrc/runner",
]
# Statically linked programs need the C library's static archive, which not
# every system installs: without it they are left out, and the reason is
# written to bin/unbuilt.txt for roundbench.programs to report.
OPTIONAL = {"rb-c-static", "hello-c-static"}


def _compiler() -> list:
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc")
    return shlex.split(cc)


def _run(cmd: list) -> None:
    print(" ".join(shlex.quote(c) for c in cmd))
    subprocess.run(cmd, check=True, cwd=HERE)


def _try(cmd: list):
    """Runs cmd; returns None, or its error output when it failed."""
    print(" ".join(shlex.quote(c) for c in cmd))
    done = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def build_programs(out: str, tmp: str) -> None:
    """Builds the C programs into `out`, objects into `tmp`."""
    cc = _compiler()
    cflags = PROGRAM_CFLAGS + PROGRAM_DEFINES
    os.makedirs(out, exist_ok=True)
    os.makedirs(tmp, exist_ok=True)

    def compile_all(sources: list, sub: str) -> list:
        objs = [os.path.join(tmp, sub, os.path.basename(s)[:-2] + ".o") for s in sources]
        os.makedirs(os.path.join(tmp, sub), exist_ok=True)
        cmds = [[*cc, *cflags, "-c", s, "-o", o] for s, o in zip(sources, objs)]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(_run, cmds))
        return objs

    core_objs = compile_all(CORE_SOURCES, "core")
    runner_objs = compile_all(_sources("csrc/runner/*.c"), "runner")
    libs = ["-ldl", "-lpthread", "-lm"]

    def prog(name: str) -> str:
        return os.path.join(out, name)

    _run([*cc, "-shared", "-o", prog("libroundbench.so"), *core_objs, "-ldl"])
    _run([*cc, *cflags, *runner_objs, *core_objs, "-o", prog("rb-c"), *libs])
    # The same runner calling the core through the shared library's PLT
    # (round ffi, variant c-so), found beside it.
    _run([*cc, *cflags, *runner_objs, "-L" + out, "-lroundbench", "-Wl,-rpath,$ORIGIN", "-o", prog("rb-c-so"), *libs])
    _run([*cc, *cflags, "csrc/tools/spawn.c", "csrc/runner/forkwait.c", "-o", prog("rb-spawn")])
    _run([*cc, *cflags, "csrc/tools/loadgen.c", "-o", prog("rb-load")])
    _run([*cc, *PROGRAM_CFLAGS, "csrc/tools/hello.c", "-o", prog("hello-c")])
    # Round aspects' whole program in C (its launch modes start it).
    _run([*cc, *cflags, "csrc/tools/aspects.c", *core_objs, "-o", prog("aspects-c"), *libs])
    optional = {
        "rb-c-static": [
            *cc,
            *cflags,
            "-static",
            *runner_objs,
            *core_objs,
            "-o",
            prog("rb-c-static"),
            "-lpthread",
            "-lm",
        ],
        "hello-c-static": [*cc, *PROGRAM_CFLAGS, "-static", "csrc/tools/hello.c", "-o", prog("hello-c-static")],
    }
    unbuilt = {}
    for name, cmd in optional.items():
        why = _try(cmd)
        if why is not None:
            unbuilt[name] = (
                f"static linking failed ({why}); it needs the C library's static archive (Debian: libc6-dev)"
            )
    why = build_simdjson(prog("rb-c-simdjson"), tmp, runner_objs, core_objs, libs)
    if why is not None:
        unbuilt["rb-c-simdjson"] = f"building it failed ({why}); it needs g++ and simdjson (Debian: libsimdjson-dev)"
    record = os.path.join(out, "unbuilt.txt")
    if unbuilt:
        with open(record, "w") as f:
            f.writelines(f"{k}\t{v}\n" for k, v in unbuilt.items())
    elif os.path.exists(record):
        os.remove(record)


def build_simdjson(target: str, tmp: str, runner_objs: list, core_objs: list, libs: list):
    """Round jsonl's c-simdjson, a C++ program of its own against the
    system's simdjson: the C runner's main, harness and jsonl protocol
    around csrc/simdjson/. Returns None, or why it could not be built."""
    cxx = shlex.split(os.environ.get("CXX") or "g++")
    if shutil.which(cxx[0]) is None:
        return f"no C++ compiler: {cxx[0]} is not on PATH"
    # The library's flags (Debian's is built with SIMDJSON_THREADS_ENABLED,
    # which changes its classes' layout) and where it is.
    try:
        flags = [
            shlex.split(
                subprocess.run(["pkg-config", what, "simdjson"], capture_output=True, text=True, check=True).stdout
            )
            for what in ("--cflags", "--libs")
        ]
    except (OSError, subprocess.CalledProcessError):
        return "pkg-config finds no simdjson"
    shared = [o for o in runner_objs if os.path.basename(o) in ("main.o", "harness.o", "jsonl_run.o")]
    glue = os.path.join(tmp, "run_jsonl_simdjson.o")
    counter = os.path.join(tmp, "jsonl_simdjson.o")
    steps = [
        [*_compiler(), *PROGRAM_CFLAGS, *PROGRAM_DEFINES, "-Icsrc/simdjson", "-c", "csrc/simdjson/run_jsonl_simdjson.c"]
        + ["-o", glue],
        [*cxx, *OPT, "-g", "-std=c++17", "-Icsrc", *flags[0], "-c", "csrc/simdjson/jsonl_simdjson.cc", "-o", counter],
        [*cxx, glue, counter, *shared, *core_objs, "-o", target, *flags[1], *libs],
    ]
    for cmd in steps:
        why = _try(cmd)
        if why is not None:
            return why
    return None


def copy_go_sources(out: str) -> None:
    """The Go module without its tests, links to csrc/ resolved to files."""
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for name in ("go.mod", "go.sum"):
        shutil.copy(os.path.join(HERE, name), out)
    shutil.copytree(
        os.path.join(HERE, "go"),
        os.path.join(out, "go"),
        ignore=lambda _dir, names: [n for n in names if n.endswith("_test.go")],
    )


class BuildPy(build_py):
    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            copy_go_sources(os.path.join(self.build_lib, "roundbench", "gosrc"))


class BuildExt(build_ext):
    """Builds the extensions, then writes roundbench._core's type stubs
    (_core.pyi) next to it, from the `pyi` comments of _core.c
    (scripts/gen_core_stub.py): in place for `make build`, into the build
    tree, and so the wheel, otherwise. A wheel also gets the C programs."""

    def run(self):
        super().run()
        write_stub = runpy.run_path(os.path.join(HERE, "scripts", "gen_core_stub.py"))["write_stub"]
        out = os.path.join(os.path.dirname(self.get_ext_fullpath(core.name)), "_core.pyi")
        write_stub(os.path.join(HERE, "python", "roundbench", "_core.c"), out)
        if not self.inplace and not getattr(self, "editable_mode", False):
            build_programs(os.path.join(self.build_lib, "roundbench", "bin"), os.path.join(self.build_temp, "programs"))


setup(
    ext_modules=[core],
    cffi_modules=["python/roundbench/_cffi_build.py:ffibuilder"],
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
)
