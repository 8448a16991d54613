"""The fairness checks: the runtime-age table and check, the children's
interpreter (--python), the list of checks in the provenance and the report,
and the static scan of the timed code with planted offenders in Python, C
and Go (each rule has a test that fails when the rule is removed)."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from roundbench.judge import checks, fairness, scan
from roundbench.report import document
from roundbench.runtimes import interp, releases
from roundbench.run import provenance
from roundbench.rounds import Round, Variant

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from plugins import scan_offenders as off  # noqa: E402

# ---- release table and runtime age --------------------------------------------


def test_release_table_is_complete_for_this_machine():
    t = releases.table()
    assert len(t) >= 20
    for r in t.values():
        assert datetime.date(2010, 1, 1) < r.released < datetime.date(2030, 1, 1)
    # the runtimes this suite is run with here are in it
    assert releases.lookup("cpython", sys.version.split()[0]) is not None
    assert releases.lookup("go", "go1.26.8") is not None


def test_release_table_rejects_a_bad_row():
    with pytest.raises(ValueError, match="line 2"):
        releases._parse("cpython\t3.11\t2022-10-24\ncpython\t3.12\n")
    with pytest.raises(ValueError, match="not a YYYY-MM-DD"):
        releases._parse("go\t1.26\t10 Feb 2026\n")


@pytest.mark.parametrize(
    "a,b,status",
    [
        (("cpython", "3.11.7"), ("go", "go1.26.8"), "warn"),  # 2022-10 against 2026-02
        (("cpython", "3.14.0"), ("go", "go version go1.26.8 linux/amd64"), "ok"),  # 126 days
        (("cpython", "3.13.1"), ("go", "go1.25.0"), "ok"),  # 309 days
        (("cpython", "3.12.0"), ("go", "go1.24.3"), "warn"),  # 498 days
        (("cpython", "3.99.0"), ("go", "go1.26.0"), "info"),  # not in the table: said, never guessed
    ],
)
def test_runtime_age(a, b, status):
    got, text, fix = releases.age_check(a, b, {"cpython": "newer CPython", "go": "newer Go"})
    assert got == status, text
    if status == "warn":
        assert "released" in text and "months older" in text
        older = a if releases.lookup(*a).released < releases.lookup(*b).released else b
        assert fix == ("newer CPython" if older[0] == "cpython" else "newer Go")


def test_runtime_age_names_both_dates():
    _, text, _ = releases.age_check(("cpython", "3.11.7"), ("go", "go1.26.8"), {})
    assert "2022-10-24" in text and "2026-02-10" in text and "1205 days" in text


# ---- the children's interpreter -------------------------------------------------


def test_interp_info_of_this_interpreter():
    got = interp.info(sys.executable)
    assert got.implementation == "CPython"
    assert got.version == ".".join(map(str, sys.version_info[:3]))


def test_interp_refuses_what_is_not_python(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    with pytest.raises(interp.BadInterpreter, match="not what a Python 3 prints"):
        interp.info(str(fake))
    with pytest.raises(interp.BadInterpreter, match="cannot run it"):
        interp.info(str(tmp_path / "nonexistent"))


def test_run_with_a_bad_python_is_a_usage_error(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "roundbench", "run", "loop", "--python", str(tmp_path / "nope"), "--no-report"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
    )
    assert p.returncode == 2, p.stderr
    assert "--python" in p.stderr and "nope" in p.stderr


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="no /usr/bin/python3 here")
def test_run_under_another_interpreter_names_it(tmp_path):
    """--python runs the Python children under that interpreter, and the
    provenance names it; the loop's py variant needs nothing but the stdlib."""
    other = os.path.realpath("/usr/bin/python3")
    if os.path.realpath(sys.executable) == other:
        pytest.skip("the runner already runs /usr/bin/python3")
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "roundbench", "run", "loop", "--impl", "py", "--runs", "1", "--quick"]
        + ["--python", "/usr/bin/python3", "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    text = (out / "results.txt").read_text()
    assert "python-children: /usr/bin/python3" in text
    assert "BenchmarkLoop/impl=py/" in text
    assert "fairness-runtime-age: " in text


# ---- the list of checks ---------------------------------------------------------


def test_parse_line_round_trips():
    for c in (checks.ok("a", "fine"), checks.warn("b", "GOGC=50 set", "unset it"), checks.info("c", "x (y)")):
        assert checks.parse_line(c.line()) == (c.status, c.value, c.fix)


def test_provenance_lists_every_check_passed_or_not(monkeypatch):
    monkeypatch.setenv("GOGC", "50")
    items, warnings = provenance.collect([], 1, True)
    checks = {k: v for k, v in items.items() if k.startswith("fairness-")}
    for name in ("go-race", "go-gcflags", "go-env", "python-build", "tracer", "tuning", "peak-rss", "runtime-age"):
        assert f"fairness-{name}" in checks, sorted(checks)
    assert checks["fairness-go-env"].startswith("warn: GOGC=50")
    assert any("GOGC=50" in w for w in warnings)
    assert checks["fairness-tracer"].startswith("ok: ")


def test_report_fairness_table_shows_passes_and_warnings():
    cfg = {
        "fairness": "GOGC=50 set for the Go variants (fix: unset them)",
        "fairness-go-env": "warn: GOGC=50 set for the Go variants (fix: unset them)",
        "fairness-tracer": "ok: no tracer or debugger attached to the runner",
        "machine-aslr": "ok: on (randomize_va_space=2)",
    }
    table = document.fairness_table([cfg])
    assert "| fairness-tracer | ok | no tracer" in table
    assert "| fairness-go-env | **warn** | GOGC=50 set for the Go variants | unset them |" in table
    assert "| machine-aslr | ok |" in table


# ---- the static scan: Python ----------------------------------------------------


def _py_kinds(fn, allows=()):
    return {h.kind for h in scan.scan_python_function(fn, "r", "v", allows)}


@pytest.mark.parametrize(
    "fn,kind",
    [
        (off.forced_gc, "forced-gc"),  # one call away
        (off.sleeps, "sleep"),  # through `from time import sleep as nap`
        (off.yields, "yield"),  # asyncio.sleep(0) in a coroutine handed over as a value
        (off.yields_os, "yield"),  # os.sched_yield
        (off.prints, "print"),  # between two clock reads through a local alias
        (off.logs, "print"),
        (off.locale_call, "locale"),
        (off.locale_spec, "locale"),  # format type n
        (off.through_a_class, "sleep"),  # a method of a class the variant names
    ],
)
def test_python_scan_finds_the_planted(fn, kind):
    assert kind in _py_kinds(fn)


def test_python_scan_names_file_and_line():
    (h,) = scan.scan_python_function(off.forced_gc, "r", "v")
    assert h.call == "gc.collect"
    assert h.where.endswith("scan_offenders.py:18"), h.where


def test_python_scan_clean_allowed_untimed_and_waived():
    assert _py_kinds(off.clean) == set()  # ',' grouping is not locale-aware
    assert _py_kinds(off.sleeps, allows=("sleep",)) == set()
    assert _py_kinds(off.untimed_only) == set()
    waived = []
    assert _py_kinds(off.waived) == set()
    scan.scan_python_function(off.waived, "r", "v", (), waived)
    assert [h.kind for h in waived] == ["yield"]


def test_python_scan_of_the_suite_finds_only_declared_work():
    """Every Python variant of every round is scanned, and today none has a
    trick its round does not declare as its work."""
    from roundbench import rounds

    hits, scanned = scan.scan_python(rounds.all_rounds())
    assert len(scanned) >= 40
    assert hits == [], "\n".join(h.text() + f" ({h.round}/{h.variant})" for h in hits)


# ---- the static scan: C ---------------------------------------------------------

C_CORE = """\
#include <stdio.h>
#include <sched.h>
#include <locale.h>
#include <malloc.h>
static long helper(long n) { sched_yield(); return n; }
long rb_thing(long n) {
    /* printf("in a comment is not a call"); */
    const char *s = "puts(\\"in a string\\")";
    (void)s;
    return helper(n) + 1;
}
void rb_noisy(void) { printf("%'d\\n", 1000); }
void rb_logger(void) { fprintf(stderr, "x"); }
void rb_quiet(FILE *f) { fprintf(f, "to a file is not printing"); }
void rb_trim(void) { malloc_trim(0); }
void rb_nap(void) { struct timespec t = {0, 1}; nanosleep(&t, NULL); }
void rb_loc(void) { setlocale(LC_ALL, ""); }
"""
C_RUN = """\
#include "harness.h"
static int run_thing(const rbc_args *a);
RBC_ROUND("thing", run_thing, {"c", "ns/op", NULL}, {"c-two", "ns/op", NULL});
static int run_thing(const rbc_args *a)
{
    fprintf(stderr, "set-up is not timed\\n");
    uint64_t t0 = rbc_now_ns();
    if (a) rb_noisy();
    rb_quiet(NULL);
    long r = rb_thing(3);
    uint64_t t1 = rbc_now_ns();
    printf("after the clock is not timed %d\\n", (int)(t1 - t0));
    return (int)r;
}
RBC_ROUND("other", run_other, {"c", "ns/op", NULL});
static uint64_t timed_other(void *ctx, int64_t count)
{
    (void)ctx; (void)count;
    rb_logger(); rb_trim(); rb_nap(); rb_loc();
    /* scan: allow yield: a planted waiver */
    sched_yield();
    return 0;
}
static int run_other(const rbc_args *a)
{
    int64_t c;
    (void)a;
    rbc_calibrated(timed_other, timed_other, NULL, &c);
    return 0;
}
RBC_ROUND("other-serve", serve_other, {"c", "", NULL});
static int serve_other(const rbc_args *a) { (void)a; puts("a helper is timed whole"); return 0; }
"""


def _fake_round(name, *variants, allows=()):
    return Round(
        name=name,
        title=name,
        explain="",
        variants=[Variant(v, "rb-c", "") for v in variants],
        sizes=[{}],
        quick=[{}],
        metric="ns/op",
        scan_allows=allows,
    )


def _c_scan(tmp_path, rounds_):
    (tmp_path / "csrc" / "runner").mkdir(parents=True)
    (tmp_path / "csrc" / "thing.c").write_text(C_CORE)
    (tmp_path / "csrc" / "runner" / "run_thing.c").write_text(C_RUN)
    return scan.scan_c(tmp_path, rounds_)


def test_c_scan_finds_the_planted(tmp_path):
    hits, scanned = _c_scan(tmp_path, [_fake_round("thing", "c", "c-two"), _fake_round("other", "c")])
    assert sorted(scanned) == [("other", "c"), ("thing", "c"), ("thing", "c-two")]
    got = {(h.round, h.variant, h.kind, h.call) for h in hits}
    # thing reaches rb_thing -> helper (sched_yield) and rb_noisy (printf, %' flag); rb_quiet prints to a file
    assert ("thing", "c", "yield", "sched_yield") in got
    assert ("thing", "c-two", "yield", "sched_yield") in got
    assert ("thing", "c", "print", "printf") in got
    assert any(k == "locale" and r == "thing" for r, _, k, _ in got)
    assert ("other", "c", "print", "fprintf(stderr)") in got
    assert ("other", "c", "forced-gc", "malloc_trim") in got
    assert ("other", "c", "sleep", "nanosleep") in got
    assert ("other", "c", "locale", "setlocale") in got
    assert ("other", "c", "print", "puts") in got  # other-serve: a helper of round other, timed whole
    # nothing from comments, strings, a stream that is not stdout/stderr, or outside the clocks
    assert not any(r == "thing" and c == "puts" for r, _, _, c in got)
    assert not any("fprintf(f" in c for _, _, _, c in got)
    assert not any(r == "thing" and c == "fprintf(stderr)" for r, _, _, c in got)
    assert not any(r == "thing" and k == "print" and c == "printf" and "after" in c for r, _, k, c in got)
    assert not any(r == "other" and k == "yield" for r, _, k, _ in got)  # waived


def test_c_scan_where_and_allows(tmp_path):
    waived = []
    (tmp_path / "csrc" / "runner").mkdir(parents=True)
    (tmp_path / "csrc" / "thing.c").write_text(C_CORE)
    (tmp_path / "csrc" / "runner" / "run_thing.c").write_text(C_RUN)
    hits, _ = scan.scan_c(tmp_path, [_fake_round("other", "c", allows=("sleep",))], waived)
    kinds = {h.kind for h in hits}
    assert "sleep" not in kinds and "forced-gc" in kinds
    (trim,) = [h for h in hits if h.kind == "forced-gc"]
    assert trim.where == "csrc/thing.c:15"
    assert [(h.kind, h.where) for h in waived] == [("yield", "csrc/runner/run_thing.c:21")]


# ---- the static scan: Go --------------------------------------------------------

GO_PKG = """\
package roundbench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"time"
)

func helper() { runtime.GC() }

// Pure is a variant's work, one call away from a forced collection.
func Pure(n int) int { helper(); return n }

func Napper() { time.Sleep(time.Millisecond) }

func Yielder() { runtime.Gosched() }

func Freer() { debug.FreeOSMemory() }

func Shouter() { fmt.Fprintln(os.Stderr, "x") }

// Quiet formats into a string: not printing.
func Quiet() string { return fmt.Sprintf("%d", 3) }

type W struct{}

// Step prints, reached only as a method.
func (W) Step() { println("step") }
"""
GO_RUNNER = """\
package main

import (
	"fmt"
	"log"
	"runtime"
	"time"

	"roundbench/go"
	"roundbench/go/internal/harness"
)

func main() { harness.Main() }

func init() {
	harness.Register("thing", "go", func(a *harness.Args) { harness.Timed(func() { roundbench.Pure(1) }) })
	harness.Register("thing", "go-quiet", func(a *harness.Args) {
		fmt.Println("set-up is not timed")
		harness.Timed(func() { _ = roundbench.Quiet() })
		runtime.GC() // after the timing: not timed
	})
	harness.Register("thing", "go-nap", runNap)
	harness.Register("thing", "go-method", func(a *harness.Args) {
		var w roundbench.W
		harness.Timed(func() { w.Step() })
	})
	harness.RegisterHelper("thing", "go-server", func(a *harness.Args) { log.Printf("request") })
	harness.Register("thing", "go-waived", func(a *harness.Args) {
		harness.Timed(func() {
			// scan: allow yield: a planted waiver
			runtime.Gosched()
		})
	})
}

func runNap(a *harness.Args) {
	t0 := time.Now()
	roundbench.Napper()
	roundbench.Yielder()
	roundbench.Freer()
	roundbench.Shouter()
	_ = time.Now().Sub(t0)
}
"""


@pytest.fixture(scope="module")
def rb_scan():
    """build/rb-scan, built here if make build has not."""
    built = ROOT / "build" / "rb-scan"
    if built.exists():
        return built
    if not shutil.which("go"):
        pytest.skip("no Go toolchain")
    return None


def _go_scan(tmp_path, tool):
    (tmp_path / "go" / "cmd" / "rb-go" / "thing").mkdir(parents=True)
    (tmp_path / "go" / "thing.go").write_text(GO_PKG)
    (tmp_path / "go" / "cmd" / "rb-go" / "thing" / "thing.go").write_text(GO_RUNNER)
    cmd = [str(tool), str(tmp_path)] if tool else ["go", "run", "./go/cmd/rb-scan", str(tmp_path)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_go_scan_finds_the_planted(tmp_path, rb_scan):
    out = _go_scan(tmp_path, rb_scan)
    names = ("go", "go-quiet", "go-nap", "go-method", "go-server", "go-waived")
    r = _fake_round("thing", *names)
    waived = []
    hits, scanned = scan.parse_go_output(out, [r], waived)
    assert [(h.variant, h.kind) for h in waived] == [("go-waived", "yield")]
    assert sorted(scanned) == sorted(("thing", n) for n in names)
    got = {(h.variant, h.kind, h.call) for h in hits}
    assert ("go", "forced-gc", "runtime.GC") in got
    assert ("go-nap", "sleep", "time.Sleep") in got
    assert ("go-nap", "yield", "runtime.Gosched") in got
    assert ("go-nap", "forced-gc", "runtime/debug.FreeOSMemory") in got
    assert ("go-nap", "print", "fmt.Fprintln(os.Stderr)") in got
    assert ("go-method", "print", "println") in got
    assert ("go-server", "print", "log.Printf") in got
    assert not any(v in ("go-quiet", "go-waived") for v, _, _ in got)
    (gc,) = [h for h in hits if h.variant == "go"]
    assert gc.where == "go/thing.go:11"


def test_go_scan_allows(tmp_path, rb_scan):
    out = _go_scan(tmp_path, rb_scan)
    hits, _ = scan.parse_go_output(out, [_fake_round("thing", "go-nap", allows=("sleep", "yield"))])
    assert {h.kind for h in hits} == {"forced-gc", "print"}


def test_go_scan_refuses_a_missing_tree(tmp_path, rb_scan):
    cmd = [str(rb_scan), str(tmp_path)] if rb_scan else ["go", "run", "./go/cmd/rb-scan", str(tmp_path)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 1 and "rb-scan:" in p.stderr


def test_whole_scan_of_the_suite():
    """All three languages scanned; the result is one check and a line per
    variant with hits."""
    from roundbench import rounds

    checks, items = scan.provenance(rounds.all_rounds())
    (main,) = [c for c in checks if c.name == "timed-code"]
    assert "variants scanned" in main.value
    for k, v in items.items():
        assert k.startswith("scan-") and "/" in k and " at " in v
    # The suite's own timed code has no finding left: each is fixed, or
    # waived where it is with the reason (`scan: allow KIND: why`).
    assert not items, items
    assert main.status == "ok", main


# ---- concurrency models and resources --------------------------------------------


def test_every_concurrency_variant_declares_its_model():
    from roundbench import rounds

    for name in ("sleep", "chain", "cores", "http"):
        r = rounds.get(name)
        missing = [v.name for v in r.variants if v.name not in r.models]
        assert not missing, f"{name}: no model for {missing}"
        assert set(r.models.values()) <= set(rounds.MODELS)


def test_a_bad_model_is_refused():
    with pytest.raises(ValueError, match="variant c: model 'fibers' is none of"):
        Variant("c", "rb-c", model="fibers")
    rnd = Round("r", "r", "", [Variant("c", "rb-c", model="stackful"), Variant("go", "rb-go")], [{}], [{}], "ns/op")
    assert rnd.models == {"c": "stackful"}  # declared on each variant, read by the round


def test_resources_mismatch_is_a_warning():
    from roundbench.measure import placement
    from roundbench.run.plans import Plan

    one = Variant("c", "rb-c", threads="one")
    many = Variant("c-threads", "rb-c", threads="many")
    go = Variant("go", "rb-go", threads="one", env=lambda p: {"GOMAXPROCS": "2"})
    blas1 = Variant("py-numpy", "python", env=lambda p: {"OPENBLAS_NUM_THREADS": "1"})
    blas2 = Variant("c-blas", "rb-c", env=lambda p: {"OPENBLAS_NUM_THREADS": "2"})
    r = Round("r", "r", "", [one, many, go, blas1, blas2], [{}], [{}], "ns/op")
    pl = placement.plan("pinned", usable={0, 1})
    (same,) = fairness.resource_checks([Plan(r, {"n": 1}, [one, blas1], [])], pl)
    assert same.status == "ok"
    (c,) = fairness.resource_checks([Plan(r, {"n": 1}, [one, many, go, blas1, blas2], [])], pl)
    assert c.status == "warn"
    assert "r n=1: CPUs" in c.value and "c-threads" in c.value
    assert "BLAS threads py-numpy 1, c-blas 2" in c.value
    # a lone Go variant has no other GOMAXPROCS to differ from
    assert "GOMAXPROCS" not in c.value


def test_report_labels_models_and_quotes_memory_across_models(tmp_path):
    from roundbench.results import benchfmt

    text = textwrap.dedent("""\
        goos: linux
        BenchmarkSleep/impl=go/n=1000 1 1000 ns/op 1000 overhead-ns 4000000 peak-B
        BenchmarkSleep/impl=go/n=1000 1 1000 ns/op 1000 overhead-ns 4000000 peak-B
        BenchmarkSleep/impl=py-asyncio/n=1000 1 3000 ns/op 3000 overhead-ns 9000000 peak-B
        BenchmarkSleep/impl=py-asyncio/n=1000 1 3000 ns/op 3000 overhead-ns 9000000 peak-B
        """)
    (tmp_path / "results.txt").write_text(text)
    out = document.render(benchfmt.read_dir(tmp_path), "x")
    assert "| go | [stackful] goroutines" in out
    assert "| py-asyncio | [event-loop] coroutines" in out
    assert "peak RSS 3.8 MiB" in out and "peak RSS 8.6 MiB" in out
    assert (
        "across concurrency models: stackless coroutines or callbacks on an event loop (py-asyncio) against stackful"
        in out
    )


def test_run_prints_its_fairness_warnings_before_the_first_run(tmp_path):
    """The runtime-age warning (and every other) is printed when the run
    starts, and is the result file's fairness-runtime-age line."""
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "roundbench", "run", "loop", "--impl", "py", "--runs", "1", "--quick"]
        + ["--out", str(out), "--no-report"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "python")},
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    lines = (out / "results.txt").read_text().splitlines()
    (age,) = [ln for ln in lines if ln.startswith("fairness-runtime-age: ")]
    status, finding, fix = checks.parse_line(age.split(": ", 1)[1])
    if status == "warn":
        assert f"roundbench: fairness warning: {finding} (fix: {fix})" in p.stderr
        assert p.stderr.index("fairness warning") < p.stderr.index("loop n=")
    (line,) = [ln for ln in lines if ln.startswith("fairness: ")]
    for item in line.split(": ", 1)[1].split("; "):
        assert f"roundbench: fairness warning: {item}" in p.stderr
    # the fairness line's separator never appears inside one finding
    for ln in lines:
        if ln.startswith(("fairness-", "machine-")):
            status, finding, fix = checks.parse_line(ln.split(": ", 1)[1])
            if status == "warn":
                assert "; " not in finding + fix, ln


# ---- expert tools on one side --------------------------------------------------


def _tool_round(name: str, variants: list, **kw):
    from roundbench.rounds import Param, Round

    return Round(
        name=name,
        title=name,
        explain="A round with expert tools.",
        variants=variants,
        sizes=[{"n": 1}],
        quick=[{"n": 1}],
        params=[Param("n", "the size", 0, 10)],
        metric="ns/op",
        units={"ns/op": "lower"},
        **kw,
    )


def test_an_expert_tool_on_one_side_only_is_a_warning():
    """A planted asymmetry: Python decodes in batches, Go line by line. The
    check warns and names the variant; a round that says what stands for it
    on the Go side passes; a tool both sides bring is no asymmetry."""
    from roundbench.rounds import Variant
    from roundbench.run.plans import Plan

    def plans(**kw):
        rnd = _tool_round(
            "planted",
            [
                Variant("go", "rb-go", "one line at a time"),
                Variant("py", "python", "one line at a time"),
                Variant("py-fastlib-batch", "python", "64 KiB blocks a call"),
            ],
            **kw,
        )
        return [Plan(rnd, {"n": 1}, list(rnd.variants), [])]

    check = fairness.tool_check(plans())
    assert check.status == "warn"
    assert check.value == (
        "an expert tool on one side only: planted: Python has batch decoding, many records a call "
        "(py-fastlib-batch), Go has no counterpart"
    )
    declared = fairness.tool_check(plans(counterparts={"batch": {"go": "Go's decoder streams the whole log"}}))
    assert declared.status == "ok" and "Go: Go's decoder streams the whole log" in declared.value
    both = _tool_round(
        "both",
        [Variant("go-bulk", "rb-go", "batches", tools=("batch",)), Variant("py-fastlib-batch", "python", "batches")],
    )
    assert fairness.tool_asymmetries([Plan(both, {"n": 1}, list(both.variants), [])]) == ([], [])
    with pytest.raises(ValueError, match="tool 'turbo' is none of"):
        Variant("go-x", "rb-go", "x", tools=("turbo",))


def test_the_suites_expert_tools_each_have_their_counterpart_but_batch_json():
    """The suite as declared: a JIT, compilers, PGO and GOAMD64=v3 each have
    the other language's answer; Python's batch JSON has no Go counterpart
    yet (issue 60), and the check says so."""
    from roundbench import rounds
    from roundbench.run.plans import Plan

    plans = [Plan(r, {}, list(r.variants), []) for r in rounds.all_rounds()]
    missing, covered = fairness.tool_asymmetries(plans)
    assert missing == [
        "jsonl: Python has batch decoding, many records a call (py-msgspec-batch), Go has no counterpart"
    ]
    assert any(c.startswith("loop: Python has a JIT compiler (py-numba); Go: Go is compiled ahead") for c in covered)
    assert any(
        c.startswith("loop: Go has a profile-guided build (go-pgo, go-pgo-v3); Python: CPython has no") for c in covered
    )


# ---- what a PGO profile was trained on -------------------------------------------


def test_a_pgo_profile_says_what_it_was_taken_from_and_warns_when_stale(tmp_path):
    """A fake module: the loop's Go source and its profile's record. No
    record, a record of the measured input, and a source edited since the
    profile was taken each warn; a record of another input from the
    current source passes."""
    from roundbench import rounds
    from roundbench.run.plans import Plan
    from roundbench.runtimes import programs

    (tmp_path / "go" / "cmd" / "rb-go" / "loop").mkdir(parents=True)
    (tmp_path / "go" / "pgo").mkdir()
    src = tmp_path / "go" / "cmd" / "rb-go" / "loop" / "loop.go"
    src.write_text("package main\n")
    (tmp_path / "go" / "loop.go").write_text("package roundbench\n")
    loop = rounds.get("loop")
    twins = [v for v in loop.variants if v.name in ("go", "go-pgo")]
    assert [v.name for v in twins] == ["go", "go-pgo"]
    plans = [Plan(loop, {"n": 20000000}, twins, [])]

    check = fairness.pgo_check(plans, tmp_path)
    assert check.status == "warn" and check.value == "go/pgo/loop.pgo has no record of what it was taken from"

    def record(inp: str) -> None:
        (tmp_path / "go" / "pgo" / "loop.pgo.txt").write_text(
            "# test\nround: loop\nvariant: go\n"
            f"input: {inp}\nruns: 3\ngo: go1.26.8\nsource-sha256: {programs.go_source_hash(tmp_path, 'loop')}\n"
        )

    record("n=20000000")
    check = fairness.pgo_check(plans, tmp_path)
    assert check.status == "warn" and "taken from n=20000000, an input this run measures" in check.value
    record("n=900000000")
    check = fairness.pgo_check(plans, tmp_path)
    assert check.status == "ok" and "go/pgo/loop.pgo from n=900000000 (3 runs, go1.26.8)" in check.value
    src.write_text("package main\n\n// edited since the profile\n")
    check = fairness.pgo_check(plans, tmp_path)
    assert check.status == "warn" and "go/pgo/loop.pgo is stale: round loop's Go source has changed" in check.value
    assert fairness.pgo_check([Plan(loop, {"n": 1}, twins[:1], [])], tmp_path) is None


def test_the_committed_pgo_profiles_have_records_of_another_input():
    """Every profile in go/pgo/ has its record, taken from another input
    than the default sizes' (whether it is current is the run's fairness
    check, which warns: an edit to a round's Go code needs `make
    pgo-profiles`, not a red test)."""
    from roundbench import rounds
    from roundbench.run.plans import Plan
    from roundbench.runtimes import programs

    plans = []
    for name in ("loop", "temps", "jsonl", "aspects"):
        rnd = rounds.get(name)
        plans += [Plan(rnd, size, list(rnd.variants), []) for size in rnd.sizes]
    check = fairness.pgo_check(plans)
    assert "no record" not in check.value and "an input this run measures" not in check.value, check.value
    for name in ("loop", "temps", "jsonl", "aspects"):
        rec = programs.pgo_record(programs.go_module(), f"go/pgo/{name}.pgo")
        assert rec["round"] == name and rec["input"] and int(rec["runs"]) >= 1
        assert len(rec["source-sha256"]) == 64
