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
