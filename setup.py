"""Build of the roundbench Python package and its extension roundbench._core.

The extension compiles the C core (csrc/*.c) into itself, so the package
needs no shared library at run time. The flags are the core's portable
release flags; the full command line is recorded in the module
(roundbench._core.build_info()) and so in every result file.
"""

import glob
import os
import runpy
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
CORE_SOURCES = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "csrc", "*.c")))

# Portable by default (shared/DESIGN.md, "Build flags are part of fairness");
# ROUNDBENCH_TUNE=1 gives the tuned build, and says so in build_info().
TUNED = os.environ.get("ROUNDBENCH_TUNE") == "1"
EXTRA = ["-O3", "-march=native"] if TUNED else ["-O2"]
EXTRA += ["-std=gnu11", "-fno-strict-aliasing"]
FLAGS = " ".join([sysconfig.get_config_var("CFLAGS") or "", *EXTRA]).strip()

# ---- BLAS (issue 3, round matmul) -------------------------------------------
# The core uses the OpenBLAS of the scipy-openblas64 package, the same
# library numpy's wheels bundle (README, "The BLAS"), but links no BLAS: it
# dlopen()s it on the first BLAS call, from the path roundbench._blas finds
# at run time, so that `import roundbench` neither maps it nor starts its
# threads. Building needs no BLAS; the symbols carry the prefix and suffix
# below and take 64-bit integers.
BLAS_MACROS = [("BLAS_SYMBOL_PREFIX", "scipy_"), ("BLAS_SYMBOL_SUFFIX", "64_"), ("BLAS_ILP64", None)]
BLAS_LINK = ["-ldl"]
# ---- end BLAS ---------------------------------------------------------------

core = Extension(
    "roundbench._core",
    sources=["python/roundbench/_core.c", *CORE_SOURCES],
    include_dirs=["csrc"],
    define_macros=[("RB_CFLAGS", '"%s"' % FLAGS.replace('"', "'")), *BLAS_MACROS],
    extra_compile_args=EXTRA,
    extra_link_args=BLAS_LINK,
)



class build_ext_with_stub(build_ext):
    """Builds the extensions, then writes roundbench._core's type stubs
    (_core.pyi) next to it, from the `pyi` comments of _core.c
    (scripts/gen_core_stub.py): in place for `make build`, into the build
    tree, and so the wheel, otherwise."""

    def run(self):
        super().run()
        write_stub = runpy.run_path(os.path.join(HERE, "scripts", "gen_core_stub.py"))["write_stub"]
        out = os.path.join(os.path.dirname(self.get_ext_fullpath(core.name)), "_core.pyi")
        write_stub(os.path.join(HERE, "python", "roundbench", "_core.c"), out)


setup(
    cmdclass={"build_ext": build_ext_with_stub},
    ext_modules=[core],
    cffi_modules=["python/roundbench/_cffi_build.py:ffibuilder"],
)
