"""The Python children's side of the child protocol against the vectors the
C and Go tests read too (testdata/vectors/protocol.txt): exit statuses, how
a result line prints its numbers and lays itself out, round jsonl's result
text with its hash, the input variables' names and the limits."""

import pytest

import roundbench
from roundbench.measure import harness
from roundbench import rounds
from roundbench.rounds.jsonl import genlog
from roundbench.pure import jsonl as pure_jsonl
from roundbench.rounds import jsonl as jsonl_round

from conftest import load_at_least

EXITS = load_at_least("protocol-exit", 5)
NUMBERS = load_at_least("protocol-number", 25)
LINES = load_at_least("protocol-line", 5)
JSONL = load_at_least("protocol-jsonl", 6)
ENVS = load_at_least("protocol-env", 4)
EXPECTS = load_at_least("protocol-expect", 3)
LIMIT_VECTORS = load_at_least("protocol-limit", 7)
LIMITS = {v["name"]: int(v["value"]) for v in LIMIT_VECTORS}


def spaced(text: str) -> str:
    """A `line` or `text` value, each `+` read as a space."""
    return text.replace("+", " ")


def pairs(text: str) -> list:
    """A list value `A:B,...` as (A, B) pairs (`-`: none)."""
    return [] if text == "-" else [tuple(p.split(":", 1)) for p in text.split(",")]


def test_exit_statuses():
    have = {name[len("EXIT_") :].lower(): getattr(harness, name) for name in dir(harness) if name.startswith("EXIT_")}
    assert {v["name"]: int(v["code"]) for v in EXITS} == have
    assert len(EXITS) == len(have), "each status once"


def emitted(capsys, monkeypatch, round_name, impl, params, iters, ns, metrics=()) -> str:
    """What harness.emit prints for a variant that declared the metrics'
    units."""
    metrics = dict(metrics)
    implementation = harness.Implementation(round_name, impl, lambda args: None, tuple(metrics))
    monkeypatch.setitem(harness._implementations, (round_name, impl), implementation)
    capsys.readouterr()
    harness.emit(harness.Args.parse(round_name, impl, params), iters, ns, metrics)
    return capsys.readouterr().out


@pytest.mark.parametrize("v", NUMBERS, ids=lambda v: v["value"])
def test_numbers(capsys, monkeypatch, v):
    line = emitted(capsys, monkeypatch, "loop", "py", [], 1, float(v["value"]))
    assert line.split()[2] == v["text"]


@pytest.mark.parametrize("v", LINES, ids=lambda v: f"{v['round']}-{v['impl']}")
def test_result_lines(capsys, monkeypatch, v):
    params = [] if v["params"] == "-" else v["params"].split("/")
    metrics = [(unit, float(value)) for value, unit in pairs(v["metrics"])]
    got = emitted(capsys, monkeypatch, v["round"], v["impl"], params, int(v["iters"]), float(v["ns"]), metrics)
    assert got == spaced(v["line"]) + "\n"


@pytest.mark.parametrize("v", JSONL, ids=lambda v: f"lines={v['lines']}")
def test_jsonl_result_text(v):
    statuses = {int(s): int(c) for s, c in pairs(v["statuses"])}
    reported = [(int(line), reason) for line, reason in pairs(v["reported"])]
    counts = [int(v[k]) for k in ("lines", "blank", "valid", "invalid")]
    assert genlog.result_text(*counts, statuses, reported) == spaced(v["text"])


def test_values_variable(monkeypatch):
    """The variable that asks a child for several values, its most, and
    what the Python harness makes of each setting."""
    (v,) = load_at_least("protocol-values", 1)
    assert (harness.VALUES_ENV, harness.MAX_VALUES) == (v["var"], int(v["max"]))
    for raw, want in (("", 1), ("3", 3), ("100", 100)):
        monkeypatch.setenv(harness.VALUES_ENV, raw)
        assert harness.values_wanted() == want
    for raw in ("0", "101", "x", "3.0"):
        monkeypatch.setenv(harness.VALUES_ENV, raw)
        with pytest.raises(harness.UsageError, match=harness.VALUES_ENV):
            harness.values_wanted()


def test_input_variables():
    """Each protocol-env vector (name ROUND-WHAT) is a ROUNDBENCH_ variable
    its round's module names in a *_ENV constant, and every such constant
    of every round is in the file: a round adds its input's variable to
    protocol.txt and its own module, and no test keeps a list of them."""
    declared = {}
    for name, mod in rounds.modules().items():
        for attr, value in vars(mod).items():
            if attr.endswith("_ENV") and isinstance(value, str) and value.startswith("ROUNDBENCH_" + name.upper()):
                declared[value] = name
    assert len({v["var"] for v in ENVS}) == len(ENVS), "each variable once"
    for v in ENVS:
        assert declared.get(v["var"]) == v["name"].split("-")[0], v
    assert set(declared) == {v["var"] for v in ENVS}


@pytest.mark.parametrize("v", EXPECTS, ids=lambda v: f"{v['var']}-{v['input']}")
def test_expect_path(monkeypatch, capsys, v):
    """Where a child finds its input's expected result; and what it prints
    for an input that has none."""
    env = "RBT_PROTOCOL_EXPECT"
    if v["var"] == "unset":
        monkeypatch.delenv(env, raising=False)
    else:
        monkeypatch.setenv(env, "" if v["var"] == "-" else v["var"])
    assert harness.expect_path(env, v["input"]) == (None if v["path"] == "-" else v["path"])
    harness.result_unchecked("lines=0 blank=0")
    assert capsys.readouterr().out == "result: lines=0 blank=0\nfact: result lines=0 blank=0\n"


def test_jsonl_limits():
    assert roundbench.JSONL_MAX_DEPTH == pure_jsonl.MAX_DEPTH == LIMITS["jsonl-max-depth"]
    reported = LIMITS["jsonl-max-reported"]
    assert roundbench.JSONL_MAX_REPORTED == pure_jsonl.MAX_REPORTED == genlog.MAX_REPORTED == reported
    assert genlog.DEFAULT_LINES == LIMITS["jsonl-lines-default"]
    assert jsonl_round.MAX_LINES == LIMITS["jsonl-lines-max"]


def test_warm_up_limits(monkeypatch):
    """The warm-up stops at the first call that ends warmup-ns after it
    began, and after warmup-calls calls on a clock that stands still."""
    calls = []
    clock = iter([0, LIMITS["warmup-ns"] - 1, LIMITS["warmup-ns"]])
    monkeypatch.setattr(harness, "now_ns", lambda: next(clock))
    harness.warm_up(lambda: calls.append(1))
    assert len(calls) == 2
    calls.clear()
    monkeypatch.setattr(harness, "now_ns", lambda: 0)
    harness.warm_up(lambda: calls.append(1))
    assert len(calls) == LIMITS["warmup-calls"]


def test_calibration_limit():
    """The count grows while a timing falls short of calibrate-ns, by as
    little as 1 ns, and stops growing at the first that reaches it."""
    times = iter([LIMITS["calibrate-ns"] - 1, LIMITS["calibrate-ns"]])
    counts = []

    def op(count):
        counts.append(count)
        return next(times, LIMITS["calibrate-ns"])

    _, count = harness.calibrated(op, lambda count: 0)
    assert counts[0] < counts[1] == count and set(counts[1:]) == {count}


def test_every_limit_is_checked_once():
    assert len(LIMIT_VECTORS) == len(LIMITS), "each limit once"
    assert set(LIMITS) == {
        "jsonl-max-depth",
        "jsonl-max-reported",
        "jsonl-lines-default",
        "jsonl-lines-max",
        "warmup-ns",
        "warmup-calls",
        "calibrate-ns",
    }


def test_every_swept_child_parameter_is_a_declared_integer_parameter():
    """The C and Go argument sweeps (protocol-param) give each of these a
    wrong value: each must be a parameter its round declares as an integer
    (rounds.Param with lo and hi), so that the sweep and the command's
    checks speak of the same parameters, and each is named once."""
    swept = [(v["round"], v["key"]) for v in load_at_least("protocol-param", 10)]
    assert len(swept) == len(set(swept)), "each parameter once"
    for round_name, key in swept:
        declared = {p.name: p for p in rounds.get(round_name).params}
        assert key in declared, f"{round_name} declares no parameter {key}"
        assert declared[key].parse is None, f"{round_name} {key} is not an integer parameter"
