"""Round matmul in pure Python: lists of lists.

The product is written the way a Python expert writes it without numpy:
B transposed once into tuples of columns, then each entry as
sum(map(mul, row, col)), which keeps the inner multiply-add loop inside
map() and sum() (C code) instead of a Python-level for loop. It does the
same 2n^3 floating-point operations as the naive C and Go loops.
"""

from __future__ import annotations

from operator import mul


def matmul(a: list, b: list) -> list:
    """a @ b for square matrices given as lists of rows of floats."""
    cols = list(zip(*b))
    return [[sum(map(mul, row, col)) for col in cols] for row in a]
