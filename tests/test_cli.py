"""The command line: the demo plays and prints a whole round, replay re-checks a saved one, and
bad options or files end with one clear error line."""
import json
import re
import subprocess
import sys

import pytest

from shengji.cli import main


def test_demo_prints_every_card_and_every_point(capsys, tmp_path):
    saved = tmp_path / "round.json"
    assert main(["demo", "--rules", "bo3", "--seed", "4", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    tricks = re.findall(r"^trick +\d+ +(.*) -> seat \d \(\+(\d+)\)", out, re.M)
    cards = sum(len(re.findall(r"(?:10|[2-9JQKA])[♠♥♣♦]|SJ|BJ", t)) for t, _ in tricks)
    assert cards == 100
    record = json.loads(saved.read_text())
    assert sum(int(p) for _, p in tricks) + record["bottom_points"] == 200
    assert f"-> {record['defender_points']} points" in out
    assert main(["replay", str(saved)]) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("args,words", [
    (["demo", "--rules", "v4"], "unknown preset"),
    (["demo", "--bots", "smart"], "unknown bot"),
    (["replay", "/nonexistent.json"], "No such file"),
])
def test_bad_options(args, words):
    run = subprocess.run([sys.executable, "-m", "shengji", *args], capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr and len(run.stderr.splitlines()) == 1


def test_a_changed_record_is_refused(tmp_path):
    saved = tmp_path / "round.json"
    assert main(["demo", "--seed", "1", "--save", str(saved)]) == 0
    record = json.loads(saved.read_text())
    record["tricks"][3]["plays"][1], record["tricks"][3]["plays"][2] = \
        record["tricks"][3]["plays"][2], record["tricks"][3]["plays"][1]
    saved.write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "shengji", "replay", str(saved)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "replay" in run.stderr
    saved.write_text("[1, 2]")
    run = subprocess.run([sys.executable, "-m", "shengji", "replay", str(saved)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "RoundRecord" in run.stderr


def test_simulate_rounds_and_matches(capsys):
    assert main(["simulate", "--rounds", "2000", "--bots", "greedy,random,greedy,random",
                 "--workers", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "2,000 rounds, rules v3, bots greedy,random,greedy,random" in out
    holds = float(re.search(r"^dealer_holds +all +([\d.]+)", out, re.M).group(1))
    import shengji as sj
    frame = sj.simulate_rounds(2000, "v3", bots=["greedy", "random"] * 2, seed=3)
    assert holds == pytest.approx(frame["dealer_holds"].mean(), abs=1e-4)
    assert main(["simulate", "--matches", "3", "--rules", "bo3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    wins = [float(x) for x in re.findall(r"^wins +team=\S+ +([\d.]+)", out, re.M)]
    assert len(wins) == 2 and sum(wins) == pytest.approx(1)


@pytest.mark.parametrize("args,words", [
    (["simulate", "--bots", "greedy,smart"], "bots must be a name or four"),
    (["simulate", "--bots", "greedy,smart,greedy,greedy"], "unknown bot"),
    (["simulate", "--rounds", "0"], "positive"),
])
def test_simulate_bad_options(args, words):
    run = subprocess.run([sys.executable, "-m", "shengji", *args], capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr
