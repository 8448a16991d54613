"""Provisioning the Pythons people run (runtimes/provision.py,
`roundbench pythons`): the one-line refusals, the manifest and what a
version resolves to, the script that runs a Debian root's interpreter, the
headers of an interpreter outside /usr, and the PGO training's words. The
builds themselves take minutes and need root and the network: `make
pythons` does them, and the interpreters it made are checked here when
they are there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roundbench.cli import _common
from roundbench.errors import UsageError
from roundbench.runtimes import buildtable, interp, provision, pybuild

# -- the refusals: one line each, and the suite goes on ---------------------


def _debian(tmp_path: Path) -> Path:
    f = tmp_path / "debian_version"
    f.write_text("12.8\n")
    return f


def _which(name: str):
    return f"/usr/bin/{name}"


def test_not_linux_is_refused_in_one_line(tmp_path):
    why = provision.refusal(platform="darwin", debian_version=_debian(tmp_path), euid=lambda: 0, which=_which)
    assert why.startswith("roundbench pythons: not Linux (darwin)")
    assert "\n" not in why and "runs with the interpreters it has" in why


def test_not_debian_is_refused_in_one_line(tmp_path):
    missing = tmp_path / "no-such-file"
    why = provision.refusal(platform="linux", debian_version=missing, euid=lambda: 0, which=_which)
    assert why.startswith("roundbench pythons: not Debian") and str(missing) in why and "\n" not in why
    # A Debian file but no apt-get is not Debian enough either.
    why = provision.refusal(platform="linux", debian_version=_debian(tmp_path), euid=lambda: 0, which=lambda n: None)
    assert why.startswith("roundbench pythons: not Debian") and "apt-get" in why


def test_no_root_is_refused_in_one_line(tmp_path):
    why = provision.refusal(platform="linux", debian_version=_debian(tmp_path), euid=lambda: 1000, which=_which)
    assert why.startswith("roundbench pythons: needs root") and "\n" not in why


def test_a_debian_root_is_not_refused(tmp_path):
    assert provision.refusal(platform="linux", debian_version=_debian(tmp_path), euid=lambda: 0, which=_which) is None


def test_no_network_is_refused_in_one_line():
    why = provision.no_network("apt-get update could not reach http://deb.debian.org/debian")
    assert why.startswith("roundbench pythons: no network: apt-get update could not reach")
    assert "\n" not in why and why.endswith("the suite runs with the interpreters it has")


def test_the_command_prints_a_refusal_and_exits_0(monkeypatch, capsys):
    from roundbench.cli import pythons

    def refused(*a, **k):
        raise provision.Refused("roundbench pythons: needs root (test)")

    monkeypatch.setattr(provision, "provision", refused)
    args = pythons_args(newest=False, cpythons=False, free_threaded=False, list=False, only=None, rebuild=None)
    assert pythons.main_args(args) == 0
    assert capsys.readouterr().out.strip() == "roundbench pythons: needs root (test)"

    def failed(*a, **k):
        raise provision.Failed("cpython-3.13.5: make failed (exit status 2)")

    monkeypatch.setattr(provision, "provision", failed)
    assert pythons.main_args(args) == 1
    assert "make failed" in capsys.readouterr().out


def pythons_args(**kw):
    import argparse

    return argparse.Namespace(**kw)


# -- the manifest, and what a version names ---------------------------------


def _fake_python(folder: Path, name: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    return str(exe)


def _manifest(root: Path, *entries) -> None:
    interps = {}
    for name, version, ft in entries:
        interps[name] = provision.Interpreter(
            name=name,
            version=version,
            python=_fake_python(root / "venvs" / name / "bin", "python"),
            base=f"/opt/{name}/bin/python",
            source="a test",
            build="configure --enable-optimizations --with-lto",
            seconds=1.0,
            bytes=1,
            made="2026-12-03T00:00:00Z",
            free_threaded=ft,
        )
    provision._write_manifest(root, interps)


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    root = tmp_path / "pythons"
    root.mkdir()
    monkeypatch.setenv(provision.ENV, str(root))
    _manifest(
        root,
        ("cpython-3.13.5", "3.13.5", False),
        ("cpython-3.13.5t", "3.13.5", True),
        ("cpython-3.14.10", "3.14.10", False),
        ("cpython-3.15.2", "3.15.2", False),
    )
    return root


def test_a_version_resolves_to_the_newest_provisioned_match(manifest):
    venv = lambda n: str(manifest / "venvs" / n / "bin" / "python")  # noqa: E731
    assert provision.resolve("3.15") == venv("cpython-3.15.2")
    assert provision.resolve("3.15.2") == venv("cpython-3.15.2")
    assert provision.resolve("3") == venv("cpython-3.15.2")
    assert provision.resolve("3.13") == venv("cpython-3.13.5")  # the GIL build unless t is asked
    assert provision.resolve("3.13t") == venv("cpython-3.13.5t")
    assert provision.resolve("3.13.5t") == venv("cpython-3.13.5t")
    # 3.1 is not a prefix of 3.13 or 3.15: versions match by whole parts.
    assert provision.resolve("3.1") is None
    assert provision.resolve("3.12") is None
    assert provision.resolve("3.14t") is None
    assert provision.resolve("latest") is None


def test_the_newest_is_the_newest_with_the_gil(manifest):
    assert provision.newest().name == "cpython-3.15.2"
    assert provision.cache_dir() == manifest


def test_an_interpreter_that_is_gone_is_not_in_the_manifest(manifest):
    os.remove(manifest / "venvs" / "cpython-3.15.2" / "bin" / "python")
    assert "cpython-3.15.2" not in provision.read_manifest()
    assert provision.newest().name == "cpython-3.14.10"


def test_a_broken_manifest_reads_as_nothing(tmp_path):
    (tmp_path / provision.MANIFEST).write_text("{not json")
    assert provision.read_manifest(tmp_path) == {}
    assert provision.newest(tmp_path) is None


def test_the_cache_is_outside_the_checkout_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv(provision.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert provision.cache_dir() == tmp_path / "roundbench" / "pythons"


def test_python_version_options_resolve_or_say_what_is_there(manifest):
    assert _common.python_path("3.14") == str(manifest / "venvs" / "cpython-3.14.10" / "bin" / "python")
    assert _common.python_path("/usr/bin/python3") == "/usr/bin/python3"  # a path stays a path
    assert _common.python_path("python3") == "python3"
    with pytest.raises(UsageError) as e:
        _common.python_path("3.12")
    text = str(e.value)
    assert "--python 3.12" in text and "cpython-3.13.5, cpython-3.13.5t, cpython-3.14.10, cpython-3.15.2" in text


# -- the PGO training's words -----------------------------------------------


def test_a_training_run_with_a_failing_test_is_named_in_the_build(tmp_path):
    log = tmp_path / "make.log"
    echoed = f"./python -m test --pgo --timeout=1200 || echo {provision.PROFILE_FAILED}\n"
    log.write_text(
        echoed + "0:00:20 [19/43] test_generators\ntest test_generators failed\n" + provision.PROFILE_FAILED + "\n"
    )
    assert provision._profile_failures(log) == " (training tests that failed, profile kept: test_generators)"
    # make echoes the recipe, words and all: that alone is not a failure.
    log.write_text(echoed + "Result: SUCCESS\n")
    assert provision._profile_failures(log) == ""


# -- a Debian root's interpreter: the script, and its headers ----------------


@pytest.mark.skipif(not (shutil.which("patchelf") and shutil.which("gcc")), reason="needs patchelf and gcc")
def test_a_program_given_another_loader_runs_and_the_provenance_says_so(tmp_path):
    """What _relocate does to a root's interpreter, on a tiny program: the
    kernel starts it with the loader named (a copy of the system's here),
    and the provenance names that loader."""
    src = tmp_path / "main.c"
    src.write_text('#include <stdio.h>\nint main(void) { puts("ran"); return 0; }\n')
    exe = tmp_path / "prog"
    subprocess.run(["gcc", str(src), "-o", str(exe)], check=True)
    assert pybuild.elf_interpreter(str(exe)) in pybuild.SYSTEM_LOADERS
    loader = tmp_path / "lib64" / "ld-linux-x86-64.so.2"
    loader.parent.mkdir()
    shutil.copy2(os.path.realpath(pybuild.SYSTEM_LOADERS[0]), loader)
    subprocess.run(["patchelf", "--set-interpreter", str(loader), str(exe)], check=True)
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout == "ran\n"
    pybuild.elf_interpreter.cache_clear()
    assert pybuild.elf_interpreter(str(exe)) == str(loader)
    where = pybuild.source(_info(executable=str(exe)))
    assert f"its ELF interpreter is {loader}" in where


PROVISIONED_SID = [i for i in provision.read_manifest().values() if "unstable" in i.source]


@pytest.mark.skipif(not PROVISIONED_SID, reason="no Debian unstable root provisioned (make pythons)")
def test_a_roots_interpreter_starts_with_nothing_before_it():
    """No script, no chroot: the venv's python is an ELF file the kernel
    starts with the root's loader, and nothing of the host's C library."""
    for got in PROVISIONED_SID:
        base = os.path.realpath(got.base)
        with open(base, "rb") as f:
            assert f.read(4) == b"\x7fELF", base
        root = base.split("/usr/bin/")[0]
        assert pybuild.elf_interpreter(base) == f"{root}/{provision.LOADER}"
        maps = subprocess.run(
            [got.python, "-c", "print(open('/proc/self/maps').read())"], capture_output=True, text=True, check=True
        ).stdout
        libc = {line.split()[-1] for line in maps.splitlines() if "libc.so" in line}
        assert libc and all(p.startswith(root + "/") for p in libc), libc


def test_debian_multiarch_headers_outside_usr_come_after_the_system_s(tmp_path):
    inc = tmp_path / "root" / "usr" / "include" / "python3.15"
    inc.mkdir(parents=True)
    (inc / "pyconfig.h").write_text("#include <x86_64-linux-gnu/python3.15/pyconfig.h>\n")
    assert buildtable.multiarch_flags(str(inc)) == [f"-idirafter{inc.parent}"]
    # The machine's own Debian headers are found already; upstream's need nothing.
    (inc / "pyconfig.h").write_text("#define HAVE_UNISTD_H 1\n")
    assert buildtable.multiarch_flags(str(inc)) == []
    assert buildtable.multiarch_flags(str(tmp_path / "none")) == []


# -- the JIT's facts ---------------------------------------------------------


def _info(**kw) -> interp.Info:
    base = dict(
        implementation="CPython",
        version="3.15.2",
        debug=False,
        ext_suffix=".so",
        executable=sys.executable,
        roundbench=None,
        numpy=None,
        dev_mode=False,
    )
    base.update(kw)
    return interp.Info(**base)


@pytest.mark.parametrize(
    "args, value, words",
    [
        ("'--enable-experimental-jit=yes-off' '--with-lto'", "built", "off unless PYTHON_JIT=1"),
        ("'--enable-experimental-jit' '--with-lto'", "built", "configure --enable-experimental-jit"),
        ("'--enable-experimental-jit=interpreter'", "built", "no machine code"),
    ],
)
def test_the_jit_fact_says_how_it_was_configured(args, value, words):
    f = pybuild.facts(_info(config_args=args))["jit"]
    assert f.value == value and words in f.how


# -- what `make pythons` made, where it has run ------------------------------

PROVISIONED = provision.read_manifest()


@pytest.mark.skipif(not PROVISIONED, reason="nothing provisioned (make pythons)")
@pytest.mark.parametrize("name", sorted(PROVISIONED))
def test_each_provisioned_interpreter_runs_and_states_its_build(name):
    got = PROVISIONED[name]
    out = subprocess.run(
        [
            got.python,
            "-c",
            "import json, platform, sys; print(json.dumps([platform.python_version(), "
            "bool(getattr(sys, '_is_gil_enabled', lambda: True)() is False)]))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    version, gil_off = json.loads(out.stdout)
    assert version == got.version
    assert gil_off == got.free_threaded
    info = interp.info(got.python)
    where = pybuild.source(info)
    assert f"provisioned by roundbench pythons as {name}" in where
    facts = pybuild.facts(info)
    assert facts["gil"].value == ("disabled" if got.free_threaded else "enabled")
    if "--enable-optimizations" in got.build:
        # Our own builds keep their debug information: the binary says PGO and LTO.
        assert (facts["pgo"].value, facts["lto"].value) == ("yes", "yes"), facts


NEWEST = provision.newest()


@pytest.mark.skipif(NEWEST is None, reason="nothing provisioned (make pythons)")
def test_the_newest_provisioned_interpreter_runs_rounds_end_to_end(tmp_path):
    """Named by its version, it runs the pure, C and library variants of a
    round (the extension built for it, the venv's packages), and the result
    file states its build and where it came from."""
    out = tmp_path / "run"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundbench",
            "run",
            "loop",
            "jsonl",
            "startup",
            "--quick",
            "--runs",
            "1",
            "--python",
            NEWEST.feature,
            "--out",
            str(out),
            "--no-report",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "python")},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    text = (out / "results.txt").read_text()
    assert f"python-key: {interp.info(NEWEST.python).key}\n" in text
    assert f"provisioned by roundbench pythons as {NEWEST.name}" in text
    for row in ("BenchmarkLoop/impl=py/", "BenchmarkLoop/impl=py-c/", "BenchmarkJsonl/impl=py/"):
        assert "\n" + row in text, row
    assert "\n--- FAIL" not in text


def test_every_cpython_on_the_machine_once_each(manifest):
    """make suite's build-cost cells and make matrix run under these: the
    one running, the system's, each provisioned one that runs, one per key."""
    got = interp.cpythons(manifest)
    assert got[0] == sys.executable
    # The test manifest's pythons are scripts that print nothing: not CPythons.
    assert not any(str(manifest) in p for p in got)
    assert len(got) == len(set(got))


def test_a_package_with_no_wheel_is_a_skip_that_says_so(manifest):
    data = json.loads((manifest / provision.MANIFEST).read_text())
    for entry in data["interpreters"]:
        if entry["name"] == "cpython-3.15.2":
            entry["missing_wheels"] = [
                "pysimdjson>=6",
                "numpy==2.4.6 (numpy 2.5.5 installed instead, for another requirement)",
            ]
    (manifest / provision.MANIFEST).write_text(json.dumps(data))
    py = str(manifest / "venvs" / "cpython-3.15.2" / "bin" / "python")
    why = interp._no_wheel(py, "pip install pysimdjson")
    assert why.startswith("PyPI has no wheel of pysimdjson>=6 for cpython-3.15.2") and "wheels only" in why
    assert interp._no_wheel(py, "pip install orjson") == ""
    other = str(manifest / "venvs" / "cpython-3.14.10" / "bin" / "python")
    assert interp._no_wheel(other, "pip install pysimdjson") == ""


def test_a_cached_venv_gets_the_requirements_added_since_it_was_made(monkeypatch, tmp_path):
    """A venv provisioned before requirements-dev.txt changed is given what
    it now asks for, once: the same variants run under a cached interpreter
    as under a new one."""
    (tmp_path / "requirements-dev.txt").write_text("numpy==2.4.6\nblack==1\n# a comment\nnumba==0.68.1\n")
    py = tmp_path / "venv" / "bin" / "python"
    py.parent.mkdir(parents=True)
    py.write_text("")
    ran = []
    calls = []

    def pip(argv, what, **kw):
        calls.append(argv)
        ran.append(
            [a for a in argv[argv.index("--disable-pip-version-check") + 1 :] if a not in ("--only-binary", ":all:")]
        )
        return ""

    monkeypatch.setattr(provision, "_run", pip)
    interp = provision.Interpreter("cpython-3.15.2", "3.15.2", str(py), "/b", "unstable", "", 0.0, 0, "")
    provision._sync_venv(interp, tmp_path)
    assert ran == [["numpy==2.4.6", "numba==0.68.1"]]  # black is not for the children
    stamp = tmp_path / "venv" / provision.REQUIREMENTS_STAMP
    assert stamp.read_text() == "numpy==2.4.6\nnumba==0.68.1\n# from source: nuitka\n"
    provision._sync_venv(interp, tmp_path)
    assert len(ran) == 1  # nothing changed: nothing installed
    (tmp_path / "requirements-dev.txt").write_text("numpy==2.4.6\nnumba==0.68.1\nCython==3.3.1\nnuitka==4.3.3\n")
    provision._sync_venv(interp, tmp_path)
    # Wheels only, but Nuitka, which PyPI has as a source archive alone.
    assert ran[-2:] == [["numpy==2.4.6", "numba==0.68.1", "Cython==3.3.1"], ["nuitka==4.3.3"]]
    assert ":all:" in calls[-2] and ":all:" not in calls[-1]


# -- --only and --rebuild: exact names and the aliases, checked first --------


@pytest.fixture
def stubbed(monkeypatch, tmp_path):
    """_provision with every step stubbed: what it would build, by name."""
    built = []

    def trixie(root, version, source, suffix, args):
        built.append(f"cpython-{version}{suffix}")
        return provision.Interpreter(f"cpython-{version}{suffix}", version, "/p", "/b", "trixie", "", 0.0, 0, "")

    def sid(sid_root, seconds, size):
        built.append("sid")
        return [
            provision.Interpreter(f"cpython-{v}.0", f"{v}.0", "/p", "/b", "unstable", "", 0.0, 0, "")
            for v in provision.SID_VERSIONS
        ]

    monkeypatch.setattr(provision, "_install_build_packages", lambda: None)
    monkeypatch.setattr(provision, "_fetch_trixie_source", lambda root: ("3.13.5", tmp_path))
    monkeypatch.setattr(provision, "_build_trixie", trixie)
    monkeypatch.setattr(provision, "_sid_root", lambda root, again: (tmp_path, 0.0, 0))
    monkeypatch.setattr(provision, "_sid_interpreters", sid)
    monkeypatch.setattr(provision, "_make_venv", lambda root, i, checkout: i)
    monkeypatch.setattr(provision, "_sync_venv", lambda i, checkout: i)
    monkeypatch.setattr(provision, "_write_manifest", lambda root, have: None)
    monkeypatch.setattr(provision, "read_manifest", lambda root=None: {})

    def run(only):
        built.clear()
        provision._provision(tmp_path, tmp_path, only, None)
        return list(built)

    return run


@pytest.mark.parametrize(
    "only, want",
    [
        (["cpython-3.13.5t"], ["cpython-3.13.5t"]),
        (["cpython-3.13.5"], ["cpython-3.13.5"]),
        (["cpython-3.13"], ["cpython-3.13.5", "cpython-3.13.5t"]),
        (["cpython-3.15"], ["sid"]),
        (["sid"], ["sid"]),
        (["cpython-3.13.5t", "sid"], ["cpython-3.13.5t", "sid"]),
        (["all"], ["cpython-3.13.5", "cpython-3.13.5t", "sid"]),
        (None, ["cpython-3.13.5", "cpython-3.13.5t", "sid"]),
    ],
)
def test_only_provisions_exactly_what_it_names(stubbed, only, want):
    assert stubbed(only) == want


@pytest.mark.parametrize("option", ["--only", "--rebuild"])
@pytest.mark.parametrize("name", ["nonsense", "cpython-3.13.5x", "cpython", "", "3.15"])
def test_a_name_it_does_not_provision_is_refused_with_the_valid_ones(monkeypatch, capsys, option, name):
    """Exit 2, one line naming the option, the name and every valid one,
    before anything is fetched: the stubs would fail the test if reached."""
    from roundbench import cli

    monkeypatch.setattr(provision, "read_manifest", lambda root=None: {})
    monkeypatch.setattr(provision, "provision", lambda *a, **k: pytest.fail("provisioned after a bad name"))
    assert cli.main(["pythons", option, name]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{option} {name!r}" in err[0]
    for valid in (*provision.TRIXIE_NAMES, *provision.ALIASES):
        assert valid in err[0]
