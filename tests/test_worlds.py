"""What a seat sees (View), its encodings, and worlds sampled from it: every world agrees with
what the seat knows, the real deal always does, and the sampler is uniform over the deals of
the physical cards (chi-square against exact enumeration)."""
import dataclasses
import itertools
import math
from collections import Counter

import numpy as np
import pytest

import shengji as sj
from shengji import _bots
from shengji import round as rd
from shengji._worlds import WorldSampler

PRESETS = ["v3", "match16", "bo3"]


def chi_square_limit(df, z=3.719):
    """The chi-square value exceeded with probability about 1e-4 (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def views_of_a_round(preset, seed, first_round):
    """(view, the real hands) at every decision of a random-bot round: the round is played by
    native random bots, then replayed through an engine whose seats all answer from Python,
    where each decision's view is taken."""
    rules = sj.Rules.preset(preset)
    rec = sj.play_round(rules, seed, "random", seed % 4, (2, 2), first_round)
    engine = _bots.Round(rules, seed, seed % 4, (2, 2), first_round, [(0, 0, 0, 0, 0)] * 4)
    shows = [e for e in rec.events if e["action"] in ("declare", "reinforce", "overturn",
                                                      "forced", "revolution")]
    buries = list(rec.buries)
    out = []
    while (pending := engine.advance()) is not None:
        what, seat = pending
        out.append((rd.view_of(engine, rules, (2, 2), what, seat),
                    [engine.hand(q) for q in range(4)]))
        assert rd.replay_answer(engine, rec, shows, buries, what, seat) == 0
    return out


def in_category(cards, letter, trump):
    return [c for c in cards if sj.category(c, trump) == letter]


@pytest.mark.parametrize("preset", PRESETS)
def test_worlds_agree_with_what_the_seat_knows(preset):
    seen = Counter()
    for seed in range(6):
        views = views_of_a_round(preset, seed, seed % 2 == 1)
        for i, (view, hands) in enumerate(views):
            if view.action == "play" and i % 3:
                continue
            groups, need, fixed = view.places()
            # the real deal is one of the worlds the seat considers possible
            for mask, cards in groups:
                for card in cards:
                    holders = [q for q in range(4) if q != view.seat and card in hands[q]]
                    assert any(mask >> q & 1 for q in holders) or mask >> rd.REST & 1, (
                        view.seat, card, mask, holders)
            assert [len(hands[q]) for q in range(4)] == list(view.sizes)
            worlds = view.sample_worlds(40, seed)
            played = sum(view.played(), sj.Cards())
            shown = view.shown_held()
            for i in range(len(worlds)):
                world, rest = worlds[i]
                assert world[view.seat] == view.hand
                assert [len(h) for h in world] == list(view.sizes)
                assert Counter(sum(world, sj.Cards()) + rest + played) == Counter(rd.FULL_DECK)
                if view.bottom is not None and view.buriers[-1] == view.seat:
                    assert rest == view.bottom
                for q in range(4):
                    for letter in view.voids[q]:
                        assert not in_category(world[q], letter, view.trump)
                    if q != view.seat and q not in view.buriers:
                        assert not (Counter(shown[q]) - Counter(world[q]))
            seen[view.action] += 1
            seen["voids"] += any(view.voids)
            seen["shown"] += any(view.shown_held()[q] for q in range(4) if q != view.seat)
    assert seen["play"] and seen["declare"] and seen["bury"] and seen["voids"] and seen["shown"]


def labelled_deals(cards, masks, need):
    """Every assignment of the physical cards (copies apart) to the places, by world."""
    worlds = Counter()
    for places in itertools.product(range(5), repeat=len(cards)):
        if any(not masks[i] >> p & 1 for i, p in enumerate(places)):
            continue
        if [places.count(p) for p in range(5)] != need:
            continue
        worlds[tuple(sj.Cards(sorted(c for c, p in zip(cards, places) if p == q))
                     for q in range(5))] += 1
    return worlds


@pytest.mark.parametrize("case", [
    # (cards with the places each may be in, what each place needs)
    ([("AS AS KH QD 3C", 0b10110)], [0, 2, 2, 0, 1]),
    ([("AS AS 3C 3C", 0b10100), ("KH QD 5D", 0b10110)], [0, 2, 3, 0, 2]),   # seat 1 void in S, C
    ([("KH", 0b00010), ("AS AS 7H 7H", 0b01110), ("2D 3D", 0b01100)], [0, 2, 2, 3, 0]),
    ([("SJ BJ BJ", 0b11010), ("4C 4C 6C", 0b10010), ("9S", 0b01000)], [0, 2, 0, 3, 2]),
])
def test_the_sampler_is_uniform_over_the_deals_of_the_physical_cards(case):
    groups, need = case
    cards, masks = [], []
    for text, mask in groups:
        for card in sj.Cards(text):
            cards.append(card)
            masks.append(mask)
    expected = labelled_deals(cards, masks, need)
    assert len(expected) > 3
    sampler = WorldSampler([(m, t) for t, m in groups], need, [""] * 5)
    assert sampler.deals == sum(expected.values())
    draws = 30 * len(expected) + 3000
    got = Counter(tuple(sj.Cards.from_masks(int(a), int(b)) for a, b in world)
                  for world in sampler.sample(draws, 11))
    assert set(got) <= set(expected)
    total = sum(expected.values())
    chi2 = sum((got[w] - draws * n / total) ** 2 / (draws * n / total)
               for w, n in expected.items())
    assert chi2 < chi_square_limit(len(expected) - 1), (chi2, len(expected))


def test_an_endgame_view_against_plain_enumeration():
    """Late in real rounds, the worlds of a view against every deal the seat cannot rule out
    by the plain rules: hand sizes, and no card of a category a seat once failed to follow."""
    checked = 0
    for seed in range(40):
        for view, _ in views_of_a_round("v3", seed, False):
            if view.action != "play" or sum(view.sizes) > 9 or view.sizes[view.seat] < 2:
                continue
            void = [set() for _ in range(4)]
            tricks = [(t["leader"], [sj.Cards(p) for p in t["plays"]]) for t in view.tricks]
            for leader, plays in tricks + [(view.leader, list(view.current))]:
                led = sj.category(next(iter(plays[0])), view.trump) if plays else None
                for k, play in enumerate(plays[1:], 1):
                    if any(sj.category(c, view.trump) != led for c in play):
                        void[(leader + k) % 4].add(led)
            # a card shown in a declaration and not played since is still held (or, for a
            # seat that has buried since, maybe in the bottom)
            played = Counter()
            for leader, plays in tricks + [(view.leader, list(view.current))]:
                for k, play in enumerate(plays):
                    played.update((leader + k) % 4 * 1000 + sj.Cards([c]).ones.bit_length()
                                  for c in play)
            shown = [Counter() for _ in range(4)]
            for e in view.shows:
                if e["deal"] == view.deal and e["action"] in ("declare", "overturn", "forced",
                                                              "reinforce"):
                    cards = e["cards"].split()[:1 if e["action"] == "reinforce" else None]
                    shown[e["seat"]].update(cards)
            unseen = list(view.unseen())
            others = [q for q in range(4) if q != view.seat]
            rest_known = view.bottom is not None and view.buriers[-1] == view.seat
            places = others + ([] if rest_known else [rd.REST])
            masks = [sum(1 << p for p in places
                         if p == rd.REST or sj.category(c, view.trump) not in void[p])
                     for c in unseen]
            for q in others:
                for card, n in shown[q].items():
                    n -= played[q * 1000 + sj.Cards([card]).ones.bit_length()]
                    for i, c in enumerate(unseen):
                        if n > 0 and c == card:
                            masks[i] &= (1 << q) | ((1 << rd.REST) if q in view.buriers else 0)
                            n -= 1
            need = [0 if q == view.seat else view.sizes[q] for q in range(4)] + [
                0 if rest_known else view.rest_size()]
            if len(unseen) > 10:
                continue
            expected = labelled_deals(unseen, masks, need)
            total = sum(expected.values())
            draws = 40 * len(expected) + 2000
            worlds = view.sample_worlds(draws, seed)
            got = Counter()
            for i in range(draws):
                hands, rest = worlds[i]
                got[tuple(sj.Cards() if q == view.seat else hands[q] for q in range(4))
                    + ((sj.Cards() if rest_known else rest),)] += 1
            assert set(got) <= set(expected)
            if len(expected) > 1:
                chi2 = sum((got[w] - draws * n / total) ** 2 / (draws * n / total)
                           for w, n in expected.items())
                assert chi2 < chi_square_limit(len(expected) - 1)
            checked += 1
            break
    assert checked >= 10


def test_impossible_constraints_and_bad_arguments_are_named():
    with pytest.raises(sj.ShengjiError, match="no deal of the unseen cards"):
        WorldSampler([(0b0010, "AS AS KH")], [0, 1, 2, 0, 0], [""] * 5)
    with pytest.raises(sj.ShengjiError, match="3 unseen cards for places holding 4"):
        WorldSampler([(0b0110, "AS AS KH")], [0, 2, 2, 0, 0], [""] * 5)
    # five groups of cards, each free between three or four places: millions of tables
    many = [(0b11110, "AS AS KS KS QS QS JS JS 10S 10S 9S 9S"),
            (0b01110, "AH AH KH KH QH QH JH JH 10H 10H 9H 9H"),
            (0b10110, "AC AC KC KC QC QC JC JC 10C 10C 9C 9C"),
            (0b11010, "AD AD KD KD QD QD JD JD 10D 10D 9D 9D"),
            (0b11100, "8S 8S 8H 8H 8C 8C 8D 8D 7S 7S 7H 7H")]
    with pytest.raises(sj.ShengjiError, match="too many constraints"):
        WorldSampler(many, [0, 15, 15, 15, 15], [""] * 5)
    view = next(v for v, _ in views_of_a_round("v3", 1, False)
                if v.action == "play" and len(v.tricks) == 10)
    with pytest.raises(ValueError, match=f"seat {view.seat}: k must be"):
        view.sample_worlds(-1)
    with pytest.raises(ValueError, match=f"seat {view.seat}: rng must be"):
        view.sample_worlds(3, "x")
    malformed = dataclasses.replace(view, sizes=(9, 9, 9, 9))
    with pytest.raises(sj.ShengjiError, match=f"seat {view.seat}: a malformed view"):
        malformed.sample_worlds(3)
    broken = dataclasses.replace(view, voids=("DCHST",) * 4)
    with pytest.raises(sj.ShengjiError, match=f"seat {view.seat}: no deal"):
        broken.sample_worlds(3)


def test_encodings():
    for view, hands in views_of_a_round("bo3", 2, False)[::7]:
        e = view.encode()
        assert (e["hand"] == np.array(view.hand.counts())).all()
        assert e["hand"].sum() == len(view.hand) == e["sizes"][0]
        assert (e["hand"] + e["played"].sum(axis=0) + e["unseen"]
                + (e["bottom"] if view.bottom is not None and view.buriers[-1] == view.seat
                   else 0) == 2).all()
        played = view.played()
        for i in range(4):
            q = (view.seat + i) % 4
            assert e["played"][i].sum() == len(played[q])
            assert e["voids"][i].tolist() == [c in view.voids[q] for c in "DCHST"]
        if view.trump is not None:
            trump_kinds = [k for k in range(54)
                           if sj.category(sj.kind_name(k), view.trump) == "T"]
            assert sorted(np.flatnonzero(e["category"] == 4)) == trump_kinds
        assert e["action"] == rd.ACTIONS.index(view.action)
        assert (e["bitboards"] == sj.to_masks([view.hand, view.unseen()]
                                              + [played[(view.seat + i) % 4]
                                                 for i in range(4)])).all()
