"""The `_core.pxd` contract: Cython code elsewhere can cimport the kernels and call them without
the GIL. This compiles a small extension against the installed package and checks its answers."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import shengji as sj

pytestmark = pytest.mark.slow  # compiles an extension

USER_CODE = """
from shengji.core._core cimport CardSet, trump_table, follow_code, trick_winner_raw

def follows(const unsigned long long[:, ::1] rows, int code):
    # rows: hand ones, hand twos, lead ones, lead twos, play ones, play twos
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef CardSet hand, lead, play
    cdef int[::1] res = __import__("numpy").zeros(n, dtype="intc")
    with nogil:
        for i in range(n):
            hand.ones = rows[i, 0]; hand.twos = rows[i, 1]
            lead.ones = rows[i, 2]; lead.twos = rows[i, 3]
            play.ones = rows[i, 4]; play.twos = rows[i, 5]
            res[i] = follow_code(trump_table(code), hand, lead, play)
    return list(res)

def winner(const unsigned long long[:, ::1] plays, int code):
    cdef CardSet trick[4]
    cdef int i, w
    for i in range(plays.shape[0]):
        trick[i].ones = plays[i, 0]; trick[i].twos = plays[i, 1]
    with nogil:
        w = trick_winner_raw(trump_table(code), trick, <int>plays.shape[0])
    return w
"""

SETUP = """
import sys
from Cython.Build import cythonize
from setuptools import setup
setup(ext_modules=cythonize("user.pyx", include_path=[sys.argv.pop()],
                            compiler_directives={"language_level": 3}),
      script_args=["build_ext", "--inplace"])
"""


def test_cimport_and_call_without_the_gil(tmp_path):
    (tmp_path / "user.pyx").write_text(USER_CODE)
    (tmp_path / "setup_user.py").write_text(SETUP)
    package_parent = str(Path(sj.__file__).resolve().parent.parent)
    build = subprocess.run(
        [sys.executable, "setup_user.py", package_parent],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    t = sj.Trump(7, "S")
    cases = [
        ("9H9H 3H 5S", "8H8H", "9H9H"),
        ("9H9H 3H 5S", "8H8H", "9H 3H"),
        ("9H9H 3H 5S", "8H8H", "3H 5S"),
        ("4H 5S 9C", "8H8H", "4H 9C"),
    ]
    rows = np.hstack([sj.to_masks(c[i] for c in cases) for i in range(3)])
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import numpy as np, user
            rows = np.array({rows.tolist()}, dtype=np.uint64)
            print(user.follows(rows, {t.code}))
            print(user.winner(np.array({sj.to_masks(["8H8H", "9H 3H", "7C7C", "7D 7H"]).tolist()},
                                       dtype=np.uint64), {t.code}))
        """),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr[-3000:]
    codes, winner = check.stdout.split("\n")[:2]
    assert eval(codes) == [0, 5, 3, 0]  # legal, must play pairs, must follow suit, legal
    assert [c == 0 for c in eval(codes)] == [sj.is_legal_follow(*c, t) for c in cases]
    assert int(winner) == 2 == sj.trick_winner(["8H8H", "9H 3H", "7C7C", "7D 7H"], t)
