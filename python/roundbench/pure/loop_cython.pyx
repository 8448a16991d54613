# cython: language_level=3, cdivision=True, boundscheck=False, wraparound=False
"""Round loop in Cython: pure/loop.py's loop with C types, as Cython's
documentation has an expert write it. long long holds every i*i and the
sum for n up to the round's bound (MAX_N); cdivision makes % C's
remainder, the same as Python's for i*i >= 0, without the sign fix-up.
Built for each interpreter by roundbench.runtimes.aotbuild."""


def loop(long long n):
    """Sum of i*i % 7 for i in range(n)."""
    cdef long long i
    cdef long long total = 0
    for i in range(n):
        total += i * i % 7
    return total
