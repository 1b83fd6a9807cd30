"""Builds the native core. Compiler directives are set here once for the whole extension.

SHENGJI_DEBUG=1 rebuilds it for a debug or fuzz run: bounds and initialisation checks on every
memoryview access, no optimisation, and the undefined-behaviour sanitizer (which also catches
indexing past the end of the fixed-size arrays in the kernels)."""
import os
import platform

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("SHENGJI_DEBUG") == "1"

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "initializedcheck": DEBUG,
    "wraparound": False,
    "cdivision": True,
    "embedsignature": True,
}
if DEBUG:
    compile_args = ["-O0", "-g", "-fsanitize=undefined", "-fno-sanitize-recover=undefined"]
    link_args = ["-fsanitize=undefined"]
else:
    # popcnt is in every x86-64 processor since 2008; without it popcount is a slow routine.
    compile_args = ["-O3"] + (["-mpopcnt"] if platform.machine() in ("x86_64", "AMD64") else [])
    link_args = []

# The extensions in build order (each cimports only those before it); dotted under shengji.
EXTENSIONS = ("core._core", "core._deal", "round._engine", "round._knowledge", "bots._learned",
              "bots._policies", "play._driver", "round._worlds", "envs._vector")


def extension(name):
    return Extension(
        f"shengji.{name}",
        [f"shengji/{name.replace('.', '/')}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"),
                       ("SHENGJI_DEBUG", "1" if DEBUG else "0")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )


JOBS = os.cpu_count() or 1   # Cython translates, and the compiler builds, this many at once

setup(ext_modules=cythonize([extension(name) for name in EXTENSIONS],
                            compiler_directives=directives, nthreads=JOBS,
                            build_dir="build/debug" if DEBUG else None),
      options={"build_ext": {"parallel": JOBS}})
