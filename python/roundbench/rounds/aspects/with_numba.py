"""Round aspects with numba: the per-event work compiled, one event at a time.

An @njit kernel takes the arrays py-numpy's Data holds (the table as a
(days, 10) array, the events' times, latitudes and longitudes) and, for
each event of a block in turn, computes its 12 points, its 12 cusps, the
aspect and orb of each of the 66 pairs, whether the combination holds and,
where it does, how many aspects each point formed: the plain variant's
formulas in its order (roundbench.pure.aspects), as scalar loops. The text
stays Python: the kernel fills a block's arrays and with_numpy.write_text,
py-numpy's writer, prints them, to the byte the plain variant's output.

The options are the ones numba's documentation starts from, and an expert
keeps here: nopython mode (@njit), fastmath off (it would let LLVM fuse
products into additions and reorder sums, which the round forbids: no
fused multiply-add in any language), no cache=True (every process pays the
compile; the child times it apart, compile-ns), no parallel=True (the
children run on one CPU). numba compiles for the host CPU.

Why numba and not Cython for this round: the work is a numeric loop over
numpy arrays of float64 and int64, which numba compiles from Python source
with the arrays' types inferred, nothing declared and nothing built;
Cython would want typed memoryviews and a C extension built for each
interpreter the suite runs (round loop's py-cython has that machinery for
one function). numba is also the tool rounds temps and cores measure, so
its import and compile read the same across rounds. What Cython would
change is the start: built ahead of time, it compiles nothing at start-up,
where numba compiles in every process (compile-ns says how long).

This file is also a program, the numba version as a user runs it:

    python with_numba.py EPHEMERIS EVENTS [--print] [--combo C]

the command line of pure/aspects.py. Its start-to-exit time includes
importing numpy and numba and the compile of the kernel on its first call.
Run as a program, it loads the plain variant's module and with_numpy, not
this package's __init__: that declares the round and imports the runner's
machinery, none of which a user's program would import.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np


def _program_imports() -> tuple:
    """(pure.aspects, with_numpy) when this file runs as a program: the
    package's root on sys.path, and with_numpy loaded from its file under
    its own name, so that its relative import of pure.aspects resolves but
    this round's __init__ (the declaration, the runner's machinery) is
    never run."""
    import importlib.util  # only a program run needs it

    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here.parents[2]))
    # the pure module, only in the children that run a Python variant
    from roundbench.pure import aspects as pure

    name = "roundbench.rounds.aspects.with_numpy"  # its relative imports resolve from its name
    spec = importlib.util.spec_from_file_location(name, here / "with_numpy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return pure, module


if __package__:
    from ...pure import aspects as plain
    from . import with_numpy as vec
else:  # python with_numba.py ...: a program, not the package's module
    plain, vec = _program_imports()

# Events per call of the kernel: the arrays it fills for the writer (512 x 66
# angles and orbs) stay within the caches, as py-numpy's blocks do.
BLOCK = 512
DAY, J2000, RAD, DEG = plain.DAY, plain.J2000, plain.RAD, plain.DEG
ANGLES, ORB = plain.ANGLES, plain.ORB
N_POINTS, N_PAIRS = len(plain.POINTS), len(plain.PAIRS)
ASC, MC = plain.ASC, plain.MC

# py-numpy's data: the table and the events' columns as arrays.
Data = vec.Data
load = vec.load
head = vec.head

_kernel = None


def kernel():
    """The compiled kernel (a numba dispatcher), made on first use; numba
    compiles it on its first call, for the argument types of that call."""
    global _kernel
    if _kernel is None:
        # numba is imported when first needed, not with this module: the
        # child times its import apart (import-ns), and without numba the
        # module still imports, so the variant is a skip row saying why.
        from numba import njit

        _kernel = _compile(njit)
    return _kernel


def _compile(njit):
    """The kernel under numba's njit (fastmath off, not cached)."""

    @njit
    def mod360(x):
        # C's fmod, plus 360 when negative: plain.mod360 (numba has no math.fmod)
        x = np.fmod(x, 360.0)
        return x + 360.0 if x < 0.0 else x

    @njit
    def block(table, first, s, lat, lon, lo, hi, pairs, want, angle, orb, cusp, match, counts):
        """Events lo..hi-1: row e = event lo+e of angle and orb (its 66
        pairs' aspect, -1 for none, and orb), cusp (its 12 cusps) and
        match (whether every term (pairs[t], want[t]) holds); counts the
        aspects each point formed in the matching events of the block."""
        counts[:] = 0
        p = np.empty(N_POINTS)
        for e in range(hi - lo):
            ev = lo + e
            t_s = s[ev]
            day = t_s // DAY
            f = (t_s - day * DAY) / 86400.0
            k = day - first
            for b in range(N_POINTS - 2):
                l0 = table[k, b]
                d = table[k + 1, b] - l0
                if d > 180.0:
                    d -= 360.0
                elif d < -180.0:
                    d += 360.0
                x = l0 + f * d
                if x >= 360.0:
                    x -= 360.0
                elif x < 0.0:
                    x += 360.0
                p[b] = x

            t = (t_s - J2000) / 86400.0 / 36525.0
            eps = 23.439291 - 0.0130042 * t
            gmst = mod360(280.46061837 + 360.98564736629 * (t_s - J2000) / 86400.0)
            r = mod360(gmst + lon[ev]) * RAD
            ep = eps * RAD
            sin_r, cos_r, cos_e, sin_e = math.sin(r), math.cos(r), math.cos(ep), math.sin(ep)
            mc = mod360(math.atan2(sin_r, cos_r * cos_e) * DEG)
            # atan2, not atan: the quadrant of the Ascendant comes from both signs.
            asc = mod360(math.atan2(cos_r, -(sin_r * cos_e + math.tan(lat[ev] * RAD) * sin_e)) * DEG)
            p[ASC] = asc
            p[MC] = mc

            ic, dsc = mod360(mc + 180.0), mod360(asc + 180.0)
            q = mod360(asc - mc)
            c11, c12 = mod360(mc + q / 3.0), mod360(mc + 2.0 * q / 3.0)
            rq = mod360(ic - asc)
            c2, c3 = mod360(asc + rq / 3.0), mod360(asc + 2.0 * rq / 3.0)
            cusp[e, 0] = asc
            cusp[e, 1] = c2
            cusp[e, 2] = c3
            cusp[e, 3] = ic
            cusp[e, 4] = mod360(c11 + 180.0)
            cusp[e, 5] = mod360(c12 + 180.0)
            cusp[e, 6] = dsc
            cusp[e, 7] = mod360(c2 + 180.0)
            cusp[e, 8] = mod360(c3 + 180.0)
            cusp[e, 9] = mc
            cusp[e, 10] = c11
            cusp[e, 11] = c12

            pair = 0  # the pairs (i < j) in plain.PAIRS's order
            for i in range(N_POINTS):
                for j in range(i + 1, N_POINTS):
                    sep = abs(p[i] - p[j])
                    if sep > 180.0:
                        sep = 360.0 - sep
                    angle[e, pair] = -1
                    orb[e, pair] = 0.0
                    for a in ANGLES:
                        o = abs(sep - a)
                        if o <= ORB:
                            angle[e, pair] = a
                            orb[e, pair] = o
                            break
                    pair += 1

            holds = True
            for term in range(pairs.shape[0]):
                if angle[e, pairs[term]] != want[term]:
                    holds = False
                    break
            match[e] = holds
            if holds:
                pair = 0
                for i in range(N_POINTS):
                    for j in range(i + 1, N_POINTS):
                        if angle[e, pair] >= 0:
                            counts[i] += 1
                            counts[j] += 1
                        pair += 1

    return block


def _blocks(data, combo: list):
    """The kernel over consecutive blocks of events, as write_text takes
    them: the same buffers every block (the writer reads each block before
    it asks for the next)."""
    block = kernel()
    n = len(data.s)
    angle = np.empty((BLOCK, N_PAIRS), dtype=np.int64)
    orb = np.empty((BLOCK, N_PAIRS), dtype=np.float64)
    cusp = np.empty((BLOCK, N_POINTS), dtype=np.float64)
    match = np.empty(BLOCK, dtype=np.bool_)
    counts = np.zeros(N_POINTS, dtype=np.int64)
    pairs = np.array([pair for pair, _, _, _ in combo], dtype=np.int64)
    want = np.array([a for _, a, _, _ in combo], dtype=np.int64)
    for lo in range(0, n, BLOCK):
        hi = min(lo + BLOCK, n)
        block(data.table, data.first, data.s, data.lat, data.lon, lo, hi, pairs, want, angle, orb, cusp, match, counts)
        m = hi - lo
        yield lo, angle[:m], orb[:m], cusp[:m], match[:m], counts


def search(data, combo: list, print_all: bool, write) -> int:
    """The plain variant's search, its numbers from the compiled kernel;
    combo as parsed by plain.parse_combo."""
    return vec.write_text(data, combo, print_all, write, _blocks(data, combo))


def main(argv=None) -> int:
    return plain.run_program(argv, "with_numba.py", "numba", load, search)


if __name__ == "__main__":
    sys.exit(main())
