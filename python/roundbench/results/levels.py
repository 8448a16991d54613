"""The level of a variant, read from its name: a leaf module, so that the
summary, the pictures and the rounds name levels one way.

Levels. Every variant belongs to one level (docs/ARCHITECTURE.md, "Variants and levels"), read
from its name:

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
"""

LEVELS = ("alone", "ecosystem", "core", "program")
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


def level(variant: str) -> str:
    """The level of a variant, from its name (see the module's doc)."""
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
