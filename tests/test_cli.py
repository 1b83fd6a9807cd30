"""The command line: the demo plays a whole hand, and bad options end with a clear error."""
import re
import subprocess
import sys

import pytest

from shengji.cli import main


def test_demo_plays_every_card_and_every_point(capsys):
    assert main(["demo", "--seed", "4", "--level", "J", "--suit", "NT"]) == 0
    out = capsys.readouterr().out
    assert "level J, trump none" in out
    bottom = int(re.search(r"bottom: .* \((\d+) points\)", out).group(1))
    taken = [int(x) for x in re.search(r"seats 0\+2 (\d+), seats 1\+3 (\d+)", out).groups()]
    assert sum(taken) + bottom == 200
    tricks = re.findall(r"^trick +\d+ +(.*) -> seat", out, re.M)
    cards = sum(len(re.findall(r"(?:10|[2-9JQKA])[♠♥♣♦]|SJ|BJ", t)) for t in tricks)
    assert cards == 100


@pytest.mark.parametrize("args,words", [(["--level", "1"], "unknown level"),
                                        (["--suit", "X"], "unknown trump suit")])
def test_bad_options(args, words):
    run = subprocess.run([sys.executable, "-m", "shengji", "demo", *args],
                         capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr
