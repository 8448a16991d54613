"""Imports at any depth: no cycle among the package's modules, counting
the imports inside functions, which the layers contract (.importlinter)
reads as well but its acyclic contract, sibling by sibling, does not
follow into a package's own __init__. An import moved into a function
does not hide a cycle from this test."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "python" / "roundbench"


def module_graph(package: Path) -> dict:
    """module -> {module it imports: the line}, for every import statement
    in the package, at module level or inside a function. `from . import
    x` is an edge to the submodule x where there is one, else to the
    package itself (its __init__)."""
    root = package.parent
    modules = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    edges: dict = {m: {} for m in modules}
    for m, (path, is_package) in modules.items():
        here = m if is_package else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = ".".join(base[: len(base) - (node.level - 1)] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                if t in modules and t != m:
                    edges[m].setdefault(t, node.lineno)
    return edges


def cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's
    algorithm, without recursion), each sorted."""
    index: dict = {}
    low: dict = {}
    on, stack, out = set(), [], []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(edges[nxt])))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _cycle_text(comp: list, edges: dict) -> str:
    return "; ".join(f"{a}:{edges[a][b]} -> {b}" for a in comp for b in edges[a] if b in comp)


def test_no_import_cycle_at_any_depth():
    edges = module_graph(PACKAGE)
    found = cycles(edges)
    assert not found, "import cycles (function-level imports included): " + " | ".join(
        _cycle_text(c, edges) for c in found
    )


def test_the_cycle_check_can_fail(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    # A round package's module that reads its package's declaration, which
    # imports it back: the trap of a driver importing `from . import ROUND`.
    (pkg / "sub" / "__init__.py").write_text("from . import driver\nROUND = 1\n")
    (pkg / "sub" / "driver.py").write_text("def start():\n    from . import ROUND\n")
    (pkg / "c.py").write_text("import pkg.a\n")
    found = cycles(module_graph(pkg))
    assert sorted(found) == [["pkg.a", "pkg.b"], ["pkg.sub", "pkg.sub.driver"]]


def outside_imports(folder: Path, package: str) -> list:
    """The imports in folder's modules (at any depth, inside functions too)
    of anything but the standard library and `package`'s own modules."""
    import sys

    out = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                # relative: from . (the package) or from .. (the project, above it)
                base = {0: "", 1: package}.get(node.level, "roundbench")
                names = [".".join(x for x in (base, node.module) if x)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if name == "__future__" or top in sys.stdlib_module_names:
                    continue
                if name == package or name.startswith(package + "."):
                    continue
                out.append(f"{path.name}:{node.lineno}: {name or '(relative)'}")
    return out


def test_pure_imports_only_the_standard_library_and_itself():
    """pure/ is each round's code in the language alone (the loc round
    counts it as that): no library, no extension, nothing of the package
    outside pure/."""
    bad = outside_imports(PACKAGE / "pure", "roundbench.pure")
    assert not bad, f"pure/ imports beyond the standard library and itself: {bad}"


def test_the_pure_check_can_fail(tmp_path):
    (tmp_path / "a.py").write_text(
        "import json\nfrom . import b\n\n"
        "def f():\n    import numpy\n    from .. import _core\n    from ..rounds import x\n"
    )
    assert [x.split(": ")[1] for x in outside_imports(tmp_path, "roundbench.pure")] == [
        "numpy",
        "roundbench",
        "roundbench.rounds",
    ]


def _shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


def unexplained(path: Path) -> list:
    """The imports inside functions of a source with no reason beside them:
    a comment on the line, on the line above, or above the run of imports
    the statement belongs to."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for fn in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if any("implements" in ast.unparse(d) for d in fn.decorator_list):
            continue  # a variant's entry (harness.implements): its child imports only what it runs
        for node in ast.walk(fn):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            k = node.lineno - 1
            if "#" in lines[k]:
                continue
            k -= 1
            while k >= 0 and lines[k].strip().startswith(("import ", "from ")) and "#" not in lines[k]:
                k -= 1
            if k >= 0 and lines[k].strip().startswith("#"):
                continue
            out.append(f"{_shown(path)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return sorted(set(out))


def test_every_import_inside_a_function_says_why():
    bad = [line for path in sorted(PACKAGE.rglob("*.py")) for line in unexplained(path)]
    assert not bad, f"{len(bad)} imports inside functions with no reason beside them: {bad}"


def test_the_reason_check_can_fail(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "def f():\n    import json\n\n"
        "def g():\n    # optional: only g needs it\n    import numpy\n    import numpy.linalg\n\n"
        "def h():\n    import scipy  # optional\n\n"
        "@harness.implements('loop', 'py-numba')\ndef run_py_numba(args):\n    import numba\n"
    )
    assert [line.split(": ", 1)[1] for line in unexplained(src)] == ["import json"]
