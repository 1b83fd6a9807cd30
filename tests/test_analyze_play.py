"""One play, and a whole round, analysed: each candidate's outcomes are the round played out by
hand through the public API in the same worlds, the worlds keep everything the seat knew and
deal the rest, the exact values are the solver's, the same seed gives the same table (on any
number of threads), the round's annotations fit the viewer, and bad input is one clear error
with nothing written."""

import itertools
import json
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shengji as sj
from shengji.bots import resolve_bots
from shengji.cli import main
from shengji.core.cards import BB_ALL, CATEGORIES
from shengji.play._table import Table
from shengji.play.replay import recorded_play, replay_to
from shengji.round._worlds import WorldSampler
from shengji.studies.analyze import trump_text
from shengji.studies.plays import decision_seed, sample
from shengji.studies.report import study_samples
from shengji.studies.stats import Sums
from shengji.studies.study import run_study

pd = pytest.importorskip("pandas")  # the study extra

SPECS = {name: resolve_bots(name)[0] for name in ("greedy", "expert")}


def simple_round(bots: str, start: int = 0) -> sj.RoundRecord:
    """A round in which seat 0 dealt and declared in the first deal, buried once and nobody
    overturned (a round Table.at_bury can start again from its bury), from seed `start` on."""
    for seed in range(start, start + 400):
        rec = sj.play_round("v3", seed=seed, bots=bots)
        if (
            (rec.dealer, rec.declarer, len(rec.deals), len(rec.buries)) == (0, 0, 1, 1)
            and all(e.action in ("declare", "reinforce") for e in rec.events)
            and len(rec.tricks) > 8
        ):
            return rec
    raise AssertionError("no simple round")


def played_by_hand(rec: sj.RoundRecord, trick: int, seat: int, play: sj.Cards, world, bots):
    """The plain reference of one play-out: the round started again at the bury with the
    hands of `world` (each seat's cards now, plus those it has played), the record's plays
    answered up to the decision, `play` made, and every later play the bot's (Table.bot_play)
    answered one by one. (defender points, the dealer's team's level change); None where the
    world cannot have led to the position (the seats' knowledge holds their voids, not what a
    follow shows of pairs: a world may give a seat a pair of a suit it did not follow a pair
    lead with, and the engine refuses that earlier follow)."""
    _, decided = replay_to(rec, trick, seat)
    played = decided.knowledge(seat).played
    hands = [sj.Cards.from_masks(int(world[q, 0]), int(world[q, 1])) + played[q] for q in range(4)]
    rest = sj.Cards.from_masks(int(world[4, 0]), int(world[4, 1]))
    show = rec.events[-1].cards
    # the dealer's 33 cards, the shown ones among the 25 drawn (a world may have them buried),
    # and the world's bottom buried
    dealt = hands[0] + rest
    bottom = sj.Cards(list(dealt - show)[-8:])
    table = Table.at_bury(
        rec.rules,
        0,
        0,
        rec.levels,
        sj.to_masks([dealt - bottom, *hands[1:], bottom]),
        show,
        rest,
        [sj.BotSpec.python()] * 4,
    )
    spec = bots[0]
    decision = (trick, rec.tricks[trick].seats.index(seat))
    while (pending := table.advance()) is not None:
        if pending[0] != "play":  # nobody overturned in the record: each passes
            assert table.answer(None, False) == 0
            continue
        now = (len(table.tricks()), len(table.state()["current"]))
        if now < decision:
            t = rec.tricks[now[0]]
            if table.answer(t.tried if now[1] == 0 else t.plays[now[1]]):
                return None
            continue
        assert table.answer(play if now == decision else table.bot_play(spec)) == 0
    out = table.record()
    s = out["settlement"]
    return out["defender_points"], s.rise if s.dealer_holds else -s.rise


@pytest.mark.parametrize("bots", ["greedy", pytest.param("expert", marks=pytest.mark.slow)])
def test_each_candidate_is_the_round_played_out_by_hand_in_the_same_worlds(bots):
    """With a few worlds, each candidate's outcome in each world is the round played out
    through the public API in that world (every world the history allows), for a lead and a
    follow; each mean is its worlds'; the ranking sorts the means (the seat's team's level
    change, then its points); the play made is marked."""
    rec = simple_round(bots)
    checked = 0
    for trick, step in ((5, 0), (6, 2)):
        seat = rec.tricks[trick].seats[step]
        frame = sj.analyze_play(rec, (trick, seat), worlds=6, bots=bots, seed=7, max_candidates=6)
        samples = frame.attrs["samples"]
        assert list(samples.labels) == list(frame["play"])
        _, table = replay_to(rec, trick, seat)
        places = sample(table, 6, 7)
        sign = 1 if seat % 2 == 0 else -1  # seat 0 deals
        for i, label in enumerate(samples.labels):
            for j, world in enumerate(places):
                got = played_by_hand(rec, trick, seat, sj.Cards(label), world, SPECS[bots])
                if got is not None:
                    assert (samples.points[i, j], samples.levels[i, j]) == (got[0], sign * got[1])
                    checked += 1
            assert frame.level_delta_mean[i] == pytest.approx(samples.levels[i].mean())
            assert frame.defender_points_mean[i] == pytest.approx(samples.points[i].mean())
        keys = [(m, -sign * p) for m, p in zip(frame.level_delta_mean, frame.defender_points_mean)]
        assert keys == sorted(keys, reverse=True)
        assert frame["made"].sum() == 1
        made = recorded_play(rec, replay_to(rec, trick, seat)[1])
        assert frame.loc[frame["made"], "play"].iloc[0] == str(made)
    assert checked >= 24  # of 2 decisions x 6 candidates x 6 worlds


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 24), st.integers(0, 3), st.integers(0, 2**32))
def test_the_worlds_keep_what_the_seat_knows_and_deal_the_rest(round_seed, trick, seat, seed):
    """Every world of a decision keeps the seat's own hand, gives each other seat as many
    cards as it holds, none of a category it has shown void in, holds exactly the cards not
    yet played, and differs from the real hands in some world (they are not read), unless
    the plays made rule out every other deal the knowledge allows."""
    rec = sj.play_round("v3", seed=round_seed, bots="greedy")
    trick = trick % len(rec.tricks)
    _, table = replay_to(rec, trick, seat)
    know = table.knowledge(seat)
    places = sample(table, 40, seed)
    trump = rec.trump
    played = sum(know.played, sj.Cards())
    real = [table.hand(q) for q in range(4)]
    differs = False
    for world in places:
        hands = [sj.Cards.from_masks(int(a), int(b)) for a, b in world]
        assert hands[seat] == real[seat]
        assert [len(h) for h in hands[:4]] == [len(h) for h in real]
        for q in range(4):
            void = {c for i, c in enumerate(CATEGORIES) if know.voids[q] >> i & 1}
            assert not any(sj.category(card, trump) in void for card in hands[q]), (q, void)
        assert sum(hands, sj.Cards()) + played == sj.Cards.from_masks(BB_ALL, BB_ALL)
        differs |= hands[:4] != real
    if not differs:
        groups, need, fixed, mixtures, checks = know.places(from_plays=False)
        checker = WorldSampler(groups, need, fixed, mixtures, checks)
        for world in WorldSampler(groups, need, fixed, mixtures).sample(200, seed):
            hands = [sj.Cards.from_masks(int(a), int(b)) for a, b in world[:4]]
            assert hands == real or not checker.world_replays(hands)


def test_the_same_seed_gives_the_same_table_on_any_number_of_threads():
    rec = sj.play_round("v3", seed=5, bots="expert")
    decision = (4, rec.tricks[4].leader)
    one = sj.analyze_play(rec, decision, worlds=60, bots="greedy", seed=3)
    pd.testing.assert_frame_equal(one, sj.analyze_play(rec, decision, 60, "greedy", 3))
    pd.testing.assert_frame_equal(one, sj.analyze_play(rec, decision, 60, "greedy", 3, workers=2))
    other = sj.analyze_play(rec, decision, worlds=60, bots="greedy", seed=4)
    assert not np.array_equal(one.attrs["samples"].points, other.attrs["samples"].points)
    # a Table at the decision (a position) is analysed as the record's decision is
    _, table = replay_to(rec, *decision)
    at = sj.analyze_play(table, worlds=60, bots="greedy", seed=3)
    pd.testing.assert_frame_equal(one.drop(columns="made"), at.drop(columns="made"))


def hands_at(rec: sj.RoundRecord, trick: int) -> list[sj.Cards]:
    """Each seat's cards at the start of trick `trick`: its hand less what it played."""
    hands = list(rec.hands)
    for t in rec.tricks[:trick]:
        for q, play in zip(t.seats, t.plays):
            hands[q] = hands[q] - play
    return hands


def position_args(rec: sj.RoundRecord, trick: int, step: int = 0) -> dict:
    """sj.position's arguments for `rec` at play `step` of trick `trick`: the hands as the
    play began, the record's trump, dealer, declarer and levels, and the plays before."""
    start = [sj.Cards() for _ in range(4)]
    for t in rec.tricks:
        for q, play in zip(t.seats, t.plays):
            start[q] = start[q] + play
    plays = [
        [q, str(t.tried if j == 0 else play)]
        for i, t in enumerate(rec.tricks[: trick + 1])
        for j, (q, play) in enumerate(zip(t.seats, t.plays))
        if i < trick or j < step
    ]
    return {
        "hands": [str(h) for h in start],
        "trump": trump_text(rec.trump),
        "dealer": rec.dealer,
        "declarer": rec.declarer,
        "plays": plays,
        "rules": rec.rules.name,
        "levels": list(rec.levels),
    }


def posable_seeds(preset):
    """The first four seeds whose rounds sj.position can pose: a seat declared the trump with
    a show its hand offered (under botzone no trump comes only of an overturn, and a trump
    nobody declared is drawn at random: no declaration reaches either)."""
    rules = sj.Rules.preset(preset)
    seeds = (
        seed
        for seed in range(100)
        if (rec := sj.play_round(preset, seed, "expert" if seed < 2 else "random")).declarer
        is not None
        and (rec.trump.suit is not None or rules.joker_pair_declares)
    )
    return list(itertools.islice(seeds, 4))


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_a_position_is_the_round_at_that_play(preset):
    """sj.position of a record's deal and its plays up to a decision: the hands, tricks,
    trump and pending seat the record has there, throws as tried included; analyze_play
    ranks its next play, from the position's JSON form alike."""
    checked = throws = 0
    for seed in posable_seeds(preset):
        rec = sj.play_round(preset, seed, "expert" if seed < 2 else "random")  # random throws
        for trick, step in ((0, 0), (6, 2), (len(rec.tricks) - 1, 3)):
            args = position_args(rec, trick, step)
            table = sj.position(**args)
            t = rec.tricks[trick]
            assert table.pending == ("play", t.seats[step])
            hands = hands_at(rec, trick)
            for q, play in zip(t.seats[:step], t.plays[:step]):
                hands[q] = hands[q] - play
            assert [table.hand(q) for q in range(4)] == hands
            assert table.tricks() == rec.tricks[:trick]
            state = table.state()
            assert state["current"] == list(t.plays[:step])
            assert (state["trump"], state["declarer"]) == (rec.trump, rec.declarer)
            checked += 1
            throws += sum(x.attempted is not None for x in rec.tricks[:trick])
    frame = sj.analyze_play({"position": args}, worlds=20, bots="greedy")
    assert frame.attrs["decision"] == (trick, t.seats[step]) and len(frame) >= 1
    assert checked == 12 and throws, throws


def test_exact_values_are_the_solvers_of_the_real_hands():
    rec = sj.play_round("v3", seed=2, bots="expert")
    trick = next(i for i, t in enumerate(rec.tricks) if len(hands_at(rec, i)[0]) <= 6)
    leader = rec.tricks[trick].leader
    frame = sj.analyze_play(rec, (trick, leader), exact=True)
    points = sum(t.points for t in rec.tricks[:trick] if t.winner % 2 != rec.dealer % 2)
    points += sum(
        rec.rules.throw_penalty * len(t.attempted) * (1 if t.leader % 2 == rec.dealer % 2 else -1)
        for t in rec.tricks[:trick]
        if t.attempted is not None
    )
    solved = sj.solve_endgame(
        hands_at(rec, trick),
        rec.trump,
        leader=leader,
        dealer=rec.dealer,
        bottom=rec.bottom,
        rules=rec.rules,
        points=points,
    )
    sign = 1 if (leader - rec.dealer) % 2 == 0 else -1
    values = dict(solved.values)
    assert len(frame) == len(values) and (frame["n"] == 1).all()
    for row in frame.itertuples():
        s = rec.rules.settle(values[sj.Cards(row.play)])
        assert row.defender_points_mean == values[sj.Cards(row.play)]
        assert row.level_delta_mean == sign * (s.rise if s.dealer_holds else -s.rise)
    assert sj.Cards(frame.play[0]) in solved.best


def test_a_round_annotated_costs_each_play_against_the_best():
    """Each row of a round's analysis is its decision's analyze_play (its worlds seeded by
    decision_seed): the cost is the best's mean minus the play's, nothing where the play was
    the best, as good as it in levels and points, or the only one; the annotations are the
    viewer's and reach its page."""
    rec = sj.play_round("v3", seed=11, bots="greedy")
    frame, data = sj.analyze_round(rec, seat=1, worlds=30, bots="greedy", seed=2)
    assert list(frame.trick) == list(range(len(rec.tricks))) and set(frame.seat) == {1}
    assert (frame.levels >= 0).all()
    notes = data["annotations"]["plays"]
    assert [(n["trick"], n["seat"]) for n in notes] == list(zip(frame.trick, frame.seat))
    costly = 0
    for row, note in zip(frame.itertuples(), notes):
        assert (note["levels"], note["points"], note["best"]) == (row.levels, row.points, row.best)
        if row.candidates == 1:
            assert (row.levels, row.points, row.best) == (0, 0, None)
            continue
        one = sj.analyze_play(
            rec, (row.trick, 1), 30, "greedy", decision_seed(2, row.trick, 1), max_candidates=100
        )
        made = one[one.made].iloc[0]
        assert row.levels == pytest.approx(one.level_delta_mean[0] - made.level_delta_mean)
        # the points the seat's team gets: the defenders' points, or for the dealer's team
        # the points it keeps from them
        gained = one.defender_points_mean[0] - made.defender_points_mean
        assert row.points == pytest.approx(gained if rec.dealer % 2 == 0 else -gained)
        tie = row.levels == 0 and row.points == 0  # as good as the best: no better play
        assert row.best == (None if made.name == 0 or tie else one.play[0])
        if made.name:
            levels = one.attrs["samples"].levels
            _, low, high = Sums.of(levels[0] - levels[made.name]).interval(False)
            assert (row.ci_low, row.ci_high) == pytest.approx((low, high))
        costly += row.best is not None
    assert costly  # some play was not the best
    page = sj.render_html(data)
    assert data["annotations"]["source"] in page
    everyone, _ = sj.analyze_round(rec, worlds=5, bots="greedy")
    assert len(everyone) == 4 * len(rec.tricks)


def test_the_payoff_table_is_every_pair_paired_by_world():
    rec = sj.play_round("v3", seed=5, bots="expert")
    frame = sj.analyze_play(rec, (3, rec.tricks[3].leader), worlds=50, bots="greedy")
    table = sj.payoff(frame)
    n = len(frame)
    assert len(table) == n * (n - 1)
    levels = frame.attrs["samples"].levels
    labels = list(frame.play)
    for r in table.itertuples():
        i, j = labels.index(r.row), labels.index(r.column)
        mean, low, high = Sums.of(levels[i] - levels[j]).interval(False)
        assert (r.mean_diff, r.ci_low, r.ci_high) == (mean, low, high)
        # the column against the best is analyze_play's own interval
        if j == 0:
            assert (r.ci_low, r.ci_high) == pytest.approx((frame.ci_low[i], frame.ci_high[i]))
    points = sj.payoff(frame, "points")
    assert points.mean_diff.abs().sum() > 0
    bury = sj.analyze_trump(
        "BJ BJ SJ 2S 2H AS KS QS 9S 5S 4H 3H 9C 8C 7C 6C 5C 4C AD KD QD 9D 8D 7D 6D", 2, worlds=30
    )
    pair = sj.payoff(bury).iloc[0]
    assert pair.mean_diff == pytest.approx(bury.level_delta_mean[0] - bury.level_delta_mean[1])
    with pytest.raises(sj.StudyError, match="frame of an analysis"):
        sj.payoff(pd.DataFrame({"a": [1]}))
    with pytest.raises(sj.StudyError, match="metric"):
        sj.payoff(frame, "holds")


def bad_inputs() -> dict:
    """Calls of analyze_play and analyze_round that must be refused, by the words of the
    error."""
    rec = sj.play_round("v3", seed=0, bots="greedy")
    data = rec.to_dict()
    other = {**data, "rules": {**data["rules"], "dealer_rises": [[75, 4]]}}
    newer = {**data, "rules": {**data["rules"], "jokers_high": True}}
    third = json.loads(json.dumps(data))
    third["hands"][1] = " ".join(["AS"] * 3 + third["hands"][1].split()[3:])
    out_of_turn = json.loads(json.dumps(data))
    out_of_turn["tricks"][2]["leader"] = (out_of_turn["tricks"][2]["leader"] + 1) % 4
    last = len(rec.tricks)
    lead = (last - 1, rec.tricks[-1].leader)
    follow = (last - 1, rec.tricks[-1].seats[1])
    args = position_args(rec, 3)
    short_hand = {**args, "hands": [args["hands"][0], args["hands"][1][3:], *args["hands"][2:]]}
    held = Counter(sj.Cards(" ".join(args["hands"])))
    twice = next(c for c, n in held.items() if n == 2 and c not in args["hands"][0].split())
    three = {
        **args,
        "hands": [" ".join([*args["hands"][0].split()[1:], twice]), *args["hands"][1:]],
    }
    wrong = [*args["plays"][:-1], [(args["plays"][-1][0] + 1) % 4, args["plays"][-1][1]]]
    leader = rec.tricks[3].leader
    illegal = [*args["plays"], [leader, str(list(hands_at(rec, 3)[(leader + 1) % 4])[0])]]
    return {
        "seat 1's as the play began": lambda: sj.position(**short_hand),
        "a third copy of": lambda: sj.position(**three),
        "is to play": lambda: sj.position(**{**args, "plays": wrong}),
        "play 12": lambda: sj.position(**{**args, "plays": illegal}),
        "end the round": lambda: sj.position(
            **{**args, "plays": [[q, str(p)] for t in rec.tricks for q, p in zip(t.seats, t.plays)]}
        ),
        "declarer 1: the hand cannot declare 2NT": lambda: sj.position(
            **{**args, "trump": "2NT", "declarer": 1}
        ),
        "plays at the trump's level": lambda: sj.position(**{**args, "levels": [3, 3]}),
        "position: hands and trump": lambda: sj.analyze_play({"position": {"hands": []}}),
        # an unknown key is refused by name at both levels of a position file
        "unknown key 'note' beside \"position\"": lambda: sj.analyze_play(
            {"position": args, "note": "x"}
        ),
        "position: unknown key 'dealr'": lambda: sj.analyze_play(
            {"position": {**args, "dealr": 1}}
        ),
        # the index `last` is the (last + 1)-th trick: messages count from 1
        f"trick {last + 1} is not in the record: its round has {last} tricks, 1 to {last}": (
            lambda: sj.analyze_play(rec, (last, 0))
        ),
        "seat (a seat)": lambda: sj.analyze_play(rec, (0, 4)),
        "decision must be (trick, seat)": lambda: sj.analyze_play(rec, 3),
        "settlement.rise differs": lambda: sj.analyze_play(other, (0, 0)),
        "unknown Rules setting": lambda: sj.analyze_play(newer, (0, 0)),
        "not a round record: hands[1]": lambda: sj.analyze_play(third, (0, 0)),
        "replay: trick 3, tricks[2].leader differs": lambda: sj.analyze_play(out_of_turn, (0, 0)),
        "at a lead: seat": lambda: sj.analyze_play(rec, follow, exact=True),
        "too large for the exact solver": lambda: sj.analyze_play(rec, (0, rec.dealer), exact=True),
        "analyze_round takes a round record, not a match record": lambda: sj.analyze_round(
            {"rounds": []}
        ),
        "analyze_play takes a round record, not a match record": lambda: sj.analyze_play(
            sj.play_match("bo3", seed=1, bots="random"), (0, 0)
        ),
        "natively by bots that read no knowledge": lambda: sj.analyze_play(
            rec, lead, bots=sj.Pimc(rollouts=10)
        ),
        "not a learned one": lambda: sj.analyze_play(rec, lead, bots="learned"),
        "worlds": lambda: sj.analyze_play(rec, lead, worlds=0),
    }


@pytest.mark.parametrize("words", list(bad_inputs()))
def test_bad_input_is_one_clear_error(words):
    with pytest.raises(sj.ShengjiError, match=re.escape(words)):
        bad_inputs()[words]()


def test_the_command_line_ranks_a_play_and_annotates_a_round(tmp_path, capsys):
    rec = sj.play_round("v3", seed=4, bots="greedy")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec.to_dict()))
    seat = rec.tricks[6].seats[1]
    # the seventh trick: counted from 1 on the command line, from 0 in Python
    args = ["analyze", "play", str(path), "--trick", "7", "--seat", str(seat)]
    assert main([*args, "--worlds", "40", "--bots", "greedy", "--payoff", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    frame = sj.analyze_play(rec, (6, seat), 40, "greedy")
    assert f"Trick 7, seat {seat}, rules v3: {frame.attrs['legal']} legal plays" in out[0]
    assert out[3].split()[0] == "1" and "best" in out[3]
    assert sum(line.endswith("*") or " * " in line for line in out[3 : 3 + len(frame)]) == 1
    assert any(line.startswith("Payoff of the best 3") for line in out)
    annotated = tmp_path / "annotated.json"
    args = ["analyze", "round", str(path), "--worlds", "5", "--bots", "greedy", "--seat", "2"]
    assert main([*args, "--out", str(annotated)]) == 0
    out = capsys.readouterr().out
    assert "lost over" in out and f"written: {annotated}" in out
    assert main(["view", str(annotated), "-o", str(tmp_path / "page.html")]) == 0
    notes = json.loads(annotated.read_text())["annotations"]["plays"]
    assert {n["seat"] for n in notes} == {2} and len(notes) == len(rec.tricks)


def test_an_exact_payoff_table_has_no_interval_rows(tmp_path, capsys):
    """With every hand known the payoff is exact: one row a play, no empty interval rows."""
    rec = sj.play_round("v3", seed=3, bots="expert")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec.to_dict()))
    trick = next(i for i, t in enumerate(rec.tricks) if len(hands_at(rec, i)[0]) <= 4)
    leader = rec.tricks[trick].leader
    args = ["analyze", "play", str(path), "--trick", str(trick + 1), "--seat", str(leader)]
    assert main([*args, "--exact", "--payoff", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("Payoff of the best"))
    shown = min(3, len(sj.analyze_play(rec, (trick, leader), exact=True)))
    assert "exact" in out[at] and len(out[at + 3 :]) == shown, out[at:]


def test_a_payoff_of_one_sampled_world_is_not_called_exact(tmp_path, capsys):
    """One sampled world has no interval either, but its payoff is a sample: said so."""
    rec = sj.play_round("v3", seed=3, bots="greedy")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec.to_dict()))
    args = ["analyze", "play", str(path), "--trick", "2", "--seat", str(rec.tricks[1].leader)]
    assert main([*args, "--worlds", "1", "--bots", "greedy", "--payoff", "3"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Payoff"))
    assert "in one sampled world (no interval)" in line and "exact" not in line


@pytest.mark.slow
def test_a_refused_record_writes_nothing(tmp_path):
    data = sj.play_round("v3", seed=0, bots="greedy").to_dict()
    data["rules"]["dealer_rises"] = [[75, 4]]
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "annotated.json"
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "analyze", "round", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "settlement.rise differs" in run.stderr, run.stderr
    assert len(run.stderr.splitlines()) == 1 and not out.exists()
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "analyze", "play", str(path), "--trick", "1"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "--trick and --seat name the decision" in run.stderr


@pytest.mark.slow
def test_a_studys_payoff_is_its_own_paired_differences(tmp_path):
    """A study's strategies compared pairwise: against `low`, the burying study's own paired
    differences (level_delta_diff), interval and all; every pair's mean the difference of the
    two strategies' means."""
    summary = run_study("burying", "v3", deals=40, seed=1, out=tmp_path / "study")
    table = sj.payoff(study_samples(tmp_path / "study"))
    metrics = {(m["name"], m["group"]): m for m in summary["metrics"]}
    for r in table[table.column == "low"].itertuples():
        m = metrics["level_delta_diff", f"strategy={r.row}-low"]
        assert (r.mean_diff, r.ci_low, r.ci_high, r.n) == pytest.approx(
            (m["value"], m["ci_low"], m["ci_high"], m["n"])
        )
    for r in table.itertuples():
        a = metrics["level_delta_mean", f"strategy={r.row}"]["value"]
        b = metrics["level_delta_mean", f"strategy={r.column}"]["value"]
        assert r.mean_diff == pytest.approx(a - b)
    with pytest.raises(sj.StudyError, match="not a finished study's folder"):
        study_samples(tmp_path / "nothing")


def test_a_trump_calling_studys_payoff_has_levels_and_no_points(tmp_path):
    """A trump-calling study keeps each strategy's rise and holds (every play_every-th deal),
    not the defenders' points: its payoff is of the level changes, each pair's mean the
    difference of the study's own level_delta_mean metrics; points are refused by name."""
    summary = run_study(
        "trump-calling", "v3", deals=60, seed=2, workers=1, play_every=3, out=tmp_path / "tc"
    )
    samples = study_samples(tmp_path / "tc")
    assert samples.points is None and samples.levels.shape == (5, 20)
    metrics = {(m["name"], m["group"]): m for m in summary["metrics"]}
    for r in sj.payoff(samples).itertuples():
        a = metrics["level_delta_mean", f"strategy={r.row}"]["value"]
        b = metrics["level_delta_mean", f"strategy={r.column}"]["value"]
        assert r.mean_diff == pytest.approx(a - b) and r.n == 20
    with pytest.raises(sj.StudyError, match="no points"):
        sj.payoff(samples, "points")


def test_a_duels_folder_is_named_as_one(tmp_path):
    sj.duel("greedy", "random", deals=8, seed=0, workers=1, out=tmp_path / "duel")
    with pytest.raises(sj.StudyError, match="a duel's folder: its score"):
        study_samples(tmp_path / "duel")


def capped_follow(rec: sj.RoundRecord, more_than: int) -> tuple[int, int]:
    """(trick, seat) of the first follow with more than `more_than` legal follows."""
    for trick, t in enumerate(rec.tricks):
        for seat in t.seats[1:]:
            _, table = replay_to(rec, trick, seat)
            if len(sj.legal_follows(table.hand(seat), t.plays[0], rec.trump)) > more_than:
                return trick, seat
    raise AssertionError("no such follow")


def test_a_capped_follow_spreads_its_candidates_and_keeps_the_bots_choice():
    """Past max_candidates a follow's candidates are that many of sj.legal_follows' listing,
    evenly spread (the first, then every total/cap-th), with the play made and the bot's own
    choice in the seat's first world added; the frame says it was capped. Under the cap,
    every legal follow and not capped."""
    rec = sj.play_round("v3", seed=4, bots="greedy")
    trick, seat = capped_follow(rec, 12)
    _, table = replay_to(rec, trick, seat)
    listed = sj.legal_follows(table.hand(seat), rec.tricks[trick].plays[0], rec.trump)
    cap = 5
    frame = sj.analyze_play(rec, (trick, seat), 4, "greedy", seed=3, max_candidates=cap)
    choice = table.bot_play(SPECS["greedy"][seat], sample(table, 4, 3)[0])
    spread = [listed[i * len(listed) // cap] for i in range(cap)]
    expected = {str(p) for p in [*spread, recorded_play(rec, table), choice]}
    assert set(frame.play) == expected and len(frame) == len(expected)
    assert frame.attrs["capped"] and not frame.attrs["lead"]
    assert frame.attrs["legal"] == len(listed)
    every = sj.analyze_play(rec, (trick, seat), 4, "greedy", max_candidates=len(listed))
    assert set(every.play) == {str(p) for p in listed} and not every.attrs["capped"]


def test_the_command_line_says_what_a_cap_played_out(tmp_path, capsys):
    """analyze play's header says a decision was capped and how its plays were chosen (a
    lead keeps every unit past the cap); analyze round marks a capped decision's plays
    "N of M"; --max-candidates' help says what it does at a lead and at a follow."""
    rec = sj.play_round("v3", seed=4, bots="greedy")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec.to_dict()))
    trick, seat = capped_follow(rec, 12)
    base = ["analyze", "play", str(path), "--worlds", "4", "--bots", "greedy"]
    assert (
        main([*base, "--trick", str(trick + 1), "--seat", str(seat), "--max-candidates", "5"]) == 0
    )
    head = capsys.readouterr().out.splitlines()[0]
    assert (
        "capped by --max-candidates" in head and "5 spread evenly over the listed follows" in head
    )
    leader = rec.tricks[0].leader
    assert main([*base, "--trick", "1", "--seat", str(leader), "--max-candidates", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    units = len(out) - 4  # title, header, rule and the note on the play made
    assert units > 2 and f"{units} played out, every unit (all kept past the cap)" in out[0]
    args = ["analyze", "round", str(path), "--worlds", "2", "--bots", "greedy", "--seat", "0"]
    assert main([*args, "--max-candidates", "3"]) == 0
    out = capsys.readouterr().out
    frame, _ = sj.analyze_round(rec, 0, 2, "greedy", max_candidates=3)
    capped = frame[frame.candidates < frame.legal]
    assert len(capped) and all(f" {r.candidates} of {r.legal}" in out for r in capped.itertuples())
    assert "N of M: M legal plays, N played out" in out
    with pytest.raises(SystemExit):
        main(["analyze", "play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "at a lead every unit, then throws" in text and "at a follow N spread evenly" in text


def test_every_trick_the_command_line_names_counts_from_1(tmp_path, capsys):
    """The errors of analyze play and of a changed record's replay number the tricks as
    the command line takes them and shengji replay shows them: from 1."""
    rec = sj.play_round("v3", seed=3, bots="greedy")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(rec.to_dict()))
    n = len(rec.tricks)
    base = ["analyze", "play", str(path), "--worlds", "2", "--bots", "greedy"]
    err = refused([*base, "--trick", str(n + 1), "--seat", "0"], capsys)
    assert f"trick {n + 1} is not in the record: its round has {n} tricks, 1 to {n}" in err
    trick = n - 2  # counted from 1: the third trick from the end, a follow of seat 0 or not
    follower = rec.tricks[trick - 1].seats[1]
    err = refused([*base, "--trick", str(trick), "--seat", str(follower), "--exact"], capsys)
    assert f"seat {follower} follows here (trick {trick})" in err
    data = rec.to_dict()
    data["tricks"][7]["winner"] = (data["tricks"][7]["winner"] + 1) % 4
    path.write_text(json.dumps(data))
    assert "replay: trick 8, tricks[7].winner differs" in refused(["replay", str(path)], capsys)
    data = rec.to_dict()
    plays = data["tricks"][7]["plays"]
    plays[1], plays[2] = plays[2], plays[1]
    path.write_text(json.dumps(data))
    err = refused(["view", str(path), "-o", str(tmp_path / "page.html")], capsys)
    assert re.search(r"replay: trick 8(, seat \d, play refused|: )", err), err


def test_a_match_record_is_named_as_one_by_both_commands(tmp_path, capsys):
    path = tmp_path / "match.json"
    path.write_text(json.dumps(sj.play_match("bo3", seed=1, bots="random").to_dict()))
    for args in (["play", str(path), "--trick", "1", "--seat", "0"], ["play", str(path)]):
        err = refused(["analyze", *args], capsys)
        assert f"{path} is a match record: analyze play takes a round record" in err
    err = refused(["analyze", "round", str(path)], capsys)
    assert f"{path} is a match record: analyze round takes a round record" in err


def refused(args: list[str], capsys) -> str:
    """The one line of error a command line refused with (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    return capsys.readouterr().err


# -- forfeited records ------------------------------------------------------------------------

# A bot that gives the first legal answer to its first N decisions (N its argument), then
# crashes; with "declare" as its argument, it crashes at its first declaration instead.
CRASHES_LATER = """
import json, sys
for i, line in enumerate(sys.stdin):
    m = json.loads(line)
    if (m["decision"] == "declare") if sys.argv[1] == "declare" else i >= int(sys.argv[1]):
        sys.exit(3)
    hand = m["view"]["hand"]
    print(" ".join(hand.split()[:8]) if m["decision"] == "bury" else m["legal"][0], flush=True)
"""


@pytest.fixture(scope="module")
def forfeited(tmp_path_factory):
    """Round records forfeited by seat 0: in trick 3 after one play of it ("play"), and at
    a declaration of a first round ("declare")."""
    path = tmp_path_factory.mktemp("bots") / "crash.py"
    path.write_text(CRASHES_LATER)

    def bot(after):
        return sj.ExternalBot([sys.executable, str(path), after], legal=True, timeout=10)

    play = sj.play_round("v3", 1, [bot("3"), "greedy", "greedy", "greedy"])
    declare = sj.play_round(
        "v3", 0, [bot("declare"), "greedy", "greedy", "greedy"], first_round=True
    )
    assert (play.forfeit["decision"], len(play.tricks), play.forfeit["trick"]) == (
        "play",
        2,
        ["3H"],
    )
    assert declare.forfeit["decision"] == "declare" and not declare.tricks
    return {"play": play, "declare": declare}


def test_analyze_round_takes_a_forfeited_record_up_to_its_forfeit(forfeited):
    record = forfeited["play"]
    frame, data = sj.analyze_round(record, worlds=3, bots="greedy")
    # every play made: the two tricks and the play of the third before seat 0 forfeited
    assert len(frame) == 9 and list(frame.trick) == [0] * 4 + [1] * 4 + [2]
    assert frame.made.iloc[-1] == "3H" and data["forfeit"] == record.forfeit.copy()
    frame, _ = sj.analyze_round(forfeited["declare"].to_dict(), worlds=3, bots="greedy")
    assert frame.empty


def test_analyze_play_takes_the_plays_of_a_forfeited_record(forfeited):
    record = forfeited["play"]
    frame = sj.analyze_play(record, (2, record.tricks[1].winner), 3, "greedy")
    assert frame.loc[frame["made"], "play"].iloc[0] == "3H"
    with pytest.raises(sj.ShengjiError, match="seat 0 makes no play in trick 3: seat 0 forfeited"):
        sj.analyze_play(record, (2, 0), 3, "greedy")
    with pytest.raises(
        sj.ShengjiError, match="no play to analyse: seat 0 forfeited the round at its declare"
    ):
        sj.analyze_play(forfeited["declare"], (0, 0), 3, "greedy")


def test_the_command_line_shows_the_forfeit_of_a_record_it_analyses(forfeited, tmp_path, capsys):
    for name, shown in (
        ("play", "(the plays before it are analysed)"),
        ("declare", "No play to analyse"),
    ):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(forfeited[name].to_dict()))
        assert main(["replay", str(path)]) == 0
        assert main(["analyze", "round", str(path), "--worlds", "2", "--bots", "greedy"]) == 0
        out = capsys.readouterr().out
        assert "Seat 0 forfeited at its " in out and shown in out, out
