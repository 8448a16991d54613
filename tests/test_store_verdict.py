"""The verdict across machines and runtimes (store/verdict.py): each score
cell's ratio on each setting, whether each level's verdict holds, the cells
that change side and why, and the page with its pictures, from synthetic
result lines of three settings."""

from __future__ import annotations

import pytest

from roundbench.results import benchfmt
from roundbench.store import verdict

from test_report import lines

N = "/n=20000000"
M = "/n=300/threads=1"

UNITS = """\
Unit ns/iter better=lower
Unit GFLOP/s better=higher
Unit speedup better=higher
"""


def _header(cpu: str, cpu_id: str, python_key: str = "cpython-3.15.2", blas: str = "OpenBLAS 0.3.28 Zen") -> str:
    return (
        f"cpu: {cpu}\n"
        f"cpu-id: {cpu_id}\n"
        "cores: 16 online, 16 usable by this process\n"
        "kernel: Linux 6.12\n"
        "date: 2026-12-01T02:52:17Z\n"
        "go-version: go1.27.4\n"
        "python: CPython 3.15.2 (release build)\n"
        f"python-key: {python_key}\n"
        f"blas-py-numpy: {blas}\n" + UNITS
    )


def _setting(text: str, label: str, machine: str, python: str = "cpython-3.15.2") -> verdict.Setting:
    rs = benchfmt.parse_lines(text.splitlines(keepends=True), source=label)
    return verdict.Setting(label, machine, "go1.27.4", python, dict(rs.configs[0]), rs, f"{label}.txt section 1")


def _loop(go: float, py: float, go_c: float, py_c: float) -> str:
    return (
        lines("loop", "go", N, "ns/iter", go)
        + lines("loop", "py", N, "ns/iter", py)
        + lines("loop", "go-c", N, "ns/iter", go_c)
        + lines("loop", "py-c", N, "ns/iter", py_c)
    )


def _three() -> list:
    """#1 and #3 on one AMD machine (#3 under another CPython, its numpy on
    a generic BLAS kernel), #2 on an Intel one. The loop's pure code is Go's
    on all three; calling C flips on #2; matmul's ecosystem cell is
    Python's on #1, Go's on #2 (go-gonum ran there) and on #3 (a slow
    numpy)."""
    amd = ("AMD EPYC 7B13", "AuthenticAMD family 25 model 1")
    one = _header(*amd) + _loop(0.95, 40.0, 0.71, 0.90)
    one += lines("matmul", "go", M, "GFLOP/s", 5.5) + lines("matmul", "py-numpy", M, "GFLOP/s", 60.0)
    two = _header("Intel Xeon 8480", "GenuineIntel family 6 model 143") + _loop(0.90, 38.0, 0.71, 0.60)
    two += lines("matmul", "go", M, "GFLOP/s", 5.0) + lines("matmul", "py-numpy", M, "GFLOP/s", 55.0)
    two += lines("matmul", "go-gonum", M, "GFLOP/s", 70.0)
    three = _header(*amd, python_key="cpython-3.14.0", blas="OpenBLAS 0.3.28 generic") + _loop(0.95, 40.0, 0.71, 0.90)
    three += lines("matmul", "go", M, "GFLOP/s", 5.5) + lines("matmul", "py-numpy", M, "GFLOP/s", 4.0)
    return [
        _setting(one, "AMD EPYC 25/1 · go1.27.4 · cpython-3.15.2", "a1" * 16),
        _setting(two, "Intel Xeon 6/143 · go1.27.4 · cpython-3.15.2", "b2" * 16),
        _setting(three, "AMD EPYC 25/1 · go1.27.4 · cpython-3.14.0", "a1" * 16, python="cpython-3.14.0"),
    ]


@pytest.fixture(scope="module")
def three():
    settings = _three()
    return settings, verdict.across(settings)


def _by(rows: list) -> dict:
    return {(r.round, r.level): r for r in rows}


def test_every_cell_with_a_point_somewhere_is_a_row_in_score_order(three):
    _, rows = three
    assert [(r.round, r.level) for r in rows] == [
        ("loop", "alone"),
        ("loop", "ecosystem"),
        ("loop", "core"),
        ("matmul", "ecosystem"),
    ]
    assert all(len(r.cells) == len(r.winners) == len(r.why) == 3 for r in rows)


def test_a_cell_that_holds_has_no_reason(three):
    _, rows = three
    alone = _by(rows)["loop", "alone"]
    assert alone.winners == ["go", "go", "go"]
    assert not alone.changes_side and alone.why == ["", "", ""]
    # the ratio is Go's advantage within each setting: Python's median over Go's
    assert 41 < alone.cells[0].point.ratio < 43 and 41 < alone.cells[1].point.ratio < 43


def test_a_cell_that_flips_names_the_machine_keys_that_differ(three):
    _, rows = three
    core = _by(rows)["loop", "core"]
    assert core.winners == ["go", "python", "go"] and core.changes_side
    assert core.reference == 0 and core.why[0] == "" and core.why[2] == ""
    why = core.why[1]
    assert why.startswith("against #1 (AMD EPYC 25/1 · go1.27.4 · cpython-3.15.2): the same pair (go-c vs py-c)")
    assert "cpu (AMD EPYC 7B13 → Intel Xeon 8480)" in why
    assert "cpu-id (AuthenticAMD family 25 model 1 → GenuineIntel family 6 model 143)" in why
    assert "Go 1.27× [" in why and "there, Python 1.18× [" in why and "here: the other side is faster here" in why
    # keys of another round, and keys that are the same, are not reasons
    assert "blas" not in why and "kernel (" not in why and "go-version" not in why


def test_a_flip_by_a_new_variant_and_one_by_the_round_s_own_provenance(three):
    _, rows = three
    eco = _by(rows)["matmul", "ecosystem"]
    assert eco.winners == ["python", "go", "go"] and eco.changes_side
    assert "the pair changed: Go's side here is go-gonum, which the reference did not run (there: go)" in eco.why[1]
    three_why = eco.why[2]
    assert "the same pair (go vs py-numpy)" in three_why
    assert "blas-py-numpy (OpenBLAS 0.3.28 Zen → OpenBLAS 0.3.28 generic)" in three_why
    assert "python-key (cpython-3.15.2 → cpython-3.14.0)" in three_why
    # the same machine: no machine key is a reason
    assert "cpu (" not in three_why and "fingerprint" not in three_why


def test_holds_per_level(three):
    settings, rows = three
    found = verdict.holds(settings, rows)
    assert set(found) == {"alone", "ecosystem", "core", "program"}
    alone = found["alone"]
    assert alone.verdicts == ["Go", "Go", "Go"] and alone.holds is True
    assert [t.go for t in alone.tallies] == [1, 1, 1]
    core = found["core"]
    assert core.verdicts == ["Go", "Python", "Go"] and core.holds is False
    tallies, verdicts, held = found["ecosystem"]  # unpacks as (tallies, verdicts, holds)
    assert verdicts == ["split", "Go", "Go"] and held is False
    assert (tallies[0].go, tallies[0].python) == (1, 1)
    assert found["program"].verdicts == [None, None, None] and found["program"].holds is None


def test_the_markdown_table_has_every_setting_s_ratio(three):
    settings, rows = three
    md = verdict.markdown(settings, rows)
    table = {}
    for line in md.splitlines():
        parts = line.split(" | ")
        if line.startswith("| ") and len(parts) > 2:
            table[f"{parts[0]} | {parts[1]}"] = line
    for r in rows:
        line = table[f"| {r.label} | {verdict.LEVEL_TITLES[r.level]}"]
        for c in r.cells:
            assert c.text() in line, (c.text(), line)
        assert ("**changes side**" in line) == r.changes_side
    core = table["| loop: n=20000000 | calling C"]
    assert "Go 1.27× [" in core and "Python 1.18× [" in core
    # the lead: every setting, its machine and source, and each level's verdict
    lead = md.split("\n\n")[1]
    for s in settings:
        assert s.label in lead and s.source in lead
    assert "2026-12-01 02:52 UTC" in lead and "`a1a1a1a1a1a1`" in lead
    assert "the language alone: Go, which holds on all 3 settings" in lead
    assert "calling C: does not hold (Go on #1 and #3; Python on #2)" in lead
    assert "2 of 4 cell(s) change side" in lead
    assert "split" in md and "equivalent and inconclusive cells count for neither" in md
    # the reasons are listed under the cells that change side
    flips = md.split("## Cells that change outcome")[1].split("## ")[0]
    assert "**loop: n=20000000, calling C**: Go on #1, Python on #2, Go on #3." in flips
    assert "cpu (AMD EPYC 7B13 → Intel Xeon 8480)" in flips
    assert "the language alone" not in flips
    # only ratios cross machines: no raw figure in any unit
    assert "ns/iter" not in md and "GFLOP/s" not in md


def test_an_undecided_cell_is_listed_and_never_counts():
    text = _header("AMD EPYC 7B13", "AuthenticAMD family 25 model 1")
    for w, go, py in (("1", 1.0, 1.0), ("2", 1.98, 1.2)):
        text += lines("cores", "go", f"/n=1000/workers={w}", "speedup", go)
        text += lines("cores", "py-threads", f"/n=1000/workers={w}", "speedup", py)
    settings = [_setting(text, "one", "a1" * 16), _setting(text, "two", "b2" * 16)]
    rows = verdict.across(settings)
    listed = [r for r in rows if "workers=1" in r.label and r.level == "alone"]
    assert len(listed) == 1 and listed[0].winners == [None, None] and not listed[0].changes_side
    assert all(c.undecided for c in listed[0].cells)
    found = verdict.holds(settings, rows)
    assert [t.total for t in found["alone"].tallies] == [1, 1]
    assert found["alone"].verdicts == ["Go", "Go"] and found["alone"].holds is True
    md = verdict.markdown(settings, rows)
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {listed[0].label} | the language alone"))
    assert line.count("not counted: ") == 2 and line.endswith("| not counted |")


def test_a_setting_without_score_rows_contributes_nothing():
    good = _three()[0]
    text = _header("Other CPU", "GenuineIntel family 6 model 85")
    text += lines("loop", "c", N, "ns/iter", 0.7) + lines("loop", "go", N, "ns/iter", 0.9)
    empty = _setting(text, "Other CPU · go1.27.4 · cpython-3.15.2", "c3" * 16)
    settings = [good, empty]
    rows = verdict.across(settings)
    assert rows and all(r.cells[1] is None for r in rows)
    # a cell the other setting lacks is not a change of side, but says why
    assert not any(r.changes_side for r in rows)
    assert all(
        r.why[1].endswith("this setting has no such cell (its run has no point of this round and size)") for r in rows
    )
    md = verdict.markdown(settings, rows)
    assert (
        "Setting #2 (Other CPU · go1.27.4 · cpython-3.15.2) has no score cell "
        "(no cell measured both languages there): it contributes nothing." in md
    )
    assert "— (no such cell here)" in md and "## Cells missing or not counted on some setting" in md
    assert verdict.holds(settings, rows)["alone"].verdicts == ["Go", None]


def test_write_page_writes_the_page_and_its_pictures(tmp_path):
    settings = _three()
    older = {settings[1].key: ["results.txt sha256 0123456789ab section 1 (2026-11-30T01:00:00Z)"]}
    paths = verdict.write_page(settings, tmp_path / "out", older=older)
    out = tmp_path / "out"
    assert paths[0] == out / "verdict.md"
    md = paths[0].read_text(encoding="utf-8")
    assert "## Runs not shown" in md and "0123456789ab" in md
    assert "| loop: n=20000000 | calling C |" in md
    pytest.importorskip("matplotlib")
    pngs = sorted(p.name for p in paths if p.suffix == ".png")
    # matmul has no point alone or calling C, loop none as a whole program
    assert pngs == ["verdict-alone.png", "verdict-core.png", "verdict-ecosystem.png"]
    for name in pngs:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in md
    pytest.importorskip("jinja2")
    pytest.importorskip("markdown_it")
    html = (out / "verdict.html").read_text(encoding="utf-8")
    assert out / "verdict.html" in paths
    assert html.count('src="data:image/png;base64,') == 3 and 'src="verdict-' not in html
    assert "<table>" in html and "cpu (AMD EPYC 7B13 → Intel Xeon 8480)" in html


def test_write_page_without_the_libraries_says_so(tmp_path, monkeypatch):
    settings = _three()[:2]
    out = tmp_path / "out"
    out.mkdir()
    (out / "verdict-alone.png").write_bytes(b"old")
    (out / "verdict.html").write_text("old")

    def no_library(name):
        def fail(*args, **kwargs):
            raise ImportError(f"No module named {name!r}", name=name)

        return fail

    monkeypatch.setattr(verdict, "draw", no_library("matplotlib"))
    monkeypatch.setattr(verdict, "render_html", no_library("jinja2"))
    paths = verdict.write_page(settings, out)
    assert paths == [out / "verdict.md"]
    assert not (out / "verdict-alone.png").exists() and not (out / "verdict.html").exists()
    md = paths[0].read_text(encoding="utf-8")
    assert "no pictures: matplotlib is not installed" in md
    assert "no verdict.html: jinja2 is not installed" in md
    assert "This page has no pictures: matplotlib is not installed" in md
