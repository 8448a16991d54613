"""The documents name only what the tree has: every repository path, make
target and roundbench command line that README.md, CONTRIBUTING.md and
docs/ name is held here to the checkout, so that a file moved or renamed, a
target dropped or an option removed fails a test instead of leaving a
document that says what the code does not."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from roundbench import cli

from conftest import ROOT

DOCS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])

# Where a path in backticks may be written from: the checkout's root, the
# Python package (`rounds/http/servers.py`), the Go package, or the folder
# of the document itself.
BASES = (ROOT, ROOT / "python", ROOT / "python" / "roundbench", ROOT / "go", ROOT / "csrc", ROOT / "testdata")
# A code span is taken for a path when its first folder is one of these
# (units such as `ns/op` and module paths such as `gonum.org/v1/netlib` are
# not), or when it ends in a file's extension or a `/`.
FOLDERS = {p.name for base in BASES for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")} | {
    ".ci",
    "roundbench",
}
EXTENSION = re.compile(r"\.(py|pyi|c|h|cc|go|md|txt|tsv|mk|sh|j2|toml|json|png|html)$")
# What a run or a build makes, not the tree: never held to it.
OUTPUTS = ("build/", "results/", ".venv/", "dist/", "bin/", "gosrc/", "site-packages/")
GO_MODULE = "roundbench/go"  # the Go package's import path (go.mod's module, /go)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
PATHLIKE = re.compile(r"^\.?[\w.-]+(/[\w.-]+)+/?$")


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def _prose_and_code(doc: Path) -> tuple:
    """(the text outside fenced blocks, the lines inside them)."""
    prose, code, fenced = [], [], False
    for line in _text(doc).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            code.append(line)
        else:
            prose.append(line)
    return "\n".join(prose), code


def named_paths(doc: Path) -> list:
    """The repository paths a document names: its relative links, and the
    code spans that are paths (a `/` in them, no placeholder, no output)."""
    prose, _ = _prose_and_code(doc)
    found = [(m, doc.parent) for m in LINK.findall(prose) if not m.startswith(("http:", "https:", "mailto:"))]
    for span in CODE_SPAN.findall(prose):
        token = span.split()[0] if span.split() else ""
        token = token.rstrip(",.:;)")
        if not PATHLIKE.match(token) or token.startswith(OUTPUTS) or "//" in token:
            continue
        if token.split("/")[0] not in FOLDERS and not EXTENSION.search(token) and not token.endswith("/"):
            continue
        if token == GO_MODULE or token.startswith(GO_MODULE + "/"):
            continue  # a Go import path: `roundbench/go`
        found.append((token, None))
    return found


def _exists(token: str, doc_dir) -> bool:
    bases = ([doc_dir] if doc_dir is not None else []) + list(BASES)
    return any((base / token).exists() for base in bases)


def test_the_documents_exist_and_are_found():
    names = {d.relative_to(ROOT).as_posix() for d in DOCS}
    for want in ("README.md", "CONTRIBUTING.md", "docs/ARCHITECTURE.md", "docs/measurement.md", "docs/rounds/jsonl.md"):
        assert want in names
    assert len(_text(ROOT / "README.md").splitlines()) <= 250, "README.md is the five-minute read: docs/ has the rest"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_path_a_document_names_is_in_the_tree(doc):
    missing = sorted({token for token, where in named_paths(doc) if not _exists(token, where)})
    assert not missing, f"{doc.relative_to(ROOT)} names paths the tree does not have: {missing}"


def make_targets() -> set:
    text = (ROOT / "Makefile").read_text()
    return {m.group(1) for m in re.finditer(r"^([A-Za-z][\w.-]*)\s*:(?!=)", text, re.M)}


MAKE = re.compile(r"^make ([a-z][\w-]*)")


def _code(doc: Path) -> list:
    """The document's code: its fenced blocks' lines and its code spans."""
    prose, code = _prose_and_code(doc)
    return [ln.strip() for ln in code] + CODE_SPAN.findall(prose)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_make_target_a_document_names_exists(doc):
    named = {m.group(1) for line in _code(doc) if (m := MAKE.match(line.split("#", 1)[0].strip()))}
    unknown = sorted(named - make_targets())
    assert not unknown, f"{doc.relative_to(ROOT)} names make targets the Makefile has not: {unknown}"


def command_lines(doc: Path) -> list:
    """Every `roundbench ...` or `rb ...` command a document's code blocks
    and code spans give, as argv after the command's name."""
    out = []
    for line in _code(doc):
        line = line.split("#", 1)[0].strip()
        if line.startswith("$ "):
            line = line[2:]
        for lead in ("roundbench ", "rb ", ".venv/bin/roundbench "):
            if line.startswith(lead):
                try:
                    argv = shlex.split(line[len(lead) :])
                except ValueError:
                    continue
                argv = [a for a in argv if a not in ("...", "|")]
                if "|" in line:
                    argv = shlex.split(line[len(lead) :].split("|", 1)[0])
                if argv and not argv[0].isupper() and not argv[0].startswith("<"):
                    out.append(argv)
    return out


def refused(argv: list) -> str:
    """Why roundbench would refuse argv's subcommand or one of its options
    (a document may leave out positional arguments: only the words it
    gives are held to the parser), or "" when it takes them."""
    import argparse

    top = cli.parser()
    if argv[0].startswith("-"):
        known = {o for a in top._actions for o in a.option_strings}
        return "" if argv[0] in known else f"roundbench takes no {argv[0]}"
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    command = sub.choices.get(argv[0])
    if command is None:
        return f"no subcommand {argv[0]!r}"
    # A subcommand with verbs of its own (roundbench store import ...).
    name, words = argv[0], argv[1:]
    verbs = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
    if verbs is not None and words and not words[0].startswith("-"):
        if words[0] not in verbs.choices:
            return f"{name} has no verb {words[0]!r}"
        command, name, words = verbs.choices[words[0]], f"{name} {words[0]}", words[1:]
    options = {o for a in command._actions for o in a.option_strings}
    unknown = [w.split("=", 1)[0] for w in words if w.startswith("-") and w.split("=", 1)[0] not in options]
    return f"{name} takes no {', '.join(unknown)}" if unknown else ""


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_command_a_document_gives_is_taken(doc):
    bad = [f"roundbench {' '.join(argv)}: {why}" for argv in command_lines(doc) if (why := refused(argv))]
    assert not bad, f"{doc.relative_to(ROOT)} gives commands roundbench does not take: {bad}"


def test_the_checks_can_fail(tmp_path):
    """The checks find what they look for: a named path that is not in the
    tree, a target the Makefile lacks and an option no command takes."""
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `python/roundbench/no_such_module.py` and [this](no-such.md).\n\n"
        "```sh\nmake no-such-target\nroundbench run loop --no-such-option\n```\n"
    )
    assert {t for t, w in named_paths(doc) if not _exists(t, w)} == {
        "python/roundbench/no_such_module.py",
        "no-such.md",
    }
    assert command_lines(doc) == [["run", "loop", "--no-such-option"]]
    assert refused(["run", "loop", "--no-such-option"]) == "run takes no --no-such-option"
    assert refused(["nosuch"]) == "no subcommand 'nosuch'"
    assert refused(["run", "loop", "--runs", "3"]) == ""
    assert refused(["store", "export", "round:loop", "-o", "x.txt"]) == ""
    assert refused(["store", "export", "--out", "x"]) == "store export takes no --out"
    assert refused(["store", "nosuch"]) == "store has no verb 'nosuch'"
    assert _code(doc)[0] == "make no-such-target" and "no-such-target" not in make_targets()


# ---- the code names the map and the round pages give -------------------------------------
#
# docs/ARCHITECTURE.md and docs/rounds/*.md name code in backticks:
# `module.function`, `Class.field`, `file.py:name`, a bare `file.py`. Each
# is resolved here against the sources, read statically (nothing is
# imported): the Python package's modules and their top-level names and
# class members, the Go packages' exported names, the tree's file names.
# A name that belongs to no module of the project (`time.Sleep`,
# `pd.read_csv`, `os.sched_getaffinity`) is another project's and is not
# held here.

import ast  # noqa: E402 - this part's own imports, kept beside it
import sys  # noqa: E402

CODE_DOCS = sorted([ROOT / "docs" / "ARCHITECTURE.md", *(ROOT / "docs" / "rounds").glob("*.md")])
PACKAGE = ROOT / "python" / "roundbench"
DOTTED = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?$")
FILE_NAME = re.compile(r"^([\w.-]+\.(?:py|pyx|c|h|cc|go|txt|tsv|mk|toml))(?::([A-Za-z_][\w.]*))?$")


def _members(tree: ast.AST) -> dict:
    """name -> the names inside it (a class's members; {} for anything
    else) of a module's top level, re-exported imports included."""
    out: dict = {}
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.ClassDef):
            inner = set()
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner.add(sub.name)
                elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                    inner.add(sub.target.id)
                elif isinstance(sub, ast.Assign):
                    inner.update(t.id for t in sub.targets if isinstance(t, ast.Name))
            out[node.name] = inner
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = set()
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id] = set()
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = set()
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                out[(a.asname or a.name).split(".")[0]] = set()
    return out


def python_modules() -> dict:
    """dotted module name (roundbench.judge.cells) -> its _members."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = _members(ast.parse(path.read_text(encoding="utf-8")))
    # The extension's names, from the typed stubs beside each of its
    # functions (_core.c's /*pyi ... */ blocks); the package re-exports them.
    core = (PACKAGE / "_core.c").read_text(encoding="utf-8")
    stubs = "\n".join(re.findall(r"/\*pyi(.*?)\*/", core, re.S))
    names = {n: set() for n in re.findall(r"^(?:def|class) (\w+)", stubs, re.M)}
    out["roundbench._core"] = names
    out["roundbench"] = {**out.get("roundbench", {}), **names}
    return out


def go_packages() -> dict:
    """A Go package's folder name -> the exported names its files declare."""
    out: dict = {}
    decl = re.compile(r"^(?:func (?:\([^)]*\) )?|type |var |const )([A-Z]\w*)", re.M)
    for path in (ROOT / "go").rglob("*.go"):
        name = "roundbench" if path.parent == ROOT / "go" else path.parent.name
        out.setdefault(name, set()).update(decl.findall(path.read_text(encoding="utf-8")))
    return out


def _resolves_python(parts: list, modules: dict) -> bool:
    """Whether parts names a module, or a name in one (a class's member
    one further), where parts[0] is a module's last name, a dotted prefix
    of one, or a class of the package."""
    for mod, members in modules.items():
        names = mod.split(".")
        for k in range(len(parts), 0, -1):
            if names[-k:] != parts[:k] and not (k == len(names) and names == parts[:k]):
                continue
            rest = parts[k:]
            if not rest:
                return True
            if rest[0] in members and (len(rest) == 1 or (len(rest) == 2 and rest[1] in members[rest[0]])):
                return True
        # A class named first: `Variant.level`.
        if parts[0] in members and members[parts[0]] and len(parts) == 2 and parts[1] in members[parts[0]]:
            return True
    return False


def unresolved(span: str, modules: dict, go: dict, files: set) -> str:
    """Why a code span names project code that does not exist, or ""."""
    m = FILE_NAME.match(span)
    if m:
        name, inner = m.groups()
        if name not in files:
            return f"no file named {name}"
        if inner and name.endswith(".py"):
            stems = [mod for mod in modules if mod.split(".")[-1] == name[:-3] or mod.endswith(f".{name[:-3]}")]
            if not any(_resolves_python([mod.split(".")[-1], *inner.split(".")], modules) for mod in stems):
                return f"{name} has no {inner}"
        return ""
    m = DOTTED.match(span)
    if not m:
        return ""
    parts = m.group(1).split(".")
    ours = {p for mod in modules for p in mod.split(".")} | {
        c for mem in modules.values() for c, inner in mem.items() if inner
    }
    if parts[0] not in ours and parts[0] not in go:
        return ""  # another project's name
    if parts[0] in ours and _resolves_python(parts, modules):
        return ""
    if parts[0] in go and len(parts) >= 2 and parts[1] in go[parts[0]]:
        return ""
    if parts[0] in sys.stdlib_module_names or (parts[0] not in go and parts[-1][:1].isupper()):
        # Go's standard library (`errors.As`) or Python's (`http.server`),
        # whose package shares a name with one of ours.
        return ""
    return f"{span} names nothing in the package"


def _tree_files() -> set:
    tracked = (ROOT / ".git").exists()
    if tracked:
        import subprocess

        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
        return {Path(p).name for p in out}
    return {p.name for p in ROOT.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def code_index():
    return python_modules(), go_packages(), _tree_files()


@pytest.mark.parametrize("doc", CODE_DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_code_name_a_page_gives_exists(doc, code_index):
    modules, go, files = code_index
    prose, _ = _prose_and_code(doc)
    bad = sorted({why for span in CODE_SPAN.findall(prose) if (why := unresolved(span.strip(), modules, go, files))})
    assert not bad, f"{doc.relative_to(ROOT)} names code the tree does not have: {bad}"


def test_the_code_name_check_can_fail(code_index):
    modules, go, files = code_index
    assert unresolved("judge.score.best_side", modules, go, files) == ""
    assert unresolved("judge.score.no_such_function", modules, go, files) != ""
    assert unresolved("cells.Cell.median_of", modules, go, files) == ""
    assert unresolved("cells.Cell.no_such_method", modules, go, files) != ""
    assert unresolved("Variant.level", modules, go, files) == ""
    assert unresolved("Variant.no_such_field", modules, go, files) != ""
    assert unresolved("harness.Register", modules, go, files) == ""  # the Go harness
    assert unresolved("harness.NoSuchFunc", modules, go, files) != ""
    assert unresolved("summary.py", modules, go, files) == ""
    assert unresolved("no_such_file.py", modules, go, files) == "no file named no_such_file.py"
    assert unresolved("servers.py:no_such_name", modules, go, files) == "servers.py has no no_such_name"
    assert unresolved("time.Sleep", modules, go, files) == ""  # not ours
    assert unresolved("roundbench.jsonl_kernel()", modules, go, files) == ""  # the extension's
    assert unresolved("roundbench.no_such_kernel()", modules, go, files) != ""


# ---- the document sections the code cites ----------------------------------------------------
#
# Source comments cite a page and a section: (docs/rounds/matmul.md, "The
# BLAS"). Each cited section is a heading of that page.

CITED = re.compile(r"((?:docs/)?[\w/-]+\.md|README),\s*\"([^\"\n]+)\"")
SOURCES = ("*.py", "*.c", "*.h", "*.cc", "*.go", "*.mk", "*.txt", "*.sh", "*.toml", "*.md", "Makefile", ".ci/run")


def _headings(page: Path) -> set:
    return {m.group(1).strip() for m in re.finditer(r"^#+\s+(.*)$", _text(page), re.M)}


def _page(name: str) -> Path:
    name = "README.md" if name == "README" else name
    for base in (ROOT, ROOT / "docs", ROOT / "docs" / "rounds"):
        if (base / name).is_file():
            return base / name
    return ROOT / name


def missing_sections(text: str) -> list:
    """Every (page, section) that text cites and the page lacks."""
    out = []
    for name, section in CITED.findall(text):
        page = _page(name)
        if not page.is_file():
            out.append(f"{name} (no such page)")
        elif section not in _headings(page):
            out.append(f'{name}, "{section}"')
    return out


def test_every_section_the_code_cites_exists():
    import subprocess

    listed = subprocess.run(["git", "ls-files", *SOURCES], cwd=ROOT, capture_output=True, text=True).stdout.split()
    bad = []
    for rel in listed:
        path = ROOT / rel
        if path.is_file():
            bad += [f"{rel}: {m}" for m in missing_sections(path.read_text(encoding="utf-8", errors="replace"))]
    assert not bad, f"sections cited that their pages lack: {bad}"


def test_the_section_check_can_fail():
    # Built from parts, so that this file itself cites no missing section.
    page, nowhere = "docs/rounds/matmul.md", "docs/no-such-page.md"
    assert missing_sections(f'the BLAS ({page}, "The BLAS")') == []
    assert missing_sections(f'({page}, "No such section")') == [f'{page}, "No such section"']
    assert missing_sections(f'({nowhere}, "X")') == [f"{nowhere} (no such page)"]
    readme = "README"
    assert missing_sections(f'({readme}, "No such section")') == [f'{readme}, "No such section"']
