"""One hand, analysed: rounds started at the dealer's bury play out as the real rounds do, the
worlds are uniform deals of the unseen cards, the same seed gives the same table, the
intervals are paired by world, a bad bury ranks low, and bad input is one clear error."""

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from bots import PassiveBot
from test_worlds import chi_square_limit

import shengji as sj
from shengji.bots import resolve_bots
from shengji.cli import main
from shengji.play._playout import play_out
from shengji.play._table import Table
from shengji.play.rounds import ask_python_bot
from shengji.studies.analyze import bury_worlds, ranked, show_of, swaps, trump_worlds

pd = pytest.importorskip("pandas")  # the study extra

STRONG = sj.Cards(
    "BJ BJ SJ SJ 2S 2S 2H AS AS KS QS JS 10S 9S AH KH QH 5H 4H 3H AC KC 8C 7C 6C "
    "3C AD 9D 8D 7D 6D 4D 3D"
)
LOW = sj.Cards("4H 3H 6C 3C 7D 6D 4D 3D")  # the `low` strategy's bury of STRONG
DRAWN = sj.Cards("BJ BJ SJ 2S 2H AS KS QS 9S 5S 4H 3H 9C 8C 7C 6C 5C 4C AD KD QD 9D 8D 7D 6D")
GREEDY, _, _ = resolve_bots("greedy")


def test_rounds_started_at_the_bury_play_out_as_the_real_rounds():
    """A greedy round in which the dealer declared and nobody overturned, started again at
    its bury from its deal and its declaration, plays the same tricks to the same points,
    natively (play_out) and through a Table."""
    rules = sj.Rules.preset("v3")
    checked = 0
    for seed in range(120):
        rec = sj.play_round(rules, seed=seed, bots="greedy")
        if (rec.dealer, rec.declarer, len(rec.deals)) != (0, 0, 1) or any(
            e.action not in ("declare", "reinforce") for e in rec.events
        ):
            continue
        deck = rec.deals[0].split()
        world = sj.to_masks([sj.Cards(deck[s:100:4]) for s in range(4)] + [sj.Cards(deck[100:])])
        shown = rec.events[-1].cards  # reinforced: the pair
        table = Table.at_bury(rules, seed, 0, (2, 2), world, shown, None, GREEDY)
        assert table.advance() is None
        got = table.record()
        assert got["tricks"] == rec.tricks, seed
        assert got["buries"] == rec.buries and got["defender_points"] == rec.defender_points
        cols = play_out(
            rules,
            world[None],
            sj.to_masks([shown]),
            np.zeros((1, 2), np.uint64),
            GREEDY,
            0,
            (2, 2),
            seed,
        )
        assert cols["defender_points"][0, 0] == rec.defender_points
        assert cols["rise"][0, 0] == rec.settlement.rise
        checked += 1
    assert checked >= 20


def test_what_the_seats_know_of_a_round_started_at_the_bury_agrees_with_it():
    """Python bots (and a search bot's worlds) read the seats' knowledge: it agrees with the
    round at every decision, whether the dealer's bury is given or asked."""
    rules = sj.Rules.preset("v3")
    worlds = bury_worlds(STRONG, sj.Cards("2S 2S"), 3, seed=0)
    bots = [PassiveBot() for _ in range(4)]
    specs, objects, _ = resolve_bots(bots)
    for j, bury in enumerate([None, LOW, LOW]):
        table = Table.at_bury(rules, j, 0, (2, 2), worlds[j], "2S 2S", bury, specs)
        while (pending := table.advance()) is not None:
            table.check_knowledge()
            ask_python_bot(table, rules, (2, 2), objects[pending[1]], *pending)
        table.check_knowledge()
        assert table.record()["buries"][0].cards == (bury or sj.Cards(list(STRONG)[:8]))
    table = sj.analyze_trump(DRAWN, 2, worlds=3, bots=[PassiveBot(), "greedy"] * 2)
    assert sorted(table["trump"]) == ["2H", "2S"] and (table["n"] == 3).all()


@pytest.mark.slow
def test_the_same_seed_gives_the_same_table():
    first = sj.analyze_bury(STRONG, "2S", worlds=200, search=20_000, seed=3)
    pd.testing.assert_frame_equal(
        first, sj.analyze_bury(STRONG, "2S", worlds=200, search=20_000, seed=3)
    )
    assert not first.equals(sj.analyze_bury(STRONG, "2S", worlds=200, search=20_000, seed=4))
    assert (first["n"] == 200).all() and "search" in set(first["by"])
    trumps = sj.analyze_trump(DRAWN, 2, rules="bo3", worlds=200, seed=3)
    pd.testing.assert_frame_equal(
        trumps, sj.analyze_trump(DRAWN, 2, rules="bo3", worlds=200, seed=3)
    )
    assert list(trumps.columns) == [
        "trump",
        "level_delta_mean",
        "ci_low",
        "ci_high",
        "defender_points_mean",
        "dealer_holds",
        "n",
    ]
    assert set(trumps["trump"]) == {"2S", "2H", "2NT"}


def copies_by_place(worlds, card, places):
    """How the two copies of `card` are spread over `places` in each world: a tuple of
    counts, one per place."""
    bit = int(sj.to_masks([card])[0, 0])
    ones = (worlds[:, places, 0] & np.uint64(bit)) != 0
    twos = (worlds[:, places, 1] & np.uint64(bit)) != 0
    return Counter(map(tuple, ones.astype(int) + twos.astype(int)))


@pytest.mark.parametrize("what", ["bury", "trump"])
def test_the_worlds_deal_the_unseen_cards_uniformly(what):
    """Both copies of a card the seat does not hold land in each pair of places as often as a
    uniform deal puts them there (chi-square), and the seat's own cards stay put."""
    draws = 20_000
    if what == "bury":
        worlds = bury_worlds(STRONG, sj.Cards("2S 2S"), draws, seed=5)
        places, sizes = [1, 2, 3], [25, 25, 25]
        held = sj.to_masks([STRONG])[0]
        assert (worlds[:, 0, 0] | worlds[:, 4, 0] == held[0]).all()
    else:
        worlds = trump_worlds(DRAWN, draws, seed=5)
        places, sizes = [1, 2, 3, 4], [25, 25, 25, 8]
        assert (worlds[:, 0] == sj.to_masks([DRAWN])[0]).all()
    unseen = sum(sizes)
    got = copies_by_place(worlds, "JH", places)
    expected = {}
    for a in range(len(places)):
        for b in range(a, len(places)):
            spread = tuple((i == a) + (i == b) for i in range(len(places)))
            ways = sizes[a] * (sizes[a] - 1) if a == b else 2 * sizes[a] * sizes[b]
            expected[spread] = draws * ways / (unseen * (unseen - 1))
    assert set(got) <= set(expected)
    chi2 = sum((got[s] - e) ** 2 / e for s, e in expected.items())
    assert chi2 < chi_square_limit(len(expected) - 1), (chi2, got)


def test_the_intervals_are_paired_by_world():
    """A bury played twice meets the same worlds and round seeds: the same outcomes, so its
    difference to itself is 0 in every world."""
    rules = sj.Rules.preset("v3")
    worlds = bury_worlds(STRONG, sj.Cards("2S 2S"), 300, seed=1)
    twice = sj.to_masks([LOW, LOW, swaps(LOW, STRONG)[0]])
    cols = play_out(rules, worlds, sj.to_masks(["2S 2S"] * 3), twice, GREEDY, 0, (2, 2), 1)
    for name in cols:
        assert (cols[name][0] == cols[name][1]).all()
    pair = ranked("bury", ["low", "low again"], {name: v[:2] for name, v in cols.items()})
    assert (pair[["ci_low", "ci_high"]] == 0).all().all()
    assert pair["level_delta_mean"].nunique() == 1
    frame = ranked("bury", ["low", "low again", "a swap"], cols).set_index("bury")
    assert frame.loc["low"].equals(frame.loc["low again"])
    assert frame.iloc[0]["ci_low"] == frame.iloc[0]["ci_high"] == 0
    # a given bury that is a strategy's choice is one row, proposed by both
    table = sj.analyze_bury(STRONG, "2S", worlds=100, search=0, candidates=[str(LOW)])
    assert (table["bury"] == str(LOW)).sum() == 1
    assert table.loc[table["bury"] == str(LOW), "by"].item() == "low, given 1"


def test_throwing_away_both_big_jokers_ranks_below_a_low_bury():
    jokers = "BJ BJ 4H 3H 6C 3C 4D 3D"
    table = sj.analyze_bury(STRONG, "2S", worlds=500, search=0, candidates=[jokers, LOW])
    rank = {b: i for i, b in enumerate(table["bury"])}
    assert rank[str(sj.Cards(jokers))] > rank[str(LOW)]
    row = table.iloc[rank[str(sj.Cards(jokers))]]
    assert (
        row["ci_high"] < 0
        and row["level_delta_mean"] < table.iloc[rank[str(LOW)]]["level_delta_mean"] - 0.2
    )


@pytest.mark.slow  # a few seconds; the quick loop keeps a lighter test of the same
def test_a_search_bot_plays_through_python():
    """Pimc seats are asked through Python from the same positions: a small table, the same
    twice."""
    pimc = sj.Pimc(rollouts=20)
    first = sj.analyze_bury(STRONG, "2S", worlds=2, bots=pimc, search=0)
    assert (first["n"] == 2).all() and len(first) == 5
    pd.testing.assert_frame_equal(
        first, sj.analyze_bury(STRONG, "2S", worlds=2, bots=pimc, search=0)
    )


def test_the_declaration_follows_the_hand_and_the_rules():
    v3, bo3 = sj.Rules.preset("v3"), sj.Rules.preset("bo3")
    assert show_of(STRONG, sj.Trump(2, "S"), v3) == sj.Cards("2S 2S")
    assert show_of(STRONG, sj.Trump(2, "H"), v3) == sj.Cards("2H")
    assert show_of(STRONG, sj.Trump(2, None), bo3) == sj.Cards("BJ BJ")


SIX_LOW = "4H 3H 6C 3C 4D 3D"
BAD_BURY = [
    (dict(hand=str(STRONG)[3:]), "must hold 33 cards"),
    (dict(hand="AS AS AS " + str(STRONG)[9:]), "a third copy of AS"),
    (dict(hand="AS XX"), "XX"),
    (dict(hand=7), "the hand: expected cards"),
    (dict(trump="2C"), "cannot declare 2C: it holds no 2C"),
    (dict(trump="2NT"), "Rules.joker_pair_declares"),
    (dict(trump="2X"), "unknown trump suit"),
    (dict(trump="ZS"), "unknown level"),
    (dict(candidates=[SIX_LOW]), "candidate 1 (4H 3H 6C 3C 4D 3D): a bury is 8 cards"),
    (dict(candidates=[LOW, SIX_LOW + " 5S 5S"]), "candidate 2 (5S 5S"),
    (dict(candidates=[SIX_LOW + " 5S 5S"]), "not in the hand: 5S"),
    (dict(candidates=str(LOW)), "a list of buries"),
    (dict(worlds=0), "worlds must be an integer from 1"),
    (dict(search=-1), "search must be an integer from 0"),
    (dict(bots="smart"), "unknown bot 'smart'"),
    (dict(seed=-1), "seed must be"),
    (dict(levels=(5, 2)), "plays at the trump's level 2, not 5"),
    (dict(levels=(2, 15)), "levels[1] must be"),
]


@pytest.mark.parametrize("change,words", BAD_BURY, ids=[w for _, w in BAD_BURY])
def test_bad_bury_input_is_one_clear_error(change, words):
    args = dict(hand=STRONG, trump="2S", worlds=10) | change
    with pytest.raises(ValueError) as e:
        sj.analyze_bury(**args)
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "change,words",
    [
        (dict(hand=str(DRAWN)[3:]), "must hold 25 cards"),
        (dict(level=10), "cannot declare at level 10: it holds no 10"),
        (dict(hand=DRAWN - "BJ" + "3D", level="J", rules="bo3"), "it holds no J and no joker pair"),
        (dict(level=15), "unknown level"),
        (dict(rules="v4"), "unknown preset"),
        (dict(levels=(3, 3)), "plays at the trump's level 2, not 3"),
    ],
)
def test_bad_trump_input_is_one_clear_error(change, words):
    args = dict(hand=DRAWN, level=2, worlds=10) | change
    with pytest.raises(ValueError) as e:
        sj.analyze_trump(**args)
    assert words in str(e.value), str(e.value)


def test_the_command_line_prints_the_ranked_table(capsys):
    assert (
        main(
            [
                "analyze",
                "bury",
                "--hand",
                str(STRONG),
                "--trump",
                "2S",
                "--worlds",
                "100",
                "--search",
                "0",
                "--candidate",
                "BJ BJ 4H 3H 6C 3C 4D 3D",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert "trump 2S: rules v3, bots greedy, 100 worlds, seed 0" in out[0]
    assert out[3].split()[:2] == ["1", "4♥"] and "best" in out[3]
    assert len(out) == 3 + 6 and "given 1" in out[-1] + out[-2] + out[-3]
    assert (
        main(
            [
                "analyze",
                "trump",
                "--hand",
                str(DRAWN),
                "--level",
                "2",
                "--rules",
                "bo3",
                "--worlds",
                "50",
                "--bots",
                "greedy:bury=low",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 + 3 and "bots greedy:bury=low" in out[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args,words",
    [
        (["bury", "--hand", "AS AS", "--trump", "2S"], "must hold 33 cards"),
        (["bury", "--hand", str(STRONG), "--trump", "2C"], "cannot declare 2C"),
        (["bury", "--hand", str(STRONG), "--trump", "2S", "--candidate", "AS"], "candidate 1"),
        (
            ["bury", "--hand", str(STRONG), "--trump", "2S", "--bots", "pimc:depth=3"],
            "unknown setting 'depth'; pimc takes",
        ),
        (["bury", "--hand", str(STRONG), "--trump", "2S", "--worlds", "0"], "--worlds: must be"),
        (["trump", "--hand", str(DRAWN), "--level", "10"], "cannot declare at level 10"),
        (["trump", "--hand", str(DRAWN)], "required: --level"),
    ],
)
def test_bad_command_lines_are_one_line_with_status_2(args, words):
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "analyze", *args], capture_output=True, text=True
    )
    assert run.returncode == 2 and words in run.stderr, run.stderr
    assert len(run.stderr.splitlines()) == 1 and not run.stdout


def test_the_levels_reach_the_seats_views():
    """levels (the dealer's team's, the other's): by default both at the trump's level; the
    play-outs' seats see the levels given."""
    default = sj.analyze_bury(STRONG, "2S", worlds=40, search=0)
    pd.testing.assert_frame_equal(
        default, sj.analyze_bury(STRONG, "2S", worlds=40, search=0, levels=(2, 2))
    )

    class Watching(PassiveBot):
        seen = set()

        def play(self, view):
            Watching.seen.add(view.levels)
            return super().play(view)

    sj.analyze_trump(DRAWN, 2, worlds=2, bots=[Watching() for _ in range(4)], levels=(2, 14))
    assert Watching.seen == {(2, 14)}
