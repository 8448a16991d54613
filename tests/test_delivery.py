"""Round delivery: the executable-header reader on the project's own
binaries and on binaries built here, cross-compilation cells that fail
are recorded (not raised), and the facts reach the report."""

import shutil
import struct
import subprocess

import os

import pytest

from roundbench.results import benchfmt
from roundbench.report import document
from roundbench.rounds.delivery import binfmt
from roundbench.rounds import delivery

from conftest import BUILD, ROOT, child_env, run_roundbench

GO = shutil.which("go")


def _readelf_needed(path):
    out = subprocess.run(["readelf", "-dW", str(path)], capture_output=True, text=True, check=True).stdout
    return [ln.split("[", 1)[1].rstrip("]") for ln in out.splitlines() if "(NEEDED)" in ln]


# Libraries each binary must need at least (what a round adds to the core's
# link line may add more; readelf, where present, checks the exact list).
@pytest.mark.parametrize(
    "name, linkage, needed",
    [
        ("hello-c", "dynamic", ["libc.so.6"]),
        ("hello-c-static", "static", []),
        ("hello-go", "static", []),
        ("hello-go-cgo", "dynamic", ["libc.so.6"]),
        ("hello-go-c", "dynamic", ["libc.so.6"]),
        ("rb-c-static", "static", []),
        ("rb-c-so", "dynamic", ["libroundbench.so", "libc.so.6"]),
        ("libroundbench.so", "shared library", None),
    ],
)
def test_project_binaries(built, name, linkage, needed):
    info = binfmt.read(BUILD / name)
    assert (info.format, info.bits) == ("ELF", 64)
    assert info.linkage == linkage
    if linkage == "static":
        assert info.needed == []
    elif needed is not None:
        assert set(needed) <= set(info.needed), info.needed
    assert (info.interp is not None) == (linkage == "dynamic")
    if shutil.which("readelf"):
        assert info.needed == _readelf_needed(BUILD / name)


def test_extension_module():
    mods = sorted((ROOT / "python" / "roundbench").glob("_core*.so"))
    assert mods, "run `make build`"
    info = binfmt.read(mods[0])
    assert info.linkage == "shared library" and info.interp is None and "libc.so.6" in info.needed


@pytest.mark.parametrize(
    "flags, linkage",
    [
        ([], "dynamic"),
        (["-static"], "static"),
        (["-static-pie"], "static-pie"),
        (["-no-pie"], "dynamic"),
        (["-shared", "-fPIC"], "shared library"),
    ],
)
def test_binaries_built_here(tmp_path, flags, linkage):
    src = tmp_path / "t.c"
    src.write_text(
        "#include <math.h>\n#include <stdio.h>\n" 'int main(int c, char **v) { printf("%f\\n", sqrt(c)); return 0; }\n'
    )
    out = tmp_path / "t"
    r = subprocess.run(["gcc", *flags, str(src), "-o", str(out), "-lm"], capture_output=True, text=True)
    if r.returncode != 0 and "-static" in " ".join(flags):
        pytest.skip(f"no static libc here: {r.stderr.strip()[:200]}")
    assert r.returncode == 0, r.stderr
    info = binfmt.read(out)
    assert info.linkage == linkage
    if linkage == "dynamic":
        assert info.interp and "libc.so.6" in info.needed
    if linkage.startswith("static"):
        assert info.static and info.needed == [] and info.interp is None
        # A static program runs without a loader.
        assert subprocess.run([str(out)], capture_output=True, text=True).stdout.strip() == "1.000000"


def test_bad_input_raises_value_error(tmp_path):
    good = (BUILD / "hello-c").read_bytes()
    for data in (b"", b"\x7fELF", good[:40], good[:100], b"MZ" + b"\0" * 100, b"not a program at all"):
        p = tmp_path / "bad"
        p.write_bytes(data)
        with pytest.raises(ValueError):
            binfmt.read(p)


def test_pe_and_macho_headers(tmp_path):
    pe = bytearray(0x200)
    pe[:2] = b"MZ"
    struct.pack_into("<I", pe, 0x3C, 0x80)
    pe[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<H", pe, 0x84, 0xAA64)
    struct.pack_into("<H", pe, 0x80 + 24, 0x20B)
    (tmp_path / "a.exe").write_bytes(bytes(pe))
    info = binfmt.read(tmp_path / "a.exe")
    assert (info.format, info.arch, info.bits) == ("PE", "arm64", 64)
    (tmp_path / "a.macho").write_bytes(struct.pack("<Ii", 0xFEEDFACF, 0x0100000C) + bytes(24))
    info = binfmt.read(tmp_path / "a.macho")
    assert (info.format, info.arch, info.bits) == ("Mach-O", "arm64", 64)


def test_first_error_line():
    text = "# runtime/cgo\ngcc_arm64.S: Assembler messages:\ngcc_arm64.S:30: Error: no such instruction\n"
    assert delivery.first_error(text) == "gcc_arm64.S:30: Error: no such instruction"
    assert delivery.first_error("# pkg\nmain.go:3:2: undefined: x\n") == "main.go:3:2: undefined: x"
    assert delivery.first_error("") == "(no output)"


@pytest.mark.skipif(GO is None, reason="go is not on PATH")
def test_cross_cells_record_failure_and_success(tmp_path):
    mod = tmp_path / "m"
    (mod / "bad").mkdir(parents=True)
    (mod / "good").mkdir()
    (mod / "go.mod").write_text("module m\n\ngo 1.24\n")
    (mod / "bad" / "main.go").write_text("package main\n\nfunc main() { undefinedThing() }\n")
    (mod / "good" / "main.go").write_text("package main\n\nfunc main() {}\n")
    out = tmp_path / "out"
    out.mkdir()
    cell = delivery.cross_cell(GO, "./bad", "linux", "amd64", 0, mod, out)
    assert cell["ok"] is False and "undefined: undefinedThing" in cell["error"]
    cell = delivery.cross_cell(GO, "./good", "linux", "amd64", 0, mod, out)
    assert cell["ok"] is True and (cell["format"], cell["arch"], cell["linkage"]) == ("ELF", "x86-64", "static")


def test_facts_reach_the_report(tmp_path):
    name = "BenchmarkDelivery/impl=go"
    lines = [
        benchfmt.fact_line(name, 'cross:hello-go:linux/arm64:cgo=1 {"ok": false, "error": "gcc: error: x | y"}'),
        benchfmt.fact_line(
            name, 'cross:hello-go:linux/arm64:cgo=0 {"ok": true, "format": "ELF", "arch": "arm64", "size": 2000000}'
        ),
        benchfmt.fact_line(
            name,
            'program:hello-go {"size": 2400000, "stripped": 1600000, "format": "ELF", '
            '"arch": "x86-64", "linkage": "static", "interp": null, "needed": []}',
        ),
        f"{name} 1 5000000000 ns/op 1 cross-ok\n",
    ]
    (tmp_path / "results.txt").write_text("".join(lines))
    rs = benchfmt.read_dir(tmp_path)
    assert len(rs.facts) == 3 and len(rs.runs) == 1 and not rs.failures
    text = document.render(rs, "test")
    assert "| hello-go | linux/arm64 | ok: ELF arm64" in text
    assert "fails: `gcc: error: x / y`" in text
    assert "| hello-go | 2.29 MiB | 1.53 MiB | ELF x86-64 | static |" in text
    assert "mean ± σ (ns/op)" not in text.split("## delivery")[1].split("## Score")[0]  # facts, not error bars


def test_a_facts_round_runs_once_and_keeps_its_facts(tmp_path):
    env = child_env()
    env["PYTHONPATH"] = str(ROOT / "tests") + os.pathsep + env["PYTHONPATH"]
    env["ROUNDBENCH_PLUGINS"] = "plugins.facts_round"
    out = run_roundbench("run", "factsonly", "--runs", "3", "--out", str(tmp_path), env=env)
    assert out.returncode == 0, out.stderr
    rs = benchfmt.read_dir(tmp_path)
    assert len(rs.runs) == 1
    assert [(f.key, f.value) for f in rs.facts] == [("colour", "blue, as measured"), ("empty", "")]
    assert "facts: colour=blue, as measured" in (tmp_path / "report.md").read_text()
    # benchstat skips --- FACT: lines as it skips --- FAIL: lines.
    from test_runner import _benchstat

    bs = subprocess.run([_benchstat(), str(tmp_path / "results.txt")], capture_output=True, text=True)
    assert bs.returncode == 0 and "error" not in bs.stderr.lower(), bs.stderr
    assert "Factsonly" in bs.stdout


def test_fact_keys_have_no_spaces_and_the_package_row_renders(capsys):
    from roundbench.rounds import delivery
    from roundbench.judge.cells import Cell

    with pytest.raises(ValueError, match="no spaces"):
        delivery._fact("cross:package roundbench/go:linux/arm64:cgo=0", {})
    delivery._fact("cross:roundbench/go:linux/arm64:cgo=0", {"ok": True, "format": "Go archive", "arch": "arm64"})
    printed = capsys.readouterr().out
    key, _, value = printed.removeprefix("fact: ").strip().partition(" ")
    c = Cell("go-c")
    c.facts[key] = value
    text = delivery.report_section({}, {"go-c": c}, {})
    assert "| roundbench/go | linux/arm64 | ok: Go archive arm64" in text


@pytest.mark.skipif(GO is None, reason="no go command")
def test_the_go_runner_is_built_without_and_with_its_profile(tmp_path, monkeypatch, capsys):
    from roundbench.rounds import delivery

    src = tmp_path / "src"
    (src / "go" / "pgo").mkdir(parents=True)
    (src / "go" / "pgo" / "jsonl.pgo").write_bytes(b"profile")
    (src / "go" / "cmd" / "rb-go" / "jsonl").mkdir(parents=True)
    (src / "go" / "cmd" / "rb-go" / "jsonl" / "jsonl.go").write_text("package main\n")
    builds = []
    monkeypatch.setattr(delivery, "_run", lambda cmd, cwd, env=None: builds.append((cmd, env["GOCACHE"])) or 2.5)
    delivery._pgo_build_times(src, tmp_path)
    pgo = [next(a for a in cmd if a.startswith("-pgo=")) for cmd, _ in builds]
    profile = f"-pgo={src / 'go' / 'pgo' / 'jsonl.pgo'}"
    assert pgo == ["-pgo=off", "-pgo=off", profile, profile]  # clean, then after an edit
    assert len({cache for _, cache in builds}) == 2  # each build from its own empty cache
    facts = dict(ln.removeprefix("fact: ").split(" ", 1) for ln in capsys.readouterr().out.splitlines())
    assert set(facts) == {"build:go-runner-jsonl", "build:go-runner-jsonl-pgo"}
    assert (
        '"clean_s": 2.5' in facts["build:go-runner-jsonl-pgo"]
        and "PGO with go/pgo/jsonl.pgo" in facts["build:go-runner-jsonl-pgo"]
    )
