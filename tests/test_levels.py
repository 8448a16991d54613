"""A variant's level comes from its round's declaration (rounds.Variant's
`level`), the name rule only filling in where a round says nothing."""

import pytest

from roundbench import rounds
from roundbench.results import levels
from roundbench.rounds import Variant


def test_the_standard_library_go_variants_are_the_language_alone():
    rounds.modules()
    for name in ("go-columns", "go-reflect", "go-jsonv2"):
        assert levels.level(name) == "alone", name
    # The name rule alone would have put them with the libraries.
    assert {levels.by_name(n) for n in ("go-columns", "go-reflect", "go-jsonv2")} == {"ecosystem"}


def test_every_declared_variant_keeps_its_level_in_every_round():
    for mod in rounds.modules().values():
        for v in mod.ROUND.variants:
            assert v.level in levels.ALL_LEVELS
            assert levels.level(v.name) == v.level, f"{mod.ROUND.name}/{v.name}"


def test_a_variant_without_a_declared_level_takes_its_names():
    assert Variant("py-something", "python").level == "ecosystem"
    assert Variant("go-c-x", "rb-go").level == "core"
    assert Variant("py-x-published", "python").level == "published"


def test_a_declared_level_overrides_the_name():
    assert Variant("go-anything", "rb-go", level="alone").level == "alone"


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="level 'fast' is none of"):
        Variant("go-x", "rb-go", level="fast")
    with pytest.raises(ValueError, match="level c is the C variants'"):
        Variant("go-x", "rb-go", level="c")


def test_two_rounds_may_not_give_one_name_two_levels():
    levels.declare("py-test-levels-twice", "ecosystem")
    with pytest.raises(ValueError, match="declared at level 'ecosystem' in one round and 'alone'"):
        levels.declare("py-test-levels-twice", "alone")
