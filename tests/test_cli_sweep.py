"""Every option of every subcommand, and every parameter of every round,
given a wrong value, one at a time: each must exit 2 with one line on
stderr that names the option (or quotes the value it refused), write
nothing and leave the store as it was (docs/usage.md, "Exit statuses").

The options are read from the parsers themselves. Each gets the cases its
action implies (a number "x", a choice "nope", a flag "--flag=x"), and
every option that takes a value must also be in BAD, with the wrong values
that only its meaning rules out, or in FREE_TEXT, saying why every value
is valid: an option added without either fails test_every_option_is_swept.

Each case runs in a forked child of this process (the command's own
main(), its working folder, environment and standard streams its own), so
that the sweep of a few hundred cases takes seconds, not minutes."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import traceback
from pathlib import Path

import pytest

from roundbench import cli, rounds
from roundbench.store import db, ingest

from test_store import BODY, CONFIG, sealed_file

# The argv a case starts from: the command and valid positionals, the
# cheapest settings, so that a case wrongly accepted fails fast. A
# positional's case replaces its own slot ("{}").
BASE = {
    "run": ["run", "loop", "--impl", "c", "--runs", "1", "--quick", "--no-report", "--quiet"],
    "run ROUND": ["run", "{}", "--runs", "1", "--quick", "--no-report", "--quiet"],
    "list": ["list"],
    "report": ["report", "res"],
    "report DIR": ["report", "{}"],
    "machine": ["machine"],
    "pythons": ["pythons"],
    "compare": ["compare", "res", "res"],
    "compare A": ["compare", "{}", "res"],
    "compare B": ["compare", "res", "{}"],
    "store import": ["store", "import", "res"],
    "store import PATH": ["store", "import", "{}"],
    "crossing": ["crossing", "libm.so.6", "double cos(double)", "--args", "0.5", "--runs", "1", "--quiet"],
    "crossing LIBRARY": ["crossing", "{}", "double cos(double)", "--args", "0.5", "--runs", "1", "--quiet"],
    "crossing DECLARATION": ["crossing", "libm.so.6", "{}", "--args", "0.5", "--runs", "1", "--quiet"],
    "gen-log": ["gen-log", "log.jsonl", "--lines", "10"],
    "gen-log OUT": ["gen-log", "{}", "--lines", "10"],
    "gen-ephemeris": ["gen-ephemeris", "eph.tsv"],
    "gen-ephemeris OUT": ["gen-ephemeris", "{}"],
}
for _verb in ("list", "machines", "export", "verdict", "trends"):
    BASE[f"store {_verb}"] = ["store", _verb]
    BASE[f"store {_verb} KEY:VALUE"] = ["store", _verb, "{}"]

# In the working folder of every case: res/ holds a result file, store.sqlite
# a store with one run in it (ROUNDBENCH_STORE names it).
A_FILE = "res/results.txt"
A_FOLDER = "res"
NUMBER = ["x", "nan", ""]
SECONDS_POSITIVE = ["0", "-1", *NUMBER]
SECONDS = ["-1", "-inf", *NUMBER]
MARGIN = ["0", "100", "-3", *NUMBER]
ALPHA = ["0", "1", "-0.5", *NUMBER]
OUT_DIR = ["", A_FILE, f"{A_FILE}/below"]
OUT_FILE = ["", A_FOLDER, f"{A_FILE}/below"]
IN_PATH = ["", "nope"]
TERMS = ["nope", ""]

BAD = {
    "run ROUND": ["nope", ""],
    "run --impl": ["nope", ""],
    "run --runs": ["0", "-1", "1.5", "x", ""],
    "run --values": ["0", "101", "1.5", "x", ""],
    "run --budget": SECONDS,
    "run --time-budget": SECONDS_POSITIVE,
    "run --placement": [""],
    "run --out": OUT_DIR,
    "run --n": ["-1", "x", ""],
    "run --param": ["", "n", "=3", "nope=3", "n=-5", "n=x", "n="],
    "run --timeout": SECONDS_POSITIVE,
    "run --bound": SECONDS,
    "run --bound-floor": SECONDS_POSITIVE,
    "run --python": ["", "/nonexistent/python3", "2.7"],
    "run --go": ["", "nope", "1.x", "1.2"],
    "run --placebo": [""],
    "run --margin": MARGIN,
    "run --alpha": ALPHA,
    "report DIR": IN_PATH,
    "report --output": OUT_FILE,
    "report --margin": MARGIN,
    "report --alpha": ALPHA,
    "pythons --only": ["", "nope", "cpython-3.13.5x", "cpython-3.13.5t,sid"],
    "pythons --rebuild": ["", "nope", "cpython-3"],
    "pythons --newest": [["--list"], ["--only", "sid"]],
    "pythons --cpythons": [["--newest"], ["--rebuild", "all"]],
    "pythons --free-threaded": [[]],
    "pythons --list": [["--only", "sid"]],
    "compare A": IN_PATH,
    "compare B": IN_PATH,
    "compare --unit": ["", "nope/op"],
    "compare --margin": MARGIN,
    "compare --alpha": ALPHA,
    "compare --md": OUT_FILE,
    "compare --html": OUT_FILE,
    "compare --fail-above": ["-1", *NUMBER],
    "store import PATH": IN_PATH,
    "store import --store": [""],
    "store export --output": OUT_FILE,
    "store verdict --out": OUT_DIR,
    "store verdict --margin": MARGIN,
    "store verdict --alpha": ALPHA,
    "store trends --out": OUT_DIR,
    "store trends --margin": MARGIN,
    "crossing LIBRARY": ["", "nope-no-such-library.so"],
    "crossing DECLARATION": ["", "double cos(", "struct s cos(void)", "double nope_no_such_symbol(double)"],
    "crossing --args": [["x"], ["0.5", "1"], [""]],
    "crossing --header": ["", "nope-no-such-header.h", "/nonexistent/dir/x.h", ".", "a b.h"],
    "crossing --buffer-size": ["-1", str((1 << 30) + 1), "x", ""],
    "crossing --python": ["", "/nonexistent/python3"],
    "crossing --go": ["", "nope", "1.2"],
    "crossing --impl": ["", "nope"],
    "crossing --out": OUT_DIR,
    "crossing --cache": OUT_DIR,
    "crossing --runs": ["0", "-1", "x", ""],
    "crossing --budget": SECONDS,
    "crossing --timeout": SECONDS_POSITIVE,
    "gen-log OUT": OUT_FILE,
    "gen-log --seed": ["-1", "x", ""],
    "gen-log --lines": ["-1", "x", ""],
    "gen-log --bad-rate": ["2", "-0.1", *NUMBER],
    "gen-log --kinds": ["", "nope", ",", "nan,nope"],
    "gen-ephemeris OUT": OUT_FILE,
    "gen-ephemeris --seed": ["-1", "x", ""],
    "gen-ephemeris --events": ["-1", "x", ""],
    "gen-ephemeris --ephemeris": [["nope"], ["nope", "--events", "3"], ["", "--events", "3"]],
}
for _verb in ("list", "machines", "export", "verdict", "trends"):
    BAD[f"store {_verb} KEY:VALUE"] = TERMS
    BAD[f"store {_verb} --store"] = ["", "nope.sqlite"]

# Options that take a value, every one of which is valid, and why.
FREE_TEXT: dict = {}


def _walk(p: argparse.ArgumentParser, path: tuple):
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sp in a.choices.items():
                yield from _walk(sp, path + (name,))
        elif not isinstance(a, argparse._HelpAction):
            yield " ".join(path), a


def _name(a: argparse.Action) -> str:
    return max(a.option_strings, key=len) if a.option_strings else (a.metavar or a.dest)


def _round_options() -> dict:
    """run's round options (--threads, ...): flag -> [(round, Param)]."""
    out: dict = {}
    for rnd in rounds.all_rounds():
        for o in rnd.options:
            out.setdefault(o.flag, []).append((rnd, next(p for p in rnd.params if p.name == o.param)))
    return out


def options() -> list:
    """(command, action) for every option and positional of every subcommand."""
    return list(_walk(cli.parser(), ()))


def _argv(cmd: str, a: argparse.Action, bad) -> list:
    """The argv of one case: the command's base, the option given the bad
    fragment (a value, or a list of words after the option)."""
    words = bad if isinstance(bad, list) else [bad]
    if not a.option_strings:
        base = BASE[f"{cmd} {_name(a)}"]
        i = base.index("{}")
        return base[:i] + words + base[i + 1 :]
    flag = _name(a)
    if isinstance(a, argparse._StoreTrueAction):
        # a flag's own wrong form, or the flag with what it cannot go with
        return BASE[cmd] + ([f"{flag}=x"] if bad == "=x" else [flag, *words])
    base = BASE[cmd]
    owners = _round_options().get(flag)
    if owners:
        # a round option: given to its own round (its first), else refused for that
        base = ["run", owners[0][0].name, "--runs", "1", "--quick", "--no-report", "--quiet"]
    return base + [flag, *words]


def derived(a: argparse.Action) -> list:
    """The wrong values an option's action implies."""
    if isinstance(a, argparse._StoreTrueAction):
        return ["=x"]
    out = []
    if a.choices:
        out.append("nope")
    if a.type in (int, float) or getattr(a.type, "__name__", "") in ("integer", "number"):
        out.append("x")
    return out


def cases() -> list:
    out = []
    for cmd, a in options():
        key = f"{cmd} {_name(a)}"
        bad = list(derived(a)) + [b for b in BAD.get(key, []) if b not in derived(a)]
        flag = _name(a)
        for rnd_param in _round_options().get(flag, []):
            p = rnd_param[1]
            bad += ["", "x", str(p.lo - 1), str(p.hi + 1)] if p.parse is None else ["", "x"]
        seen: list = []
        for b in bad:
            if b not in seen:  # each value once, in the list's order
                seen.append(b)
                out.append(pytest.param(cmd, a, b, id=f"{key} {b!r}"))
    for rnd in rounds.all_rounds():
        base = ["run", rnd.name, "--runs", "1", "--quick", "--no-report", "--quiet"]
        out.append(pytest.param(base + ["--param", "no-such-param=1"], None, None, id=f"{rnd.name} unknown param"))
        for p in rnd.params:
            wrong = ["", "x"] if p.parse is not None else ["", "x", "1.5", str(p.lo - 1), str(p.hi + 1)]
            for w in wrong:
                if p.parse is not None:
                    try:
                        p.parse(w)
                        continue  # valid here: the file parameters take any name (a missing file is below)
                    except ValueError:
                        pass
                out.append(pytest.param(base + ["--param", f"{p.name}={w}"], None, None, id=f"{rnd.name} {p.name}={w}"))
            if p.parse is rounds.a_path or p.name == "events":
                out.append(
                    pytest.param(
                        base + ["--param", f"{p.name}=no-such-file"], None, None, id=f"{rnd.name} missing file"
                    )
                )
    return out


def test_every_option_is_swept():
    """A new option fails here until it has its wrong values (BAD) or a
    reason why it has none (FREE_TEXT)."""
    round_flags = set(_round_options())
    missing, stale = [], set(BAD) | set(FREE_TEXT)
    for cmd, a in options():
        key = f"{cmd} {_name(a)}"
        stale.discard(key)
        if isinstance(a, argparse._StoreTrueAction) or a.choices or _name(a) in round_flags:
            continue  # its derived cases are its wrong values
        if key not in BAD and key not in FREE_TEXT:
            missing.append(key)
    assert not missing, f"options with no wrong values in BAD and no reason in FREE_TEXT: {missing}"
    assert not stale, f"BAD or FREE_TEXT names options the parsers no longer have: {sorted(stale)}"
    assert set(BAD).isdisjoint(FREE_TEXT)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """The working folder every case starts from, and a snapshot of it."""
    root = tmp_path_factory.mktemp("sweep")
    (root / "res").mkdir()
    (root / A_FILE).write_bytes(sealed_file(CONFIG, BODY))
    with db.open_store(str(root / "store.sqlite")) as store:
        ingest.import_bytes(store, (root / A_FILE).read_bytes(), A_FILE, False)
    return root


def _snapshot(root: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns) if p.is_file() else None
    return out


def _fork_main(argv: list, cwd: Path, err: Path, timeout: int = 60) -> int:
    """roundbench's main(argv) in a forked child: its exit status."""
    env = {
        "ROUNDBENCH_STORE": str(cwd / "store.sqlite"),
        "XDG_DATA_HOME": str(cwd / "xdg"),
        "ROUNDBENCH_PYTHONS": str(cwd / "pythons"),
        "ROUNDBENCH_CROSSING_CACHE": str(cwd / "crossing-cache"),
    }
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            os.chdir(cwd)
            os.environ.update(env)
            os.environ.pop("ROUNDBENCH_PYTHON", None)
            fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.alarm(timeout)
            try:
                code = cli.main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code if isinstance(code, int) else 98)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.parametrize("cmd, action, bad", cases())
def test_a_wrong_value_is_refused_before_any_work(work, tmp_path, cmd, action, bad):
    argv = cmd if action is None else _argv(cmd, action, bad)
    before = _snapshot(work)
    err = tmp_path / "stderr"
    code = _fork_main(argv, work, err)
    text = err.read_text(errors="replace")
    assert code == 2, f"{argv}: exit {code}: {text}"
    lines = text.splitlines()
    assert len(lines) == 1, f"{argv}: want one line on stderr, got {text!r}"
    line = lines[0]
    assert line.startswith("roundbench"), line
    if action is None:  # a round's parameter: its name, or the text given
        named = argv[-1].partition("=")[0] in line or "--param" in line
    else:
        words = bad if isinstance(bad, list) else [bad]
        flag = _name(action)
        named = any(o in line for o in action.option_strings) or flag in line
        # or the value: all of it, quoted when empty, or one of its words
        named = named or any(w != "=x" and (repr(w) in line or (w and w in line)) for w in words)
        named = named or any(len(t) >= 4 and t in line for w in words for t in re.split(r"[\s(),]+", w))
    assert named, f"{argv}: the line names neither the option nor its value: {line}"
    assert "Traceback" not in text
    assert _snapshot(work) == before, f"{argv}: wrote into its folder or the store"
