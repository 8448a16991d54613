"""Round jsonl: count HTTP statuses in a JSON Lines access log.

The log (1,000,000 lines, about 76 MB, 0.02% bad or awkward lines of every
kind) is generated once per (lines, seed, generator) by genlog.py
into the build directory, untimed, by the Variant.make_inputs hook the runner calls
before each child; the child finds it in $ROUNDBENCH_JSONL_FILE and the
expected result, which the generator knows line by line, beside it.

Every child first counts a small warm-up log (the same generator, 20,000
lines, another seed) untimed and checks it, then reads the real log once
into the page cache, then times one count.

Variants: c (the core reads the file: read(2) in 256 KiB chunks), py-c and
go-c (the same core function, handed the path through each binding: the
core opens and reads the file), py (json module), py-orjson, py-msgspec
(decoding into a Struct with just the status field), py-simdjson
(pysimdjson), go (encoding/json into a struct with just the status field,
bufio.Reader, no line limit), go-jsonv2 (encoding/json/v2, its own program
built with GOEXPERIMENT=jsonv2), go-sonic, go-fastjson, and c-simdjson
(simdjson's many-documents API, its own C++ program: the ceiling the core
is held against). The library variants ask the library first and hand the
lines it refuses, or cannot judge, to their language's rules (the py
variant's, the go variant's, the core's): RFC 8259 and the round's rules
are not exactly any library's defaults, so each library is held to the
rules (UTF-8, control characters, duplicates, depth) and all agree exactly,
bad lines included.

A user's own log (`roundbench run jsonl --param file=PATH`) replaces the
generated sizes with one cell, file=NAME-HASH (rounds.UserInput); it has no
expected result, so $ROUNDBENCH_JSONL_EXPECT is set empty, every child
prints its result unchecked (and keeps it as a fact), and the runner holds
the variants to the first result of the cell, the C core's (c runs first);
report_section shows that result. The warm-up log stays the generated one,
checked as ever. The published programs skip a user's log (they stop at
the first line they cannot read, and the log's lines are not known).

The published programs, as published (py-published: a Counter over
json.loads(line)["status"]; go-published: bufio.Scanner and json.Unmarshal
into an int field) follow no rules and stop at the first line they cannot
read, so the round has a second size, a clean log (bad-rate=0: no bad or
awkward line at all), where they run beside every other variant; at a size
with bad lines they say they cannot run (exit 4).
"""

from __future__ import annotations

import os

from ...measure import harness
from ...runtimes import programs
from ...pure import jsonl as pure
from . import genlog
from .. import a_path, go_build_twins, Headline, needs_module, Param, Round, UserInput, user_result, Variant

FILE_ENV = "ROUNDBENCH_JSONL_FILE"
# The file holding the log's expected result (harness.expect_path): the
# generator's FILE.expect, or empty for a user's log, which has none.
EXPECT_ENV = "ROUNDBENCH_JSONL_EXPECT"
# The warm-up log: the same generator at 1/50 of the default lines, counted
# once, untimed, by every variant before it times the real log (code,
# caches, the allocator and the branch predictors warmed by the very work).
WARMUP_ENV = "ROUNDBENCH_JSONL_WARMUP_FILE"
WARMUP_LINES = 20_000
BAD_RATE = 0.0002
MAX_LINES = 100_000_000
UNITS = ["MB/s", "invalid-lines"]


def bad_rate(params: dict) -> float:
    """The share of bad or awkward lines in a cell's log: its `bad-rate`
    parameter (0: a clean log), else BAD_RATE."""
    raw = params.get("bad-rate")
    if raw is None:
        return BAD_RATE
    try:
        return bad_rate_value(str(raw))
    except ValueError:
        raise ValueError(f"jsonl: bad-rate={raw} is not a share in [0, 1]") from None


def bad_rate_value(text: str) -> float:
    """A bad-rate's text as a share; ValueError saying what it wants."""
    try:
        rate = float(text)
    except ValueError:
        rate = -1.0
    if not 0.0 <= rate <= 1.0:
        raise ValueError("want a share in [0, 1]")
    return rate


def _make_logs(params: dict) -> dict:
    """Runs in the runner before each child: the log's path, generated on
    first use (and after the generator changes), cached by its arguments.
    The warm-up log has the cell's bad-line rate too."""
    lines = int(params.get("lines", genlog.DEFAULT_LINES))
    seed = int(params.get("seed", genlog.DEFAULT_SEED))
    rate = bad_rate(params)
    path = genlog.cached(programs.build_dir() / "data", lines, seed, rate)
    warm = genlog.cached(programs.build_dir() / "data", min(lines, WARMUP_LINES), seed + 1, rate)
    return {FILE_ENV: str(path), EXPECT_ENV: f"{path}.expect", WARMUP_ENV: str(warm)}


def _user_log(params: dict, path: str) -> dict:
    """make_inputs for a user's log (UserInput): the log, no expected result,
    and the warm-up log the default sizes use (generated, checked)."""
    warm = genlog.cached(programs.build_dir() / "data", WARMUP_LINES, genlog.DEFAULT_SEED + 1, BAD_RATE)
    return {FILE_ENV: path, EXPECT_ENV: "", WARMUP_ENV: str(warm)}


def _refuses_user_log(v: Variant) -> str | None:
    """The published programs stop at the first line they cannot read: the
    generated clean log is theirs to count, a user's log is not."""
    if v.name.endswith("-published"):
        return (
            f"{v.name} stops at the first line it cannot read: it counts the generated clean log "
            "only (bad-rate=0), not a user's log"
        )
    return None


def _clean_log(params: dict) -> bool:
    """default_if of the published programs: the cell whose log is clean."""
    return bad_rate(params) == 0.0


def _v(name: str, program: str, explain: str, requires=None, default_if=None, level=None) -> Variant:
    return Variant(
        name, program, explain, requires=requires, make_inputs=_make_logs, default_if=default_if, level=level
    )


# The round's own subcommand (cli.py adds it): its input's generator.
GENERATORS = (genlog.generator(),)

# The headline findings this round offers the report's first page (rank: their
# place among every round's; summary.py keeps the first ten that ran).
HEADLINES = [
    Headline(5, {"lines": "max"}, "ecosystem", "counting a JSON Lines log"),
    Headline(13, {"lines": "max"}, "alone", "counting a JSON Lines log"),
]

ROUND = Round(
    name="jsonl",
    title="jsonl: count HTTP statuses in a JSON Lines log",
    explain=(
        "Every line validated as RFC 8259 JSON (strict UTF-8, no NaN, nesting at most 512) and its "
        'top-level integer "status" counted; bad lines are counted as invalid with their line number '
        "and reason, never fatal. All variants must agree exactly, and agree with the generator."
    ),
    variants=[
        _v(
            "c",
            "rb-c",
            "the C core, reading the file with read(2): a block index (AVX-512, AVX2 or SSE2, chosen at run "
            "time) validates flat compact lines whole, a line scanner the rest",
        ),
        _v("go", "rb-go", "encoding/json into a struct, bufio.Reader (no line limit)"),
        _v("go-c", "rb-go", "Go calling the C core through cgo (the core opens the file)"),
        # Go's own toolchain at its fastest, the go variant's build twins:
        # go-pgo, go-v3, go-pgo-v3 (docs/go-builds.md).
        *go_build_twins("jsonl", _v),
        _v("py", "python", "the json module, per line, with the rules (NaN, UTF-8, depth)"),
        _v("py-c", "python", "Python calling the C core through the extension (the core opens the file)"),
        _v(
            "py-orjson",
            "python",
            "orjson.loads per line; refused lines go to the py rules",
            needs_module("orjson", "pip install orjson"),
        ),
        _v(
            "py-msgspec",
            "python",
            "msgspec decoding into a Struct(status: int); refused lines go to the py rules",
            needs_module("msgspec", "pip install msgspec"),
        ),
        _v(
            "py-msgspec-batch",
            "python",
            "msgspec's batch decoder (Decoder.decode_lines) over 64 KiB blocks of whole lines into "
            "Struct(status: int); a block it refuses, or where the rules could differ (invalid UTF-8, a line "
            "that may nest too deep, a blank line, an out-of-range status), is counted line by line as py-msgspec",
            needs_module("msgspec", "pip install msgspec"),
        ),
        _v(
            "py-simdjson",
            "python",
            "pysimdjson's Parser, reused, per line (the last duplicate status read by iterating the object "
            "when there may be one); refused lines, float statuses and leading 0xEF bytes go to the py rules",
            needs_module("simdjson", "pip install pysimdjson"),
        ),
        _v(
            "go-jsonv2",
            "rb-go-jsonl-v2",
            "encoding/json/v2 (GOEXPERIMENT=jsonv2, its own program) into a struct with the status as "
            "jsontext.Value; options: jsontext.AllowDuplicateNames(true) (last wins, as the rules), the rest "
            "v2's defaults (invalid UTF-8 refused, names case-sensitive); refused lines go to the go rules",
            level="alone",  # the standard library's own package, behind the release's own experiment
        ),
        _v(
            "go-sonic",
            "rb-go",
            "github.com/bytedance/sonic into a struct (status as raw JSON), with ValidateString and "
            "CaseSensitive, plus a UTF-8 check per line; lines with a backslash (its skipping misses bad "
            "escapes) and refused lines go to the go rules; cannot run if sonic fell back to encoding/json",
        ),
        _v(
            "go-fastjson",
            "rb-go",
            "github.com/valyala/fastjson: ValidateBytes per line, plus a UTF-8 check, then its Parser "
            "(reused) reads the last status; lines with a raw control character (its validator misses some) "
            "and refused lines go to the go rules",
        ),
        _v(
            "c-simdjson",
            "rb-c-simdjson",
            "simdjson's parse_many (DOM) over batches of whole lines read with read(2), each document checked "
            "to be alone on its line; a batch whose stream fails is split and re-parsed around the bad line, "
            "and lines simdjson refuses or cannot judge go to the core's rules",
        ),
        # The published programs, as published: they run on the clean log only.
        _v(
            "py-published",
            "python",
            'published program, as published: a collections.Counter over json.loads(line)["status"] for every '
            "line (text mode, no rules, four lines); it stops at the first bad line, so it counts the clean log only",
            default_if=_clean_log,
        ),
        _v(
            "go-published",
            "rb-go",
            "published program, as published: bufio.Scanner (its default 64 KiB line limit), json.Unmarshal into a "
            "struct with an int Status, exit on the first error; it counts the clean log only",
            default_if=_clean_log,
        ),
    ],
    helpers=("simdjson-info",),
    # The second size is a clean log (no bad or awkward line): the published
    # programs run there, beside every other variant.
    params=[
        Param("lines", "lines in the generated log", 0, MAX_LINES),
        Param("bad-rate", "a share in [0, 1]: the log's bad or awkward lines", parse=bad_rate_value),
        Param("file", "a JSON Lines log of the user's own (run/userfile.py)", parse=a_path),
    ],
    sizes=[{"lines": genlog.DEFAULT_LINES}],
    # The same log without bad lines (every parser's fast path): beside the
    # verdict, with --sizes all.
    more_sizes=[{"lines": genlog.DEFAULT_LINES, "bad-rate": 0}],
    quick=[{"lines": 20_000}, {"lines": 20_000, "bad-rate": 0}],
    metric="MB/s",
    headlines=HEADLINES,
    order=10,
    values=True,
    units={"MB/s": "higher", "invalid-lines": "lower"},
    metric_explain="MB/s: log bytes divided by the wall time of one count over the whole file (in page cache)",
    columns=[("invalid-lines", "invalid lines")],
    user_input=UserInput("file", _user_log, refuses=_refuses_user_log),
)


def provenance() -> tuple:
    """The library versions and the log's generator, for the result file."""
    # version lookups only when the provenance is written
    import importlib.metadata as md

    items, warnings = {}, []
    for lib in ("orjson", "msgspec", "pysimdjson"):
        try:
            items[f"jsonl-{lib}"] = md.version(lib)
        except md.PackageNotFoundError:
            items[f"jsonl-{lib}"] = "not installed"
    items.update(_go_library_provenance())
    items["jsonl-c-simdjson"] = _simdjson_info()
    try:
        # the extension loads only in the variants that call it
        from ... import _core

        kernel = _core.jsonl_kernel()
        how = {
            "scan": "the line scanner alone",
            "sse2": "block index with SSE2, the line scanner for the lines it does not take",
            "avx2": "block index with AVX2, the line scanner for the lines it does not take",
            "avx512": "block index with AVX-512, eight blocks at once, the line scanner for the lines it does not take",
        }
        chosen = os.environ.get("ROUNDBENCH_JSONL_KERNEL") or "auto"
        items["jsonl-kernel"] = (
            f"{kernel} ({how.get(kernel, '?')}; c, py-c and go-c alike; ROUNDBENCH_JSONL_KERNEL={chosen})"
        )
        if kernel in ("scan", "sse2") and chosen == "auto":
            warnings.append(
                f"jsonl: the C core runs its {kernel} kernel: this CPU lacks AVX2, "
                "so c, py-c and go-c are slower than they are elsewhere"
            )
    except ImportError as e:
        items["jsonl-kernel"] = f"unknown (the extension does not import: {e})"
    except ValueError as e:
        warnings.append(f"jsonl: {e}")
        items["jsonl-kernel"] = "none: every count of c, py-c and go-c fails"
    items["jsonl-log"] = (
        f"roundbench.rounds.jsonl.genlog {genlog.generator_version()}, bad-line rate {BAD_RATE:g} "
        f"(bad-rate=0: a clean log, where the published programs run), in {programs.build_dir() / 'data'}"
    )
    return items, warnings


def _go_library_provenance() -> dict:
    """The Go libraries' versions, from the runners' build information, and
    the experiment go-jsonv2's program was built with."""

    items = {}
    runner = programs.go_runner("jsonl")
    mods = programs.go_module_versions(programs.path(runner))
    for variant, module in (("go-sonic", "github.com/bytedance/sonic"), ("go-fastjson", "github.com/valyala/fastjson")):
        items[f"jsonl-{variant}"] = f"{module} {mods[module]}" if module in mods else f"{runner} not built"
    v2 = programs.path("rb-go-jsonl-v2")
    settings = programs.go_build_settings(v2)
    if settings:
        items["jsonl-go-jsonv2"] = (
            f"encoding/json/v2 of {settings.get('go', '?')}, built with "
            f"GOEXPERIMENT={settings.get('GOEXPERIMENT', '(none)')} (rb-go-jsonl-v2)"
        )
    else:
        items["jsonl-go-jsonv2"] = "rb-go-jsonl-v2 not built"
    return items


def _simdjson_info() -> str:
    """c-simdjson's library: its version and the kernel it chose at run time."""
    why = programs.missing("rb-c-simdjson")
    if why:
        return f"not built: {why}"
    # only when the library is built and asked
    import subprocess

    try:
        out = subprocess.run(
            [str(programs.path("rb-c-simdjson")), "jsonl", "simdjson-info"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({e})"
    return out.stdout.strip() or f"unknown (exit {out.returncode}: {out.stderr.strip()[-200:]})"


# ---- the report ------------------------------------------------------------


def report_section(size: dict, cells: dict, config: dict) -> str:
    """For a user's log (a file=... cell): what the C core found in it, the
    result every other variant was held to."""
    if "file" not in size:
        return ""
    ref, others = user_result(ROUND, cells)
    where = config.get("jsonl-user-file", f"file={size['file']}")
    if ref is None:
        return f"Your log: {where}. No variant counted it (see the failures above).\n"
    impl, text = ref
    got = dict(item.partition("=")[::2] for item in text.split())
    who = "The C core (variant c)" if impl == ROUND.reference else f"{impl} (c did not count it)"
    w = [
        f"Your log: {where}. {who} counted it as below; every other variant's result was held to this one "
        "(a variant that finds anything else fails its run):",
        "",
        f"- lines: {got.get('lines', '?')} (blank {got.get('blank', '?')}, valid {got.get('valid', '?')}, "
        f"invalid {got.get('invalid', '?')})",
    ]
    reported, _, digest = got.get("reported", "").partition(":")
    if reported not in ("", "0"):
        w.append(
            f"- invalid lines reported by line number and reason (at most the first 100): {reported}, "
            f"their FNV-1a hash {digest}, the same in every variant"
        )
    statuses = [pair.partition(":")[::2] for pair in got.get("statuses", "").split(",") if pair]
    if statuses:
        statuses.sort(key=lambda sc: -int(sc[1]))
        w += ["", "| status | lines |", "|---|---|"]
        w += [f"| {st} | {n} |" for st, n in statuses[:REPORT_STATUSES]]
        if len(statuses) > REPORT_STATUSES:
            rest = sum(int(n) for _, n in statuses[REPORT_STATUSES:])
            w.append(f"| {len(statuses) - REPORT_STATUSES} other statuses | {rest} |")
    else:
        w.append("- no valid line with a status")
    if others:
        w += ["", f"**Variants kept different results: {'; '.join(others)}** (their runs failed above)."]
    return "\n".join(w) + "\n"


# The most statuses the report lists of a user's log (the most frequent).
REPORT_STATUSES = 20


def result_text(r: dict) -> str:
    return genlog.result_text(r["lines"], r["blank"], r["valid"], r["invalid"], r["statuses"], r["reported"])


# ---- the child side ---------------------------------------------------------


def _log(args: harness.Args) -> str:
    args.int("lines", genlog.DEFAULT_LINES, 0, MAX_LINES)
    path = os.environ.get(FILE_ENV)
    if not path:
        raise harness.UsageError(
            f"jsonl: {FILE_ENV} names no log (run it through `roundbench run jsonl`, which generates it)"
        )
    return path


def _expected(path: str) -> str | None:
    """The expected result of the log at path (harness.expect_path), or
    None for a user's log, which has none."""
    expect = harness.expect_path(EXPECT_ENV, path)
    if expect is None:
        return None
    try:
        with open(expect, encoding="utf-8") as f:
            return f.readline().strip()
    except OSError as e:
        raise harness.UsageError(f"jsonl: cannot read the expected result {expect}: {e.strerror}") from None


def _run(args: harness.Args, count) -> None:
    path = _log(args)
    want = _expected(path)
    # Warm-up: one untimed count of the small log (checked too), then the
    # real log into the page cache.
    warm = os.environ.get(WARMUP_ENV)
    if warm:
        harness.check("warm-up result", result_text(count(warm)), genlog.expected(warm))
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass
    size = os.path.getsize(path)
    elapsed, got = harness.time_once(lambda: count(path))
    text = result_text(got)
    if want is None:
        harness.result_unchecked(text)
    else:
        harness.check("result", text, want)
        harness.result(text)
    harness.emit(args, 1, elapsed, {"MB/s": size / elapsed * 1e3 if elapsed else 0.0, "invalid-lines": got["invalid"]})


@harness.implements("jsonl", "py", units=UNITS)
def run_py(args):
    _run(args, pure.count_file)


@harness.implements("jsonl", "py-c", units=UNITS)
def run_py_c(args):
    from ..._core import jsonl_count_file

    _run(args, jsonl_count_file)


@harness.implements("jsonl", "py-orjson", units=UNITS)
def run_py_orjson(args):
    harness.require("orjson")
    from .libraries import count_file_orjson

    _run(args, count_file_orjson)


@harness.implements("jsonl", "py-msgspec", units=UNITS)
def run_py_msgspec(args):
    harness.require("msgspec")
    from .libraries import count_file_msgspec

    _run(args, count_file_msgspec)


@harness.implements("jsonl", "py-msgspec-batch", units=UNITS)
def run_py_msgspec_batch(args):
    harness.require("msgspec")
    from .libraries import count_file_msgspec_batch

    _run(args, count_file_msgspec_batch)


@harness.implements("jsonl", "py-simdjson", units=UNITS)
def run_py_simdjson(args):
    harness.require("simdjson", "pysimdjson")
    from .libraries import count_file_simdjson

    _run(args, count_file_simdjson)


def _published(args: harness.Args) -> None:
    """The published programs stop at the first bad line: a log with bad
    lines is not theirs to count (a skip row, not a failure)."""
    try:
        rate = bad_rate(dict(args.params))
    except ValueError as e:
        raise harness.UsageError(str(e)) from None
    if rate != 0.0:
        raise harness.CannotRun(
            f"{args.impl} stops at the first bad line: it counts the clean log only (bad-rate=0), "
            f"and this log has bad-rate={rate:g}"
        )


@harness.implements("jsonl", "py-published", units=UNITS)
def run_py_published(args):
    _published(args)
    from .published import count_file_published

    _run(args, count_file_published)
