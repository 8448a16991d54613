"""Which BLAS file the core loads, decided on the first BLAS call, never at
`import roundbench`.

The core links no BLAS: it dlopen()s one the first time a BLAS function
(matmul_blas, blas_get_info, blas_set_threads) needs it, so that importing
roundbench neither maps OpenBLAS's ~30 MB nor starts its threads. Just before
that first call, the extension calls configure() here once. The file, first
that applies:

1. an explicit ``_core.blas_set_library(path)`` (configure() is then not
   called);
2. ``ROUNDBENCH_BLAS_LIB`` in the environment (configure() leaves it to the
   core);
3. the library of the scipy-openblas64 package, the same OpenBLAS numpy's
   wheels bundle (docs/rounds/matmul.md, "The BLAS");
4. the core's own default, the library's bare name on the loader's path.
"""

from __future__ import annotations

import os

ENV = "ROUNDBENCH_BLAS_LIB"


def library_path() -> str | None:
    """The scipy-openblas64 package's library file, or None when the
    environment names one or the package is not installed."""
    if os.environ.get(ENV):
        return None
    try:
        # optional: without scipy-openblas64 the core looks for the BLAS by its bare name
        import scipy_openblas64
    except ImportError:
        return None
    return os.path.join(scipy_openblas64.get_lib_dir(), scipy_openblas64.get_library(fullname=True))


def configure() -> None:
    """Hands library_path() to the core, if there is one."""
    # the extension, imported only to configure it: importing this module needs no built extension
    from . import _core

    path = library_path()
    if path is not None:
        _core.blas_set_library(path)
