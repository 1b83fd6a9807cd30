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
from shengji.core._core cimport (CardSet, TrumpTable, trump_table, follow_code, trick_winner_raw,
                                 top_position)

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

def tops(masks, int cat, int code):
    # top_position of each mask in category cat, and the table's masks of the kinds above
    # each position -1..15 of its line
    cdef const TrumpTable* t = trump_table(code)
    return [top_position(t, m, cat) for m in masks], [t.above[cat][i] for i in range(17)]
"""

SETUP = """
import sys
from Cython.Build import cythonize
from setuptools import setup
setup(ext_modules=cythonize("user.pyx", include_path=[sys.argv.pop()],
                            compiler_directives={"language_level": 3}),
      script_args=["build_ext", "--inplace"])
"""


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    """A folder holding the user extension, built against the installed package."""
    folder = tmp_path_factory.mktemp("user")
    (folder / "user.pyx").write_text(USER_CODE)
    (folder / "setup_user.py").write_text(SETUP)
    package_parent = str(Path(sj.__file__).resolve().parent.parent)
    build = subprocess.run(
        [sys.executable, "setup_user.py", package_parent],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    return folder


def run_user(folder, code):
    """The output of a Python script that imports the user extension."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=folder, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_cimport_and_call_without_the_gil(user_dir):
    t = sj.Trump(7, "S")
    cases = [
        ("9H9H 3H 5S", "8H8H", "9H9H"),
        ("9H9H 3H 5S", "8H8H", "9H 3H"),
        ("9H9H 3H 5S", "8H8H", "3H 5S"),
        ("4H 5S 9C", "8H8H", "4H 9C"),
    ]
    rows = np.hstack([sj.to_masks(c[i] for c in cases) for i in range(3)])
    out = run_user(
        user_dir,
        f"""
        import numpy as np, user
        rows = np.array({rows.tolist()}, dtype=np.uint64)
        print(user.follows(rows, {t.code}))
        print(user.winner(np.array({sj.to_masks(["8H8H", "9H 3H", "7C7C", "7D 7H"]).tolist()},
                                   dtype=np.uint64), {t.code}))
        """,
    )
    codes, winner = out.split("\n")[:2]
    assert eval(codes) == [0, 5, 3, 0]  # legal, must play pairs, must follow suit, legal
    assert [c == 0 for c in eval(codes)] == [sj.is_legal_follow(*c, t) for c in cases]
    assert int(winner) == 2 == sj.trick_winner(["8H8H", "9H 3H", "7C7C", "7D 7H"], t)


def test_top_position_and_the_masks_above_follow_the_line(user_dir):
    """top_position (by its table's tiers) and the masks of the kinds above each position agree
    with the reference's order for every trump, category and random sets of kinds (of any
    categories: top_position looks at its own)."""
    from shengji import reference
    from shengji.core._core import KIND_NAMES

    rng = np.random.default_rng(0)
    # sparse and dense sets, so that every tier of a line is the top one in some of them
    masks = [
        sum(1 << int(k) for k in np.flatnonzero(rng.random(54) < density))
        for density in (0.02, 0.05, 0.1, 0.3) * 60
    ]
    masks += [1 << k for k in range(54)] + [0]
    trumps = [
        sj.Trump(level, suit) for level in range(2, 15) for suit in ("D", "C", "H", "S", None)
    ]
    cats = ("D", "C", "H", "S", "T")
    out = run_user(
        user_dir,
        f"""
        import user
        codes = {[t.code for t in trumps]}
        print([[user.tops({masks}, cat, code) for cat in range(5)] for code in codes])
        """,
    )
    for trump, per_cat in zip(trumps, eval(out)):
        position = {}  # kind index -> position on its category's line, per category
        for k, name in enumerate(KIND_NAMES):
            cat = reference.category(name, trump)
            position.setdefault(cat, {})[k] = reference.order(name, trump) % 16
        for cat, (tops, above) in zip(cats, per_cat):
            line = position.get(cat, {})
            for m, top in zip(masks, tops):
                assert top == max((p for k, p in line.items() if m >> k & 1), default=-1)
            for p in range(-1, 16):
                assert above[p + 1] == sum(1 << k for k, q in line.items() if q > p)
