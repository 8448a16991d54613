"""roundbench.runtimes.gotoolchains: --go values, the Go programs built with the
oldest Go the sources promise (1.19), and why a variant is not in them.

The build test fetches the oldest release through the go command (the Go
module proxy, once; the module cache keeps it) and builds every Go program
with it into build/go<release>/ (about 20 s with a cold build cache, less
once built: a second missing() finds the programs there)."""

import json
import re
import subprocess

import pytest

from roundbench.runtimes import gotoolchains, programs
from roundbench import rounds
from roundbench.runtimes.gotoolchains import ToolchainError
from roundbench.run import launch

from conftest import BUILD, ROOT

OLDEST = ".".join(map(str, gotoolchains.MINIMUM))
WANT = "want a Go version such as 1.22 or 1.22.5"


@pytest.mark.parametrize("spec", ["1.2x", "", "1", "x1.20", "2.0", "1.20.1.2", "1.21rc2", "go", "1.20-"])
def test_resolve_refuses_a_malformed_value(spec):
    with pytest.raises(ToolchainError) as e:
        gotoolchains.resolve(spec)
    assert e.value.usage
    assert str(e.value) == f"--go {spec}: {WANT}"


@pytest.mark.parametrize("spec", ["1.18", "1.4.2", "go1.0"])
def test_resolve_refuses_go_older_than_the_minimum(spec):
    with pytest.raises(ToolchainError) as e:
        gotoolchains.resolve(spec)
    assert e.value.usage
    assert str(e.value) == (
        f"--go {spec}: the Go programs build with Go {OLDEST} or newer "
        f"(Go {OLDEST} is the release nearest in date to CPython 3.11)"
    )


def test_the_installed_series_is_the_installed_release():
    have = gotoolchains.installed()
    assert re.fullmatch(r"1\.\d+(\.\d+)?", have), have
    series = ".".join(have.split(".")[:2])
    assert gotoolchains.resolve(series) == gotoolchains.resolve(have) == gotoolchains.resolve("go" + have) == have


def test_program_path_is_make_builds_for_the_installed_release_and_a_folder_per_release_else():
    have = gotoolchains.installed()
    assert gotoolchains.program_path("rb-go-loop", have) == programs.path("rb-go-loop")
    assert gotoolchains.program_path("hello-go", "go1.20.14") == BUILD / "go1.20.14" / "hello-go"
    with pytest.raises(ValueError, match="rb-c is no Go program"):
        gotoolchains.program_path("rb-c", have)
    with pytest.raises(ValueError, match="not a Go release"):
        gotoolchains.program_path("rb-go-loop", "1.2x")


def variant_missing(round_name: str, variant: str, version: str):
    """gotoolchains.variant_missing for a variant named as the runner names it."""
    rnd = rounds.get(round_name)
    v = rnd.variant(variant)
    return gotoolchains.variant_missing(rnd, v, launch.program_of(rnd, v), version)


def test_variant_missing_refuses_what_no_go_runner_runs():
    with pytest.raises(ValueError, match="loop/py is run by python, not by a Go runner"):
        variant_missing("loop", "py", gotoolchains.installed())


def go_list(*args, cwd=ROOT) -> str:
    done = subprocess.run(["go", "list", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def module(path: str) -> tuple:
    """(version, go line) of a module go.mod requires."""
    version, declared = go_list("-m", "-f", "{{.Version}} {{.GoVersion}}", path).split()
    return version, declared


@pytest.fixture(scope="module")
def oldest():
    """The oldest release the sources build with, as resolve() finds it
    (the proxy's list, or the file that keeps it)."""
    release = gotoolchains.resolve(OLDEST)
    assert re.fullmatch(re.escape(OLDEST) + r"(\.\d+)?", release), release
    return release


def test_resolve_keeps_the_proxy_list_so_a_second_run_asks_nothing(oldest, monkeypatch):
    kept = json.loads((BUILD / gotoolchains.RELEASES_FILE).read_text())
    assert oldest in kept["releases"]
    monkeypatch.setenv("GOPROXY", "off")  # the go command could not ask now
    assert gotoolchains.resolve(OLDEST) == oldest


def test_resolve_says_what_the_proxy_serves_of_a_series(oldest):
    with pytest.raises(ToolchainError) as e:
        gotoolchains.resolve(OLDEST + ".99")
    assert not e.value.usage
    series = rf"\(it has .*{re.escape(oldest)}\)"
    want = rf"the Go module proxy \(.+\) serves no Go {re.escape(OLDEST)}\.99 for \w+-\w+ {series}"
    assert re.fullmatch(want, str(e.value)), str(e.value)


def test_an_axis_keeps_a_release_not_served_and_refuses_a_malformed_one(oldest):
    # Kept as given: its rows become skip rows saying why (missing(), or the
    # crossing's build), not a usage error that would stop the whole run.
    assert gotoolchains.resolve_or_keep(OLDEST + ".99") == OLDEST + ".99"
    assert gotoolchains.resolve_or_keep(OLDEST) == oldest
    with pytest.raises(ToolchainError) as e:
        gotoolchains.resolve_or_keep("1.x")
    assert e.value.usage


def test_the_go_mod_of_an_old_release_drops_the_requirements_it_cannot_read(oldest):
    text = gotoolchains._module_text(oldest, ROOT)
    assert f"\ngo {OLDEST}\n" in text
    required = re.findall(r"^\t(\S+) v", (ROOT / "go.mod").read_text(), re.M)
    kept = set(re.findall(r"^\t(\S+) v", text, re.M))
    for line in go_list("-m", "-f", "{{.Path}} {{.GoVersion}}", *required).splitlines():
        path, _, declared = line.partition(" ")
        old_enough = not declared or tuple(map(int, declared.split(".")[:2])) <= gotoolchains.MINIMUM
        assert (path in kept) == old_enough, (path, declared)
    assert "github.com/valyala/fasthttp" not in kept and "github.com/bytedance/sonic" in kept


def release_tag(path) -> int:
    """The oldest Go 1.N a Go file's build line lets it into, the other
    tags as a default build with cgo and the file's own custom tag has
    them."""
    text = path.read_text()
    expr = gotoolchains._build_line(text) or "go1.1"
    tags = {"linux", "amd64", "unix", "gc", "cgo", "netlib", *(f"go1.{i}" for i in range(1, 100))}
    if "goexperiment.jsonv2" in expr and "!goexperiment.jsonv2" not in expr:
        tags.add("goexperiment.jsonv2")
    return gotoolchains._first_release(expr, tags) or gotoolchains.MINIMUM[1]


def test_a_file_that_imports_a_library_builds_only_with_a_go_the_library_declares():
    """The invariant the old releases' builds rest on: every Go file that
    imports a module outside the standard library carries a release tag
    at least the newest go line among the modules those imports need, so
    that an older release leaves it out instead of failing."""
    checked = 0
    for path in sorted((ROOT / "go").rglob("*.go")):
        if path.name.endswith("_test.go") or "rb-scan" in path.parts:
            continue
        outside = [p for p in gotoolchains._imports(path.read_text()) if "." in p.split("/")[0]]
        if not outside:
            continue
        declared = go_list("-deps", "-tags", "netlib", "-f", "{{with .Module}}{{.GoVersion}}{{end}}", *outside)
        newest = max((int(v.split(".")[1]) for v in declared.split() if v), default=0)
        assert release_tag(path) >= newest, (
            f"{path.relative_to(ROOT)} imports {', '.join(outside)}, whose modules declare go 1.{newest}, "
            f"but its build line lets Go 1.{release_tag(path)} build it: add go1.{newest} to it"
        )
        checked += 1
    assert checked >= 5  # sonic, fastjson, fasthttp, gonum, gonum's netlib binding


def go_variants() -> list:
    """(round, variant) of every variant a Go runner lists."""
    out = []
    for rnd in rounds.all_rounds():
        for v in rnd.variants:
            try:
                gotoolchains._runner_of(rnd, v, launch.program_of(rnd, v))
            except ValueError:
                continue
            out.append((rnd.name, v.name))
    return out


def test_every_go_program_builds_with_the_oldest_release(oldest):
    """Every Go program but those that need a newer Go (their reasons
    checked) builds with the oldest release, which the programs say they
    were built with."""
    for name in (n for n in programs.names() if programs.go_package(n) is not None):
        why = gotoolchains.missing(name, oldest)
        path = gotoolchains.program_path(name, oldest)
        if name == "rb-go-jsonl-v2":
            assert why == (
                f"rb-go-jsonl-v2 needs Go 1.25 or newer (GOEXPERIMENT=jsonv2; go/cmd/rb-go/jsonl/jsonv2.go: "
                f"//go:build goexperiment.jsonv2 && go1.25); not built with go{oldest}"
            )
            continue
        if programs.go_package(name).pgo is not None:
            assert why == f"{name} needs Go 1.21 or newer (go build -pgo); not built with go{oldest}"
            continue
        if name in programs.NEEDS and why is not None and "pkg-config" in why:
            continue  # the system lacks its library: programs.missing says so for every release
        assert why is None, f"{name}: {why}"
        assert path == BUILD / f"go{oldest}" / name
        assert programs.go_build_settings(path)["go"] == f"go{oldest}"
        assert gotoolchains.missing(name, oldest) is None  # built: found, not built again


def test_each_go_variant_is_in_the_oldest_build_or_says_which_go_it_needs(oldest):
    reasons = {}
    for round_name, variant in go_variants():
        why = variant_missing(round_name, variant, oldest)
        if why is not None and "pkg-config" in why:
            continue  # its program's library is not on this system, whatever the release
        if why is not None:
            reasons[(round_name, variant)] = why
            need = re.fullmatch(rf"(\S+) needs Go 1\.(\d+) or newer \((.+)\); not built with go{oldest}", why)
            assert need is not None, why
            assert int(need.group(2)) > gotoolchains.MINIMUM[1], why
    # Every pure Go variant and every cgo one is in it but the two whose
    # annotation cgo takes from Go 1.24.
    absent = {v for _, v in reasons}
    assert absent == {
        "go-pgo",  # the PGO build twins: go build -pgo from Go 1.21
        "go-pgo-v3",
        "go-iter-pull",  # package iter, from Go 1.23
        "go-fasthttp",
        "go-sonic",
        "go-fastjson",
        "go-jsonv2",
        "go-gonum",
        "go-gonum-netlib",
        "go-c-noescape",
        "go-c-nocallback",
        "go-c-ptr-noescape",
        "go-c-ptr-nocallback",
        "go-c-ptr-both",
        "go-purego",  # purego v0.11.3 declares go 1.25
        "go-purego-buffer",
        "go-purego-args4",
        "go-purego-str",
        "go-purego-callback",
    } - ({"go-gonum-netlib"} if programs.missing("rb-go-matmul-netlib") else set())

    def library_reason(variant: str, path: str, via: str = "") -> str:
        """The reason a variant whose library (or a module it needs) declares a newer go line gives."""
        version, declared = module(path)
        which = f", which {via} needs," if via else ""
        return (
            f"{variant} needs Go 1.{declared.split('.')[1]} or newer ({path} {version}{which} declares go "
            f"{declared}); not built with go{oldest}"
        )

    assert reasons[("http", "go-fasthttp")] == library_reason("go-fasthttp", "github.com/valyala/fasthttp")
    assert reasons[("matmul", "go-gonum")] == library_reason("go-gonum", "gonum.org/v1/gonum")
    assert reasons[("ffi", "go-c-noescape")] == (
        f"go-c-noescape needs Go 1.24 or newer (go/cgo_noescape.go: //go:build cgo && go1.24); "
        f"not built with go{oldest}"
    )
    assert reasons[("chain", "go-iter-pull")] == (
        f"go-iter-pull needs Go 1.23 or newer (go/cmd/rb-go/chain/pull.go: //go:build go1.23); "
        f"not built with go{oldest}"
    )
    assert reasons[("jsonl", "go-sonic")] == library_reason(
        "go-sonic", "github.com/klauspost/cpuid/v2", via="github.com/bytedance/sonic"
    )


@pytest.mark.parametrize("impl", ["go", "go-c"])
def test_a_loop_run_with_the_oldest_build(oldest, impl):
    assert variant_missing("loop", impl, oldest) is None
    done = subprocess.run(
        [str(gotoolchains.program_path("rb-go-loop", oldest)), "loop", impl, "n=1000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"result: sum={sum(i * i % 7 for i in range(1000))}"
    assert re.fullmatch(rf"BenchmarkLoop/impl={impl}/n=1000 1 \d+ ns/op [\d.e+-]+ ns/iter", done.stdout.splitlines()[1])
