"""Round loc: comment stripping per language, and its child over the
checkout's own files."""

import subprocess
import sys

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


def test_measure_counts_and_gzip(tmp_path):
    p = tmp_path / "x.c"
    p.write_text("// c\nint x;\n\nint y;\n")
    lines, gz, text = loc.measure("c", p)
    assert (lines, text) == (2, "int x;\nint y;\n") and gz > 0


@pytest.mark.parametrize("lang", ["c", "go", "py"])
def test_child_on_the_loop_round(lang):
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.child", "loc", lang, "round=loop"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    lines, gz, _ = loc.measure(lang, ROOT / loc.FILES[lang].format("loop"))
    assert f"result: {lang} loop lines={lines} gz={gz}" in out.stdout
    assert f"BenchmarkLoc/impl={lang}/round=loop 1 " in out.stdout and " lines " in out.stdout and " gz-B" in out.stdout


def test_child_rejects_unknown_round():
    out = subprocess.run(
        [sys.executable, "-m", "roundbench.child", "loc", "py", "round=nope"],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )
    assert out.returncode == 2 and "round=nope" in out.stderr


def test_every_round_is_counted():
    assert {s["round"] for s in loc.ROUND.sizes} >= {"loop", "ffi", "jsonl"}
    assert "loc" not in {s["round"] for s in loc.ROUND.sizes}
