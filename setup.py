"""Build of the roundbench Python package and its extension roundbench._core.

The extension compiles the C core (csrc/*.c) into itself, so the package
needs no shared library at run time. The flags are the core's portable
release flags; the full command line is recorded in the module
(roundbench._core.build_info()) and so in every result file.
"""

import glob
import os
import sysconfig

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
CORE_SOURCES = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "csrc", "*.c")))

# Portable by default (shared/DESIGN.md, "Build flags are part of fairness");
# ROUNDBENCH_TUNE=1 gives the tuned build, and says so in build_info().
TUNED = os.environ.get("ROUNDBENCH_TUNE") == "1"
EXTRA = ["-O3", "-march=native"] if TUNED else ["-O2"]
EXTRA += ["-std=gnu11", "-fno-strict-aliasing"]
FLAGS = " ".join([sysconfig.get_config_var("CFLAGS") or "", *EXTRA]).strip()

# ---- BLAS (issue 3, round matmul) -------------------------------------------
# The core links the OpenBLAS of the scipy-openblas64 package, the same
# library numpy's wheels bundle (README, "The BLAS"); its symbols carry the
# prefix and suffix below. Three run paths, in this order:
# $ORIGIN/../scipy_openblas64/lib, where pip puts the runtime dependency
# beside an installed roundbench (so an installed copy uses its own
# environment's library); $ORIGIN/../../build/blas/lib, the checkout's link
# that `make` keeps (an in-place build, python/roundbench/_core*.so); and
# where it was found at build time. The first two are relative on purpose:
# setuptools may copy an extension built by `pip install .` (in an isolated
# environment that is gone afterwards) into place on the next in-place build.
import scipy_openblas64  # noqa: E402

BLAS_LIB_DIR = scipy_openblas64.get_lib_dir()
BLAS_MACROS = [("BLAS_SYMBOL_PREFIX", "scipy_"), ("BLAS_SYMBOL_SUFFIX", "64_")]
BLAS_LINK = [
    f"-L{BLAS_LIB_DIR}",
    "-l" + scipy_openblas64.get_library(),
    "-Wl,-rpath,$ORIGIN/../scipy_openblas64/lib",
    "-Wl,-rpath,$ORIGIN/../../build/blas/lib",
    f"-Wl,-rpath,{BLAS_LIB_DIR}",
    "-ldl",
]
# ---- end BLAS ---------------------------------------------------------------

core = Extension(
    "roundbench._core",
    sources=["python/roundbench/_core.c", *CORE_SOURCES],
    include_dirs=["csrc", scipy_openblas64.get_include_dir()],
    define_macros=[("RB_CFLAGS", '"%s"' % FLAGS.replace('"', "'")), *BLAS_MACROS],
    extra_compile_args=EXTRA,
    extra_link_args=BLAS_LINK,
)

setup(
    ext_modules=[core],
    cffi_modules=["python/roundbench/_cffi_build.py:ffibuilder"],
)
