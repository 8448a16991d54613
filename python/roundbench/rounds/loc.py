"""Round loc: how big each round's pure implementation is, per language.

For every other round of the suite, its one-file implementations
python/roundbench/pure/<round>.py (variant py), go/<round>.go (go) and
csrc/<round>.c (c): non-blank lines once comments are removed (Python
docstrings count as comments), and the gzip size of that stripped source
(level 9), which tells verbose from long. A round whose numpy or pandas
version is a whole program of its own, in rounds/<round>/with_numpy.py or
rounds/<round>/with_pandas.py (aspects: the published comparison was between
whole programs), has those counted too (py-numpy, py-pandas). Computed
from the checkout's own files when the round runs, by the Python child for
every language (the variant names the file counted, not who counts).
"""

from __future__ import annotations

import ast
import gzip
import io
import tokenize
from pathlib import Path

from ..measure import harness
from ..runtimes import programs
from . import module_names, Param, Round, Variant

FILES = {
    "py": "python/roundbench/pure/{}.py",
    "py-numpy": "python/roundbench/rounds/{}/with_numpy.py",
    "py-pandas": "python/roundbench/rounds/{}/with_pandas.py",
    "go": "go/{}.go",
    "c": "csrc/{}.c",
}


def _counted_rounds() -> list:
    # By name: their suite order is in their declarations, which a loc
    # child does not import.
    return [m for m in module_names() if m != "loc"]


def _counted_round(name: str) -> str:
    """Param parser of `round`: a round of the suite other than loc."""
    if name not in _counted_rounds():
        raise ValueError(f"want a round of the suite ({', '.join(_counted_rounds())})")
    return name


def _has_file(lang: str):
    """default_if: run a language's variant only for rounds that have its file."""

    def check(params: dict) -> bool:
        root = programs.checkout()
        return root is None or (root / FILES[lang].format(params["round"])).is_file()

    return check


ROUND = Round(
    name="loc",
    title="loc: size of each round's pure implementation",
    explain=(
        "Non-blank, non-comment lines of python/roundbench/pure/<round>.py (py), go/<round>.go (go) and "
        "csrc/<round>.c (c), and rounds/<round>/with_numpy.py and with_pandas.py where a round has them, and "
        "the gzip bytes of that stripped source; read from the checkout when the round runs."
    ),
    variants=[
        Variant("c", "python", "csrc/<round>.c, comments removed", default_if=_has_file("c")),
        Variant("go", "python", "go/<round>.go, comments removed", default_if=_has_file("go")),
        Variant(
            "py",
            "python",
            "python/roundbench/pure/<round>.py, comments and docstrings removed",
            default_if=_has_file("py"),
        ),
        Variant(
            "py-numpy",
            "python",
            "python/roundbench/rounds/<round>/with_numpy.py, where a round has one, comments and docstrings removed",
            default_if=_has_file("py-numpy"),
        ),
        Variant(
            "py-pandas",
            "python",
            "python/roundbench/rounds/<round>/with_pandas.py, where a round has one, comments and docstrings removed",
            default_if=_has_file("py-pandas"),
        ),
    ],
    params=[Param("round", "the round whose lines are counted", parse=_counted_round)],
    sizes=[{"round": r} for r in _counted_rounds()],
    quick=[{"round": r} for r in _counted_rounds()],
    metric="lines",
    order=99,  # after the rounds it counts
    units={"lines": "lower", "gz-B": "lower"},
    metric_explain="lines: non-blank lines without comments (the ± and CI are zero: the count is exact)",
    cross_check=False,
    columns=[("gz-B", "gzip bytes")],
    scored=False,  # shorter code is a fact to weigh, not a point of speed
)


# ---- stripping comments -------------------------------------------------------


def strip_python(src: str) -> str:
    """Python source without comments and docstrings (module, class and
    function), blank lines dropped."""
    drop_lines = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                drop_lines.update(range(first.lineno, first.end_lineno + 1))
    lines = src.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col]
    kept = [ln.rstrip() for i, ln in enumerate(lines, 1) if i not in drop_lines]
    return "\n".join(ln for ln in kept if ln.strip()) + "\n"


def strip_c_like(src: str, raw_strings: bool = False) -> str:
    """C or Go source without // and /* */ comments (string, character and,
    for Go, raw string literals kept whole), blank lines dropped."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and src.startswith("/*", i):
            j = src.find("*/", i + 2)
            end = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, end) or " ")
            i = end
        elif c in "\"'" or (raw_strings and c == "`"):
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == "\\" and c != "`":
                    j += 1
                elif src[j] == "\n" and c != "`":
                    break  # an unterminated literal ends at the line
                j += 1
            out.append(src[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    kept = [ln.rstrip() for ln in "".join(out).splitlines()]
    return "\n".join(ln for ln in kept if ln.strip()) + "\n"


def measure(lang: str, path: Path) -> tuple:
    """(lines, gzip bytes, stripped text) of one source file."""
    src = path.read_text(encoding="utf-8")
    text = strip_python(src) if lang == "py" else strip_c_like(src, raw_strings=lang == "go")
    return text.count("\n"), len(gzip.compress(text.encode(), compresslevel=9, mtime=0)), text


# ---- the child side ---------------------------------------------------------------


@harness.implements("loc", *FILES, units=["lines", "gz-B"])
def _run(args: harness.Args) -> None:
    name = args.get("round")
    if not name or name not in _counted_rounds():
        raise harness.UsageError(f"loc: round={name} is not a round of the suite ({', '.join(_counted_rounds())})")
    root = programs.checkout()
    if root is None:
        raise harness.CannotRun("the sources are not here (an installed package has no checkout)")
    path = root / FILES[args.impl].format(name)
    if not path.is_file():
        raise harness.CannotRun(f"round {name} has no {FILES[args.impl].format(name)}")
    lang = args.impl.split("-")[0]
    elapsed, (lines, gz, text) = harness.time_once(lambda: measure(lang, path))
    # Self-check: no more lines than the file's non-blank ones, no comment
    # marker left at a line's start, and the gzip size is of this text.
    raw = sum(1 for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip())
    harness.check("lines <= non-blank lines", 0 < lines <= raw, True)
    marker = "#" if lang == "py" else "//"
    harness.check("comment lines left", [ln for ln in text.splitlines() if ln.lstrip().startswith(marker)], [])
    harness.check("gzip round trip", gzip.decompress(gzip.compress(text.encode(), 9, mtime=0)).decode() == text, True)
    harness.result(f"{args.impl} {name} lines={lines} gz={gz}")
    harness.emit(args, 1, elapsed, {"lines": lines, "gz-B": gz})
