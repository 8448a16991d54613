"""Building roundbench's two compiled modules for another interpreter than
the project's own (interp.ensure_extension is the way in).

`make build` builds them for the virtual environment's CPython with
setuptools (setup.py). An interpreter named by `roundbench run --python`
may have no setuptools (Debian's PyPy, a bare CPython), so the same two
builds are done here with the C compiler alone, from the same sources and
the same build table (build.mk):

  roundbench._core      python/roundbench/_core.c and the core (csrc/*.c),
                        compiled as setup.py's `core` Extension is: the
                        interpreter's own CFLAGS, then the table's OPT and
                        EXT_CFLAGS, RB_CFLAGS recording them, the BLAS
                        macros. Under PyPy it is built against PyPy's
                        C-API emulation (cpyext), whose headers are PyPy's.
  roundbench._cffi_api  the C that _cffi_build.py's ffibuilder emits, made
                        by that interpreter's own cffi (so PyPy's flavour
                        under PyPy), compiled with csrc/ffi.c and
                        csrc/common.c at -O2 as its set_source says.

Each goes into the package folder under the interpreter's EXT_SUFFIX, its
objects into the build folder's py-<key>/ (key: interp.key), and is built
when it is missing or older than a source, under a file lock there, so that
runners started at once build it once. Nothing here imports the package.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

from . import buildtable

PACKAGE = Path(__file__).resolve().parents[1]  # the roundbench folder
ROOT = PACKAGE.parent.parent

# The two modules, by the name of their file's stem in the package folder.
CORE = "_core"
CFFI_API = "_cffi_api"

# How many of a failed command's last lines a reason quotes.
TAIL_LINES = 4

# Run by the target interpreter: the C source of the cffi API module, made
# by that interpreter's cffi from _cffi_build.py's declarations.
_EMIT = "import runpy, sys; runpy.run_path(sys.argv[1])['ffibuilder'].emit_c_code(sys.argv[2])"


def checkout() -> Optional[Path]:
    """The source checkout this package lives in, or None (an installed
    package carries no C sources)."""
    return ROOT if (ROOT / "csrc" / "roundbench.h").is_file() else None


def build_root() -> Path:
    """$ROUNDBENCH_BUILD, else the checkout's build/ folder."""
    return Path(os.environ.get("ROUNDBENCH_BUILD") or ROOT / "build")


def target(stem: str, ext_suffix: str) -> Path:
    return PACKAGE / f"{stem}{ext_suffix}"


def _core_sources(root: Path) -> list:
    return [PACKAGE / "_core.c", *sorted((root / "csrc").glob("*.c"))]


def _inputs(stem: str, root: Path) -> list:
    """The files a module is built from: it is stale when one is newer."""
    headers = sorted((root / "csrc").glob("*.h"))
    table = [buildtable.TABLE]
    if stem == CORE:
        return _core_sources(root) + headers + table
    return [PACKAGE / "_cffi_build.py", root / "csrc" / "ffi.c", root / "csrc" / "common.c"] + headers


def stale(stem: str, ext_suffix: str) -> bool:
    """Whether the module is missing, or older than one of its sources in
    a checkout."""
    out = target(stem, ext_suffix)
    if not out.exists():
        return True
    root = checkout()
    if root is None:
        return False
    built = out.stat().st_mtime_ns
    return any(p.stat().st_mtime_ns > built for p in _inputs(stem, root) if p.exists())


def _tail(text: str) -> str:
    """A failed command's output in one line: its last lines, after its
    first error where that came earlier (a compiler's first error is the
    one that explains the others)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    tail = lines[-TAIL_LINES:]
    first = next((line for line in lines if "error" in line.lower()), None)
    if first is not None and first not in tail:
        tail = [first, "...", *tail]
    return " / ".join(tail) or "no message"


def _headers_package(got) -> str:
    """Where Python.h comes from for `got` (an interp.Info), in words."""
    if got.implementation == "PyPy":
        return "install pypy3-dev (Debian), PyPy's C headers"
    if got.executable.startswith("/usr/bin/"):
        major_minor = ".".join(got.version.split(".")[:2])
        return f"install python{major_minor}-dev (Debian)"
    return f"install that Python's development headers ({got.include or 'its include folder'} has no Python.h)"


class Failed(Exception):
    """A step of a build failed; the message says why."""


def run_step(
    cmd: list, what: str, cwd: Path = ROOT, env: Optional[dict] = None, timeout: Optional[float] = None
) -> str:
    """Runs one step of a build (in environment `env`, default ours; no
    standard input, so that a tool that would ask a question fails
    instead); its standard output, or Failed with its last lines, or with
    the time it ran when it ran past `timeout` seconds."""
    try:
        done = subprocess.run(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
        )
    except OSError as e:
        raise Failed(f"{what}: cannot run {cmd[0]}: {e.strerror or e}") from None
    except subprocess.TimeoutExpired:
        raise Failed(f"{what} did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        raise Failed(f"{what} failed (exit status {done.returncode}): {_tail(done.stderr or done.stdout)}")
    return done.stdout


class Toolchain:
    """The compiler and linker command lines for one interpreter, as
    setuptools makes them: CC and LDSHARED from the environment, else the
    interpreter's sysconfig. With cxx=True, for C++ sources (pythran's):
    CXX and LDCXXSHARED instead, the flags the same (setuptools gives a
    C++ source the interpreter's CFLAGS too)."""

    def __init__(self, got, cxx: bool = False):
        default = "c++" if cxx else "cc"
        compiler, linker = (got.cxx, got.ldcxxshared) if cxx else (got.cc, got.ldshared)
        cc_env = os.environ.get("CXX" if cxx else "CC")
        ld_env = os.environ.get("LDCXXSHARED" if cxx else "LDSHARED")
        self.cc = shlex.split(cc_env or compiler or default)
        ldshared = linker or f"{compiler or default} -shared"
        if ld_env:
            ldshared = ld_env
        elif cc_env and compiler and ldshared.startswith(compiler):
            ldshared = cc_env + ldshared[len(compiler) :]
        self.ldshared = shlex.split(ldshared)
        self.cflags = shlex.split(got.cflags) + shlex.split(got.ccshared or "-fPIC")
        self.include = got.include
        self.after = buildtable.multiarch_flags(got.include)
        self.language = "C++" if cxx else "C"

    def missing(self, got) -> Optional[str]:
        if shutil.which(self.cc[0]) is None:
            package = "g++" if self.language == "C++" else "build-essential"
            return f"no {self.language} compiler: {self.cc[0]} is not on PATH (Debian: {package})"
        if not self.include or not (Path(self.include) / "Python.h").is_file():
            return f"Python.h is missing for {got.describe()}: {_headers_package(got)}"
        return None

    def compile_all(self, sources: list, objdir: Path, defines: list, extra: list) -> list:
        """Compiles every source into objdir, in parallel; the objects."""
        jobs = []
        for src in sources:
            obj = objdir / (Path(src).stem + ".o")
            cmd = [*self.cc, *self.cflags, *defines, f"-I{ROOT / 'csrc'}", f"-I{self.include}", *self.after]
            jobs.append((obj, [*cmd, "-c", str(src), "-o", str(obj), *extra], f"compiling {Path(src).name}"))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(lambda job: run_step(job[1], job[2]), jobs))
        return [obj for obj, _, _ in jobs]

    def link(self, objects: list, libs: list, out: Path) -> None:
        """Links into a temporary file beside `out`, then renames it: a
        process importing the module never sees half of it."""
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        try:
            run_step([*self.ldshared, *map(str, objects), *libs, "-o", str(tmp)], f"linking {out.name}")
            os.replace(tmp, out)
        finally:
            if tmp.exists():
                tmp.unlink()


def _build_core(got, tools: Toolchain, root: Path, objdir: Path) -> None:
    table = buildtable.read()
    words = lambda name: buildtable.words(table, name)  # noqa: E731
    opt = words("OPT_TUNED" if os.environ.get("ROUNDBENCH_TUNE") == "1" else "OPT_PORTABLE")
    extra = opt + words("EXT_CFLAGS")
    # setup.py's RB_CFLAGS: the interpreter's CFLAGS and ours, as
    # roundbench._core.build_info() reports them.
    recorded = " ".join([got.cflags or "", *extra]).strip().replace('"', "'")
    defines = [f'-DRB_CFLAGS="{recorded}"', *words("BLAS_MACROS")]
    objects = tools.compile_all(_core_sources(root), objdir, defines, extra)
    tools.link(objects, words("BLAS_LIBS"), target(CORE, got.ext_suffix))


def _build_cffi_api(got, tools: Toolchain, root: Path, objdir: Path, env: dict) -> None:
    source = objdir / f"{CFFI_API}.c"
    try:
        done = subprocess.run(
            [got.executable, "-c", _EMIT, str(PACKAGE / "_cffi_build.py"), str(source)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Failed(f"running its cffi: {e}") from None
    if done.returncode != 0:
        if "No module named 'cffi'" in done.stderr:
            raise Failed(f"cffi is not installed for {got.describe()} ({got.executable} -m pip install cffi)")
        raise Failed(f"its cffi could not write the module's C source: {_tail(done.stderr)}")
    sources = [source, root / "csrc" / "ffi.c", root / "csrc" / "common.c"]
    objects = tools.compile_all(sources, objdir, [], ["-O2"])  # _cffi_build.py's extra_compile_args
    tools.link(objects, [], target(CFFI_API, got.ext_suffix))


def build(stem: str, got, key: str, env: dict) -> Optional[str]:
    """Builds module `stem` (CORE or CFFI_API) for interpreter `got` (an
    interp.Info; `key` its interp.key) if it is missing or stale; `env` is
    the environment that interpreter runs in. None when the module is
    there and current, else why it cannot be built, in one line. Prints
    one line on stderr when it builds."""
    if not stale(stem, got.ext_suffix):
        return None
    root = checkout()
    name = f"roundbench.{stem}"
    if root is None:
        return (
            f"{name} is not built for {got.describe()}, and this roundbench is installed without its C sources: "
            f"install roundbench with that interpreter ({got.executable} -m pip install roundbench)"
        )
    tools = Toolchain(got)
    why = tools.missing(got)
    if why:
        return f"{name} cannot be built: {why}"
    objdir = build_root() / f"py-{key}" / stem
    objdir.mkdir(parents=True, exist_ok=True)
    with open(objdir.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not stale(stem, got.ext_suffix):
            return None  # another process built it while this one waited
        print(
            f"roundbench: building {name} for {got.describe()} (once; objects in {objdir})",
            file=sys.stderr,
            flush=True,
        )
        try:
            if stem == CORE:
                _build_core(got, tools, root, objdir)
            else:
                _build_cffi_api(got, tools, root, objdir, env)
        except Failed as e:
            return f"building {name} for {got.describe()} failed: {e}"
    return None


UNMARKED = PACKAGE / "data" / "unmarked.c"


def build_unmarked(got, key: str) -> Path:
    """data/unmarked.c, a module that does not declare Py_mod_gil, built for
    interpreter `got` (interp.Info; `key` its interp.key) into a folder of
    its own under build_root(), which is returned: a free-threaded
    interpreter that imports it from there turns the GIL back on. Rebuilt
    when the source is newer. Raises Failed with why it cannot be built."""
    tools = Toolchain(got)
    why = tools.missing(got)
    if why:
        raise Failed(why)
    folder = build_root() / f"py-{key}" / "unmarked"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"unmarked{got.ext_suffix}"
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists() or out.stat().st_mtime < UNMARKED.stat().st_mtime:
            objects = tools.compile_all([UNMARKED], folder, [], ["-O2"])
            tools.link(objects, [], out)
    return folder
