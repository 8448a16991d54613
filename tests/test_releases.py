"""The release table (data/releases.tsv) has a row for every runtime the
suite defaults to, so that the runtime-age check of the suite's own pair
says something: the CPythons `make pythons` provisions (its verdict's
Python is the newest of them), the Go releases the suite builds with (the
installed one, and the newest the module proxy serves when its list has
been fetched), and the numpy the requirements pin and the provisioned
venvs installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from roundbench.runtimes import gotoolchains, provision, releases

ROOT = Path(__file__).resolve().parents[1]


def _missing(name: str, versions) -> list:
    return sorted(v for v in versions if releases.lookup(name, v) is None)


def test_every_cpython_the_suite_provisions_has_a_row():
    assert not _missing("cpython", provision.SID_VERSIONS), "add their rows to data/releases.tsv"
    # The interpreters built from source (cpython-3.13.5 and its twin).
    built = {releases.feature(p) for p in re.findall(r"cpython-(\d+\.\d+\.\d+)", Path(provision.__file__).read_text())}
    assert built and not _missing("cpython", built)


def test_the_suites_default_pair_today_has_rows():
    # The pair the README's verdict is of: CPython 3.15 against Go 1.27, and
    # the numpy that CPython's venv installs.
    for name, version in (("cpython", "3.15.2"), ("go", "go1.27.4"), ("numpy", "2.5.5")):
        assert releases.lookup(name, version) is not None, f"{name} {version} has no row"


def test_every_go_the_suite_may_build_with_has_a_row():
    go = shutil.which("go")
    if go is None:
        pytest.skip("no go command")
    installed = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout
    assert not _missing("go", [installed.strip()])
    served = gotoolchains._releases_file()
    if served.is_file():  # the proxy's list, as the suite last fetched it
        newest = json.loads(served.read_text())["releases"][-1]
        assert not _missing("go", [newest]), f"Go {newest}, the newest served, has no row"


def test_the_pinned_numpy_has_a_row():
    pins = re.findall(r"^numpy==(\S+)", (ROOT / "requirements-dev.txt").read_text(), re.M)
    assert pins and not _missing("numpy", pins)
