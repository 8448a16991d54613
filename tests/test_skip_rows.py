"""The variants that need a tool from outside the language's distribution
say why they cannot run where the tool is absent: a skip row naming the
tool, never a silently dropped variant (Variant.requires, asked by
run/launch.py's unavailable). Each is checked here with its module made to
look missing; the variants' own results are checked in their rounds'
tests."""

from __future__ import annotations

import pytest

from roundbench import rounds
from roundbench.run import launch
from roundbench.runtimes import interp

# (round, variant) -> the module whose absence must make it a skip row.
NEEDS = {
    ("jsonl", "py-msgspec-batch"): "msgspec",
    ("http", "py-granian-rsgi"): "granian",
    ("aspects", "py-numba"): "numba",
    ("aspects", "py-script-numba"): "numba",
}


@pytest.mark.parametrize(
    "where, module", sorted(NEEDS.items()), ids=lambda x: "/".join(x) if isinstance(x, tuple) else x
)
def test_a_missing_tool_is_a_skip_row_naming_it(monkeypatch, where, module):
    rnd = rounds.modules()[where[0]].ROUND
    v = rnd.variant(where[1])
    real = interp._has_module
    monkeypatch.setattr(interp, "_has_module", lambda name, *a: name != module and real(name, *a))
    why = launch.unavailable(rnd, v)
    assert why and f"Python module {module} is not installed" in why, why


@pytest.mark.parametrize(
    "where, module", sorted(NEEDS.items()), ids=lambda x: "/".join(x) if isinstance(x, tuple) else x
)
def test_with_the_tool_it_runs(where, module):
    pytest.importorskip(module)
    rnd = rounds.modules()[where[0]].ROUND
    why = launch.unavailable(rnd, rnd.variant(where[1]))
    assert why is None or module not in why, why
