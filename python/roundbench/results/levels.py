"""The level of a variant: a leaf module, so that the summary, the pictures
and the rounds name levels one way.

Levels. Every variant belongs to one level (docs/ARCHITECTURE.md, "Variants
and levels"). A round's declaration says it (rounds.Variant's `level`), and
the declarations of the rounds loaded are recorded here (declare), so that
level(name) answers by the declaration. A variant declared without one
takes the level its name gives by these rules, which also answer for a
name no loaded round declares (an old results file's):

  c          `c`, `c-...`: the C core and C libraries, the ceiling (no side);
  core       the language calling C: `py-c`, `go-c`, `py-c-...`, `go-c-...`,
             and the other crossings (`py-ctypes`, `py-cffi-...`, `go-cgo`,
             `py-roundbench`);
  alone      the language alone: `py`, `go`, and the standard library's own
             mechanisms (STDLIB: `py-asyncio`, `py-threads`, ...);
  ecosystem  a named library (`py-numpy`, `py-orjson`, `go-gonum`, ...);
  program    a whole program started from outside and timed from start to
             exit (`go-binary`, `go-run`, `py-script`: the first word after
             the language is one of PROGRAM_WORDS): start-up, printing and
             the work together, so it scores in a column of its own;
  published  a published program as published (`...-published`): shown
             beside the fair variant, never scored.

A placebo run's stand-in (`roundbench run --placebo`) is named
`<other language>-placebo-<variant>` (placebo_name): the variant's own
program under the other side's name, at the variant's own level.
"""

LEVELS = ("alone", "ecosystem", "core", "program")
# Every level a variant may be at: the scored ones, the ceiling and the
# published programs.
ALL_LEVELS = ("c", *LEVELS, "published")
LEVEL_TITLES = {
    "alone": "the language alone",
    "ecosystem": "with its ecosystem",
    "core": "calling C",
    "program": "whole program",
}
# How each level is drawn in the pictures and named in the tables.
KINDS = {
    "c": "C core (the ceiling)",
    "core": "binding (calling C)",
    "alone": "pure language",
    "ecosystem": "library",
    "program": "whole program, start to exit",
    "published": "published program",
}

# The standard library's own mechanisms: what the language alone offers.
STDLIB = {
    "py": {"asyncio", "threads", "processes", "module", "S", "I", "freethreaded", "freethreaded-unmarked", "stdlib"},
    "go": set(),
}
# The first word after the language that makes a variant a crossing into C.
CROSSING_WORDS = {"c", "cgo", "ctypes", "cffi", "roundbench"}
# The first word after the language that makes a variant a whole program
# timed from outside, start to exit (round aspects' launch cells).
PROGRAM_WORDS = {"binary", "run", "script"}
PUBLISHED_SUFFIX = "-published"
PLACEBO_WORD = "placebo"


def placebo_name(variant: str, side: str) -> str:
    """The name under which `variant` stands in for side `side` (go or py)
    in a placebo run: go-placebo-py-numba."""
    return f"{side}-{PLACEBO_WORD}-{variant}"


def placebo_of(variant: str):
    """The variant a placebo stand-in's name stands for, or None."""
    _, _, how = variant.partition("-")
    head, _, rest = how.partition("-")
    return rest if head == PLACEBO_WORD and rest else None


# Variant name -> the level its round declares, for the rounds loaded.
_declared: dict = {}


def declare(variant: str, lvl: str) -> None:
    """Record the level a round declares for `variant`. Every round that has
    a variant of that name must declare the same level, so that a name
    means one level in every table (ValueError otherwise)."""
    if lvl not in ALL_LEVELS:
        raise ValueError(f"variant {variant}: level {lvl!r} is none of {', '.join(ALL_LEVELS)}")
    had = _declared.setdefault(variant, lvl)
    if had != lvl:
        raise ValueError(f"variant {variant} is declared at level {had!r} in one round and {lvl!r} in another")


def level(variant: str) -> str:
    """The level of a variant: its declared one, else the one its name
    gives (by_name)."""
    return _declared.get(variant) or by_name(variant)


def by_name(variant: str) -> str:
    """The level a variant's name gives (see the module's doc)."""
    original = placebo_of(variant)
    if original is not None:
        return level(original)
    if variant.endswith(PUBLISHED_SUFFIX):
        return "published"
    lang, _, how = variant.partition("-")
    if lang == "c":
        return "c"
    if not how:
        return "alone"
    first = how.split("-")[0]
    if first in CROSSING_WORDS:
        return "core"
    if first in PROGRAM_WORDS:
        return "program"
    if how in STDLIB.get(lang, ()):
        return "alone"
    return "ecosystem"
