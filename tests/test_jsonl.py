"""Round jsonl: every Python-side variant and the core against the shared
vectors (testdata/jsonl_vectors.txt), a generated log with every bad-line
kind (every variant agrees with the others and with the generator), files
of zero and one byte, a missing file, and deep nesting; the variants of the
Go and C library programs against the vectors and mutated lines through
their programs (each checks its own result), a line at a time where they
disagree."""

import os
import threading
import time
import re
import subprocess
import sys

import pytest

import roundbench
from roundbench.rounds.jsonl import genlog, libraries, published
from roundbench.pure import jsonl as pure
from roundbench.rounds import jsonl as rnd
from roundbench.run import launch

from conftest import BUILD, ROOT, child_env

VECTORS = ROOT / "testdata" / "jsonl_vectors.txt"


def _decode(payload: str) -> bytes:
    def repeat(m):
        return m.group(2) * int(m.group(1))

    out = re.sub(r"%\{(\d+)\*([^}]*)\}", repeat, payload)
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), out.encode("latin-1"))


def load(kind: str) -> list:
    out = []
    for raw in VECTORS.read_text().splitlines():
        if not raw or raw.startswith("#"):
            continue
        head, _, rest = raw.partition(" ")
        if head != kind:
            continue
        expect, _, payload = rest.partition(" ")
        out.append((expect, _decode(payload), payload[:40]))
    assert out, f"no {kind} vectors"
    return out


LINES = load("line")
DOCS = load("doc")


def _write(tmp_path, data: bytes, name="log.jsonl"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _refusal(kernel: str):
    """None when the core runs `kernel` here, else its reason (ValueError's text)."""
    try:
        roundbench.jsonl_kernel(kernel)
        return None
    except ValueError as e:
        return str(e)
    finally:
        roundbench.jsonl_kernel("auto")


# The core's kernels, slowest first; those this CPU runs must all give the
# same results (every test below runs each), the others are skipped by
# test_kernel_runs_where_the_cpu_can with the core's reason.
ALL_KERNELS = ("scan", "sse2", "avx2", "avx512")
KERNELS = [k for k in ALL_KERNELS if _refusal(k) is None]
# What each x86-64 kernel needs, as /proc/cpuinfo's flags name it.
KERNEL_CPU_FLAGS = {"sse2": {"sse2"}, "avx2": {"avx2"}, "avx512": {"avx512f", "avx512bw", "bmi1", "bmi2"}}


def _with_kernel(kernel, f, *args):
    roundbench.jsonl_kernel(kernel)
    try:
        return f(*args)
    finally:
        roundbench.jsonl_kernel("auto")


def _counters():
    out = {
        "py": pure.count_file,
        "py-c": roundbench.jsonl_count_file,
        "py-c-buffer": lambda p: roundbench.jsonl_count_buffer(open(p, "rb").read()),
    }
    for k in KERNELS:
        out[f"py-c/{k}"] = lambda p, k=k: _with_kernel(k, roundbench.jsonl_count_file, p)
    try:
        import orjson  # noqa: F401

        out["py-orjson"] = libraries.count_file_orjson
    except ImportError:
        pass
    try:
        import msgspec  # noqa: F401

        out["py-msgspec"] = libraries.count_file_msgspec
        out["py-msgspec-batch"] = libraries.count_file_msgspec_batch
        # Blocks of a few bytes: most lines fall on a block's edge or alone.
        out["py-msgspec-batch/7"] = lambda p: libraries.count_file_msgspec_batch(p, 7)
    except ImportError:
        pass
    try:
        import simdjson  # noqa: F401

        out["py-simdjson"] = libraries.count_file_simdjson
    except ImportError:
        pass
    return out


COUNTERS = _counters()

# The Python library variants' line classifiers, judged line by line.
CLASSIFIERS = {
    name: make
    for name, make in (
        ("py-orjson", libraries.orjson_classifier),
        ("py-msgspec", libraries.msgspec_classifier),
        ("py-simdjson", libraries.simdjson_classifier),
    )
    if name in COUNTERS
}


def test_library_variants_present():
    """orjson, msgspec and pysimdjson are in requirements-dev.txt: their absence is a setup failure."""
    assert {"py-orjson", "py-msgspec", "py-simdjson"} <= set(COUNTERS)


@pytest.mark.parametrize("impl", list(COUNTERS))
@pytest.mark.parametrize("v", LINES, ids=lambda v: f"{v[0]}:{v[2]}")
def test_line_vectors(tmp_path, impl, v):
    expect, payload, _ = v
    for suffix in (b"\n", b"\r\n", b""):
        data = payload + suffix
        r = COUNTERS[impl](_write(tmp_path, data))
        if not data:
            assert r["lines"] == 0
            continue
        assert r["lines"] == 1, suffix
        if expect == "blank":
            assert (r["blank"], r["valid"], r["invalid"]) == (1, 0, 0), suffix
        elif re.fullmatch(r"-?\d+", expect):
            assert r["statuses"] == {int(expect): 1} and r["valid"] == 1, (suffix, r)
        else:
            assert r["reported"] == [(1, expect)] and r["invalid"] == 1, (suffix, r)


@pytest.mark.parametrize("impl", list(COUNTERS))
@pytest.mark.parametrize("v", DOCS, ids=lambda v: f"{v[0]}:{v[2]}")
def test_doc_vectors(tmp_path, impl, v):
    expect, payload, _ = v
    r = COUNTERS[impl](_write(tmp_path, payload))
    assert f"{r['lines']}/{r['blank']}/{r['valid']}/{r['invalid']}" == expect


def test_all_vectors_in_one_file(tmp_path):
    """Every line vector in one file: the counts add up, only the first 100
    invalid lines are reported, and every variant gives the same result."""
    data = b"".join(p + b"\n" for _, p, _ in LINES) * 2
    path = _write(tmp_path, data)
    results = {impl: rnd.result_text(f(path)) for impl, f in COUNTERS.items()}
    assert len(set(results.values())) == 1, results
    r = roundbench.jsonl_count_file(path)
    invalid = 2 * sum(e in ("invalid-json", "not-object", "no-status") for e, _, _ in LINES)
    assert r["invalid"] == invalid > 100
    assert len(r["reported"]) == 100
    assert r["bytes"] == len(data)


def test_generated_log_every_kind_every_variant(built, tmp_path):
    """A small log with a high rate of every bad-line kind: all seven variants,
    through their child runners, print the generator's expected result."""
    path = tmp_path / "log.jsonl"
    want = genlog.generate(path, lines=3000, seed=7, bad_rate=0.2)
    assert "invalid=" in want
    env = child_env()
    env[rnd.FILE_ENV] = str(path)
    # The published programs stop at the first bad line: their own tests below.
    for v in [v for v in rnd.ROUND.variants if not v.name.endswith("-published")]:
        cmd = launch.command(rnd.ROUND, v, {"lines": 3000})
        for kernel in KERNELS if v.name in ("c", "py-c", "go-c") else [None]:
            if kernel:  # the core's variants once with each kernel
                env["ROUNDBENCH_JSONL_KERNEL"] = kernel
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
            env.pop("ROUNDBENCH_JSONL_KERNEL", None)
            assert out.returncode == 0, (v.name, kernel, out.stderr)
            assert f"result: {want}\n" in out.stdout, (v.name, kernel)
        assert re.search(
            rf"^BenchmarkJsonl/impl={v.name}/lines=3000 1 \d+ ns/op [\d.e+]+ MB/s \d+ invalid-lines$", out.stdout, re.M
        ), out.stdout


def test_a_wrong_expectation_fails_the_run(built, tmp_path):
    """A variant checks its result against the generator's: exit 3 when wrong."""
    path = tmp_path / "log.jsonl"
    genlog.generate(path, lines=50, seed=3)
    (tmp_path / "log.jsonl.expect").write_text(
        "lines=1 blank=0 valid=1 invalid=0 statuses=200:1 reported=0:cbf29ce484222325\n"
    )
    env = child_env()
    env[rnd.FILE_ENV] = str(path)
    cmds = [
        [str(BUILD / "rb-c"), "jsonl", "c"],
        [str(BUILD / "rb-go-jsonl"), "jsonl", "go"],
        [sys.executable, "-m", "roundbench.run.child", "jsonl", "py"],
    ]
    # The library variants of programs of their own, where they run here.
    for impl in ("go-jsonv2", "c-simdjson"):
        v = rnd.ROUND.variant(impl)
        if launch.unavailable(rnd.ROUND, v) is None:
            cmds.append(launch.command(rnd.ROUND, v, {}))
    for cmd in cmds:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
        assert out.returncode == 3, (cmd, out.stderr)
        assert "wrong result" in out.stderr


def test_generator_is_deterministic_and_cached(tmp_path):
    a = genlog.generate(tmp_path / "a", lines=500, seed=11, bad_rate=0.1)
    b = genlog.generate(tmp_path / "b", lines=500, seed=11, bad_rate=0.1)
    assert a == b and (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert genlog.generate(tmp_path / "c", lines=500, seed=12, bad_rate=0.1) != a
    p1 = genlog.cached(tmp_path / "data", 200, 5)
    mtime = p1.stat().st_mtime_ns
    assert genlog.cached(tmp_path / "data", 200, 5) == p1 and p1.stat().st_mtime_ns == mtime
    assert genlog.expected(p1) == rnd.result_text(roundbench.jsonl_count_file(p1))


@pytest.mark.parametrize("kind", [k for k in genlog.KINDS if k != "no-final-newline"])
def test_each_bad_kind_alone(tmp_path, kind):
    """Each kind, alone at a high rate: the C core agrees with the generator."""
    path = tmp_path / "log.jsonl"
    want = genlog.generate(path, lines=400, seed=5, bad_rate=0.5, kinds=[kind])
    assert rnd.result_text(roundbench.jsonl_count_file(path)) == want
    assert rnd.result_text(pure.count_file(path)) == want


def test_final_line_without_newline(tmp_path):
    path = tmp_path / "log.jsonl"
    want = genlog.generate(path, lines=30, seed=1, bad_rate=0.0, kinds=["no-final-newline"])
    assert not path.read_bytes().endswith(b"\n")
    for f in COUNTERS.values():
        assert rnd.result_text(f(path)) == want


def test_gen_log_command(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundbench",
            "gen-log",
            str(tmp_path / "g.jsonl"),
            "--lines",
            "100",
            "--seed",
            "2",
            "--bad-rate",
            "0.5",
            "--kinds",
            "truncated,blank",
        ],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "g.jsonl").read_bytes().count(b"\n") == 100
    assert out.stdout.strip() == (tmp_path / "g.jsonl.expect").read_text().strip()
    bad = subprocess.run(
        [sys.executable, "-m", "roundbench", "gen-log", str(tmp_path / "h"), "--kinds", "nope"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )
    assert bad.returncode == 2 and "--kinds 'nope': want one or more of" in bad.stderr


def test_empty_and_one_byte_files(tmp_path):
    for impl, f in COUNTERS.items():
        r = f(_write(tmp_path, b""))
        assert (r["lines"], r["invalid"], r["statuses"]) == (0, 0, {}), impl
        r = f(_write(tmp_path, b"7"))
        assert r["reported"] == [(1, "not-object")], impl
        r = f(_write(tmp_path, b"\n"))
        assert (r["lines"], r["blank"]) == (1, 1), impl


def test_missing_file_is_oserror(tmp_path):
    missing = tmp_path / "nope.jsonl"
    for f in COUNTERS.values():
        with pytest.raises(FileNotFoundError):
            f(missing)
    with pytest.raises(FileNotFoundError, match="jsonl_count_file\\(\\): cannot open .*nope.jsonl"):
        roundbench.jsonl_count_file(missing)
    with pytest.raises(IsADirectoryError):
        roundbench.jsonl_count_file(tmp_path)


def test_bad_arguments():
    with pytest.raises(TypeError, match="'buf'"):
        roundbench.jsonl_count_buffer("text")
    with pytest.raises(TypeError):
        roundbench.jsonl_count_file(3.5)
    with pytest.raises(ValueError):
        roundbench.jsonl_count_file("a\0b")


def test_deep_nesting_does_not_crash(tmp_path):
    """100,000 open brackets, then 100,000 closed ones, and the truncated
    form: invalid (deeper than 512), never a crash or a RecursionError."""
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"[" * 100_000 + b"\n" + b'{"a":' * 100_000 + b"\n"
    path = _write(tmp_path, deep)
    for impl, f in COUNTERS.items():
        r = f(path)
        assert r["reported"] == [(1, "invalid-json"), (2, "invalid-json"), (3, "invalid-json")], impl


def test_long_lines_both_sides_of_64k(tmp_path):
    for n in (65535, 65536, 65537, 200_000):
        line = b'{"s":"' + b"a" * (n - 19) + b'","status":1}'
        assert len(line) == n
        for impl, f in COUNTERS.items():
            r = f(_write(tmp_path, line + b"\n" + line + b"\n"))
            assert r["statuses"] == {1: 2}, (impl, n)


def test_buffer_count_lets_another_thread_run_while_it_works():
    """Above 64 KiB the count releases the GIL: a second Python thread keeps
    ticking during one call long enough (grown until it takes 0.1 s) that a
    thread shut out by a held GIL would not tick at all."""
    line = b'{"status":200}\n'
    lines = 1 << 20
    while True:
        data = line * lines
        t0 = time.perf_counter()
        roundbench.jsonl_count_buffer(data)
        if time.perf_counter() - t0 >= 0.1 or lines >= 1 << 26:
            break
        lines *= 4
    ticks = []
    started, stop = threading.Event(), threading.Event()

    def ticker():
        started.set()
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        started.wait()
        time.sleep(0.01)
        t0 = time.perf_counter()
        got = roundbench.jsonl_count_buffer(data)
        t1 = time.perf_counter()
    finally:
        stop.set()
        th.join()
    assert got["statuses"] == {200: lines}
    during = sum(1 for x in ticks if t0 < x < t1)
    assert during >= 10, f"the other thread ticked {during} times during a {t1 - t0:.2f} s count"
    assert roundbench.jsonl_count_buffer(memoryview(data)[:15])["valid"] == 1


def test_rules_constants():
    assert roundbench.JSONL_MAX_DEPTH == pure.MAX_DEPTH == 512
    assert roundbench.JSONL_MAX_REPORTED == pure.MAX_REPORTED == genlog.MAX_REPORTED == 100
    assert os.path.basename(VECTORS) == "jsonl_vectors.txt"


def _cpu_flags():
    """/proc/cpuinfo's flags, or None where there is no such file."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return None


@pytest.mark.parametrize("kernel", ALL_KERNELS)
def test_kernel_runs_where_the_cpu_can(kernel):
    """Each kernel runs here, or the core says what it needs; on x86-64
    Linux a kernel the CPU's flags allow must run (a refusal is a failure,
    not a skip), and one they do not allow is skipped with the core's reason."""
    why = _refusal(kernel)
    flags = _cpu_flags() if os.uname().machine == "x86_64" else None
    if flags is not None and kernel in KERNEL_CPU_FLAGS:
        assert (why is None) == (KERNEL_CPU_FLAGS[kernel] <= flags), (kernel, why)
    if why is not None:
        assert "needs" in why, why
        pytest.skip(f"kernel {kernel} does not run here: {why}")
    assert kernel in KERNELS


@pytest.mark.parametrize("kernel", ALL_KERNELS)
def test_provenance_names_the_kernel(monkeypatch, kernel):
    """The result file says which kernel ran, and warns when it is one a CPU
    without AVX2 falls back to."""
    monkeypatch.delenv("ROUNDBENCH_JSONL_KERNEL", raising=False)
    monkeypatch.setattr(roundbench._core, "jsonl_kernel", lambda: kernel)
    items, warnings = rnd.provenance()
    assert items["jsonl-kernel"].startswith(f"{kernel} (") and "?" not in items["jsonl-kernel"]
    assert any("lacks AVX2" in w for w in warnings) == (kernel in ("scan", "sse2")), warnings


def test_kernel_choice(monkeypatch):
    assert "scan" in KERNELS
    # auto takes the fastest kernel this CPU runs: the last one.
    assert roundbench.jsonl_kernel() == KERNELS[-1]
    assert roundbench.jsonl_kernel(None) in KERNELS
    assert _with_kernel("scan", roundbench.jsonl_kernel) == "scan"
    with pytest.raises(ValueError, match="argument 'name' must be a jsonl kernel .*, not 'bogus'"):
        roundbench.jsonl_kernel("bogus")
    with pytest.raises(TypeError, match="must be str or None"):
        roundbench.jsonl_kernel(3)
    with pytest.raises(TypeError):
        roundbench.jsonl_kernel("scan", "sse2")
    # Under "auto" the environment decides; a name it cannot run fails
    # every count, before it starts, naming the variable.
    monkeypatch.setenv("ROUNDBENCH_JSONL_KERNEL", "scan")
    assert roundbench.jsonl_kernel() == "scan"
    monkeypatch.setenv("ROUNDBENCH_JSONL_KERNEL", "bogus")
    with pytest.raises(ValueError, match="ROUNDBENCH_JSONL_KERNEL"):
        roundbench.jsonl_kernel()
    with pytest.raises(ValueError, match="ROUNDBENCH_JSONL_KERNEL"):
        roundbench.jsonl_count_buffer(b'{"status":200}\n')
    monkeypatch.delenv("ROUNDBENCH_JSONL_KERNEL")
    assert roundbench.jsonl_count_buffer(b'{"status":200}\n')["valid"] == 1


def test_speed_tool(built, tmp_path):
    """build/rb-jsonl-speed (make jsonl-speed): a line per kernel this CPU
    runs, every count checked against the generator's (exit 3 when wrong)."""
    path = tmp_path / "log.jsonl"
    genlog.generate(path, lines=2000, seed=4)
    tool = str(BUILD / "rb-jsonl-speed")
    out = subprocess.run([tool, str(path), "2"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert f"auto runs {KERNELS[-1]}" in out.stdout
    for k in KERNELS:
        assert re.search(rf"^{k} +[\d.]+ GB/s +[\d.]+ GB/s +[\d.]+ GB/s$", out.stdout, re.M), out.stdout
    bad = subprocess.run([tool, str(path), "1", "bogus"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "must be a jsonl kernel" in bad.stderr
    (tmp_path / "log.jsonl.expect").write_text("lines=1 blank=0 valid=1 invalid=0 statuses=200:1 reported=0:0\n")
    wrong = subprocess.run([tool, str(path), "1", "scan"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 3 and "kernel scan: wrong result" in wrong.stderr


def _mutated_lines() -> list:
    """Seeded random mutations of valid and vector lines (bytes flipped,
    inserted, deleted, cut), 4,000 of them."""
    import random

    rng = random.Random(2026)
    seeds = [p for _, p, _ in LINES if len(p) < 200] + [
        b'{"ts":1709251200,"method":"GET","path":"/a?q=1","status":200,"bytes":512,"ms":1.5e-3}',
        b'{"a":[1,{"b":null},"\\u00e9"],"status":-7,"c":{"d":[true,false]}}',
        # Lines of the shape the core's block index validates whole.
        b'{"ts":1709251200,"method":"GET","path":"/a?q=1","status":200,"bytes":512,"ms":1.5}',
        b'{"status":404,"ua":"Mozilla/5.0 (X11; Linux x86_64)","ms":0.25,"status":201}',
        b'{"status":200}',
    ]
    alphabet = b'{}[]:,"\\ \t\r0123456789.-+eEtrufalsn\x00\x1f\x7f\x80\xbf\xc2\xe0\xed\xf0\xf4\xffu'
    lines = []
    for _ in range(4000):
        b = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 3)):
            op = rng.random()
            i = rng.randrange(len(b) + 1)
            if op < 0.4 and b:
                b[min(i, len(b) - 1)] = rng.choice(alphabet)
            elif op < 0.7:
                b[i:i] = bytes([rng.choice(alphabet)])
            elif op < 0.9 and b:
                del b[min(i, len(b) - 1)]
            else:
                b = b[:i]
        lines.append(bytes(b).replace(b"\n", b" "))
    return lines


MUTATED = _mutated_lines()


def test_differential_mutations(built, tmp_path):
    """The mutated lines: the core (each kernel), the py rules and the
    Python libraries classify every one the same. A line at a time, so a
    disagreement names the line."""
    lines = MUTATED
    data = b"\n".join(lines) + b"\n"
    path = _write(tmp_path, data)
    core = roundbench.jsonl_count_file(path)
    assert core["lines"] == len(lines)
    # Compare line by line with the py rules, which spell out each reason.
    mismatches = []
    classifiers = {name: make() for name, make in CLASSIFIERS.items()}
    for n, line in enumerate(lines, 1):
        want = pure.classify(line)
        for kernel in KERNELS:
            got = _with_kernel(kernel, roundbench.jsonl_count_buffer, line + b"\n")
            if got["blank"]:
                g = (None, None)
            elif got["valid"]:
                g = (next(iter(got["statuses"])), None)
            else:
                g = (None, got["reported"][0][1])
            if g != want:
                mismatches.append((n, kernel, line, g, want))
        for name, classify in classifiers.items():
            g = classify(line + b"\n")
            if g != want:
                mismatches.append((n, name, line, g, want))
    assert not mismatches[:5], mismatches[:5]
    results = {impl: rnd.result_text(f(path)) for impl, f in COUNTERS.items()}
    assert len(set(results.values())) == 1, results
    assert 500 < core["invalid"] < 3900  # the mutations make both kinds


# ---- the variants of the Go and C programs, through their programs -----------

# Every variant a child program other than python runs: each checks its own
# result against FILE.expect on every run (exit 3 when wrong).
PROGRAM_VARIANTS = [v.name for v in rnd.ROUND.variants if v.program != "python"]
LIBRARY_PROGRAM_VARIANTS = ("go-jsonv2", "go-sonic", "go-fastjson", "c-simdjson")


def _run_program(impl: str, tmp_path, data: bytes, name: str = "chunk.jsonl"):
    """Runs variant impl once over data, expecting the py rules' result:
    None when it agrees, else what it said. Skips when the variant cannot
    run here (its program absent, or exit 4), saying why."""
    v = rnd.ROUND.variant(impl)
    why = launch.unavailable(rnd.ROUND, v)
    if why:
        pytest.skip(f"{impl} cannot run here: {why}")
    path = _write(tmp_path, data, name)
    (tmp_path / (name + ".expect")).write_text(rnd.result_text(pure.count_file(path)) + "\n")
    env = child_env()
    env[rnd.FILE_ENV] = str(path)
    env.pop(rnd.WARMUP_ENV, None)
    out = subprocess.run(launch.command(rnd.ROUND, v, {}), capture_output=True, text=True, env=env, timeout=120)
    if out.returncode == 4:
        pytest.skip(f"{impl} cannot run here: {out.stderr.strip()[-300:]}")
    if out.returncode == 0 and "result: " in out.stdout:
        return None
    return f"exit {out.returncode}: {out.stderr.strip()[-400:]}"


def _check_program_lines(impl: str, tmp_path, lines: list, suffix: bytes = b"\n"):
    """Variant impl over lines, 100 to a file (so that every invalid line is
    reported, and so hashed, with its reason); where a file disagrees, each
    of its lines alone, to name the line."""
    for start in range(0, len(lines), 100):
        chunk = lines[start : start + 100]
        if _run_program(impl, tmp_path, b"".join(line + suffix for line in chunk)) is None:
            continue
        for line in chunk:
            said = _run_program(impl, tmp_path, line + suffix)
            assert said is None, f"{impl} misjudges {line[:80]!r} + {suffix!r}: {said}"
        pytest.fail(f"{impl} disagrees on lines {start + 1}..{start + len(chunk)} together, on none alone")


@pytest.mark.parametrize("impl", PROGRAM_VARIANTS)
def test_program_variants_line_vectors(built, tmp_path, impl):
    lines = [p for _, p, _ in LINES]
    for suffix in (b"\n", b"\r\n"):
        _check_program_lines(impl, tmp_path, lines, suffix)


@pytest.mark.parametrize("impl", PROGRAM_VARIANTS)
def test_program_variants_doc_vectors(built, tmp_path, impl):
    for expect, payload, text in DOCS:
        said = _run_program(impl, tmp_path, payload)
        assert said is None, f"{impl} on doc {text!r} (want {expect}): {said}"


@pytest.mark.parametrize("impl", PROGRAM_VARIANTS)
def test_program_variants_mutations(built, tmp_path, impl):
    """The 4,000 mutated lines through each program's variant."""
    _check_program_lines(impl, tmp_path, MUTATED)


def test_library_programs_are_built(built):
    """Every library variant's program is built where its library is: a
    missing one is a build failure, not a skip (c-simdjson alone may lack
    its library, and then says so)."""
    for impl in LIBRARY_PROGRAM_VARIANTS:
        why = launch.unavailable(rnd.ROUND, rnd.ROUND.variant(impl))
        if impl == "c-simdjson" and why:
            assert "libsimdjson-dev" in why, why
            continue
        assert why is None, f"{impl}: {why}"


def test_read_error_says_how_far():
    def failing():
        yield b'{"status":200}\n'
        yield b"[1]\n"
        raise OSError(5, "Input/output error", "log.jsonl")

    with pytest.raises(OSError, match="after 2 lines") as e:
        pure.count_lines(failing())
    assert e.value.errno == 5 and e.value.filename == "log.jsonl"


# ---- the published programs, as published ------------------------------------------

PUBLISHED = [v.name for v in rnd.ROUND.variants if v.name.endswith("-published")]


def test_published_variants_declared():
    assert PUBLISHED == ["py-published", "go-published"]


def _published_child(impl, path, **params):
    """Runs a published variant's child on path; bad-rate=0 unless given."""
    env = child_env()
    env[rnd.FILE_ENV] = str(path)
    env.pop(rnd.WARMUP_ENV, None)
    params = {"lines": 0, "bad-rate": 0, **params}
    cmd = launch.command(rnd.ROUND, rnd.ROUND.variant(impl), {k: v for k, v in params.items() if v is not None})
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("lines", [0, 1, 7, 3000])
def test_published_count_agrees_with_the_generator_in_process(tmp_path, lines):
    path = tmp_path / "clean.jsonl"
    want = genlog.generate(path, lines=lines, seed=9, bad_rate=0.0)
    assert "invalid=0" in want and "blank=0" in want
    assert rnd.result_text(published.count_file_published(path)) == want


def test_clean_log_every_variant_side_by_side(built, tmp_path):
    """The clean size: every variant, the published ones included, through
    its child, prints the generator's result."""
    path = tmp_path / "clean.jsonl"
    want = genlog.generate(path, lines=3000, seed=4, bad_rate=0.0)
    env = child_env()
    env[rnd.FILE_ENV] = str(path)
    for v in rnd.ROUND.variants:
        out = subprocess.run(
            launch.command(rnd.ROUND, v, {"lines": 3000, "bad-rate": 0}),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert out.returncode == 0, (v.name, out.stderr)
        assert f"result: {want}\n" in out.stdout, v.name
        assert f"BenchmarkJsonl/impl={v.name}/lines=3000/bad-rate=0 1 " in out.stdout


def _log_with(tmp_path, *lines: bytes):
    """A log of these lines; its .expect is what the round's rules say."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    r = pure.count_file(path)
    (tmp_path / "log.jsonl.expect").write_text(rnd.result_text(r) + "\n")
    return path


GOOD = b'{"ts":1,"method":"GET","path":"/","status":200}'


@pytest.mark.parametrize("impl", PUBLISHED)
@pytest.mark.parametrize(
    "bad, why",
    [
        (b"GET /index.html HTTP/1.1 200", {"py-published": "JSONDecodeError", "go-published": "invalid character"}),
        (b"", {"py-published": "JSONDecodeError", "go-published": "unexpected end of JSON input"}),
        (b'{"status":200', {"py-published": "JSONDecodeError", "go-published": "unexpected end of JSON input"}),
        (b'{"status":200.5}', {"py-published": None, "go-published": "cannot unmarshal number 200.5"}),
        (b'{"method":"GET"}', {"py-published": "KeyError", "go-published": None}),
        (b'[{"status":200}]', {"py-published": "TypeError", "go-published": "cannot unmarshal array"}),
    ],
    ids=["not-json", "blank", "truncated", "status-float", "no-status", "not-object"],
)
def test_published_stops_at_the_first_bad_line(built, tmp_path, impl, bad, why):
    """The published behaviour: the first line it cannot read ends the
    count (exit 5, the file and line named); a line it misreads instead
    (Go counts a missing status as 0, Python a float status as a key)
    makes the result disagree with the rules' (exit 3)."""
    path = _log_with(tmp_path, GOOD, GOOD, bad, GOOD)
    out = _published_child(impl, path, lines=4)
    if why[impl] is None:
        assert out.returncode == 3, out.stderr
        assert "wrong result" in out.stderr
    else:
        assert out.returncode == 5, out.stderr
        assert f"{path}:3: the published program stops at its first bad line" in out.stderr
        assert why[impl] in out.stderr
        assert "Traceback" not in out.stderr
    assert "Benchmark" not in out.stdout


def test_published_go_stops_at_a_line_past_64k(built, tmp_path):
    """bufio.Scanner's default 64 KiB limit: a valid line of 70,000 bytes
    ends go-published's count; py-published reads it."""
    long = b'{"pad":"' + b"a" * 70_000 + b'","status":200}'
    path = _log_with(tmp_path, GOOD, long, GOOD)
    out = _published_child("go-published", path, lines=3)
    assert out.returncode == 5, out.stderr
    assert f"{path}:2: the published program stops at its first bad line (bufio.Scanner: token too long)" in out.stderr
    out = _published_child("py-published", path, lines=3)
    assert out.returncode == 0, out.stderr


def test_published_python_status_of_another_type_is_a_wrong_result(built, tmp_path):
    path = _log_with(tmp_path, GOOD, b'{"status":"200"}')
    out = _published_child("py-published", path, lines=2)
    assert out.returncode == 3, out.stderr
    assert "statuses that are not integers = \"'200'\"" in out.stderr


@pytest.mark.parametrize("impl", PUBLISHED)
@pytest.mark.parametrize("rate", [None, "0.0002", "1"])
def test_published_refuse_a_log_with_bad_lines(built, tmp_path, impl, rate):
    """At a size whose log has bad lines the published programs say they
    cannot run (a skip row), naming the clean size."""
    path = _log_with(tmp_path, GOOD)
    out = _published_child(impl, path, lines=1, **{"bad-rate": rate})
    assert out.returncode == 4, out.stderr
    assert "stops at the first bad line: it counts the clean log only (bad-rate=0)" in out.stderr


@pytest.mark.parametrize("impl", PUBLISHED)
def test_published_bad_rate_is_checked(built, tmp_path, impl):
    out = _published_child(impl, _log_with(tmp_path, GOOD), lines=1, **{"bad-rate": "lots"})
    assert out.returncode == 2 and "bad-rate=lots is not a share in [0, 1]" in out.stderr


def test_the_clean_size_runs_the_published_programs_only_there():
    from roundbench.run.plans import make_plans

    def names(p):
        return {v.name for v in p.variants} | {v.name for v, _ in p.skipped}

    # The clean log is a cell of --sizes all only.
    default = make_plans([rnd.ROUND], None, quick=False, overrides={})
    assert [p.params for p in default] == [{"lines": genlog.DEFAULT_LINES}]
    plans = make_plans([rnd.ROUND], None, quick=False, overrides={}, all_sizes=True)
    by_size = {tuple(sorted(p.params.items())): names(p) for p in plans}
    dirty = by_size[(("lines", genlog.DEFAULT_LINES),)]
    clean = by_size[(("bad-rate", 0), ("lines", genlog.DEFAULT_LINES))]
    assert not dirty & set(PUBLISHED)
    assert set(PUBLISHED) <= clean and dirty <= clean
    quick = make_plans([rnd.ROUND], None, quick=True, overrides={})
    assert any(set(PUBLISHED) <= names(p) for p in quick)


def test_clean_log_is_cached_by_its_rate(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDBENCH_BUILD", str(tmp_path))
    clean = rnd._make_logs({"lines": 50, "bad-rate": 0})
    dirty = rnd._make_logs({"lines": 50})
    assert clean[rnd.FILE_ENV] != dirty[rnd.FILE_ENV]
    for path in (clean[rnd.FILE_ENV], clean[rnd.WARMUP_ENV]):
        assert " invalid=0 " in genlog.expected(path) and " blank=0 " in genlog.expected(path)
    with pytest.raises(ValueError, match="bad-rate=2 is not a share"):
        rnd._make_logs({"lines": 50, "bad-rate": 2})


def test_msgspec_batch_decodes_clean_blocks_at_once_and_bad_ones_by_line(tmp_path, monkeypatch):
    pytest.importorskip("msgspec")
    clean = b"".join(b'{"status": %d, "path": "/a"}\n' % (200 + i % 3) for i in range(1000))
    bad = b'{"status": 1}\n\n{"status": 2, "x": "\xff"}\n[1]\n{"status": 99999999999999999999}\n'
    path = tmp_path / "log.jsonl"
    path.write_bytes(clean + bad + clean)
    per_line_calls = []
    real = libraries.msgspec_classifier

    def counting():
        classify = real()

        def spy(line):
            per_line_calls.append(line)
            return classify(line)

        return spy

    monkeypatch.setattr(libraries, "msgspec_classifier", counting)
    got = libraries.count_file_msgspec_batch(path, batch_bytes=4096)  # 4 KiB blocks: about 100 lines each
    assert got == pure.count_file(path)
    assert got["valid"] == 2001 and got["invalid"] == 3 and got["blank"] == 1
    # Only the block holding the bad lines went line by line.
    assert 5 <= len(per_line_calls) < 200, len(per_line_calls)
