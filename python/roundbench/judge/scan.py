"""What the timed code does: a static scan of every variant for the tricks
that make a comparison unfair.

A variant's code is its entry point (the Python function harness.implements
registered, the Go function harness.Register registered, the C round's
run function RBC_ROUND registered) and every function of the project it
reaches, followed by name; the measurement protocol itself (the harness
packages) is the same for every variant and is not scanned. The scan looks
for:

  forced-gc  forced collection: gc.collect, runtime.GC, debug.FreeOSMemory,
             malloc_trim
  sleep      sleeping: time.sleep, asyncio.sleep, time.Sleep, nanosleep...
  yield      yielding the CPU for nothing: asyncio.sleep(0), os.sched_yield,
             runtime.Gosched, sched_yield
  print      printing or logging: print, sys.stdout.write, logging, fmt.Print,
             log, printf, puts
  locale     locale-aware formatting: the locale module, format type 'n',
             setlocale, strfmon, printf's ' flag, x/text/message

Each hit is a warning on that variant's row in the report. A round whose
work is one of these (the sleep round sleeps) declares it
(Round.scan_allows) and those hits are not counted against it.

Python is scanned with `ast`, Go with go/ast (build/rb-scan, go/cmd/rb-scan),
C by tokens. C variants share their round's run function, so a hit there is
on every C variant of the round.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from ..measure import harness
from .. import rounds
from ..runtimes import programs
from . import checks

KINDS = ("forced-gc", "sleep", "yield", "print", "locale")


@dataclass(frozen=True, order=True)
class Hit:
    round: str
    variant: str
    kind: str
    where: str  # file:line, relative to the repository or package
    call: str  # what was called

    def text(self) -> str:
        return f"{self.kind} {self.call} at {self.where}"


# ---- Python ----------------------------------------------------------------

_PY_CALLS = {
    "gc.collect": "forced-gc",
    "time.sleep": "sleep",
    "asyncio.sleep": "sleep",
    "os.sched_yield": "yield",
    "print": "print",
    "sys.stdout.write": "print",
    "sys.stderr.write": "print",
    "pprint.pprint": "print",
}
_PY_MODULE_KINDS = {"logging": "print", "locale": "locale"}

# Code that is the protocol, not a variant's: never followed.
_PY_PROTOCOL = {"roundbench.measure.harness", "roundbench.rounds"}


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _imports(tree: ast.AST, module: str) -> dict:
    """Local name -> dotted name, for every import statement in tree
    (relative imports resolved against module)."""
    out = {}
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = package.split(".")
                up = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                base = ".".join(up + ([base] if base else []))
            for a in node.names:
                out[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
    return out


def _classify(name: str, call: ast.Call) -> Optional[str]:
    if name in ("asyncio.sleep", "time.sleep") and call.args:
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and arg.value in (0, 0.0):
            return "yield"
    if name in _PY_CALLS:
        return _PY_CALLS[name]
    head = name.split(".")[0]
    return _PY_MODULE_KINDS.get(head)


def _format_specs(tree: ast.AST) -> Iterable[ast.AST]:
    """f-string replacement fields whose format type is 'n' (locale-aware)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and isinstance(node.format_spec, ast.JoinedStr):
            spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
            if spec.endswith("n"):
                yield node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            if isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
                if re.search(r"\{[^{}]*:[^{}]*n\}", node.func.value.value):
                    yield node


_project = ["roundbench"]  # top-level packages whose code is followed


def _project_object(obj: object) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    return mod.split(".")[0] in _project and mod not in _PY_PROTOCOL


def _relpath(path: str) -> str:
    p = Path(path).resolve()
    root = programs.checkout()
    for base in [root] if root is not None else []:
        try:
            return str(p.relative_to(base))
        except ValueError:
            pass
    try:
        return str(p.relative_to(Path(__file__).resolve().parents[2]))
    except ValueError:
        return p.name


# The protocol's timers: the arguments at these positions are timed code.
_PY_TIMERS = {
    "roundbench.measure.harness.time_once": (0,),
    "roundbench.measure.harness.calibrated": (0,),
    "roundbench.measure.harness.call_timer": (0,),
}
# Clock reads: the code between a function's first and last is timed.
_PY_CLOCKS = {"roundbench.measure.harness.now_ns", "time.perf_counter_ns", "time.perf_counter", "time.monotonic_ns"}
_WAIVER = re.compile(r"scan: allow ([a-z-]+(?:, ?[a-z-]+)*)")


class _PyFn:
    """One function's source, parsed, with what resolves its names."""

    def __init__(self, obj):
        self.obj = obj
        self.code = obj.__code__
        lines, self.first = inspect.getsourcelines(obj)
        self.lines = lines
        self.tree = ast.parse(textwrap.dedent("".join(lines)))
        module = inspect.getmodule(obj)
        modname = module.__name__ if module else ""
        self.names = dict(_imports(ast.parse(inspect.getsource(module)), modname)) if module else {}
        self.names.update(_imports(self.tree, modname))
        self.glb = getattr(obj, "__globals__", {})
        self.file = _relpath(self.code.co_filename)
        # local aliases of a clock (`now = harness.now_ns`)
        self.clocks = {
            t.id
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Assign)
            and _dotted(node.value) is not None
            and self.resolve(_dotted(node.value)) in _PY_CLOCKS
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        self.nested = {n.name: n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def resolve(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        full = self.names.get(head, head)
        return f"{full}.{rest}" if rest else full

    def line(self, node: ast.AST) -> int:
        return self.first + node.lineno - 1

    def waived(self, node: ast.AST, kind: str) -> bool:
        return _waived(self.lines, node.lineno, kind)


def _waived(lines: list, lineno: int, kind: str) -> bool:
    """Whether line lineno (1-based) of lines, or the line above it, says
    `scan: allow KIND[, KIND]: why`."""
    for i in (lineno - 1, lineno - 2):
        if 0 <= i < len(lines):
            m = _WAIVER.search(lines[i])
            if m and kind in [k.strip() for k in m.group(1).split(",")]:
                return True
    return False


def _load(obj) -> Optional[_PyFn]:
    try:
        return _PyFn(obj)
    except (OSError, TypeError, SyntaxError, AttributeError):
        return None


def _error_path(body: list) -> bool:
    """A block that ends by raising: an error path, not the work."""
    return bool(body) and isinstance(body[-1], ast.Raise)


def _walk_work(nodes: list) -> Iterable[ast.AST]:
    """Every node under nodes, leaving out error paths: except handlers and
    `if` blocks that end by raising."""
    todo = list(nodes)
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ExceptHandler):
                continue
            todo.append(child)
        if isinstance(node, ast.If) and _error_path(node.body):
            # the test was yielded; the body is skipped, the else kept
            todo = [t for t in todo if t not in node.body]


def _targets(fn: _PyFn, nodes: list, values_only: bool = False) -> list:
    """The project functions and classes nodes refer to (values_only: only
    those referred to as values, not called)."""
    called = {id(n.func) for n in _walk_work(nodes) if isinstance(n, ast.Call)}
    out = []
    for node in _walk_work(nodes):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        if values_only and id(node) in called:
            continue
        d = _dotted(node)
        if d is None:
            continue
        target = _lookup(fn.resolve(d), d, fn.glb)
        if target is not None and _project_object(target):
            out.append(target)
    return out


def _timed_nodes(fn: _PyFn) -> list:
    """The parts of fn that are timed: the arguments of the protocol's
    timers (with the nested functions they name), and the statements
    between the first and the last clock read."""
    out = []
    clock_lines = []
    for node in ast.walk(fn.tree):
        if not isinstance(node, ast.Call):
            continue
        d = _dotted(node.func)
        if d is None:
            continue
        full = fn.resolve(d)
        for i in _PY_TIMERS.get(full, ()):
            if i < len(node.args):
                arg = node.args[i]
                out.append(arg)
                if isinstance(arg, ast.Name) and arg.id in fn.nested:
                    out.append(fn.nested[arg.id])
        if full in _PY_CLOCKS or (isinstance(node.func, ast.Name) and node.func.id in fn.clocks):
            clock_lines.append(node.lineno)
    if len(clock_lines) >= 2:
        lo, hi = min(clock_lines), max(clock_lines)
        for node in _walk_work([fn.tree]):
            if (
                isinstance(node, ast.stmt)
                and lo < node.lineno < hi
                and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            ):
                out.append(node)
    return out


def _hits_in(fn: _PyFn, nodes: list, round_name: str, variant: str, allows, waived: list) -> set:
    hits = set()

    def add(kind: str, node: ast.AST, call: str) -> None:
        if kind in allows:
            return
        h = Hit(round_name, variant, kind, f"{fn.file}:{fn.line(node)}", call)
        if fn.waived(node, kind):
            waived.append(h)
        else:
            hits.add(h)

    for node in _walk_work(nodes):
        if isinstance(node, ast.Call):
            d = _dotted(node.func)
            if d is not None:
                kind = _classify(fn.resolve(d), node)
                if kind:
                    add(kind, node, fn.resolve(d))
    for top in nodes:
        for node in _format_specs(top):
            add("locale", node, "format type n")
    return hits


def scan_python_function(fn, round_name: str, variant: str, allows: Iterable[str] = (), waived=None) -> list:
    """The hits in the timed code reached from entry point fn: the
    arguments of the protocol's timers, the code between clock reads, and
    the project functions passed as values (the work a variant hands its
    timing code), each followed through every project function it names.
    Set-up, checks and error paths outside them are not timed and not
    scanned. Hits on a line that says `scan: allow KIND` (with its reason)
    go to `waived` instead."""
    waived = [] if waived is None else waived
    allows = tuple(allows)
    # A plugin round's code is followed as the suite's is.
    top = (getattr(fn, "__module__", None) or "roundbench").split(".")[0]
    if top not in _project:
        _project.append(top)
    # Phase 1: from the entry point, find the timed parts and the work.
    roots, seen, todo = [], set(), [fn]
    while todo:
        f = _take(todo.pop(), todo, seen)
        if f is None:
            continue
        timed = _timed_nodes(f)
        if timed:
            roots.append((f, timed))
        roots.extend(_targets(f, [f.tree], values_only=True))
        todo.extend(_targets(f, [f.tree]))
    return _scan_work(roots, round_name, variant, allows, waived)


def _take(obj, queue: list, seen: set) -> Optional[_PyFn]:
    """The parsed function obj is, the first time it comes; a class puts its
    methods on the queue instead (None then, and for what has no source)."""
    if isinstance(obj, type):
        queue.extend(v for v in vars(obj).values() if inspect.isfunction(v))
        return None
    f = _load(inspect.unwrap(obj))
    if f is None or f.code in seen:
        return None
    seen.add(f.code)
    return f


def _scan_work(roots: list, round_name: str, variant: str, allows: tuple, waived: list) -> list:
    """Phase 2: the hits in roots (functions or classes, whole, or (function,
    nodes) parts) and in every project function they reach."""
    hits, done = set(), set()
    queue = list(roots)
    while queue:
        item = queue.pop()
        if isinstance(item, tuple):
            f, nodes = item
        else:
            f = _take(item, queue, done)
            if f is None:
                continue
            nodes = [f.tree]
        hits |= _hits_in(f, nodes, round_name, variant, allows, waived)
        queue.extend(_targets(f, nodes))
    return sorted(hits)


def _lookup(full: str, local: str, glb: dict) -> object:
    """The function or class a dotted name refers to: through the
    function's globals, or by importing its module (a function-level
    `from ..pure.loop import loop`)."""
    head, _, rest = local.partition(".")
    obj = glb.get(head, None)
    if obj is not None:
        for part in rest.split(".") if rest else []:
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None and (inspect.isfunction(obj) or isinstance(obj, type)):
            return obj
    if full.startswith("roundbench."):
        mod_name, _, attr = full.rpartition(".")
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            return None
        obj = getattr(mod, attr, None)
        if inspect.isfunction(obj) or isinstance(obj, type):
            return obj
    return None


def _resolve_entry(dotted: str) -> object:
    """'roundbench.pure.http.hello' -> that function."""
    mod_name, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(mod_name), attr, None)


def scan_python(round_list: list, waived=None) -> tuple:
    """(hits, scanned): every Python variant of the rounds (facts rounds
    time nothing and are left out)."""
    hits, scanned = [], []
    for rnd in round_list:
        if rnd.facts:
            continue
        rounds.module_for(rnd.name)
        allows = tuple(rnd.scan_allows)
        for v in rnd.variants:
            if v.program != "python":
                continue
            entries = rnd.scan_entries.get(v.name)
            if entries is not None:
                # the variant's timed code is not its entry (a driver): the round names it
                scanned.append((rnd.name, v.name))
                objs = [_resolve_entry(e) for e in entries]
                hits.extend(_scan_work([o for o in objs if o is not None], rnd.name, v.name, allows, waived or []))
                continue
            try:
                impl = harness.implementation(rnd.name, v.name)
            except KeyError:
                continue
            scanned.append((rnd.name, v.name))
            hits.extend(scan_python_function(impl.run, rnd.name, v.name, allows, waived))
    return hits, scanned


# ---- C -----------------------------------------------------------------------

_C_CALLS = {
    "malloc_trim": "forced-gc",
    "sleep": "sleep",
    "usleep": "sleep",
    "nanosleep": "sleep",
    "clock_nanosleep": "sleep",
    "thrd_sleep": "sleep",
    "sched_yield": "yield",
    "pthread_yield": "yield",
    "thrd_yield": "yield",
    "printf": "print",
    "vprintf": "print",
    "puts": "print",
    "putchar": "print",
    "syslog": "print",
    "setlocale": "locale",
    "strfmon": "locale",
}
# fprintf/fputs/fwrite count as printing only to stdout or stderr.
_C_STREAM_CALLS = {"fprintf", "vfprintf", "fputs", "fputc", "putc", "fwrite"}
_C_TOKEN = re.compile(
    r'(?P<comment>/\*.*?\*/|//[^\n]*)|(?P<string>"(?:\\.|[^"\\])*")|(?P<char>\'(?:\\.|[^\'\\])*\')'
    r"|(?P<ident>[A-Za-z_]\w*)|(?P<punct>[{}();,])|(?P<nl>\n)|(?P<other>\S)",
    re.S,
)
_C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "defined"}
_C_PROTOCOL = {"harness.c", "forkwait.c", "forkwait.h", "harness.h"}


@dataclass
class _CFunc:
    name: str
    file: str
    tokens: list  # (kind, text, line) of its body


def _c_tokens(text: str) -> list:
    out, line = [], 1
    for m in _C_TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind == "nl":
            line += 1
            continue
        if kind != "comment":
            out.append((kind, tok, line))
        line += tok.count("\n")
    return out


def _c_functions(path: Path, rel: str) -> tuple:
    """({name: _CFunc}, registrations): the function definitions of a C file
    (a name, its parameter list, then a body at file scope), and its
    RBC_ROUND lines as (round, run function, [variants])."""
    toks = _c_tokens(path.read_text(encoding="utf-8", errors="replace"))
    funcs, regs = {}, []
    depth, i = 0, 0
    while i < len(toks):
        kind, tok, _ = toks[i]
        if depth == 0 and kind == "ident" and tok == "RBC_ROUND":
            j = i + 2
            args = []
            while j < len(toks) and toks[j][1] != ";":
                args.append(toks[j])
                j += 1
            strings = [t[1][1:-1] for t in args if t[0] == "string"]
            idents = [t[1] for t in args if t[0] == "ident"]
            if strings and idents:
                regs.append((strings[0], idents[0], strings[1:]))
            i = j
            continue
        if tok == "{":
            if depth == 0 and i >= 1 and toks[i - 1][1] == ")":
                # walk back over the parameter list to the name
                k, paren = i - 1, 0
                while k >= 0:
                    if toks[k][1] == ")":
                        paren += 1
                    elif toks[k][1] == "(":
                        paren -= 1
                        if paren == 0:
                            break
                    k -= 1
                name = toks[k - 1][1] if k >= 1 and toks[k - 1][0] == "ident" else None
                body, d, j = [], 0, i
                while j < len(toks):
                    if toks[j][1] == "{":
                        d += 1
                    elif toks[j][1] == "}":
                        d -= 1
                        if d == 0:
                            break
                    body.append(toks[j])
                    j += 1
                if name and name not in _C_KEYWORDS:
                    funcs[name] = _CFunc(name, rel, body)
                i = j + 1
                continue
            depth += 1
        elif tok == "}":
            depth = max(0, depth - 1)
        i += 1
    return funcs, regs


def _c_hits(toks: list) -> list:
    out = []
    for i, (kind, tok, line) in enumerate(toks):
        if kind == "string" and re.search(r"%[-+ #0]*'", tok):
            out.append(("locale", f"format {tok[:24]}", line))
        if kind != "ident" or i + 1 >= len(toks) or toks[i + 1][1] != "(":
            continue
        if tok in _C_CALLS:
            out.append((_C_CALLS[tok], tok, line))
        elif tok in _C_STREAM_CALLS:
            # the stream is the first argument of fprintf/vfprintf, the last of the others
            args = []
            depth, j = 0, i + 1
            while j < len(toks):
                t = toks[j][1]
                depth += t == "("
                depth -= t == ")"
                if depth == 0:
                    break
                args.append(t)
                j += 1
            stream = args[1] if tok in ("fprintf", "vfprintf") and len(args) > 1 else (args[-1] if args else "")
            if stream in ("stdout", "stderr"):
                out.append(("print", f"{tok}({stream})", line))
    return out


def scan_c(root: Path, round_list: list, waived=None) -> tuple:
    """(hits, scanned) for the C variants of the rounds: the timed parts of
    each round's run function (from its first clock read to its last, and
    what rbc_calibrated times) and every function they reach by name."""
    waived = [] if waived is None else waived
    texts: dict = {}
    funcs, regs = {}, []
    files = sorted((root / "csrc").glob("*.c")) + sorted((root / "csrc" / "runner").glob("*.c"))
    for f in files:
        if f.name in _C_PROTOCOL:
            continue
        got, r = _c_functions(f, str(f.relative_to(root)))
        funcs.update(got)
        regs.extend(r)
    wanted = {r.name: r for r in round_list}
    hits, scanned = [], []
    for reg_name, run_fn, variants in regs:
        round_name = _round_of(reg_name, wanted)
        rnd = wanted.get(round_name)
        if rnd is None:
            continue
        declared = {v.name for v in rnd.variants}
        mine = [v for v in variants if v in declared]
        # Phase 1: the functions the run function reaches, and their timed parts.
        reached, todo, timed = set(), [run_fn], []
        while todo:
            name = todo.pop()
            if name in reached or name not in funcs:
                continue
            reached.add(name)
            f = funcs[name]
            timed.extend((f, part) for part in _c_timed(f))
            todo.extend(t[1] for t in f.tokens if t[0] == "ident" and t[1] in funcs)
        if reg_name != round_name and run_fn in funcs:
            # a round's helper (http-serve: the server the load generator
            # times): all of it is timed
            timed.append((funcs[run_fn], funcs[run_fn].tokens))
        # Phase 2: the timed parts and every function they reach, whole.
        found, done, queue = set(), set(), list(timed)
        while queue:
            f, toks = queue.pop()
            for kind, call, line in _c_hits(toks):
                if kind in rnd.scan_allows:
                    continue
                if f.file not in texts:
                    texts[f.file] = (root / f.file).read_text(encoding="utf-8", errors="replace").splitlines()
                if _waived(texts[f.file], line, kind):
                    waived.extend(Hit(round_name, v, kind, f"{f.file}:{line}", call) for v in mine)
                    continue
                found.add((kind, call, f"{f.file}:{line}"))
            for t in toks:
                if t[0] == "ident" and t[1] in funcs and t[1] not in done:
                    done.add(t[1])
                    queue.append((funcs[t[1]], funcs[t[1]].tokens))
        for v in mine:
            scanned.append((round_name, v))
            hits.extend(Hit(round_name, v, kind, where, call) for kind, call, where in sorted(found))
    return sorted(set(hits)), sorted(set(scanned))


def _round_of(registered: str, wanted: dict) -> str:
    """The round a registration belongs to: its own name, or for a round's
    helper entry (http-serve, http-parse) the round before the dash."""
    if registered in wanted:
        return registered
    head = registered.split("-", 1)[0]
    return head if head in wanted else registered


_C_CLOCKS = {"rbc_now_ns"}
_C_TIMERS = {"rbc_calibrated": 0}  # the timed function is this argument


def _c_timed(f: _CFunc) -> list:
    """The timed token ranges of a function: from its first clock read to
    its last, and the function a timer is handed."""
    toks = f.tokens
    clocks = [i for i, t in enumerate(toks) if t[0] == "ident" and t[1] in _C_CLOCKS]
    out = []
    if len(clocks) >= 2:
        out.append(toks[clocks[0] : clocks[-1] + 1])
    for i, t in enumerate(toks):
        if t[0] == "ident" and t[1] in _C_TIMERS and i + 2 < len(toks):
            out.append([toks[i + 2]])  # the timed function's name: followed in phase 2
    return out


# ---- Go ----------------------------------------------------------------------


def scan_go(root: Path, round_list: list, waived=None) -> tuple:
    """(hits, scanned) for the Go variants, from build/rb-scan (go/cmd/rb-scan),
    or `go run` of it when it is not built; ([], []) and a reason when neither
    can run."""
    tool = root / "build" / "rb-scan"
    if tool.exists():
        cmd = [str(tool), str(root)]
    else:
        cmd = ["go", "run", "./go/cmd/rb-scan", str(root)]
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ScanError(f"the Go scan could not run ({e})") from None
    if p.returncode != 0:
        raise ScanError(f"the Go scan failed: {(p.stderr.strip().splitlines() or ['no message'])[-1]}")
    return parse_go_output(p.stdout, round_list, waived)


class ScanError(Exception):
    """A part of the scan could not run; says why."""


def parse_go_output(text: str, round_list: list, waived=None) -> tuple:
    """rb-scan prints `scanned ROUND VARIANT` for every variant it reached,
    `hit ROUND VARIANT KIND FILE:LINE CALL` for every hit and `waived ...`
    for every hit its line allows (those go to waived). A helper's round
    (http-serve) counts as its round's (http). A Go build twin (go-pgo)
    runs its base variant's code (go): it is scanned, and flagged, as that
    one is."""
    wanted = {r.name: r for r in round_list}
    waived = [] if waived is None else waived
    hits, scanned = [], []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 3:
            continue
        rnd = wanted.get(_round_of(f[1], wanted))
        if rnd is None or f[2] not in {v.name for v in rnd.variants}:
            continue
        names = [f[2]] + [v.name for v in rnd.variants if rounds.twin_base(rnd, v) == f[2]]
        for name in names:
            if f[0] == "scanned":
                scanned.append((rnd.name, name))
            elif len(f) >= 6 and f[0] in ("hit", "waived") and f[3] not in rnd.scan_allows:
                h = Hit(rnd.name, name, f[3], f[4], " ".join(f[5:]))
                (hits if f[0] == "hit" else waived).append(h)
    return hits, sorted(set(scanned))


# ---- all three -----------------------------------------------------------------


def scan(round_list: list) -> tuple:
    """(hits, scanned, waived, problems) over every language; problems are
    the parts that could not be scanned, with why."""
    hits, scanned, waived, problems = [], [], [], []
    round_list = [r for r in round_list if not r.facts]
    py_hits, py_scanned = scan_python(round_list, waived)
    hits += py_hits
    scanned += py_scanned
    root = programs.checkout()
    if root is None:
        problems.append("the C and Go sources are scanned from a checkout only")
        return sorted(set(hits)), scanned, waived, problems
    c_hits, c_scanned = scan_c(root, round_list, waived)
    hits += c_hits
    scanned += c_scanned
    try:
        go_hits, go_scanned = scan_go(root, round_list, waived)
        hits += go_hits
        scanned += go_scanned
    except ScanError as e:
        problems.append(str(e))
    return sorted(set(hits)), sorted(set(scanned)), sorted(set(waived)), problems


def _reason(h: Hit) -> str:
    """The why of a waiver: the text after `scan: allow KIND:` on the hit's
    line or the line above it."""
    path, _, line = h.where.rpartition(":")
    root = programs.checkout()
    try:
        lines = ((root / path) if root is not None else Path(path)).read_text(encoding="utf-8").splitlines()
        n = int(line)
    except (OSError, ValueError):
        return "no reason found"
    for i in (n - 1, n - 2):
        if 0 <= i < len(lines):
            m = re.search(r"scan: allow [a-z, -]+: ?(.*?)\s*(\*/)?$", lines[i])
            if m:
                return m.group(1) or "no reason given"
    return "no reason found"


def provenance(round_list: list) -> tuple:
    """(checks, items): one fairness check for the whole scan, and a
    `scan-ROUND/VARIANT` line per variant with hits."""
    hits, scanned, waived, problems = scan(round_list)
    items = {}
    by_variant: dict = {}
    for h in hits:
        by_variant.setdefault((h.round, h.variant), []).append(h)
    for (r, v), hs in sorted(by_variant.items()):
        items[f"scan-{r}/{v}"] = "; ".join(h.text() for h in hs)
    found = []
    langs = f"{len(scanned)} variants scanned (Python with ast, Go with go/ast, C by tokens)"
    allowed = ""
    if waived:
        why = ", ".join(sorted({f"{h.kind} at {h.where} ({_reason(h)})" for h in waived}))
        allowed = f"; allowed where the source says why: {why}"
    if by_variant:
        names = ", ".join(f"{r}/{v}" for r, v in sorted(by_variant))
        found.append(
            checks.warn(
                "timed-code",
                f"{langs}: forced collection, sleeps or yields, printing or locale-aware formatting "
                f"in {names}{allowed}",
                "see each row's scan flag; take it out of the timed code, or declare it as the round's work",
            )
        )
    else:
        found.append(
            checks.ok(
                "timed-code",
                f"{langs}: no forced collection, sleep or yield, printing or locale-aware formatting{allowed}",
            )
        )
    for p in problems:
        found.append(checks.info("timed-code-scan", p))
    return found, items
