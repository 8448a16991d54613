"""The build table (python/roundbench/build.mk): the Makefile and setup.py
build the same C programs with the same flags because both derive them
from it, Make reads it as roundbench.buildtable reads it, and nothing else
defines what it holds."""

from __future__ import annotations

import os
import re
import runpy
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from roundbench.runtimes import buildtable, programs

ROOT = Path(__file__).resolve().parents[1]
TABLE = buildtable.read()

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def words(name: str) -> list:
    return buildtable.words(TABLE, name)


def _make(args: list, **kw) -> subprocess.CompletedProcess:
    """make ARGS as from a shell, not as a sub-make of `make test` (which
    passes its flags on and would have it print the folders it enters)."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "TUNE", "ROUNDBENCH_TUNE")
    }
    return subprocess.run(["make", "--no-print-directory", *args], env=env, capture_output=True, text=True, **kw)


# ---- The table ----------------------------------------------------------------


def test_the_table_has_every_row_it_needs():
    assert buildtable.TABLE == ROOT / "python" / "roundbench" / "build.mk"
    for name in ("OPT_PORTABLE", "OPT_TUNED", "CORE_CFLAGS", "EXT_CFLAGS", "BLAS_MACROS", "BLAS_LIB_FILE"):
        assert words(name), name
    c_programs, tools = words("C_PROGRAMS"), words("C_TOOLS")
    assert len(c_programs) >= 9 and not set(c_programs) & set(tools)
    assert set(words("C_OPTIONAL")) <= set(c_programs)
    for name in c_programs + tools:
        assert TABLE[f"{name}.link"] in ("core", "shared", "static", "none"), name
        for pattern in words(f"{name}.src"):
            assert list(ROOT.glob(pattern)), f"{name}.src: {pattern} matches no file"
        if f"{name}.library" in TABLE:
            assert TABLE[f"{name}.debian"], name
    for name in words("GO_EXPERIMENT_RUNNERS") + words("GO_LIBRARY_RUNNERS") + words("GO_BUILD_RUNNERS"):
        assert (ROOT / TABLE[f"{name}.package"]).is_dir(), name
    for key in TABLE:
        if key.endswith(".c.cflags"):
            assert (ROOT / key[: -len(".cflags")]).is_file(), key


@pytest.mark.parametrize(
    "line",
    [
        "A := $(B)",  # a reference
        "A := b # c",  # a comment after the value
        "A := b \\",  # a continuation
        "A := b ",  # Make keeps a trailing blank
        "A :=  b",  # Make drops a leading one
        "A := ",
        "A:=b",
        "A ?= b",
        "A += b",
        "A = b",
        "export A := b",
        "A B := c",
        "\tA := b",
        "ifeq (a,b)",
        "# a comment that Make continues \\",
    ],
)
def test_a_line_make_could_read_otherwise_is_refused(tmp_path, line):
    path = tmp_path / "t.mk"
    path.write_text(f"# fine\n\nOK := -O2 -g\n{line}\n")
    with pytest.raises(ValueError, match=r"t\.mk:4: "):
        buildtable.read(path)


def test_a_name_given_twice_is_refused(tmp_path):
    path = tmp_path / "t.mk"
    path.write_text("A := 1\nA := 2\n")
    with pytest.raises(ValueError, match=r"t\.mk:2: "):
        buildtable.read(path)


@needs_make
def test_make_reads_the_table_as_python_does(tmp_path):
    """Every value, as Make has it after `include`."""
    names = list(TABLE)
    probe = tmp_path / "probe.mk"
    probe.write_text(
        f"include {buildtable.TABLE}\n"
        + "".join(f"$(info {i}|$({name})|)\n" for i, name in enumerate(names))
        + "all: ;@:\n"
    )
    out = _make(["-s", "-f", str(probe)], timeout=60)
    assert out.returncode == 0, out.stderr
    got = {}
    for line in out.stdout.splitlines():
        i, value, _ = line.split("|")
        got[names[int(i)]] = value
    assert got == TABLE


# ---- The two builds -------------------------------------------------------------

CC, CXX = "cc", "g++"


def _normal_flags(argv: list) -> set:
    """The flags of one command, less those that name a place: output,
    library folders and run paths (but $ORIGIN), the BLAS's default path."""
    out = set()
    for a in argv[1:]:
        if not a.startswith("-") or a in ("-c", "-o") or a.startswith(("-L", "-DRB_BLAS_DEFAULT_LIB=")):
            continue
        if a.startswith("-Wl,-rpath,") and a != "-Wl,-rpath,$ORIGIN":
            continue
        out.add(a)
    return out


def _describe(commands: list, target: str) -> tuple:
    """What goes into `target`, from the commands that make it and its
    objects: (linked by C++, its sources in link order, the core's archive
    or not, every flag)."""
    made = {argv[argv.index("-o") + 1]: argv for argv in commands if "-o" in argv}
    link = made[target]
    sources, flags, archive = [], _normal_flags(link), False
    for a in link[1:]:
        if a.endswith((".c", ".cc")):
            sources.append(a)
        elif a.endswith("libroundbench.a"):
            archive = True
        elif a.endswith(".o"):
            compile_cmd = made[a]
            sources += [s for s in compile_cmd if s.endswith((".c", ".cc"))]
            flags |= _normal_flags(compile_cmd)
    return link[0] == CXX, sources, archive, flags


def _make_commands(tmp_path: Path, tune: bool) -> list:
    """The compiler commands `make -n -B c` would run, into a build folder
    of its own."""
    args = ["-n", "-B", f"BUILD={tmp_path / 'make'}", f"CC={CC}", f"CXX={CXX}", "c"]
    if tune:
        args.append("TUNE=1")
    out = _make(args, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    return [shlex.split(line) for line in out.stdout.splitlines() if line.startswith((f"{CC} ", f"{CXX} "))]


def _setup_plan(tmp_path: Path, tune: bool, monkeypatch):
    """setup.py's Plan for the wheel's programs, setup.py loaded by path
    (it calls setup() only as __main__)."""
    monkeypatch.setenv("CC", CC)
    monkeypatch.setenv("CXX", CXX)
    if tune:
        monkeypatch.setenv("ROUNDBENCH_TUNE", "1")
    else:
        monkeypatch.delenv("ROUNDBENCH_TUNE", raising=False)
    setup = runpy.run_path(str(ROOT / "setup.py"))
    return setup, setup["Plan"](str(tmp_path / "bin"), str(tmp_path / "tmp"))


@needs_make
@pytest.mark.parametrize("tune", [False, True], ids=["portable", "tuned"])
def test_make_and_setup_build_the_same_programs_alike(tmp_path, monkeypatch, tune):
    """Each of the table's C programs: the same sources in the same order,
    the same flags, the same core and the same linker, from make and from
    setup.py; make builds the table's tools besides, and nothing else."""
    made = _make_commands(tmp_path, tune)
    setup, plan = _setup_plan(tmp_path, tune, monkeypatch)
    build = str(tmp_path / "make")
    outputs = {a[a.index("-o") + 1] for a in made if "-o" in a}
    make_programs = {os.path.basename(o) for o in outputs if os.path.dirname(o) == build}
    c_programs = set(words("C_PROGRAMS"))
    assert make_programs - {"libroundbench.so"} == (c_programs | set(words("C_TOOLS"))) - set(plan.unbuilt)
    assert set(plan.programs) | set(plan.unbuilt) == c_programs
    assert set(plan.unbuilt) <= set(words("C_OPTIONAL"))

    setup_commands = [cmd for _, cmd in plan.objects.values()] + plan.libraries
    setup_commands += [cmd for commands in plan.programs.values() for cmd in commands]
    for name in plan.programs:
        from_make = _describe(made, os.path.join(build, name))
        from_setup = _describe(setup_commands, str(tmp_path / "bin" / name))
        assert from_make == from_setup, name
        assert from_make[1], name

    # The core's objects, file by file.
    for src in setup["CORE_SOURCES"]:
        obj = os.path.join(build, "obj", Path(src).with_suffix(".o").relative_to("csrc"))
        assert _normal_flags(dict((a[a.index("-o") + 1], a) for a in made)[obj]) == _normal_flags(
            plan.objects[src][1]
        ), src

    # What both record (RB_CFLAGS) is the table's OPT and CORE_CFLAGS.
    opt = TABLE["OPT_TUNED" if tune else "OPT_PORTABLE"]
    recorded = '-DRB_CFLAGS="%s %s"' % (opt, TABLE["CORE_CFLAGS"])
    assert recorded in _describe(made, os.path.join(build, "rb-c"))[3]
    assert setup["FLAGS"].endswith(" ".join([opt, TABLE["EXT_CFLAGS"]]))


def test_the_recorded_flags_of_this_build_are_the_tables():
    """build/rb-c --info and the extension's build_info(), as `make build`
    left them (portable or tuned)."""
    rb_c = ROOT / "build" / "rb-c"
    if not rb_c.is_file():
        pytest.skip("build/rb-c is not built (make build)")
    info = subprocess.run([str(rb_c), "--info"], capture_output=True, text=True, timeout=60).stdout.strip()
    flags = info.split("; flags: ", 1)[1]
    assert flags in {f"{TABLE[opt]} {TABLE['CORE_CFLAGS']}" for opt in ("OPT_PORTABLE", "OPT_TUNED")}
    core = pytest.importorskip("roundbench._core")
    ext = core.build_info().split("; flags: ", 1)[1]
    python = " ".join((sysconfig.get_config_var("CFLAGS") or "").split())
    assert ext in {
        " ".join(filter(None, [python, TABLE[opt], TABLE["EXT_CFLAGS"]])) for opt in ("OPT_PORTABLE", "OPT_TUNED")
    }


# ---- Nothing else defines them ----------------------------------------------------


def _code(path: Path) -> str:
    """A Makefile's or a Python file's text without its comments."""
    return "\n".join(re.sub(r"(^|\s)#.*", "", line) for line in path.read_text().splitlines())


@pytest.mark.parametrize("path", ["Makefile", "setup.py"])
def test_no_flag_of_the_table_is_written_out_elsewhere(path):
    code = _code(ROOT / path)
    distinctive = [
        *words("OPT_PORTABLE"),
        *words("OPT_TUNED"),
        "-std=gnu11",
        "-std=c++17",
        "-fno-strict-aliasing",
        "-Wshadow",
        "-fsanitize",
        "-ffp-contract",
        *(m.split("=")[0] for m in words("BLAS_MACROS")),
        TABLE["BLAS_LIB_FILE"],
        *words("BLAS_LIBS"),
        *words("CORE_LIBS"),
    ]
    for flag in distinctive:
        assert not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", code), f"{path} writes out {flag}"


def test_cgo_takes_the_tables_blas_macros():
    """cgo takes its flags from the source (go/cgo.go's #cgo lines), which
    cannot read the table: held to it here."""
    text = (ROOT / "go" / "cgo.go").read_text()
    cgo = [w for line in re.findall(r"^#cgo CFLAGS:(.*)$", text, re.M) for w in line.split()]
    assert [w for w in cgo if w.startswith("-DBLAS_")] == words("BLAS_MACROS")


def test_programs_names_the_tables_programs():
    assert set(programs.C_PROGRAMS) == set(words("C_PROGRAMS"))
    assert set(programs.GO_EXPERIMENT_RUNNERS) == set(words("GO_EXPERIMENT_RUNNERS"))
    assert set(programs.GO_LIBRARY_RUNNERS) == set(words("GO_LIBRARY_RUNNERS"))
    assert set(programs.GO_BUILD_RUNNERS) == set(words("GO_BUILD_RUNNERS"))
    for name in words("C_PROGRAMS") + words("GO_LIBRARY_RUNNERS"):
        if f"{name}.library" in TABLE:
            assert TABLE[f"{name}.debian"] in programs.NEEDS[name], name


def test_an_installed_package_carries_the_table():
    """roundbench.runtimes.programs reads it at run time, and setup.py builds from it."""
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "build.mk" in data["tool"]["setuptools"]["package-data"]["roundbench"]
    assert "include python/roundbench/build.mk" in (ROOT / "MANIFEST.in").read_text().splitlines()
