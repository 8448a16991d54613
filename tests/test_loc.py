"""Round loc: comment stripping per language, and its child over the
checkout's own files."""

import io
import re
import subprocess
import sys
import tokenize
import zlib

import pytest

from roundbench.rounds import loc

from conftest import ROOT, child_env


def test_strip_python_drops_comments_and_docstrings():
    src = (
        '"""Module doc."""\n\nimport os  # why\n\n\ndef f(x):\n'
        '    """Doc\n    on two lines."""\n    # alone\n    s = "# not a comment"\n    return x\n'
    )
    assert loc.strip_python(src) == 'import os\ndef f(x):\n    s = "# not a comment"\n    return x\n'


def test_strip_c_like_keeps_literals():
    src = (
        "/* head\n   comment */\n#include <x.h>\n\nint a = 1; // trailing\n"
        'const char *s = "/* no */ // no";\nchar c = \'"\';\nint b = 2; /* mid */ int d;\n'
    )
    assert (
        loc.strip_c_like(src)
        == '#include <x.h>\nint a = 1;\nconst char *s = "/* no */ // no";\nchar c = \'"\';\nint b = 2;   int d;\n'
    )


def test_strip_go_raw_strings():
    src = 'package p\n\n// doc\nvar s = `a // b\n/* c */`\nvar t = "\\"//"\n'
    assert loc.strip_c_like(src, raw_strings=True) == 'package p\nvar s = `a // b\n/* c */`\nvar t = "\\"//"\n'


def gzip_size(text: str) -> int:
    """gzip -9's size of text, framed by hand: the 10-byte header, the raw
    deflate stream, the 8-byte CRC and length (RFC 1952)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    return 10 + len(deflate.compress(text.encode()) + deflate.flush()) + 8


@pytest.mark.parametrize(
    "lang, src, lines, text",
    [
        ("c", "// c\nint x;\n\nint y;\n", 2, "int x;\nint y;\n"),
        ("go", "package p\n\n/* a\n b */\nvar s = `x // y`\n", 2, "package p\nvar s = `x // y`\n"),
        (
            "py",
            '"""Doc."""\n\n# note\ndef f():\n    """Doc."""\n    return 1  # one\n',
            2,
            "def f():\n    return 1\n",
        ),
    ],
    ids=["c", "go", "py"],
)
def test_measure_counts_and_gzip(tmp_path, lang, src, lines, text):
    """Small fixed inputs whose lines were counted by hand, and whose gzip
    size is computed apart from loc's own (zlib, framed by hand)."""
    p = tmp_path / f"x.{lang}"
    p.write_text(src)
    got_lines, gz, got_text = loc.measure(lang, p)
    assert (got_lines, got_text) == (lines, text)
    assert gz == gzip_size(text)


def code_lines_c_like(src: str) -> int:
    """Non-blank lines once /* */ and // comments are gone, by regular
    expressions (good enough for sources without comment markers inside
    strings, which the files counted below are)."""
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), src, flags=re.S)
    return sum(1 for line in src.splitlines() if re.sub(r"//.*", "", line).strip())


def code_lines_py(src: str) -> int:
    """Lines that hold a token of code, by the tokenizer: comments, blank
    lines and docstrings (a string alone at the start of a module or of an
    indented block) hold none."""
    lines = set()
    prev = tokenize.NEWLINE
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER}
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    for i, tok in enumerate(toks):
        if tok.type in skip or tok.type in (tokenize.INDENT, tokenize.DEDENT):
            if tok.type in (tokenize.INDENT, tokenize.NEWLINE):
                prev = tok.type
            continue
        alone = i + 1 < len(toks) and toks[i + 1].type == tokenize.NEWLINE
        docstring = tok.type == tokenize.STRING and alone and (prev == tokenize.INDENT or not lines)
        if not docstring:
            lines.update(range(tok.start[0], tok.end[0] + 1))
        prev = tok.type
    return len(lines)


def test_the_independent_counters_agree_on_the_fixtures():
    assert code_lines_c_like("// c\nint x;\n\nint y; /* a\n b */\n") == 2
    assert code_lines_py('"""Doc."""\n\n# note\ndef f():\n    """Doc."""\n    return 1  # one\n') == 2


@pytest.mark.parametrize("lang", ["c", "go", "py"])
def test_child_on_the_loop_round(lang):
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "loc", lang, "round=loop"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    path = ROOT / loc.FILES[lang].format("loop")
    src = path.read_text()
    lines = code_lines_py(src) if lang == "py" else code_lines_c_like(src)
    text = loc.strip_python(src) if lang == "py" else loc.strip_c_like(src, raw_strings=lang == "go")
    assert f"result: {lang} loop lines={lines} gz={gzip_size(text)}" in out.stdout
    assert f"BenchmarkLoc/impl={lang}/round=loop 1 " in out.stdout and " lines " in out.stdout and " gz-B" in out.stdout


def test_child_rejects_unknown_round():
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "loc", "py", "round=nope"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )
    assert out.returncode == 2 and "round=nope" in out.stderr


def test_every_round_is_counted():
    assert {s["round"] for s in loc.ROUND.sizes} >= {"loop", "ffi", "jsonl"}
    assert "loc" not in {s["round"] for s in loc.ROUND.sizes}


@pytest.mark.parametrize("impl", ["py-numpy", "py-pandas"])
def test_library_programs_counted_where_a_round_has_them(impl):
    """aspects keeps its numpy and pandas versions as whole files of their
    own: loc counts them as Python, and runs those rows only for rounds that
    have such a file."""
    v = next(v for v in loc.ROUND.variants if v.name == impl)
    assert v.default_if({"round": "aspects"}) and not v.default_if({"round": "loop"})
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.run.child", "loc", impl, "round=aspects"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    src = (ROOT / loc.FILES[impl].format("aspects")).read_text()
    assert f"result: {impl} aspects lines={code_lines_py(src)} gz={gzip_size(loc.strip_python(src))}" in out.stdout
