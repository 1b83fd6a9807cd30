"""A script without `if __name__ == "__main__":` runs its duel in worker processes (issue 43):
the workers do not run the script again, unless a chunk needs a class defined in it; then the
run stops with one line saying to add the guard, and no worker's traceback."""

import subprocess
import sys
import textwrap

import pytest

import shengji as sj

GUARD = '`if __name__ == "__main__":`'


def run_script(tmp_path, top, work=""):
    """The script duel.py in tmp_path, `top` and then `work` under the guard, run with
    `python duel.py`: the process."""
    guarded = 'if __name__ == "__main__":\n' + textwrap.indent(work, "    ") if work else ""
    script = tmp_path / "duel.py"
    script.write_text("import shengji as sj\nprint('top')\n" + top + guarded)
    return subprocess.run(
        [sys.executable, "duel.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )


def score(duel):
    return duel.metric("score", "team=a")["value"]


PRINT_SCORE = 'print(repr(d.metric("score", "team=a")["value"]))\n'


@pytest.mark.parametrize(
    "a, b, deals",
    [
        pytest.param("greedy", "random", 20_001, marks=pytest.mark.slow),  # two chunks
        pytest.param("pimc:rollouts=5", "greedy", 20, marks=pytest.mark.slow),
        pytest.param("learned", "greedy", 340, marks=pytest.mark.slow),
    ],
)
def test_a_script_without_a_guard_runs_its_duel_in_workers(tmp_path, a, b, deals):
    done = run_script(
        tmp_path, f"d = sj.duel({a!r}, {b!r}, deals={deals}, workers=2)\n" + PRINT_SCORE
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    top, printed = done.stdout.split()
    assert top == "top"  # once: the workers did not run the script
    assert float(printed) == score(sj.duel(a, b, deals=deals, workers=1))


PYTHON_BOT = """
class FirstCards:
    def declare(self, view): return None if view.may_pass else view.options[0]
    def revolt(self, view): return False
    def bury(self, view): return sj.Cards(list(view.hand)[:8])
    def play(self, view):
        if view.lead is None: return sj.Cards(list(view.hand)[:1])
        return sj.legal_follows(view.hand, view.lead, view.trump)[0]
"""


@pytest.mark.slow
def test_a_python_bot_defined_in_a_script_without_a_guard_plays_in_its_process(tmp_path):
    done = run_script(
        tmp_path,
        PYTHON_BOT + 'd = sj.duel(FirstCards(), "greedy", deals=20, workers=2)\n' + PRINT_SCORE,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "top" and float(done.stdout.split()[1]) < 0


SUBCLASS = "class Mine(sj.Pimc):\n    pass\n"
MINE_DUEL = 'd = sj.duel(Mine(rollouts=5), "greedy", deals=20, workers=2)\n' + PRINT_SCORE


@pytest.mark.slow
def test_a_class_the_workers_need_from_a_script_without_a_guard_is_one_line(tmp_path):
    done = run_script(tmp_path, SUBCLASS + MINE_DUEL)
    assert done.returncode == 1
    assert done.stderr.count("Traceback") == 1  # the script's own, none from the workers
    assert "bootstrapping" not in done.stderr and "BrokenProcessPool" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last == (
        f"shengji.errors.StudyError: worker processes ran {tmp_path / 'duel.py'} to find "
        f"Mine, and ended: define Mine at the script's top level and put its work under {GUARD}"
    )


@pytest.mark.slow
def test_a_class_the_workers_need_from_a_guarded_script_reaches_them(tmp_path):
    done = run_script(tmp_path, SUBCLASS, MINE_DUEL)
    assert done.returncode == 0, done.stderr
    # the workers ran the script's top (the class), not its guarded duel
    assert done.stdout.split() == ["top"] * 3 + [done.stdout.split()[-1]]
    assert float(done.stdout.split()[-1]) == score(
        sj.duel("pimc:rollouts=5", "greedy", deals=20, workers=1)
    )


@pytest.mark.slow
def test_a_class_defined_in_a_session_names_itself(tmp_path):
    code = SUBCLASS + 'sj.duel(Mine(rollouts=5), "greedy", deals=20, workers=2)\n'
    done = subprocess.run(
        [sys.executable, "-c", "import shengji as sj\n" + code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "shengji.errors.StudyError: Mine, defined in this session's __main__, cannot reach "
        "worker processes: define it in a module, or run with workers=1"
    )
