"""A C prototype, read for `roundbench crossing`: what the callee takes and
returns, in the few kinds every mechanism can pass without a wrapper of
its own.

Supported: the integers of 8 to 64 bits, signed and unsigned, by their
<stdint.h> names or by C's own (`int`, `unsigned`, `short`, `long`,
`long long`, `signed char`, `unsigned char`, `char`, `size_t`, ...), `float`,
`double`, `void` as the return type, and a buffer: a const pointer to
bytes followed by its length, `const uint8_t *p, size_t n` (also `const char *`,
`const unsigned char *`, `const int8_t *`, `const void *`), which every
mechanism passes without a copy. The sizes of C's own names are this
machine's ABI, read from ctypes (on x86-64 and arm64 Linux, LP64: `int` 32
bits, `long` 64); plain `char` is signed or unsigned as this platform's C
makes it.

Anything else (a struct, a pointer to writable memory, a const pointer with
no length after it, an array, a function pointer, `...`, `long double`,
`_Bool`) is refused by Unsupported, a message naming the type.

A prototype copied from a header may use the header's own names for these
types (zlib's `uLong`, `Bytef`, `z_size_t`): given the header's Typedefs
(header.py reads them from the preprocessor's output), each name is
followed to the type it stands for, and a buffer's length may be any type
that comes out as size_t does on this ABI (unsigned, of its width).
"""

from __future__ import annotations

import ctypes
import functools
import math
import platform
import re
import struct
from dataclasses import dataclass
from typing import Optional

# An identifier, as C spells one.
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Unsupported(ValueError):
    """The declaration has a type (or a form) no mechanism here passes; the
    message names it."""


@dataclass(frozen=True)
class Scalar:
    """A scalar C type: `kind` is "int", "uint" or "float"; `bits` its size."""

    spelling: str  # as the declaration wrote it, normalised ("unsigned int")
    kind: str
    bits: int

    @property
    def stdint(self) -> str:
        """The <stdint.h> (or C) name every generated source uses."""
        if self.kind == "float":
            return "float" if self.bits == 32 else "double"
        return f"{'u' if self.kind == 'uint' else ''}int{self.bits}_t"

    @property
    def ctypes_name(self) -> str:
        if self.kind == "float":
            return "c_float" if self.bits == 32 else "c_double"
        return f"c_{'u' if self.kind == 'uint' else ''}int{self.bits}"

    @property
    def go(self) -> str:
        """The Go type a caller passes it as."""
        if self.kind == "float":
            return f"float{self.bits}"
        return f"{'u' if self.kind == 'uint' else ''}int{self.bits}"

    @property
    def range(self) -> tuple:
        if self.kind == "int":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


@dataclass(frozen=True)
class Buffer:
    """A const pointer to bytes and the size_t length after it: one argument
    on the Python and Go side (bytes, a slice), two in C."""

    spelling: str  # the pointer's type as written ("const uint8_t *")
    element: str  # "uint8_t", "int8_t", "char" or "void"
    pointer_name: str
    length_name: str

    @property
    def c_pointer(self) -> str:
        return f"const {self.element} *"


@dataclass(frozen=True)
class Typedef:
    """What one typedef names: the words of the type and the pointer stars
    its declarator adds (`typedef const void *voidpc;`: ("const", "void"),
    1), or, for a type no mechanism passes, what it is ("a struct
    z_stream_s", "a function pointer")."""

    words: tuple = ()
    stars: int = 0
    refused: Optional[str] = None


@dataclass(frozen=True)
class Typedefs:
    """The typedefs of a header, by name; `header` names the header in
    messages."""

    header: str
    table: dict


@dataclass(frozen=True)
class Param:
    name: str  # the declaration's, or a0, a1... when it names none
    type: object  # Scalar or Buffer


@dataclass(frozen=True)
class Declaration:
    """A parsed prototype: `ret` is a Scalar or None for void."""

    text: str
    name: str
    ret: Optional[Scalar]
    params: tuple  # of Param

    @property
    def scalars(self) -> list:
        """The parameters given by --args, in order."""
        return [p for p in self.params if isinstance(p.type, Scalar)]

    @property
    def buffer(self) -> Optional[Param]:
        return next((p for p in self.params if isinstance(p.type, Buffer)), None)

    @property
    def arity(self) -> int:
        """Arguments on the Python and Go side (a buffer is one)."""
        return len(self.params)

    def c_params(self) -> list:
        """(C type, name) of each C parameter, a buffer as its two."""
        out = []
        for p in self.params:
            if isinstance(p.type, Buffer):
                out += [(p.type.c_pointer, p.type.pointer_name), ("size_t", p.type.length_name)]
            else:
                out.append((p.type.stdint, p.name))
        return out

    def c_prototype(self, name: Optional[str] = None) -> str:
        """The prototype in <stdint.h> types, under `name` (default its own)."""
        ret = self.ret.stdint if self.ret else "void"
        params = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in self.c_params()) or "void"
        return f"{ret} {name or self.name}({params})"

    def describe(self) -> str:
        return self.c_prototype()


def _ctypes_bits(name: str) -> int:
    return ctypes.sizeof(getattr(ctypes, name)) * 8


def _plain_char_signed() -> bool:
    """Whether this platform's C makes plain `char` signed: the psABIs of
    x86 and x86-64 do; those of arm, arm64, PowerPC, s390x and RISC-V make
    it unsigned."""
    return platform.machine().lower() in ("x86_64", "amd64", "i386", "i486", "i586", "i686", "x86")


def _scalars() -> dict:
    """Every supported scalar spelling (words sorted, so `unsigned long int`
    and `long unsigned int` are one) -> Scalar."""
    table = {}

    def add(words: str, kind: str, bits: int) -> None:
        table[" ".join(sorted(words.split()))] = Scalar(words, kind, bits)

    for bits in (8, 16, 32, 64):
        add(f"int{bits}_t", "int", bits)
        add(f"uint{bits}_t", "uint", bits)
    c_names = {
        "c_byte": (["signed char"], ["unsigned char"]),
        "c_short": (
            ["short", "short int", "signed short", "signed short int"],
            ["unsigned short", "unsigned short int"],
        ),
        "c_int": (["int", "signed", "signed int"], ["unsigned", "unsigned int"]),
        "c_long": (["long", "long int", "signed long", "signed long int"], ["unsigned long", "unsigned long int"]),
        "c_longlong": (
            ["long long", "long long int", "signed long long", "signed long long int"],
            ["unsigned long long", "unsigned long long int"],
        ),
        "c_size_t": (["ssize_t", "ptrdiff_t", "intptr_t", "intmax_t"], ["size_t", "uintptr_t", "uintmax_t"]),
    }
    for ct, (signed, unsigned) in c_names.items():
        bits = _ctypes_bits(ct)
        for w in signed:
            add(w, "int", bits)
        for w in unsigned:
            add(w, "uint", bits)
    add("char", "int" if _plain_char_signed() else "uint", 8)
    add("float", "float", _ctypes_bits("c_float"))
    add("double", "float", _ctypes_bits("c_double"))
    return table


SCALARS = _scalars()

# The element types a buffer may point to, by their sorted words.
_BUFFER_ELEMENTS = {
    "uint8_t": "uint8_t",
    "char unsigned": "uint8_t",
    "int8_t": "int8_t",
    "char signed": "int8_t",
    "char": "char",
    "void": "void",
}

# Words that name a type no mechanism here passes, with what to call it.
_REFUSED_WORDS = {
    "struct": "struct",
    "union": "union",
    "enum": "enum",
    "_Bool": "_Bool",
    "bool": "bool",
    "_Complex": "complex",
    "complex": "complex",
    "wchar_t": "wchar_t",
}


def sizes_text() -> str:
    """The sizes of C's own integer names on this ABI, for --help and the
    report."""
    names = ["char", "short", "int", "long", "long long", "size_t"]
    parts = []
    for n in names:
        s = SCALARS[" ".join(sorted(n.split()))]
        sign = "signed" if s.kind == "int" else "unsigned"
        parts.append(f"{n} {s.bits} bits" + (f" ({sign})" if n == "char" else ""))
    return ", ".join(parts)


def _split_params(text: str) -> list:
    """The parameter list's items at depth 0 (a function pointer's own
    parentheses kept whole)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


# Qualifiers and storage words that change nothing a caller passes, and
# GCC's own spellings of them (as its preprocessed headers have them).
_IGNORED = {
    "extern",
    "register",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "inline",
    "static",
    "__extension__",
    "__inline",
    "__inline__",
    "__volatile",
    "__volatile__",
    "_Noreturn",
}
# GCC's alternate keywords, as the plain ones.
_ALIASES = {"__const": "const", "__const__": "const", "__signed": "signed", "__signed__": "signed"}


@dataclass
class _Typed:
    """One declarator read: the words of its type, typedefs followed (its
    name taken out), its pointer stars (the typedefs' included), whether
    const follows a star, its name (or None), and the words as written."""

    words: list
    stars: int
    const_ptr: bool
    name: Optional[str]
    written: list


def _tokens(item: str, where: str) -> list:
    if "(" in item or ")" in item:
        raise Unsupported(f"{where}: {item!r} is a function pointer, which no mechanism here passes")
    if "[" in item:
        raise Unsupported(f"{where}: {item!r} is an array, which no mechanism here passes")
    tokens = [_ALIASES.get(t, t) for t in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\*|\S", item)]
    for t in tokens:
        if t != "*" and not _IDENT.fullmatch(t):
            raise Unsupported(f"{where}: cannot read {item!r} (unexpected {t!r})")
    for k, t in enumerate(tokens):
        if t in _REFUSED_WORDS:
            tagged = t in ("struct", "union", "enum") and k + 1 < len(tokens) and tokens[k + 1] != "*"
            shown = f"{t} {tokens[k + 1]}" if tagged else _REFUSED_WORDS[t]
            raise Unsupported(f"{where}: {shown} is not supported (only integers, float, double and a buffer)")
    return tokens


def _type_and_name(item: str, where: str, typedefs: Optional[Typedefs] = None, head: bool = False) -> _Typed:
    """One declarator without brackets, read. `head`: the return type and
    the function's name (the last word is the name)."""
    tokens = _tokens(item, where)
    stars = tokens.count("*")
    before, after = (tokens[: tokens.index("*")], tokens[tokens.index("*") + 1 :]) if stars else (tokens, [])
    words = [t for t in before if t not in _IGNORED]
    tail = [t for t in after if t not in _IGNORED and t != "*"]
    const_ptr = "const" in tail
    tail = [t for t in tail if t != "const"]
    table = typedefs.table if typedefs else {}
    name = None
    if stars:
        if len(tail) > 1:
            raise Unsupported(f"{where}: cannot read {item!r}")
        name = tail[0] if tail else None
    elif head:
        name = words.pop() if words else None
    elif len(words) > 1 and words[-1] not in _known_type_words() and words[-1] not in table:
        name = words.pop()
    written = list(words)
    words, more = _expand(words, typedefs, where)
    return _Typed(words, stars + more, const_ptr, name, written)


def _expand(words: list, typedefs: Optional[Typedefs], where: str, seen: tuple = ()) -> tuple:
    """(words, stars): the typedef name among `words` replaced by the type
    it names, to the end of its chain, and the pointer stars the typedefs
    add. Qualifiers written beside a pointer typedef qualify the pointer,
    not what it points to (`const voidpf` is `void *const`), and go."""
    if typedefs is None:
        return words, 0
    known = _known_type_words()
    name = next((w for w in words if w not in known and w in typedefs.table), None)
    if name is None:
        return words, 0
    if name in seen:
        raise Unsupported(f"{where}: the typedef {name} of {typedefs.header} names itself")
    t: Typedef = typedefs.table[name]
    if t.refused:
        raise Unsupported(
            f"{where}: {name} is {t.refused} ({typedefs.header}), which is not supported "
            "(only integers, float, double and a buffer)"
        )
    inner, stars = _expand(list(t.words), typedefs, where, (*seen, name))
    stars += t.stars
    rest = [w for w in words if w != name]
    return (inner if stars else rest + inner), stars


@functools.lru_cache(maxsize=None)
def _known_type_words() -> set:
    return {w for key in list(SCALARS) + list(_BUFFER_ELEMENTS) for w in key.split()} | {"const", "void"}


def _refused(words: list, item: str, where: str) -> None:
    for w in words:
        if w in _REFUSED_WORDS:
            shown = " ".join(words[words.index(w) : words.index(w) + 2]) if w in ("struct", "union", "enum") else w
            raise Unsupported(f"{where}: {shown} is not supported (only integers, float, double and a buffer)")
    key = " ".join(sorted(w for w in words if w != "const"))
    if "long double" in " ".join(words) or key == "double long":
        raise Unsupported(f"{where}: long double is not supported (only integers, float, double and a buffer)")


def _unknown_hint(written: list, typedefs: Optional[Typedefs]) -> str:
    """What to say of a name in `written` that is no C type: that the
    header lacks it, or that --header can name the header that has it."""
    table = typedefs.table if typedefs else {}
    unknown = [w for w in written if w not in _known_type_words() and w not in table]
    if not unknown:
        return ""
    if typedefs is not None:
        return f"; {unknown[0]} is no C type, and {typedefs.header} declares no typedef of that name"
    return f"; {unknown[0]} is no C type (--header names a header that declares it)"


def _scalar(t: _Typed, item: str, where: str, typedefs: Optional[Typedefs] = None) -> Scalar:
    words = t.words
    _refused(words, item, where)
    key = " ".join(sorted(w for w in words if w != "const"))
    written = " ".join(w for w in t.written if w != "const")
    if key not in SCALARS:
        resolved = " ".join(w for w in words if w != "const")
        shown = written or item
        via = f" ({resolved} in {typedefs.header})" if resolved and resolved != written and typedefs else ""
        raise Unsupported(
            f"{where}: type {shown!r}{via} is not supported (integers of 8 to 64 bits, float, double, "
            f"and a buffer: const uint8_t *p, size_t n){_unknown_hint(t.written, typedefs)}"
        )
    s = SCALARS[key]
    return Scalar(written or " ".join(w for w in words if w != "const"), s.kind, s.bits)


def _describe(s: Scalar) -> str:
    """A scalar type in words: "a 32-bit unsigned integer", "a 64-bit float"."""
    if s.kind == "float":
        return f"a {s.bits}-bit float"
    return f"a {s.bits}-bit {'signed' if s.kind == 'int' else 'unsigned'} integer"


def is_length(s: Scalar) -> bool:
    """Whether a buffer's length may have type s: size_t's, or one the ABI
    passes as it (unsigned, of its width: `unsigned long` and uint64_t on
    LP64), as a typedef of a header often names it."""
    size = SCALARS["size_t"]
    return (s.kind, s.bits) == (size.kind, size.bits)


def _strip_balanced(src: str, words: tuple) -> str:
    """src without each `WORD (...)` of `words` (GCC's attributes and asm
    labels, as a header's prototypes carry them), parentheses balanced."""
    out, i = [], 0
    pattern = re.compile(r"\b(?:" + "|".join(words) + r")\b\s*\(")
    while True:
        m = pattern.search(src, i)
        if not m:
            out.append(src[i:])
            return "".join(out)
        out.append(src[i : m.start()] + " ")
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[j], 0)
            j += 1
        i = j


# What a prototype may carry that no caller needs: attributes and asm labels.
_DECORATIONS = ("__attribute__", "__attribute", "__asm__", "__asm", "asm", "__declspec")


def parse(text: str, typedefs: Optional[Typedefs] = None) -> Declaration:
    """Reads one C prototype, `double cos(double)` or `uint64_t sum(const
    uint8_t *p, size_t n);`, its type names followed through `typedefs`
    (a header's, header.py) where given. Unsupported, naming the type or
    the form, for anything outside this module's kinds."""
    src = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S).strip().rstrip(";").strip()
    src = _strip_balanced(src, _DECORATIONS).strip().rstrip(";").strip()
    m = re.fullmatch(r"(?s)(.*?)\(\s*(.*)\)", src)
    if not m:
        raise Unsupported(f'{text!r} is not a C prototype (want e.g. "double cos(double)")')
    head, params_text = m.group(1).strip(), m.group(2).strip()
    if "(" in head:
        raise Unsupported(f"{text!r}: a function returning a function pointer is not supported")
    t = _type_and_name(head, "the return type", typedefs, head=True)
    if t.name is None or not t.written:
        raise Unsupported(f"{text!r} is not a C prototype (want a return type and a name)")
    if t.stars:
        # `double *f(void)` (the name is after the star), or a typedef of a pointer.
        star = " *" if "*" in head else ""
        via = "" if star else f" ({' '.join(t.words)} {'*' * t.stars} in {typedefs.header})"
        raise Unsupported(f"the return type {' '.join(t.written)}{star}{via} is a pointer, which is not supported")
    name = t.name
    if not _IDENT.fullmatch(name):
        raise Unsupported(f"{name!r} is not a C function name")
    if [w for w in t.words if w != "const"] == ["void"]:
        ret = None
    else:
        ret = _scalar(t, head, "the return type", typedefs)
    items = _split_params(params_text)
    if items in ([], ["void"]):
        items = []
    params = []
    i = 0
    while i < len(items):
        item = items[i]
        where = f"parameter {i + 1}"
        if item == "...":
            raise Unsupported(f"{where}: a variadic function (...) is not supported")
        t = _type_and_name(item, where, typedefs)
        words, stars, pname = t.words, t.stars, t.name
        if stars:
            via = "" if t.written == words else f" ({' '.join(t.written)} in {typedefs.header})"
            shown = f"{' '.join(words)} {'*' * stars}{' const' if t.const_ptr else ''}".strip()
            if stars > 1:
                raise Unsupported(f"{where}: {shown}{via} is a pointer to a pointer, which is not supported")
            _refused(words, item, where)
            if "const" not in words:
                raise Unsupported(
                    f"{where}: {shown}{via} points to writable memory, which is not supported "
                    "(a buffer is read-only: const uint8_t *p, size_t n)"
                )
            elem_key = " ".join(sorted(w for w in words if w != "const"))
            if elem_key not in _BUFFER_ELEMENTS:
                raise Unsupported(
                    f"{where}: {shown}{via} is not supported (a buffer points to bytes: const uint8_t *, "
                    f"const char *, const void *){_unknown_hint(t.written, typedefs)}"
                )
            length = _length(items, i, typedefs)
            if any(isinstance(p.type, Buffer) for p in params):
                raise Unsupported(f"{where}: a second buffer is not supported (one buffer per function)")
            elem = _BUFFER_ELEMENTS[elem_key]
            params.append(Param(pname or f"a{i}", Buffer(f"{shown}", elem, pname or f"a{i}", length)))
            i += 2
            continue
        if not words:
            raise Unsupported(f"{where}: empty parameter")
        if [w for w in words if w != "const"] == ["void"]:
            raise Unsupported(f"{where}: void is only allowed alone, as in f(void)")
        params.append(Param(pname or f"a{i}", _scalar(t, item, where, typedefs)))
        i += 1
    names = [
        n
        for p in params
        for n in ((p.type.pointer_name, p.type.length_name) if isinstance(p.type, Buffer) else (p.name,))
    ]
    if len(set(names)) != len(names):
        raise Unsupported(f"{text!r}: two parameters have the same name")
    if name in names:
        raise Unsupported(f"{text!r}: a parameter has the function's name")
    return Declaration(" ".join(src.split()), name, ret, tuple(params))


def _length(items: list, i: int, typedefs: Optional[Typedefs]) -> str:
    """The name of the length after the buffer at items[i]: a type that
    comes out as size_t (is_length); Unsupported naming what is wrong."""
    where = f"parameter {i + 1}"
    missing = Unsupported(
        f"{where}: {items[i]!r} is not followed by its length (a buffer is a const pointer and then "
        "a size_t: const uint8_t *p, size_t n)"
    )
    if i + 1 >= len(items) or items[i + 1] in ("...", "void", ""):
        raise missing
    nxt = items[i + 1]
    t = _type_and_name(nxt, f"parameter {i + 2}", typedefs)
    if t.stars:
        raise missing
    s = _scalar(t, nxt, f"parameter {i + 2}", typedefs)
    if not is_length(s):
        raise Unsupported(
            f"parameter {i + 2}: {s.spelling} cannot be the length of the buffer before it: a length is a "
            f"size_t ({_describe(SCALARS['size_t'])} on this ABI), and {s.spelling} is {_describe(s)}"
        )
    return t.name or f"a{i + 1}"


# ---- argument values -----------------------------------------------------------------


def _float32(x: float) -> float:
    """x rounded to the nearest float, as C's (float)x does (the value is
    then exact in a double: every language passes it without a second
    rounding)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def convert(t: Scalar, text: str, where: str) -> object:
    """One --args value as the C type takes it: an int in the type's range
    (decimal, or 0x hex), or a float (a double; a float rounded as C
    does). ValueError saying what is wanted."""
    if t.kind == "float":
        try:
            x = float.fromhex(text) if text.lower().lstrip("+-").startswith("0x") else float(text)
        except ValueError:
            raise ValueError(f"{where}: {text!r} is not a number ({t.spelling})") from None
        return _float32(x) if t.bits == 32 else x
    try:
        v = int(text, 0)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not an integer ({t.spelling})") from None
    lo, hi = t.range
    if not lo <= v <= hi:
        raise ValueError(f"{where}: {v} is out of range for {t.spelling} [{lo}, {hi}]")
    return v


def values(d: Declaration, args: list) -> list:
    """The --args values converted for d's scalar parameters, in order;
    ValueError when their count or a value is wrong."""
    want = d.scalars
    if len(args) != len(want):
        listed = ", ".join(f"{p.type.spelling} {p.name}" for p in want) or "none"
        raise ValueError(
            f"{d.name} takes {len(want)} argument{'s' if len(want) != 1 else ''} besides any buffer ({listed}); "
            f"--args gave {len(args)}"
        )
    return [convert(p.type, a, f"--args value {i + 1} ({p.name})") for i, (p, a) in enumerate(zip(want, args))]


def env_text(d: Declaration, vals: list) -> str:
    """The values as the children read them (ROUNDBENCH_CROSSING_ARGS):
    space-separated, integers in decimal, floats as the shortest decimal
    that reads back to the same double (strtod, strconv.ParseFloat and
    float() all round correctly, so each language gets the same bits)."""
    return " ".join(repr(float(v)) if p.type.kind == "float" else str(int(v)) for p, v in zip(d.scalars, vals))


def result_text(ret: Optional[Scalar], value: object) -> str:
    """A return value as every child prints it for the cross-check: an
    integer in decimal; a float as its IEEE bits in hex (`f64:3fec...`), so
    that equal means bit for bit; `void`."""
    if ret is None:
        return "void"
    if ret.kind == "float":
        if ret.bits == 32:
            return "f32:%08x" % struct.unpack("<I", struct.pack("<f", value))[0]
        return "f64:%016x" % struct.unpack("<Q", struct.pack("<d", value))[0]
    return str(int(value))


def readable(text: str) -> str:
    """A result_text as a reader wants it (the float's value beside its
    bits)."""
    if text.startswith("f64:"):
        return f"{struct.unpack('>d', bytes.fromhex(text[4:]))[0]!r} ({text})"
    if text.startswith("f32:"):
        return f"{struct.unpack('>f', bytes.fromhex(text[4:]))[0]!r} ({text})"
    return text
