"""One play, and a whole round, analysed: each candidate's outcomes are the round played out by
hand through the public API in the same worlds, the worlds keep everything the seat knew and
deal the rest, the exact values are the solver's, the same seed gives the same table (on any
number of threads), the round's annotations fit the viewer, and bad input is one clear error
with nothing written."""

import json

import numpy as np
import pytest

import shengji as sj
from shengji.bots import resolve_bots
from shengji.cli import main
from shengji.core.cards import CATEGORIES
from shengji.play._table import Table
from shengji.play.replay import replay_to
from shengji.studies.plays import decision_seed, made_play, sample
from shengji.studies.stats import Sums

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
    hands = [
        sj.Cards.from_masks(int(world[q, 0]), int(world[q, 1])) + played[q] for q in range(4)
    ]
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


@pytest.mark.parametrize("bots", ["greedy", "expert"])
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
        assert frame.loc[frame["made"], "play"].iloc[0] == str(made_play(rec, trick, seat))
    assert checked >= 24  # of 2 decisions x 6 candidates x 6 worlds
