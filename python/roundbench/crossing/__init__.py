"""`roundbench crossing LIBRARY DECLARATION`: the ffi round's protocol
applied to a user's own C function. Every mechanism a binding author
weighs calls it (C through dlsym and linked, Python's ctypes, cffi in ABI
and API mode, a generated extension and the pybind11, nanobind, Cython and
PyO3 modules, Go's cgo plain and annotated and purego), each from a caller
generated and built for the declaration, run by the suite's runner and
checked against the direct call's result.

  decl.py     the C prototype, its types and the argument values
  header.py   --header: the prototype preprocessed with its header, the typedefs read
  gen.py      the callers' sources (C, the extension, cffi, the binding tools, Go)
  build.py    finding the library, building the callers into a cache
  child.py    the Python caller (`python -m roundbench.crossing.child`)
  measure.py  the run, and measure(), the Python API
  report.py   report.md and the ladder picture

    >>> from roundbench import crossing
    >>> res = crossing.measure("libm.so.6", "double cos(double)", args=["0.5"])
    >>> res.figure("py-ctypes").summary.median   # ns per call
"""

from __future__ import annotations


def measure(library: str, declaration: str, args=(), **options):
    """measure.measure (imported on first use: the Python caller, a child
    process, imports this package and must not pay for the runner)."""
    # the runner loads on first use: the Python caller, a child, imports this package
    from .measure import measure as run

    return run(library, declaration, args, **options)
