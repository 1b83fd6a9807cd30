"""The ladder (shengji.studies.ladder): every pair of bots in duplicate on the frozen deals, the
payoff cross-table and the standings, checked against the duels it is made of."""

import hashlib
import json

import numpy as np
import pytest
from bots import PassiveBot

import shengji as sj
from shengji.studies.ladder import EVALUATION_SEED, MANIFEST

BOTS = ["greedy", "random", "greedy:call=patient,patience=7"]
# sha256 over deals 0..199 of the evaluation seed (seat i % 4 drawing first) of the four hands
# and the bottom as text: the frozen evaluation deal set. A change here changes every ladder's
# figures: say so in the changelog and write the new digest.
EVALUATION_DEALS = "ebbd4ffa5fa3d9ab90dfff60ec7bf862d36c54208adb2e904c0dcbc530fad6b9"


def evaluation_deals_digest(n):
    h = hashlib.sha256()
    for i in range(n):
        hands, bottom = sj.deal(sj.round_seed(EVALUATION_SEED, i), 0, i % 4)
        h.update(" | ".join(map(str, [*hands, bottom])).encode())
    return h.hexdigest()


def test_the_evaluation_deals_are_frozen():
    assert evaluation_deals_digest(200) == EVALUATION_DEALS


@pytest.fixture(scope="module")
def small():
    return sj.ladder(BOTS, deals=60, rules="bo3", matches=2, workers=1)


def test_each_cell_is_the_duel_of_its_pair_and_the_table_is_antisymmetric(small):
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        d = sj.duel(BOTS[i], BOTS[j], deals=60, rules="bo3", workers=1)
        assert small.payoff(i, j).value == pytest.approx(d.metric("score")["value"])
        assert small.payoff(i, j).ci_low == pytest.approx(d.metric("score")["ci_low"])
        assert small.payoff(j, i).value == -small.payoff(i, j).value
        assert small.payoff(j, i).ci_high == -small.payoff(i, j).ci_low
        m = sj.duel(BOTS[i], BOTS[j], matches=2, rules="bo3", workers=1)
        pairing = next(p for p in small.pairings if (p.a, p.b) == (i, j))
        assert pairing.wins.value == pytest.approx(m.metric("wins_mean")["value"])
        adv = np.concatenate([d.frame["a_advantage__seating1"], d.frame["a_advantage__seating2"]])
        assert (pairing.levels_a, pairing.levels_b) == (adv[adv > 0].sum(), -adv[adv < 0].sum())
    with pytest.raises(sj.ArgumentError, match="no pairing of bots 0 and 5"):
        small.payoff(0, 5)


def test_standings_sum_up_the_rows(small):
    standings = {s.bot: s for s in small.standings()}
    assert [s.score for s in small.standings()] == sorted(
        (s.score for s in small.standings()), reverse=True
    )
    greedy = standings["greedy"]
    assert greedy.score == pytest.approx((small.payoff(0, 1).value + small.payoff(0, 2).value) / 2)
    mine = [p for p in small.pairings if 0 in (p.a, p.b)]
    assert greedy.leveling == pytest.approx(
        sum(p.levels_a for p in mine) / sum(p.levels_a + p.levels_b for p in mine)
    )
    assert standings["random"].leveling < 0.2 < greedy.leveling
    text = small.table()
    assert "0: greedy" in text and "leveling rate" in text and str(small.payoff(1, 2)) in text


def test_a_ladder_folder_is_written_continued_and_guarded(tmp_path):
    out = tmp_path / "ladder"
    first = sj.ladder(BOTS[:2], deals=30, workers=1, out=out)
    saved = json.loads((out / MANIFEST).read_text())
    assert sj.Ladder.from_dict(saved["ladder"]) == first
    assert (out / "pair-0-1" / "summary.json").exists()
    again = sj.ladder(BOTS[:2], deals=30, workers=1, out=out, resume=True)
    assert again == first
    with pytest.raises(sj.StudyError, match="holds another ladder .*deals"):
        sj.ladder(BOTS[:2], deals=40, workers=1, out=out)
    with pytest.raises(sj.StudyError, match="nothing to resume"):
        sj.ladder(BOTS[:2], deals=30, workers=1, out=tmp_path / "new", resume=True)


@pytest.mark.parametrize(
    "bots,kwargs,error,message",
    [
        (["greedy"], {}, sj.ArgumentError, "two bots or more"),
        ("greedy", {}, sj.ArgumentError, "two bots or more"),
        (["greedy", "greedy"], {}, sj.ArgumentError, "must differ"),
        (["greedy", PassiveBot()], {}, sj.BotError, "bot 1 .* has no text form"),
        (["greedy", "nonsense"], {}, sj.BotError, "bot 1"),
        (["greedy", "random"], {"deals": 0}, sj.ArgumentError, "deals"),
        (["greedy", "random"], {"matches": -1}, sj.ArgumentError, "matches"),
        (["greedy", "random"], {"seed": -1}, sj.ArgumentError, "seed"),
    ],
)
def test_bad_ladders_are_named(bots, kwargs, error, message):
    with pytest.raises(error, match=message):
        sj.ladder(bots, **kwargs)


def test_a_ladder_of_one_deal_has_no_interval():
    one = sj.ladder(["greedy", "random"], deals=1, workers=1)
    assert one.payoff(0, 1).ci_low is None and one.payoff(1, 0).ci_high is None
    assert f"{one.payoff(0, 1).value:+.3f} [-]" in one.table()


@pytest.mark.slow
def test_the_command_line_joins_its_bots_as_one_list(tmp_path, capsys):
    pytest.importorskip("tqdm")
    from shengji.cli import main

    out = tmp_path / "ladder"
    # a setting after a space, and one after a bot without settings, are the bot's before
    args = ["ladder", "--bots", "greedy,call=eager", "random", "greedy:call=patient", "patience=7"]
    assert main([*args, "--deals", "3", "--workers", "1", "--out", str(out)]) == 0
    saved = json.loads((out / MANIFEST).read_text())
    bots = ["greedy:call=eager", "random", "greedy:patience=7"]
    assert sj.Ladder.from_dict(saved["ladder"]) == sj.ladder(bots, deals=3, workers=1)
    assert "2: greedy:patience=7" in capsys.readouterr().out
