"""What a Python interpreter's build is (runtimes/pybuild.py): the facts
read from a binary's recorded compile switches and from ldd, held to tiny
builds of our own with and without PGO, LTO and frame pointers, and to the
interpreters at hand."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roundbench.runtimes import interp, pybuild

needs_tools = pytest.mark.skipif(
    not (shutil.which("gcc") and shutil.which("readelf") and shutil.which("ldd")), reason="needs gcc, readelf and ldd"
)


def _build(tmp: Path, name: str, *flags: str) -> Path:
    src = tmp / "main.c"
    src.write_text("int main(void) { return 0; }\n")
    out = tmp / name
    subprocess.run(["gcc", *flags, str(src), "-o", str(out)], check=True, capture_output=True)
    return out


def _info(exe: Path, **kw) -> interp.Info:
    """An Info for a binary that stands in for an interpreter's."""
    base = dict(
        implementation="CPython",
        version="3.13.5",
        debug=False,
        ext_suffix=".so",
        executable=str(exe),
        roundbench=None,
        numpy=None,
        dev_mode=False,
    )
    base.update(kw)
    return interp.Info(**base)


@needs_tools
def test_the_switches_a_binary_records_say_pgo_lto_and_frame_pointers(tmp_path):
    tuned = _build(
        tmp_path, "tuned", "-g", "-O2", "-fprofile-use", "-Wno-missing-profile", "-flto", "-fno-omit-frame-pointer"
    )
    plain = _build(tmp_path, "plain", "-g", "-O2")
    f = pybuild.facts(_info(tuned))
    assert (f["pgo"].value, f["lto"].value, f["frame-pointers"].value) == ("yes", "yes", "yes")
    assert "tuned was compiled with -fprofile-use" in f["pgo"].how
    g = pybuild.facts(_info(plain))
    assert (g["pgo"].value, g["lto"].value, g["frame-pointers"].value) == ("no", "no", "no")
    assert "plain's recorded compile switches have no -flto" in g["lto"].how
    # Linked with no libpython: the interpreter's code is in the executable.
    assert g["libpython"].value == "static"


@needs_tools
def test_a_stripped_binary_records_nothing_and_configure_speaks_instead(tmp_path):
    stripped = _build(tmp_path, "stripped", "-O2", "-s")
    bare = pybuild.facts(_info(stripped))
    assert bare["pgo"].value == pybuild.NOT_RECORDED and "records no compile switches" in bare["pgo"].how
    said = pybuild.facts(_info(stripped, config_args="'--enable-optimizations' '--with-lto'"))
    assert (said["pgo"].text(), said["lto"].text()) == (
        "yes (configure --enable-optimizations)",
        "yes (configure --with-lto)",
    )
    # sysconfig's Py_ENABLE_SHARED does not make a static interpreter shared.
    shared_claim = pybuild.facts(_info(stripped, py_enable_shared=True))["libpython"]
    assert shared_claim.value == "static" and "Py_ENABLE_SHARED is 1" in shared_claim.how


@needs_tools
def test_the_interpreters_at_hand():
    here = interp.info(sys.executable)
    facts = pybuild.facts(here)
    assert set(facts) == set(pybuild.FACTS)
    assert facts["gil"].value == ("disabled" if here.free_threaded else "enabled")
    assert facts["debug"].value == ("yes" if here.debug else "no")
    binary, libpython = pybuild.code_binary(here.executable)
    assert libpython.value in ("shared", "static") and Path(binary).exists()
    line = pybuild.describe(here)
    assert line.startswith(here.executable) and "pgo: " in line and "libpython: " in line
    assert pybuild.summary(line).startswith("PGO ")
    if Path("/usr/bin/python3").exists():
        debian = pybuild.facts(interp.info("/usr/bin/python3"))
        assert debian["libpython"].value in ("shared", "static")


def test_another_implementation_is_not_judged_as_cpython(tmp_path):
    pypy = _info(Path(sys.executable), implementation="PyPy", pypy_version="7.3.11")
    f = pybuild.facts(pypy)
    assert f["pgo"].value == pybuild.NOT_RECORDED and f["jit"].value == "built"


def test_the_summary_reads_a_line_as_a_result_file_keeps_it():
    line = (
        "/x/python; CPython 3.13.5, GCC 12.2.0; configure: none recorded; pgo: yes (configure "
        "--enable-optimizations); lto: no (python's recorded compile switches have no -flto); libpython: static "
        "(ldd shows no libpython); frame-pointers: not recorded (x); gil: disabled (sysconfig's Py_GIL_DISABLED); "
        "jit: not built (x); debug: no (x)"
    )
    assert pybuild.summary(line) == "PGO yes, LTO no, libpython static, free-threaded"
    assert pybuild.summary("") == ""


def test_info_carries_the_build_fields():
    names = {f.name for f in dataclasses.fields(interp.Info)}
    assert {"config_args", "py_cflags_nodist", "py_enable_shared", "compiler", "prefix", "base_prefix"} <= names
