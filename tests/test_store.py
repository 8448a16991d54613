"""The store (roundbench.store): a file is imported whole or not at all, and
once; truncated and edited files are refused with their line; queries by
terms; the export reads back as the file it came from. Every test runs on
SQLite and on a PostgreSQL server (scripts/pg.sh; .ci/run starts one and
sets ROUNDBENCH_TEST_PG_URL)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import urllib.parse
import uuid
from pathlib import Path

import pytest

from roundbench.errors import UsageError
from roundbench.results import benchfmt
from roundbench.store import db, ingest, query

from conftest import ROOT, child_env, run_roundbench

PG_SCRIPT = ROOT / "scripts" / "pg.sh"
# .ci/run sets it: there a missing server or driver fails instead of skipping.
PG_REQUIRED = os.environ.get("ROUNDBENCH_TEST_PG_REQUIRED") == "1"


# ---- the two engines -----------------------------------------------------------------


@pytest.fixture(scope="session")
def pg_base(tmp_path_factory):
    """A PostgreSQL server's URL: ROUNDBENCH_TEST_PG_URL's, else a throwaway
    server of Debian's packages started for this session."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if PG_REQUIRED:
            raise
        pytest.skip("psycopg is not installed (pip install 'roundbench[store-pg]'; make setup installs it)")
    url = os.environ.get("ROUNDBENCH_TEST_PG_URL")
    if url:
        yield url
        return
    where = Path("/tmp") / f"rb-pg-{uuid.uuid4().hex[:8]}"  # a socket path must stay short
    out = subprocess.run([str(PG_SCRIPT), "start", str(where)], capture_output=True, text=True, timeout=120)
    if out.returncode == 3 and not PG_REQUIRED:
        shutil.rmtree(where, ignore_errors=True)
        pytest.skip(out.stderr.strip())
    assert out.returncode == 0, out.stderr
    try:
        yield out.stdout.strip()
    finally:
        subprocess.run([str(PG_SCRIPT), "stop", str(where)], capture_output=True, timeout=120)
        shutil.rmtree(where, ignore_errors=True)


def _with_db(url: str, name: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    """A new, empty store on each engine."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.sqlite")
        return
    import psycopg

    base = request.getfixturevalue("pg_base")
    name = f"rbtest_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield _with_db(base, name)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _count(store, table: str) -> int:
    return store.one(f"SELECT COUNT(*) FROM {table}")[0]


# ---- result files: real ones from the runner, and synthetic ones ---------------------------


@pytest.fixture(scope="session")
def folders(tmp_path_factory, built):
    """Results folders as the project makes them: a run of the real rounds
    (C, Go and Python), a run with failures and their detail lines (the
    runner tests' faulty plugin), and a run on a user's own file."""
    base = tmp_path_factory.mktemp("store-folders")
    real = base / "real"
    out = run_roundbench(
        "run", "loop", "--quick", "--runs", "2", "--impl", "c", "--impl", "go", "--impl", "py", "--out", str(real)
    )
    assert out.returncode == 0, out.stderr[-2000:]
    faulty = base / "faulty"
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.faulty_round"
    out = run_roundbench("run", "faulty", "--runs", "1", "--timeout", "3", "--out", str(faulty), env=env)
    assert out.returncode == 1, out.stderr[-2000:]
    log = base / "my log.jsonl"
    log.write_bytes(b'{"status": 200}\n{"status": 404}\nnot json\n')
    user = base / "user"
    out = run_roundbench(
        "run", "jsonl", "--param", f"file={log}", "--impl", "c", "--impl", "py", "--runs", "1", "--out", str(user)
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return {"real": real, "faulty": faulty, "user": user}


def sealed_file(config: dict, body: list, seal: bool = True, end: bool = True) -> bytes:
    """A result file as the runner writes one: configuration, units, body,
    then the END record with the section's seal."""
    text = "".join(benchfmt.config_line(k, v) for k, v in config.items())
    text += benchfmt.unit_line("ns/op", "lower") + "\n" + "".join(line + "\n" for line in body)
    if end:
        digest = hashlib.sha256(text.encode()).hexdigest() if seal else None
        text += benchfmt.end_line("2026-12-01T00:10:00Z", 600, sha256=digest)
    return text.encode()


CONFIG = {
    "cpu": "AMD EPYC",
    "cpu-id": "AuthenticAMD family 25 model 17 stepping 1; avx2 avx512f",
    "cores": "2 online, 2 usable by this process",
    "kernel": "Linux 6.1.0 #1 SMP",
    "machine-memory": "info: 23.5 GiB, 23.0 free",
    "date": "2026-12-01T00:00:00Z",
    "roundbench-commit": "abc1234",
    "go-version": "go1.27.4",
    "python-key": "cpython-3.15.2",
}
BODY = [
    "BenchmarkLoop/impl=c/n=1000 1 1000 ns/op",
    "BenchmarkLoop/impl=go/n=1000 1 1100 ns/op",
    "BenchmarkLoop/impl=py/n=1000 1 50000 ns/op",
    "--- FAIL: BenchmarkLoop/impl=py-c/n=1000 (run 1): exit status 3",
    "    a detail line",
    "--- SKIP: BenchmarkLoop/impl=py-cffi/n=1000: cffi is not installed",
]


# ---- import -----------------------------------------------------------------------


def test_every_folder_the_project_makes_imports_once(target, folders):
    with db.open_store(target) as store:
        files = [f for d in folders.values() for f in ingest.files_under(d)]
        assert len(files) == 3
        for f in files:
            out = ingest.import_bytes(store, f.read_bytes(), str(f))
            assert out.added, out.why
            rs = benchfmt.read_dir(f)
            records = len(rs.runs) + len(rs.failures) + len(rs.skips) + len(rs.facts) + len(rs.stops) + len(rs.killed)
            assert out.lines == records > 0
            assert out.runs == 1 and "unsealed" not in out.why  # the runner seals what it writes
        counts = {t: _count(store, t) for t in ("files", "runs", "lines", "labels", "metrics", "config")}
        # A second import of everything adds nothing.
        for f in files:
            assert not ingest.import_bytes(store, f.read_bytes(), str(f)).added
        assert {t: _count(store, t) for t in counts} == counts
        # The file is kept whole.
        raw = store.one("SELECT raw, sha256 FROM files WHERE name = ?", (str(files[0]),))
        assert raw[0].encode() == files[0].read_bytes()
        assert raw[1] == hashlib.sha256(files[0].read_bytes()).hexdigest()
        # The failure's detail line and the user's file are indexed.
        detail = store.all("SELECT detail FROM lines WHERE kind = 'fail' AND variant = 'py-exit'")
        assert detail and "about to fail" in detail[0][0]
        assert store.all("SELECT 1 FROM labels WHERE key = 'file'")
        machines = store.all("SELECT cpu_id FROM machines")
        assert len(machines) == 1 and "family" in machines[0][0]


def test_a_truncated_file_is_refused_with_its_line_and_nothing_is_stored(target):
    data = sealed_file(CONFIG, BODY)
    cut_mid_line = data[: data.index(b"1100 ns/op") + 3]
    cut_at_line = data[: data.index(b"--- END")]
    with db.open_store(target) as store:
        with pytest.raises(ingest.Refused, match=r"^t.txt:13: the file ends in the middle of a line"):
            ingest.import_bytes(store, cut_mid_line, "t.txt")
        with pytest.raises(ingest.Refused, match=r"^t.txt:17: the section that starts at line 1 ends without"):
            ingest.import_bytes(store, cut_at_line, "t.txt")
        assert _count(store, "files") == _count(store, "runs") == _count(store, "lines") == 0
        # A killed run's file, taken as it is when asked.
        out = ingest.import_bytes(store, cut_at_line, "t.txt", allow_unended=True)
        assert out.added and "without its END record" in out.why
        assert store.one("SELECT sealed, ended FROM runs") == (0, "")


def test_an_edited_file_is_refused_at_the_line_that_shows_it(target):
    data = sealed_file(CONFIG, BODY)
    with db.open_store(target) as store:
        # A figure changed: the format still holds, the seal does not.
        edited = data.replace(b"1 50000 ns/op", b"1 40000 ns/op")
        with pytest.raises(ingest.Refused, match=r"^t.txt:18: the seal does not match lines 1-17: .*edited"):
            ingest.import_bytes(store, edited, "t.txt")
        # A line that is no line of the format.
        broken = data.replace(b"BenchmarkLoop/impl=go/n=1000 1 1100 ns/op", b"BenchmarkLoop/impl=go/n=1000 1 fast")
        with pytest.raises(ingest.Refused, match=r"^t.txt:13: malformed benchmark line"):
            ingest.import_bytes(store, broken, "t.txt")
        garbage = data.replace(b"--- SKIP:", b"--- SKIPPED")
        with pytest.raises(ingest.Refused, match=r"^t.txt:17: not a line of the result format"):
            ingest.import_bytes(store, garbage, "t.txt")
        with pytest.raises(ingest.Refused, match=r"^t.txt:2: not UTF-8"):
            ingest.import_bytes(store, data.replace(b"family 25", b"family \xff"), "t.txt")
        assert _count(store, "files") == 0
        # The file as written goes in.
        assert ingest.import_bytes(store, data, "t.txt").added


def test_a_file_from_before_seals_is_stored_and_marked_unsealed(target):
    old = sealed_file(CONFIG, BODY, seal=False)
    with db.open_store(target) as store:
        out = ingest.import_bytes(store, old, "old.txt")
        assert out.added and "unsealed" in out.why
        assert store.one("SELECT sealed FROM runs") == (0,)
        assert _count(store, "lines") == 5 and _count(store, "metrics") == 3


def test_machines_differ_by_any_part_of_the_fingerprint(target):
    other_cpu = dict(CONFIG, **{"cpu-id": "AuthenticAMD family 23 model 1 stepping 2; avx2"})
    more_cores = dict(CONFIG, cores="16 online, 16 usable by this process")
    same = dict(CONFIG, date="2026-12-02T00:00:00Z", loadavg="0.5")
    with db.open_store(target) as store:
        for i, cfg in enumerate((CONFIG, other_cpu, more_cores, same)):
            ingest.import_bytes(store, sealed_file(cfg, BODY), f"{i}.txt")
        fps = [r.machine for r in query.runs(store, query.Terms())]
        assert len(fps) == 4 and len(set(fps)) == 3
        assert fps[0] == fps[3]
    old = {k: v for k, v in CONFIG.items() if k != "cpu-id"}
    old["jsonl-kernel"] = "avx512 (block index with AVX-512)"
    m = ingest.machine_of(old)
    assert m["cpu_id"] == "not recorded" and m["simd"].startswith("the jsonl kernel avx512")
    assert m["fingerprint"] != ingest.machine_of(CONFIG)["fingerprint"]


def test_several_sections_of_one_file_are_several_runs(target):
    two = sealed_file(CONFIG, BODY) + sealed_file(dict(CONFIG, **{"go-version": "go1.26.8"}), BODY[:3])
    with db.open_store(target) as store:
        out = ingest.import_bytes(store, two, "two.txt")
        assert out.runs == 2 and out.lines == 8
        assert [(r.section, r.go, r.first_line) for r in query.runs(store, query.Terms())] == [
            (1, "1.27.4", 1),
            (2, "1.26.8", 19),
        ]


# ---- queries and the export ------------------------------------------------------------


def _fill(store) -> None:
    variants = [
        dict(CONFIG),
        dict(CONFIG, **{"go-version": "go1.26.8", "date": "2026-11-01T00:00:00Z", "jsonl-kernel": "avx2 (x)"}),
        dict(CONFIG, **{"python-key": "pypy-7.3.11", "cpu": "Intel Xeon", "cpu-id": "GenuineIntel family 6 model 85"}),
    ]
    for i, cfg in enumerate(variants):
        ingest.import_bytes(store, sealed_file(cfg, BODY), f"f{i}.txt")


@pytest.mark.parametrize(
    "terms, want",
    [
        ([], ["f1.txt", "f0.txt", "f2.txt"]),
        (["go:1.27"], ["f0.txt", "f2.txt"]),
        (["go:1.26", "go:1.27.4"], ["f1.txt", "f0.txt", "f2.txt"]),
        (["go:1.2"], []),
        (["python:3.15"], ["f1.txt", "f0.txt"]),
        (["python:pypy"], ["f2.txt"]),
        (["python:cpython-3.15"], ["f1.txt", "f0.txt"]),
        (["cpu:xeon"], ["f2.txt"]),
        (["cpu:family 25", "go:1.27"], ["f0.txt"]),
        (["date:2026-11"], ["f1.txt"]),
        (["since:2026-11-15", "until:2026-12-01"], ["f0.txt", "f2.txt"]),
        (["jsonl-kernel:avx2"], ["f1.txt"]),
        (["commit:abc"], ["f1.txt", "f0.txt", "f2.txt"]),
        (["commit:def"], []),
    ],
)
def test_terms_select_runs(target, terms, want):
    with db.open_store(target) as store:
        _fill(store)
        got = [r.file_name for r in query.runs(store, query.parse_terms(terms))]
    assert got == want


def test_a_bad_term_is_a_usage_error():
    with pytest.raises(UsageError, match="KEY:VALUE"):
        query.parse_terms(["loop"])


def test_the_export_reads_back_as_the_file_it_came_from(target, folders, tmp_path):
    src = folders["real"] / "results.txt"
    with db.open_store(target) as store:
        ingest.import_bytes(store, src.read_bytes(), str(src))
        fp = query.runs(store, query.Terms())[0].machine
        text, chosen = query.export(store, query.parse_terms([f"machine:{fp[:5]}"]))
        only_py, _ = query.export(store, query.parse_terms(["variant:py"]))
    assert len(chosen) == 1
    orig, back = benchfmt.read_dir(src), benchfmt.parse_lines(text.splitlines(keepends=True))
    assert [(r.name, r.iters, r.metrics) for r in back.runs] == [(r.name, r.iters, r.metrics) for r in orig.runs]
    assert back.configs[0]["store-source"].startswith(f"{src} sha256 {hashlib.sha256(src.read_bytes()).hexdigest()}")
    assert back.units == orig.units and back.ends[0].seconds == orig.ends[0].seconds and back.ends[0].sha256 is None
    py = benchfmt.parse_lines(only_py.splitlines(keepends=True))
    assert py.runs and {r.params["impl"] for r in py.runs} == {"py"}
    # The report reads the export as it reads the runner's file.
    out_dir = tmp_path / "exported"
    out_dir.mkdir()
    (out_dir / "results.txt").write_text(text)
    done = run_roundbench("report", str(out_dir))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "## loop" in (out_dir / "report.md").read_text()


# ---- the command line ---------------------------------------------------------------------


def test_the_command_line_imports_lists_exports_and_refuses(target, folders, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.txt").write_bytes(sealed_file(CONFIG, BODY).replace(b"1 1000 ns/op", b"1 999 ns/op"))
    first = run_roundbench("store", "import", "--store", target, str(folders["real"]), str(folders["user"]))
    assert first.returncode == 0, first.stderr
    assert "2 added, 0 already there, 0 refused" in first.stderr
    again = run_roundbench("store", "import", "--store", target, str(folders["real"]), str(bad))
    assert again.returncode == 1
    assert "0 added, 1 already there, 1 refused" in again.stderr
    assert f"refused {bad / 'results.txt'}:18: the seal does not match" in again.stderr
    listed = run_roundbench("store", "list", "--store", target, "round:loop")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("sealed") == 1 and " loop " in listed.stdout  # the run that has loop's lines
    none = run_roundbench("store", "list", "--store", target, "go:0.1")
    assert none.returncode == 1 and "no runs match go:0.1" in none.stderr
    out_file = tmp_path / "x.txt"
    exp = run_roundbench("store", "export", "--store", target, "round:jsonl", "-o", str(out_file))
    assert exp.returncode == 0, exp.stderr
    got = benchfmt.read_dir(out_file)
    assert got.runs and {r.round for r in got.runs} == {"jsonl"}
    machines = run_roundbench("store", "machines", "--store", target)
    assert machines.returncode == 0 and "2 run(s)" in machines.stdout


def test_the_store_is_where_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_STORE", str(tmp_path / "a.sqlite"))
    assert db.where() == str(tmp_path / "a.sqlite")
    assert db.where("postgresql://u@h/db") == "postgresql://u@h/db"
    monkeypatch.delenv("ROUNDBENCH_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert db.where() == str(tmp_path / "data" / "roundbench" / "store.sqlite")
    with pytest.raises(UsageError, match="no such store"):
        db.open_store(str(tmp_path / "none.sqlite"), create=False)
