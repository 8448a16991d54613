"""The fuzz targets (csrc/fuzz/, `make fuzz`, scripts/fuzz.sh): every
target is built, replayed by `make test` and has a committed corpus; the
seeds come from the test data; and a planted fault in a copy of the core
is caught by its target from the committed corpus alone (scripts/
fuzz_plants.py), so that no target is one that cannot fail."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import fuzz_plants  # noqa: E402

from roundbench.runtimes import buildtable  # noqa: E402

needs_clang = pytest.mark.skipif(shutil.which("clang") is None, reason="needs clang (make setup installs it)")


def table_targets() -> list:
    """The fuzz targets, as the build table lists them (FUZZ_TARGETS): the one
    list the Makefile builds from and scripts/fuzz.sh runs."""
    targets = buildtable.words(buildtable.read(), "FUZZ_TARGETS")
    assert targets, "the build table has no FUZZ_TARGETS"
    return targets


def test_every_target_is_built_replayed_and_has_a_corpus():
    targets = table_targets()
    table = buildtable.read()
    sources = {p.stem for p in (ROOT / "csrc" / "fuzz").glob("*.c") if "LLVMFuzzerTestOneInput(const" in p.read_text()}
    assert sources == set(targets), f"targets in csrc/fuzz/ {sorted(sources)} against the build table's {targets}"
    for t in targets:
        assert all((ROOT / f).is_file() for f in buildtable.words(table, f"{t}.src")), f"{t}.src names no file"
        assert int(table[f"{t}.max_len"]) > 0, f"no {t}.max_len"
        corpus = list((ROOT / "testdata" / "fuzz" / t).glob("*"))
        assert corpus, f"testdata/fuzz/{t}/ is empty: make test would replay nothing"
    # The script and the Makefile take the table's list, not lists of their own.
    listed = subprocess.run(
        ["bash", str(ROOT / "scripts" / "fuzz.sh"), "replay", "no-such-target"], capture_output=True, text=True
    )
    assert listed.returncode == 2 and f"(targets: {' '.join(targets)})" in listed.stderr, listed.stderr
    dry = subprocess.run(["make", "-n", "fuzz-build", "BUILD=/nonexistent"], cwd=ROOT, capture_output=True, text=True)
    assert all(f"/nonexistent/fuzz/{t}" in dry.stdout for t in targets), dry.stdout[-2000:]
    assert re.search(r"^\t\$\(MAKE\) test-fuzz$", (ROOT / "Makefile").read_text(), re.M), "make test does not replay"


def test_seeds_come_from_the_test_data(tmp_path):
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fuzz_seeds.py"), str(tmp_path)], check=True, capture_output=True
    )
    for t in table_targets():
        seeds = list((tmp_path / t).iterdir())
        assert len(seeds) >= 20, f"{t}: {len(seeds)} seeds"
    # The jsonl line seeds are the vectors' payloads: {"status":200} among them.
    assert any(p.read_bytes() == b'{"status":200}' for p in (tmp_path / "jsonl_line").iterdir())


def test_a_plant_that_no_longer_applies_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setitem(fuzz_plants.PLANTS, "gone", dict(fuzz_plants.PLANTS["http-oob"], pattern="(no such)(code)"))
    with pytest.raises(fuzz_plants.PlantError, match="not in csrc/http.c"):
        fuzz_plants.build("gone", tmp_path)


@needs_clang
@pytest.mark.parametrize("plant", sorted(fuzz_plants.PLANTS))
def test_the_committed_corpus_catches_a_planted_fault(tmp_path, plant):
    need = fuzz_plants.PLANTS[plant].get("needs")
    if need and need not in fuzz_plants.cpu_flags():
        pytest.skip(f"the planted fault is in a kernel this CPU cannot run (needs {need})")
    exe = fuzz_plants.build(plant, tmp_path)
    caught, took, line = fuzz_plants.run(plant, exe, tmp_path, 0, replay=True, runs=20000)
    assert caught, f"{plant}: the corpus replay did not catch it in {took:.1f} s: {line}"
