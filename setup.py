"""Build of the roundbench Python package.

The extension roundbench._core compiles the C core (csrc/*.c) into itself,
so `import roundbench` needs no shared library at run time. The flags are
the core's portable release flags; the full command line is recorded in the
module (roundbench._core.build_info()) and so in every result file.

A package built for installation (a wheel, `pip install .`) also carries
what the suite's child processes are (roundbench.runtimes.programs finds them):

- roundbench/bin/: the C programs, built here as the Makefile builds them
  into build/ in a checkout: both take the flags, the BLAS macros and the
  programs from one table, python/roundbench/build.mk, which the package
  carries too (roundbench.runtimes.programs reads its Go runners);
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

# ---- The build table ----------------------------------------------------------
# python/roundbench/build.mk holds the flags, the BLAS macros and the C
# programs, and the Makefile reads it too (its opening comment says how):
# what a wheel carries is what a checkout builds. Its reader is loaded by
# its path, since the package is not built yet.
_BUILDTABLE = runpy.run_path(os.path.join(HERE, "python", "roundbench", "runtimes", "buildtable.py"))
TABLE = _BUILDTABLE["read"]()


def _words(name: str) -> list:
    """The table's `name`, split as Make splits it; KeyError if it lacks it."""
    return TABLE[name].split()


# Portable by default (docs/ARCHITECTURE.md, "One build table");
# ROUNDBENCH_TUNE=1 gives the tuned build (make TUNE=1 sets it), and says so
# in build_info().
TUNED = os.environ.get("ROUNDBENCH_TUNE") == "1"
OPT = _words("OPT_TUNED" if TUNED else "OPT_PORTABLE")
# An interpreter in a Debian root (roundbench pythons): its pyconfig.h
# includes the multiarch one from the root's include folder.
EXTRA = OPT + _words("EXT_CFLAGS") + _BUILDTABLE["multiarch_flags"](sysconfig.get_paths()["include"])
FLAGS = " ".join([sysconfig.get_config_var("CFLAGS") or "", *EXTRA]).strip()

# ---- The BLAS -----------------------------------------------------------------
# The core uses the OpenBLAS of the scipy-openblas64 package, the same
# library numpy's wheels bundle (docs/rounds/matmul.md, "The BLAS"), but links no BLAS: it
# dlopen()s it on the first BLAS call, from the path roundbench._blas finds
# at run time, so that `import roundbench` neither maps it nor starts its
# threads. Building needs no BLAS; its symbols' macros are the table's.


def _macro(flag: str) -> tuple:
    """-DNAME=VALUE as setuptools' (NAME, VALUE); -DNAME as (NAME, None)."""
    if not flag.startswith("-D"):
        raise ValueError(f"{flag!r} is not a -D macro")
    name, eq, value = flag[2:].partition("=")
    return (name, value if eq else None)


BLAS_MACROS = [_macro(f) for f in _words("BLAS_MACROS")]

core = Extension(
    "roundbench._core",
    sources=["python/roundbench/_core.c", *CORE_SOURCES],
    include_dirs=["csrc"],
    define_macros=[("RB_CFLAGS", '"%s"' % FLAGS.replace('"', "'")), *BLAS_MACROS],
    extra_compile_args=EXTRA,
    extra_link_args=_words("BLAS_LIBS"),
)

# ---- The C programs of an installed package ----------------------------------
# The table's C_PROGRAMS with the Makefile's flags, which they record
# (RB_CFLAGS, in every result file). Installed, the programs are in
# site-packages/roundbench/bin/ and the BLAS in
# site-packages/scipy_openblas64/lib/, and the loader expands $ORIGIN in a
# path given to dlopen (ld.so(8)); ROUNDBENCH_BLAS_LIB still overrides it.
PROGRAM_CFLAGS = OPT + _words("CORE_CFLAGS")
BLAS_FROM_BIN = "$ORIGIN/../../scipy_openblas64/lib/" + TABLE["BLAS_LIB_FILE"]
PROGRAM_DEFINES = [
    '-DRB_CFLAGS="%s"' % " ".join(PROGRAM_CFLAGS),
    *_words("PROGRAM_INCLUDES"),
    *_words("BLAS_MACROS"),
    '-DRB_BLAS_DEFAULT_LIB="%s"' % BLAS_FROM_BIN,
]
LINK_MODES = ("core", "shared", "static", "none")


def _compiler() -> list:
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc")
    return shlex.split(cc)


def _cxx_compiler() -> list:
    return shlex.split(os.environ.get("CXX") or "g++")


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


def _pkg_config(option: str, library: str):
    """pkg-config's answer, split; None where it does not find the library."""
    try:
        done = subprocess.run(["pkg-config", option, library], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(done.stdout)


def program_sources(name: str) -> list:
    """The table's NAME.src, each pattern expanded in place (sorted), as
    the Makefile expands it; ValueError for a pattern that matches nothing."""
    out = []
    for pattern in _words(name + ".src"):
        found = _sources(pattern)
        if not found:
            raise ValueError(f"build table: {name}.src: {pattern} matches no file")
        out += found
    return out


class Plan:
    """The commands that build the table's C_PROGRAMS into `out`, objects
    into `tmp`, as the Makefile builds them: every C source compiled once
    (the flags are the same for all), the core's archive and shared
    library, then each program linked by its link mode. A C++ source is
    compiled with its program's library's flags. A program that cannot be
    built here is in `unbuilt` with the reason, the others in `programs`."""

    def __init__(self, out: str, tmp: str):
        cc, cxx = _compiler(), _cxx_compiler()
        self.cflags = PROGRAM_CFLAGS + PROGRAM_DEFINES
        self.objects = {}  # source -> (object, command): compiled in parallel
        self.libraries = []
        self.programs = {}  # name -> [command, ...]
        self.unbuilt = {}

        def obj(src: str, sub: str = "") -> str:
            return os.path.join(tmp, sub, os.path.splitext(src)[0] + ".o")

        def compile_c(src: str, extra: list = ()) -> str:
            if src not in self.objects:
                o = obj(src)
                self.objects[src] = (o, [*cc, *self.cflags, *extra, "-c", src, "-o", o])
            return self.objects[src][0]

        # A core file's own flags come after the core's (csrc/<file>.c.cflags).
        core_objs = [compile_c(s, TABLE.get(s + ".cflags", "").split()) for s in CORE_SOURCES]
        self.archive = archive = os.path.join(tmp, "libroundbench.a")
        self.libraries = [
            ["ar", "rcs", archive, *core_objs],
            [*cc, "-shared", "-o", os.path.join(out, "libroundbench.so"), *core_objs, *_words("BLAS_LIBS")],
        ]
        core_libs = _words("BLAS_LIBS") + _words("CORE_LIBS")
        link = {
            "core": ([], [archive], core_libs),
            "shared": ([], ["-L" + out, "-lroundbench", "-Wl,-rpath,$ORIGIN"], core_libs),
            "static": (["-static"], [archive], _words("CORE_LIBS")),
            "none": ([], [], []),
        }
        for name in _words("C_PROGRAMS"):
            mode = TABLE[name + ".link"]
            if mode not in LINK_MODES:
                raise ValueError(f"build table: {name}.link is {mode!r}, not one of {', '.join(LINK_MODES)}")
            flag, core_in, libs = link[mode]
            target = os.path.join(out, name)
            sources = program_sources(name)
            library = TABLE.get(name + ".library")
            if library is None:
                objs = [compile_c(s) for s in sources]
                self.programs[name] = [[*cc, *self.cflags, *flag, *objs, *core_in, "-o", target, *libs]]
                continue
            lib_cflags, lib_libs = _pkg_config("--cflags", library), _pkg_config("--libs", library)
            if lib_cflags is None or lib_libs is None:
                self.unbuilt[name] = f"pkg-config finds no {library}"
                continue
            if shutil.which(cxx[0]) is None:
                self.unbuilt[name] = f"no C++ compiler: {cxx[0]} is not on PATH"
                continue
            commands, objs = [], []
            for s in sources:
                if s.endswith(".c"):
                    objs.append(compile_c(s))
                    continue
                o = obj(s, name)
                objs.append(o)
                commands.append(
                    [*cxx, *OPT, *_words("CXX_CFLAGS"), *_words("PROGRAM_INCLUDES"), *lib_cflags, "-c", s, "-o", o]
                )
            commands.append([*cxx, *flag, *objs, *core_in, "-o", target, *lib_libs, *libs])
            self.programs[name] = commands


def _why_unbuilt(name: str, why: str) -> str:
    """What bin/unbuilt.txt says of program `name`, which failed with `why`."""
    library = TABLE.get(name + ".library")
    if library is not None:
        cxx = " g++ and" if any(s.endswith(".cc") for s in _words(name + ".src")) else ""
        return f"building it failed ({why}); it needs{cxx} {library} (Debian: {TABLE[name + '.debian']})"
    if TABLE[name + ".link"] == "static":
        return f"static linking failed ({why}); it needs the C library's static archive (Debian: libc6-dev)"
    return f"building it failed ({why})"


def build_programs(out: str, tmp: str) -> None:
    """Builds the C programs into `out`, objects into `tmp`. The table's
    C_OPTIONAL may fail: each that does is left out and written with the
    reason to bin/unbuilt.txt, for roundbench.runtimes.programs to report."""
    plan = Plan(out, tmp)
    os.makedirs(out, exist_ok=True)
    for o, _ in plan.objects.values():
        os.makedirs(os.path.dirname(o), exist_ok=True)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(_run, [cmd for _, cmd in plan.objects.values()]))
    if os.path.exists(plan.archive):
        os.remove(plan.archive)  # `ar rcs` would keep the members of sources gone since
    for cmd in plan.libraries:
        _run(cmd)
    optional = set(_words("C_OPTIONAL"))
    unbuilt = {}
    for name, why in plan.unbuilt.items():
        if name not in optional:
            raise RuntimeError(f"{name} cannot be built: {why}")
        unbuilt[name] = _why_unbuilt(name, why)
    for name, commands in plan.programs.items():
        for cmd in commands:
            os.makedirs(os.path.dirname(cmd[cmd.index("-o") + 1]), exist_ok=True)
            why = (_try if name in optional else _run)(cmd)
            if why is not None:
                unbuilt[name] = _why_unbuilt(name, why)
                break
    record = os.path.join(out, "unbuilt.txt")
    if unbuilt:
        with open(record, "w") as f:
            f.writelines(f"{k}\t{v}\n" for k, v in unbuilt.items())
    elif os.path.exists(record):
        os.remove(record)


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


# setuptools runs this file as __main__ (python setup.py, pip's build
# backend); tests/test_build.py loads it by its path to read the Plan.
if __name__ == "__main__":
    setup(
        ext_modules=[core],
        cffi_modules=["python/roundbench/_cffi_build.py:ffibuilder"],
        cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
    )
