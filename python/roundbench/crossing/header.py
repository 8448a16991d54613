"""--header: a prototype as a user copies it from a header, read the way the
C compiler reads it.

The header and the declaration go through the C preprocessor together
(`cc -E` on `#include <zlib.h>` and then the declaration, between two
marker words), so that the declaration's macros are expanded as in any
program that includes the header (zlib's ZEXTERN, ZEXPORT, OF(), FAR),
and every macro the header's typedefs depend on (zconf.h's STDC, which
picks z_size_t's definition) has the value this compiler gives it. The
typedefs are then read from the preprocessed text: each name's type words
and pointer stars, or what it is when no mechanism passes it (a struct,
a function pointer, an array), for decl.parse to follow (uLong -> unsigned
long, Bytef -> Byte -> unsigned char, z_size_t -> size_t).

A header is found as the compiler finds it: a path (anything with a slash,
or a file that exists), else an include name (`zlib.h`, `sys/types.h`)
searched on the compiler's include path.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass

from . import decl as d

# Words that cannot be macros of any header (identifiers with two leading
# underscores are the implementation's, and no C library defines these).
_BEGIN = "__roundbench_crossing_begin__"
_END = "__roundbench_crossing_end__"
# A line marker of the preprocessor's output: `# 1 "/usr/include/zlib.h" 1 3 4`.
_MARKER = re.compile(r'^#\s*\d+\s+"((?:[^"\\]|\\.)*)"(.*)$')


class HeaderError(Exception):
    """The header cannot be read: one line says why."""


@dataclass(frozen=True)
class Header:
    given: str  # as the user named it
    path: str  # the file the preprocessor included
    declaration: str  # the declaration, its macros expanded
    typedefs: d.Typedefs
    command: str  # how it was preprocessed, for the provenance

    def chain(self, name: str) -> str:
        """`Bytef -> Byte -> unsigned char`: how a typedef name resolves."""
        out, seen = [name], set()
        while name in self.typedefs.table and name not in seen:
            seen.add(name)
            t = self.typedefs.table[name]
            if t.refused:
                out.append(t.refused)
                break
            text = " ".join(t.words) + (" " + "*" * t.stars if t.stars else "")
            out.append(text)
            words = [w for w in t.words if w != "const"]
            if len(words) != 1 or t.stars:
                break
            name = words[0]
        return " -> ".join(out)

    def used(self) -> list:
        """The typedef names the declaration uses, in order, each once."""
        seen = []
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", self.declaration):
            if w in self.typedefs.table and w not in seen and w not in d.SCALARS:
                seen.append(w)
        return seen


def _include_line(given: str) -> tuple:
    """(the #include line, the path it names or None for an include name)."""
    if os.sep in given or os.path.isfile(given):
        path = os.path.abspath(given)
        if not os.path.isfile(path):
            raise HeaderError(f"--header {given}: {'not a file' if os.path.exists(path) else 'no such file'}")
        if '"' in path or "\n" in path:
            raise HeaderError(f"--header {given}: a path with a quote or a newline cannot be included")
        return f'#include "{path}"', path
    if not re.fullmatch(r"[A-Za-z0-9_.+/-]+", given):
        raise HeaderError(f"--header {given!r}: want a path or an include name such as zlib.h")
    return f"#include <{given}>", None


def _first_error(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln:
            # `<stdin>:1:10: fatal error: nope.h: No such file or directory`
            return re.sub(r"^.*?\berror:\s*", "", ln)
    return lines[-1] if lines else "no message"


def read(given: str, declaration: str, cc: list) -> Header:
    """Preprocesses `given` (a header) and `declaration` with the C
    compiler `cc` (its argv), and reads the header's typedefs.
    HeaderError, in one line, when the header cannot be found or read."""
    if not given.strip():
        raise HeaderError("--header: want a path or an include name such as zlib.h, not an empty value")
    line, path = _include_line(given)
    if "\n" in declaration or _BEGIN in declaration or _END in declaration:
        raise HeaderError("--header: the declaration must be one line, without the tool's marker words")
    source = f"{line}\n{_BEGIN}\n{declaration}\n{_END}\n"
    cmd = [*cc, "-E", "-x", "c", "-"]
    try:
        done = subprocess.run(cmd, input=source, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HeaderError(f"--header {given}: cannot run {cc[0]} -E: {e}") from None
    if done.returncode != 0:
        raise HeaderError(f"--header {given}: {cc[0]} -E cannot read it: {_first_error(done.stderr)}")
    text, found = _strip_markers(done.stdout)
    head, sep, rest = text.partition(_BEGIN)
    body, sep2, _ = rest.partition(_END)
    if not sep or not sep2:
        raise HeaderError(f"--header {given}: the preprocessor's output lost the declaration (a macro of the header?)")
    typedefs = d.Typedefs(given, read_typedefs(head))
    return Header(given, found or path or given, " ".join(body.split()), typedefs, " ".join(cmd))


def _strip_markers(out: str) -> tuple:
    """(the text without the preprocessor's line markers, the path of the
    header it included: the first file entered from the input, `<stdin>`;
    the compiler's own stdc-predef.h is entered before it, from
    `<command-line>`)."""
    lines, found, current = [], None, None
    for ln in out.splitlines():
        m = _MARKER.match(ln)
        if m:
            if found is None and "1" in m.group(2).split() and current == "<stdin>":
                found = m.group(1)
            current = m.group(1)
            continue
        if ln.startswith("#"):
            continue  # a #pragma or #ident the header keeps
        lines.append(ln)
    return "\n".join(lines), found


# ---- typedefs ------------------------------------------------------------------------

_DECORATIONS = ("__attribute__", "__attribute", "__asm__", "__asm", "asm", "__declspec", "__typeof__", "typeof")
_TAGS = {"struct": "a struct", "union": "a union", "enum": "an enum"}


def _statements(text: str) -> list:
    """The top-level statements of preprocessed C (ended by `;` outside
    braces), each a brace group collapsed into `{}`: a struct's body is
    not read, only that it has one."""
    text = d._strip_balanced(text, _DECORATIONS)
    out, cur, depth, body = [], [], 0, False
    for ch in text:
        if ch == "{":
            if depth == 0:
                # A function's body (an inline function of the header) ends
                # its statement with the brace, not with a semicolon.
                body = "".join(cur).rstrip().endswith(")")
                cur.append("{}")
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
            if depth == 0 and body:
                out.append("".join(cur).strip())
                cur, body = [], False
        elif depth == 0:
            if ch == ";":
                out.append("".join(cur).strip())
                cur = []
            else:
                cur.append(ch)
    return out


def _split_top(text: str) -> list:
    out, cur, depth = [], [], 0
    for ch in text:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def _tokens(text: str) -> list:
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\S", text)


def read_typedefs(text: str) -> dict:
    """Every typedef of preprocessed C: name -> decl.Typedef. The forms
    read are those headers use for names of scalars and pointers
    (`typedef unsigned long uLong;`, `typedef Byte Bytef;`, `typedef const
    void *voidpc;`, several names in one); a struct, union or enum, a
    function or function pointer and an array are recorded as what they
    are, so that a declaration using one is refused naming it."""
    out: dict = {}
    for st in _statements(text):
        tokens = _tokens(st)
        while tokens and tokens[0] in ("__extension__", "extern", "static"):
            tokens = tokens[1:]
        if not tokens or tokens[0] != "typedef":
            continue
        body = tokens[1:]
        tag = next((t for t in body if t in _TAGS), None)
        if tag is not None:
            k = body.index(tag)
            named = body[k + 1] if k + 1 < len(body) and body[k + 1] not in ("{}", "{", "*") else None
            what = f"{tag} {named}" if named else _TAGS[tag]
            after = body[body.index("}") + 1 :] if "}" in body else body[k + 2 if named else k + 1 :]
            after = [t for t in after if t != "{"]
            for part in _split_top(" ".join(after)):
                ptoks = _tokens(part)
                names = [t for t in ptoks if re.fullmatch(r"[A-Za-z_]\w*", t) and t not in ("const", "volatile")]
                if names:
                    stars = ptoks.count("*")
                    out[names[-1]] = d.Typedef(refused=f"a pointer to {what}" if stars else what)
            continue
        rest = " ".join(body)
        if "(" in rest:
            # `typedef voidpf (*alloc_func)(voidpf, uInt, uInt)` or `typedef int fn_t(int)`.
            m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", rest)
            if m:
                out[m.group(1)] = d.Typedef(refused="a function pointer")
            else:
                m = re.search(r"([A-Za-z_]\w*)\s*\(", rest)
                if m:
                    out[m.group(1)] = d.Typedef(refused="a function type")
            continue
        parts = _split_top(rest)
        first = _tokens(parts[0])
        if "[" in first:
            first = first[: first.index("[")]
        idents = [t for t in first if t != "*"]
        if len(idents) < 2:
            continue
        base_end = first.index("*") if "*" in first else len(first) - 1
        base = tuple(d._ALIASES.get(t, t) for t in first[:base_end] if t != "*")
        for k, part in enumerate(parts):
            ptoks = _tokens(part) if k else first
            array = "[" in part
            if k and array:
                ptoks = ptoks[: ptoks.index("[")]
            names = [t for t in ptoks if t not in ("*", "const", "volatile", "restrict", "__restrict")]
            if not names:
                continue
            name = names[-1]
            if array:
                out[name] = d.Typedef(refused="an array")
            else:
                stars = ptoks.count("*")
                out[name] = d.Typedef(base, stars)
    return out
