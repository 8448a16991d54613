"""Round temps: every Python-side variant against the shared vectors, buffer
edge cases and bad input."""

from array import array

import numpy as np
import pytest

import roundbench

from conftest import load_vectors


def ints(s):
    return [] if s == "-" else [int(x) for x in s.split(",")]


def numpy_chain(a):
    return int((a * a % 7).sum())


def numpy_out(a):
    t = np.empty_like(a)
    np.multiply(a, a, out=t)
    np.remainder(t, 7, out=t)
    return int(t.sum())


VARIANTS = {"core": roundbench.temps, "numpy": numpy_chain, "numpy-out": numpy_out}


@pytest.mark.parametrize("v", load_vectors("temps"), ids=lambda v: f"n={v['n']}")
def test_arange_vectors(v):
    a = np.arange(int(v["n"]), dtype=np.int64)
    for name, fn in VARIANTS.items():
        assert fn(a) == int(v["sum"]), name


@pytest.mark.parametrize("v", load_vectors("temps-array"), ids=lambda v: v["a"])
def test_array_vectors(v):
    a = np.array(ints(v["a"]), dtype=np.int64)
    for name, fn in VARIANTS.items():
        assert fn(a) == int(v["sum"]), name
    assert roundbench.temps(array("q", ints(v["a"]))) == int(v["sum"])


@pytest.mark.parametrize("v", load_vectors("temps-error"), ids=lambda v: v["a"])
def test_overflow_names_the_element(v):
    a = np.array(ints(v["a"]), dtype=np.int64)
    with pytest.raises(OverflowError, match=f"temps\\(\\) argument 'a' has a\\[{v['pos']}\\]"):
        roundbench.temps(a)


def test_overflow_position_past_the_first_chunk():
    a = np.zeros((1 << 24) + 5, dtype=np.int64)
    a[-2] = -(2**62)
    with pytest.raises(OverflowError, match=f"a\\[{len(a) - 2}\\]"):
        roundbench.temps(a)


def test_edge_buffers():
    assert roundbench.temps(np.empty(0, dtype=np.int64)) == 0
    assert roundbench.temps(np.arange(12, dtype=np.int64).reshape(3, 4)) == sum(i * i % 7 for i in range(12))
    with pytest.raises(ValueError, match="argument 'a' must be C-contiguous"):
        roundbench.temps(np.arange(10, dtype=np.int64)[::2])
    with pytest.raises(ValueError, match="argument 'a' must be C-contiguous"):
        roundbench.temps(np.arange(12, dtype=np.int64).reshape(3, 4, order="F"))
    with pytest.raises(TypeError, match="argument 'a' must hold int64"):
        roundbench.temps(np.arange(10, dtype=np.int32))
    with pytest.raises(TypeError, match="argument 'a' must hold int64"):
        roundbench.temps(np.arange(10.0))
    with pytest.raises(TypeError, match="argument 'a' must be a buffer"):
        roundbench.temps([1, 2, 3])
    ro = np.arange(5, dtype=np.int64)
    ro.setflags(write=False)
    assert roundbench.temps(ro) == sum(i * i % 7 for i in range(5))  # read-only input is fine
