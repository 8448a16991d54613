"""Runtimes as an axis (runtimes.py, runtimereport.py): result names that
carry the runtime, the views the report reads, the age-matched pair and
its score, the Runtimes section, and the claims that name a runtime."""

from __future__ import annotations

import random

import pytest

from roundbench.results import benchfmt
from roundbench.report import claims, document, runtime_axis, summary
from roundbench.judge import intervals
from roundbench.run.plans import _renamed, bench_name, expand
from roundbench import runtimes
from roundbench.judge.cells import group
from roundbench.rounds import get

HEADER = """\
go-version: go1.26.8
python: /opt/py/bin/python (CPython 3.11.7, release build)
fairness-runtime-age: warn: CPython 3.11.7 and Go 1.26.8: 1205 days apart (fix: newer CPython)
Unit ns/call better=lower
Unit ns/iter better=lower
"""


def _lines(name: str, median: float, runs: int = 8, unit: str = "ns/call", seed: int = 1) -> list:
    rnd = random.Random(f"{name}{seed}")
    return [f"{name} 1 100 ns/op {median * (1 + rnd.uniform(-0.01, 0.01)):.4f} {unit}" for _ in range(runs)]


def _set(*groups) -> benchfmt.ResultSet:
    lines = [ln for g in groups for ln in g]
    return benchfmt.parse_lines((HEADER + "\n".join(lines) + "\n").splitlines(True))


def _ffi(go_c: dict, py_c: float = 40.0) -> benchfmt.ResultSet:
    """ffi rows: go-c under each Go version (version -> ns/call), py-c-o and c plain."""
    groups = [_lines(f"BenchmarkFfi/impl=go-c/go={v}/n=1000", ns) for v, ns in go_c.items()]
    groups += [_lines(f"BenchmarkFfi/impl=go/go={v}/n=1000", 1.2) for v in go_c]
    groups.append(_lines("BenchmarkFfi/impl=py-c-o/n=1000", py_c))
    groups.append(_lines("BenchmarkFfi/impl=c/n=1000", 1.0))
    return _set(*groups)


def test_strip_and_keys():
    name, rt = runtimes.split_runtime("BenchmarkFfi/impl=go-c/go=1.20.14/n=1000")
    assert name == "BenchmarkFfi/impl=go-c/n=1000" and rt == {"go": "1.20.14"}
    assert runtimes.split_runtime("BenchmarkLoop/impl=py/python=pypy-7.3.11/n=5")[1] == {"python": "pypy-7.3.11"}
    assert runtimes.split_runtime("BenchmarkLoop/impl=c/n=5") == ("BenchmarkLoop/impl=c/n=5", {})
    rt = runtimes.Runtime(runtimes.GO, "1.20.14", "1.20.14")
    assert bench_name(get("ffi"), "go-c", {"n": 5}, rt) == "BenchmarkFfi/impl=go-c/go=1.20.14/n=5"
    assert bench_name(get("ffi"), "go-c", {"n": 5}) == "BenchmarkFfi/impl=go-c/n=5"


def test_a_child_line_is_renamed_to_the_runtime_row():
    line = "BenchmarkFfi/impl=go-c/n=5 1 100 ns/op 61.2 ns/call"
    got = _renamed(line, "BenchmarkFfi/impl=go-c/go=1.20.14/n=5")
    assert got == "BenchmarkFfi/impl=go-c/go=1.20.14/n=5 1 100 ns/op 61.2 ns/call"


def test_newest_pair_and_age_matched_pair():
    rs = _ffi({"1.19.13": 90, "1.20.14": 85, "1.26.8": 60})
    assert runtimes.present(rs)["go"] == ["1.26.8", "1.20.14", "1.19.13"]
    assert runtimes.newest(rs) == {"go": "1.26.8"}
    am = runtimes.age_matched(rs)
    # CPython 3.11 came out 2022-10-24: Go 1.19 (2022-08-02) is 83 days away, Go 1.20 100.
    assert am.pick == {"go": "1.19.13"} and am.days == 83
    assert runtimes.nearest_go("3.11.7") == ("1.19", 83)
    assert runtimes.nearest_go("3.99.0") is None


def test_age_matched_pair_that_did_not_run_says_how_to_run_it():
    am = runtimes.age_matched(_ffi({"1.26.8": 60}))
    assert am.pick is None
    assert "Go 1.19" in am.why and "make matrix" in am.why


def test_newest_python_is_the_newest_cpython_not_pypy():
    rs = _set(
        _lines("BenchmarkLoop/impl=py/python=pypy-7.3.11/n=5", 2, unit="ns/iter"),
        _lines("BenchmarkLoop/impl=py/python=cpython-3.11.7/n=5", 40, unit="ns/iter"),
    )
    assert runtimes.newest(rs) == {"python": "cpython-3.11.7"}


def test_a_view_holds_one_runtime_of_each_kind_and_every_plain_row():
    rs = _ffi({"1.20.14": 85, "1.26.8": 60})
    v = runtimes.view(rs, {"go": "1.20.14"})
    names = {r.name for r in v.runs}
    assert names == {
        "BenchmarkFfi/impl=go-c/n=1000",
        "BenchmarkFfi/impl=go/n=1000",
        "BenchmarkFfi/impl=py-c-o/n=1000",
    } | {"BenchmarkFfi/impl=c/n=1000"}
    med = group(v)["ffi"][(("n", "1000"),)]["go-c"].median_of("ns/call")
    assert med == pytest.approx(85, rel=0.02)
    assert v.configs[-1]["go-version"] == "go1.20.14"
    # Its runtime-age check is made again for its pair: 100 days apart, no warning.
    assert v.configs[-1]["fairness-runtime-age"].startswith("ok: ")


def test_report_scores_the_newest_pair_and_the_age_matched_pair_beside_it():
    rs = _ffi({"1.19.13": 90, "1.26.8": 60}, py_c=40)
    doc = document.build(rs, "test")
    # The main score is Go 1.26's; Go 1.19's rows are in neither its tables nor its warnings' pair.
    row = next(r for r in doc.score if r.round == "ffi" and not r.pair)
    assert row.levels["core"].point is not None
    assert doc.age is not None and doc.age.pair == "CPython 3.11.7 with Go 1.19.13"
    assert "83 days apart (ok)" in doc.age.age_check
    md = document.render_markdown(doc)
    assert "Score with runtimes of the same age: CPython 3.11.7 with Go 1.19.13" in md
    age_block = md[md.index("Score with runtimes of the same age") : md.index("### Headline findings")]
    assert "months older" not in age_block
    assert "## Runtimes" in md and "| go-c | Go 1.19.13 |" in md


def test_the_verdict_change_is_said_when_a_point_changes_side():
    # Go 1.26's cgo call beats py-c-o (30 < 40); Go 1.19's loses (90 > 40).
    rs = _ffi({"1.19.13": 90, "1.26.8": 30}, py_c=40)
    doc = document.build(rs, "test")
    assert "The verdict changes" in doc.age.change
    assert "Go with CPython 3.11.7 with Go 1.26.8, Python with CPython 3.11.7 with Go 1.19.13" in doc.age.change
    same = document.build(_ffi({"1.19.13": 90, "1.26.8": 60}, py_c=40), "test")
    assert "does not change" in same.age.change


def test_the_cgo_claim_of_go_1_26_is_checked_against_go_1_25():
    rs = _ffi({"1.24.13": 80, "1.25.7": 70, "1.26.8": 49})
    doc = document.build(rs, "test")
    c = next(c for c in doc.claims if c.claim.id == "cgo-call-go1.26")
    assert c.verdict == "reproduced", c.why()
    assert c.ratio == pytest.approx(0.7, rel=0.03)
    assert dict(c.num.size)["go"] == "1.26.8" and dict(c.den.size)["go"] == "1.25.7"
    # Without Go 1.25 the denominator falls back to 1.24, and the report says so.
    rs = _ffi({"1.24.13": 80, "1.26.8": 49})
    c = next(c for c in document.build(rs, "test").claims if c.claim.id == "cgo-call-go1.26")
    assert dict(c.den.size)["go"] == "1.24.13" and "instead" in c.why()


def test_a_claim_naming_a_go_release_that_did_not_run_is_not_measured():
    c = next(c for c in document.build(_ffi({"1.26.8": 49}), "test").claims if c.claim.id == "cgo-call-go1.26")
    assert c.verdict == "not measured here" and "go=1.25" in c.why()


def test_runtime_findings_name_each_go_version():
    rs = _ffi({"1.20.14": 85, "1.26.8": 60})
    found = runtime_axis.findings(rs, intervals.Intervals())
    assert any("85" in f and "Go 1.20.14" in f and "Go 1.26.8" in f for f in found), found


def test_a_plain_run_has_no_runtimes_section_and_an_age_note():
    rs = _set(_lines("BenchmarkFfi/impl=go-c/n=1000", 60), _lines("BenchmarkFfi/impl=py-c-o/n=1000", 40))
    md = document.render(rs, "test")
    assert "## Runtimes" not in md
    assert "Age-matched pair: the Go release nearest to CPython 3.11 is Go 1.19" in md


def test_claims_views_complete_a_plain_run_from_its_provenance():
    rs = _set(_lines("BenchmarkFfi/impl=go-c/n=1000", 60))
    assert claims.runtime_pick({}, rs) == {"go": "1.26.8", "python": "cpython-3.11.7"}


# ---- the runner's rows under each runtime ------------------------------------------


def _axes(go=(), py=()) -> dict:
    axes = {}
    if go:
        axes[runtimes.GO] = [runtimes.Runtime(runtimes.GO, v, v, default=d) for v, d in go]
    if py:
        axes[runtimes.PYTHON] = [runtimes.Runtime(runtimes.PYTHON, k, exe, default=d) for k, exe, d in py]
    return axes


def test_expand_puts_go_runner_and_python_child_rows_under_each_runtime():
    axes = _axes(go=[("1.19.13", False), ("1.26.8", True)], py=[("cpython-3.11.7", "python3", True)])
    loop = get("loop")
    rows = expand(loop, loop.variant("go-c"), axes)
    assert [(r.key, why) for r, why in rows] == [("go-c/go=1.19.13", None), ("go-c/go=1.26.8", None)]
    assert expand(loop, loop.variant("c"), axes) == [(loop.variant("c"), None)]
    (row, why), *_ = expand(loop, loop.variant("py"), axes)
    assert row.runtime.label == "cpython-3.11.7" and why is None


def test_a_go_variant_no_go_runner_runs_is_a_skip_row_under_another_release():
    """http's Go servers are started by the Python driver, startup's Go
    programs by the launcher: under another release each is a skip row that
    says so, and under the installed one it runs as ever."""
    axes = _axes(go=[("1.19.13", False), ("1.26.8", True)])
    http = get("http")
    (old, why_old), (new, why_new) = expand(http, http.variant("go"), axes)
    assert "not a Go runner" in why_old and "installed Go's build only" in why_old
    assert why_new is None and new.runtime.label == "1.26.8"


def test_a_round_of_facts_is_not_on_the_axis():
    axes = _axes(go=[("1.19.13", False)])
    delivery = get("delivery")
    v = delivery.variants[0]
    assert expand(delivery, v, axes) == [(v, None)]


def test_a_run_across_go_releases_and_interpreters(tmp_path, pypy):
    """The issue's command, on the loop round's pure variants: each Go row
    under both releases and each Python row under both interpreters, named
    by its runtime; the report scores the newest pair and the age-matched
    pair (Go 1.19, nearest to CPython 3.11) beside it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from roundbench.runtimes import gotoolchains

    root = Path(__file__).resolve().parents[1]
    installed = gotoolchains.installed()
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "roundbench", "run", "loop", "--impl", "go", "--impl", "py", "--impl", "c"]
    cmd += ["--go", "1.19", "--go", installed, "--python", sys.executable, "--python", pypy]
    cmd += ["--runs", "6", "--quick", "--quiet", "--out", str(out), "--n", "200000"]
    p = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(root / "python")},
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    text = (out / "results.txt").read_text()
    py_key = f"cpython-{sys.version.split()[0]}"
    for part in ("impl=go/go=1.19.", f"impl=go/go={installed}/", f"impl=py/python={py_key}/", "impl=py/python=pypy-"):
        assert "\nBenchmarkLoop/" + part in text, part
    assert "go-toolchains: 1.19." in text and "python-interpreters: " in text
    md = (out / "report.md").read_text()
    assert "### Score with runtimes of the same age: CPython" in md and "with Go 1.19." in md
    assert "## Runtimes" in md


# ---- what the verdict's interpreter build costs -----------------------------------


def _builds(medians: dict, runs: int = 10) -> benchfmt.ResultSet:
    """Loop's pure py cell under each CPython label, `runs` runs around its
    median (ns/iter), as a run with --python given twice writes them."""
    return benchfmt.parse_lines(_build_lines(medians, runs))


def _build_lines(medians: dict, runs: int = 10) -> list:
    lines = []
    for label, m in medians.items():
        for i in range(runs):
            v = m * (1 + (i - runs / 2) * 0.002)
            lines.append(f"BenchmarkLoop/impl=py/python={label}/n=1000000 1 {v * 1e6:.0f} ns/op {v:.4f} ns/iter")
    return lines


def test_the_verdicts_cpython_is_flagged_when_a_build_of_its_version_is_faster():
    iv = intervals.Intervals()
    status, finding, fix = runtime_axis.build_cost(_builds({"cpython-3.11.7": 80.0, "cpython-3.11.2": 60.0}), iv)
    assert status == "warn" and "--python PATH" in fix
    assert finding.startswith("CPython 3.11.7, the verdict's,")
    assert (
        "1.33× [" in finding
        and "against CPython 3.11.2 (the fastest build of CPython 3.11, and of any version)" in finding
    )
    # Faster than the other build: stated, not flagged.
    status, finding, _ = runtime_axis.build_cost(_builds({"cpython-3.11.7": 60.0, "cpython-3.11.2": 80.0}), iv)
    assert status == "ok" and "0.75× [" in finding
    # Within the 5% slack: not flagged either.
    status, _, _ = runtime_axis.build_cost(_builds({"cpython-3.11.7": 62.0, "cpython-3.11.2": 60.0}), iv)
    assert status == "ok"


def test_a_faster_build_of_another_version_is_named_but_not_flagged():
    status, finding, _ = runtime_axis.build_cost(
        _builds({"cpython-3.13.5": 70.0, "cpython-3.11.2": 60.0}), intervals.Intervals()
    )
    assert status == "ok" and "against CPython 3.11.2 (the fastest of any version)" in finding
    assert "fastest build of CPython 3.13" not in finding


def test_no_other_cpython_no_build_check():
    iv = intervals.Intervals()
    assert runtime_axis.build_cost(_builds({"cpython-3.11.7": 80.0}), iv) is None
    assert runtime_axis.build_cost(_builds({"pypy-7.3.11": 5.0, "cpython-3.11.7": 80.0}), iv) is None


def test_the_companion_run_is_read_against_the_verdicts_interpreter():
    """make suite's python-builds run holds every CPython; the verdict's is
    the one its main run used (python-key), not the newest there."""
    rs = _builds({"cpython-3.11.7": 80.0, "cpython-3.11.2": 60.0, "cpython-3.15.2": 70.0})
    status, finding, _ = runtime_axis.build_cost(rs, intervals.Intervals(), verdict_py="cpython-3.11.7")
    assert status == "warn" and finding.startswith("CPython 3.11.7, the verdict's,")
    # The newest is the verdict's: not flagged (no other 3.15), and the slow
    # 3.11 build that is not the verdict's is named aside with its ratio.
    status, finding, _ = runtime_axis.build_cost(rs, intervals.Intervals())
    assert status == "ok" and finding.startswith("CPython 3.15.2, the verdict's,")
    assert (
        "not the verdict's, a build more than 5% slower than another of its version: CPython 3.11.7 1.33× [" in finding
    )
    assert "against CPython 3.11.2 on loop" in finding
    # Two builds within 5%: nothing aside.
    rs = _builds({"cpython-3.11.7": 61.0, "cpython-3.11.2": 60.0, "cpython-3.15.2": 70.0})
    _, finding, _ = runtime_axis.build_cost(rs, intervals.Intervals())
    assert "not the verdict's" not in finding


def test_the_report_reads_make_suites_companion_run(tmp_path):
    from roundbench.report import document

    main = tmp_path / "run"
    (main / document.BUILDS_DIR).mkdir(parents=True)
    (main / "results.txt").write_text(
        "python-key: cpython-3.11.7\n"
        + "".join(
            f"BenchmarkLoop/impl=py/n=1000000 1 {80_000_000 + i} ns/op {80 + i * 0.01:.4f} ns/iter\n" for i in range(5)
        )
    )
    lines = _build_lines({"cpython-3.11.7": 80.0, "cpython-3.11.2": 60.0})
    (main / document.BUILDS_DIR / "results.txt").write_text("\n".join(lines) + "\n")
    md = document.write_report(main).read_text()
    # Warned in the summary, and a warn row in the fairness table.
    assert "- **python-build-cost: CPython 3.11.7, the verdict's," in md
    row = next(line for line in md.splitlines() if "| fairness-python-build-cost |" in line)
    assert "| **warn** |" in row and "1.33× [" in row and "python-builds/" in row
    # The builds' own provenance lines are in the report's provenance.
    assert "### The CPython builds of the build check (python-builds/)" not in md  # this file records none


def test_the_builds_provenance_lists_each_interpreters_build():
    from roundbench.report import document

    rs = benchfmt.parse_lines(
        [
            "python-interpreters: cpython-3.11.7: /a (CPython 3.11.7), cpython-3.11.2: /usr/bin/python3",
            "python-build-cpython-3.11.2: /usr/bin/python3; PGO not recorded",
            "cpu: AMD EPYC",
        ]
    )
    text = document._builds_provenance(rs)
    assert "### The CPython builds of the build check (python-builds/)" in text
    assert "| python-build-cpython-3.11.2 | /usr/bin/python3; PGO not recorded |" in text and "cpu" not in text
    assert document._builds_provenance(None) == ""


def test_the_matrix_runs_the_go_of_each_cpythons_age_the_published_and_the_newest():
    assert runtimes.matrix_go(["3.11.7", "3.11.2"], "1.27.4") == ["1.19", "1.22", "1.27"]
    assert runtimes.matrix_go(["3.11.7", "3.13.5", "3.15.2"], "1.27.4")[:2] == ["1.19", "1.22"]
    assert runtimes.matrix_go([], "1.26.8") == ["1.22", "1.26"]


def test_the_pure_python_table_reads_each_interpreter_against_the_oldest_cpythons_fastest_build():
    rs = _builds({"cpython-3.15.2": 70.0, "cpython-3.11.7": 80.0, "pypy-7.3.11": 2.0, "cpython-3.11.2": 60.0})
    lines = runtime_axis.python_table(rs, intervals.Intervals())
    header = next(line for line in lines if line.startswith("| round, size"))
    # CPython by version, then PyPy.
    assert header == "| round, size | unit | CPython 3.11.2 | CPython 3.11.7 | CPython 3.15.2 | PyPy 7.3.11 |"
    row = next(line for line in lines if line.startswith("| loop"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2].endswith(" (ref)") and cells[2].startswith("59.9")
    assert " (1.33× [" in cells[3] and " (1.17× [" in cells[4]
    assert " (0.0333× [" in cells[5]
    # One interpreter: no table.
    assert runtime_axis.python_table(_builds({"cpython-3.11.7": 80.0}), intervals.Intervals()) == []


def test_the_gil_table_says_which_variants_turned_the_gil_back_on():
    name = "BenchmarkCores/impl={impl}/n=100/workers=2/python=cpython-3.13.5t"
    text = []
    for impl, gil in (("py-threads", "off"), ("py-numpy", "on")):
        for k in range(3):
            text.append(f"--- FACT: {name.format(impl=impl)}: gil {gil}")
            text.append(f"{name.format(impl=impl)} 1 {1000 + k} ns/op")
    text.append("BenchmarkCores/impl=py-threads/n=100/workers=2/python=cpython-3.13.5 1 900 ns/op")
    lines = runtime_axis.gil_table(runtime_axis.by_runtime(benchfmt.parse_lines(text)))
    rows = [line for line in lines if line.startswith("| CPython")]
    assert len(rows) == 2, lines
    assert "| py-threads | off | cores |" in rows[0] and "3.13.5t" in rows[0]
    assert "| py-numpy | **back on** (an unmarked extension) | cores |" in rows[1]
    # Nothing ran under a free-threaded interpreter: no table.
    assert runtime_axis.gil_table(runtime_axis.by_runtime(benchfmt.parse_lines(text[-1:]))) == []


def test_the_verdict_names_the_interpreter_of_the_view_it_scores():
    # A matrix run: the runner is CPython 3.11.7, the Python rows ran under
    # 3.13.5 and its free-threaded twin; the verdict names the view's.
    groups = [_lines("BenchmarkFfi/impl=go-c/go=1.27.4/n=1000", 30)]
    for py in ("cpython-3.13.5", "cpython-3.13.5t"):
        groups.append(_lines(f"BenchmarkFfi/impl=py-c-o/python={py}/n=1000", 40))
    rs = _set(*groups)
    (pick, view), *_ = runtimes.views(rs)
    info = summary.run_info(view, [], [])
    want = runtimes.describe(runtimes.PYTHON, pick[runtimes.PYTHON])
    assert want.startswith("CPython 3.13.5") and info.pair == f"Go 1.27.4 against {want}"


def test_the_go_build_check_states_the_default_build_against_the_fastest(tmp_path):
    from roundbench.judge import cells
    from roundbench.report import document, runtime_axis
    from roundbench.results import benchfmt

    from test_report import HEADER as REPORT_HEADER, lines

    n = "/n=20000000"
    text = REPORT_HEADER + "Unit ns/iter better=lower\n"
    text += lines("loop", "go", n, "ns/iter", 0.90)
    text += lines("loop", "go-pgo", n, "ns/iter", 0.89)
    text += lines("loop", "go-v3", n, "ns/iter", 0.70)
    text += lines("loop", "py", n, "ns/iter", 40.0)
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    status, finding, fix = runtime_axis.go_build_cost(cells.group(rs), rs, intervals.Intervals())
    assert status == "ok" and not fix
    assert finding.startswith("go1.26.0's default build (GOAMD64=v1, no profile) against its fastest build")
    assert "loop (n=20000000): 1.29× [" in finding and "against go-v3 (GOAMD64=v3) (PGO 1.01×" in finding
    doc = document.render(rs, "x")
    assert "| fairness-go-build-cost | ok | go1.26.0's default build" in doc
    # A build slower than the default by more than 5% warns.
    text = text.replace("impl=go-pgo/", "impl=go-pgo-old/")
    text += lines("loop", "go-pgo", n, "ns/iter", 1.2)
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    status, finding, fix = runtime_axis.go_build_cost(cells.group(rs), rs, intervals.Intervals())
    assert status == "warn" and "slower than the default by more than 5%: loop go-pgo" in finding and fix
    # No build beside the default: nothing to say.
    text = REPORT_HEADER + lines("loop", "go", n, "ns/iter", 0.9)
    (tmp_path / "results.txt").write_text(text)
    rs = benchfmt.read_dir(tmp_path)
    assert runtime_axis.go_build_cost(cells.group(rs), rs, intervals.Intervals()) is None
