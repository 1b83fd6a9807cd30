"""Deals conditioned on card counts, dealt directly (sj.require): the exact share of the deals
that meet them against plain counting, every deal meeting them, the distribution against the
hypergeometric values and against the same condition filtered by rejection, records that
replay, and one clear error for every bad condition."""

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from golden.require_decks import CONDITIONS, FILE, digests

import shengji as sj
from shengji.cli import main
from shengji.core.deals import condition, conditioned_decks, place_counts
from shengji.core.require import compositions, count_compositions, group_weights, plan
from shengji.errors import DealError, ShengjiError
from tests.test_worlds import chi_square_limit

SPADES = slice(39, 52)


def direct(req, n, seed=7, dealer=0, predeal=None, bottom=None, start=0):
    """n deals of `req` (deals start.. of `seed`) and their per-place counts."""
    cond = condition(predeal, bottom, req)
    decks, attempts = conditioned_decks(
        cond, np.full(n, seed, np.uint64), np.arange(start, start + n), dealer
    )
    assert (attempts == 1).all()
    return decks, place_counts(decks, np.full(n, dealer, np.int8))


def chi_square(observed, expected):
    return float(((observed - expected) ** 2 / expected).sum())


def test_the_share_of_deals_is_the_hypergeometric_tail():
    spades = sum(math.comb(26, k) * math.comb(82, 25 - k) for k in range(8, 26))
    assert sj.require("0: spades >= 8").probability() == pytest.approx(
        spades / math.comb(108, 25), rel=1e-15
    )
    # the bottom's points by plain counting: a fives, b tens and kings, the rest none
    points = sum(
        math.comb(8, a) * math.comb(16, b) * math.comb(84, 8 - a - b)
        for a in range(9)
        for b in range(9 - a)
        if 5 * a + 10 * b >= 20
    )
    assert sj.require("bottom: points >= 20").probability() == pytest.approx(
        points / math.comb(108, 8), rel=1e-15
    )
    exactly = math.comb(4, 4) * math.comb(104, 21) / math.comb(108, 25)
    assert sj.require("2: jokers == 4").probability() == pytest.approx(exactly, rel=1e-15)


def test_fixed_cards_count_toward_the_clauses():
    # seat 0 holds both big jokers: it needs one more joker of the two small ones
    one_more = 1 - math.comb(2, 0) * math.comb(104, 23) / math.comb(106, 23)
    share = sj.require("0: jokers >= 3").probability(condition({0: "BJ BJ"}).fixed)
    assert share == pytest.approx(one_more, rel=1e-15)


@pytest.mark.parametrize("dealer", range(4))
def test_every_deal_meets_its_clauses_and_is_a_whole_pack(dealer):
    req = sj.require("1: spades >= 9", "1: points <= 15", "1: A <= 1")
    decks, counts = direct(req, 3000, dealer=dealer, predeal={1: "AS 5S"}, bottom="KH")
    assert req(counts).all()
    assert (np.sort(decks, axis=1) == np.repeat(np.arange(54), 2)).all()
    assert (counts[:, 1, sj.cards.kind_of("S", 14)] >= 1).all() and (
        counts[:, 4, sj.cards.kind_of("H", 13)] >= 1
    ).all()


def test_clauses_at_several_places_that_split_few_ways():
    req = sj.require("0: spades >= 8", "1: spades >= 8", "2: spades >= 8")
    # 26 spades, at least 8 to each of three seats: 8-8-8 with two left anywhere, or 8-8-9, ...
    _, counts = direct(req, 2000)
    assert req(counts).all()
    assert 0 < req.probability() < 1e-3


def test_a_deal_depends_on_its_seed_and_index_alone():
    req = sj.require("0: hearts >= 10")
    whole, _ = direct(req, 50)
    part, _ = direct(req, 20, start=30)
    assert (whole[30:] == part).all()
    assert not (direct(req, 50, seed=8)[0] == whole).all()


def test_the_count_follows_the_truncated_hypergeometric():
    n = 40_000
    _, counts = direct(sj.require("0: spades >= 8"), n)
    held = counts[:, 0, SPADES].sum(axis=1)
    pmf = np.array([math.comb(26, k) * math.comb(82, 25 - k) for k in range(8, 26)], float)
    expected = n * pmf / pmf.sum()
    observed = np.bincount(held, minlength=26)[8:26].astype(float)
    keep = expected >= 5  # the far tail merged into its last bin
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    assert chi_square(observed, expected) < chi_square_limit(len(expected) - 1)


def test_which_cards_meet_the_clause_is_uniform():
    n = 20_000
    _, counts = direct(sj.require("0: spades >= 10"), n)
    per_kind = counts[:, 0, SPADES].sum(axis=0).astype(float)
    assert chi_square(per_kind, np.full(13, per_kind.mean())) < chi_square_limit(12)
    # and where the seat's cards are drawn: each of its 25 draws holds a spade alike
    decks, _ = direct(sj.require("0: spades >= 10"), n, dealer=0)
    spade_at = ((decks[:, 0:100:4] >= 39) & (decks[:, 0:100:4] < 52)).sum(axis=0).astype(float)
    assert chi_square(spade_at, np.full(25, spade_at.mean())) < chi_square_limit(24)


def test_dealt_directly_as_drawn_and_refused():
    """The same condition, dealt directly and filtered by rejection: the same distribution of
    what it does not name (seat 1's spades, the bottom's points)."""
    req = sj.require("0: hearts >= 9")
    n = 6000
    _, fast = direct(req, n)
    slow_cond = condition(None, None, lambda counts: req(counts))
    slow_decks, _ = conditioned_decks(slow_cond, np.full(n, 99, np.uint64), np.arange(n), 0)
    slow = place_counts(slow_decks, np.zeros(n, np.int8))
    for stat in (
        lambda c: np.minimum(c[:, 1, SPADES].sum(axis=1), 10),
        lambda c: np.minimum(c[:, 0, 26:39].sum(axis=1), 12),
    ):
        a, b = np.bincount(stat(fast), minlength=13), np.bincount(stat(slow), minlength=13)
        both = (a + b) >= 10
        a, b = a[both].astype(float), b[both].astype(float)
        # two samples of equal size: sum (a - b)^2 / (a + b) is chi-square with bins - 1
        assert float(((a - b) ** 2 / (a + b)).sum()) < chi_square_limit(len(a) - 1)


@pytest.mark.parametrize("row", range(len(CONDITIONS)))
def test_the_deals_are_those_the_table_listing_dealt(row):
    """Descending the count DAG with the draw that picked a table from the listing of every
    table picks the same table (tests/golden/require_decks.py): the same decks."""
    clauses, predeal, bottom = CONDITIONS[row]
    assert digests(clauses, predeal, bottom) == json.loads(FILE.read_text())[row]["digests"]


POINTS = np.array(group_weights("points"))
# the cards "0: spades >= 8" with "bottom: points >= 40" tells apart: (copies, spade, points)
SPADE_POINT_GROUPS = ((2, 1, 5), (4, 1, 10), (6, 0, 5), (12, 0, 10), (20, 1, 0), (64, 0, 0))


def spades_and_bottom_points(spades_at_least, points_at_least):
    """{(seat 0's spades, the bottom's points): deals} over the deals that meet both, counted
    bottom first (a multivariate hypergeometric over the groups of SPADE_POINT_GROUPS), then
    seat 0 from the 100 cards left (a hypergeometric in the spades left): another order
    than the count DAG's, and no clipping."""
    out: dict[tuple[int, int], int] = {}
    for taken in itertools.product(*(range(min(n, 8) + 1) for n, _, _ in SPADE_POINT_GROUPS)):
        if sum(taken) != 8:
            continue
        points = sum(t * p for t, (_, _, p) in zip(taken, SPADE_POINT_GROUPS))
        if points < points_at_least:
            continue
        bottom = math.prod(math.comb(n, t) for t, (n, _, _) in zip(taken, SPADE_POINT_GROUPS))
        spades_left = 26 - sum(t for t, (_, s, _) in zip(taken, SPADE_POINT_GROUPS) if s)
        for k in range(spades_at_least, 26):
            seat = math.comb(spades_left, k) * math.comb(100 - spades_left, 25 - k)
            out[k, points] = out.get((k, points), 0) + bottom * seat
    return out


def test_two_places_counting_different_groups_are_dealt_exactly():
    """Seat 0's spades with the bottom's points: refused while the tables were listed (tens of
    millions of them), the share is exact and the counts dealt follow the exact law."""
    req = sj.require("0: spades >= 8", "bottom: points >= 40")
    law = spades_and_bottom_points(8, 40)
    assert plan(req, ((),) * 5).probability == Fraction(
        sum(law.values()), math.comb(108, 8) * math.comb(100, 25)
    )
    n = 30_000
    _, counts = direct(req, n, dealer=3)
    assert req(counts).all()
    held = counts[:, 0, SPADES].sum(axis=1)
    points = counts[:, 4, :].astype(np.int64) @ POINTS
    cells = sorted(law)
    total = sum(law.values())
    expected = np.array([n * law[c] / total for c in cells])
    seen = dict(zip(*np.unique(held * 1000 + points, return_counts=True)))
    observed = np.array([seen.get(k * 1000 + p, 0) for k, p in cells], float)
    assert observed.sum() == n
    keep = expected >= 5  # the rare cells merged into one
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(expected[keep], expected[~keep].sum())
    assert chi_square(observed, expected) < chi_square_limit(len(expected) - 1)


def test_two_places_dealt_directly_as_drawn_and_refused():
    """A two-place condition common enough to filter (1 deal in 13): dealt directly and by
    rejection, the same law of its count table (how the counted groups fall into seat 0,
    the bottom and the rest) and of what it does not name."""
    req = sj.require("0: spades >= 7", "bottom: points >= 25")
    n = 8000
    _, fast = direct(req, n, seed=3)
    slow_cond = condition(None, None, lambda counts: req(counts))
    slow_decks, _ = conditioned_decks(slow_cond, np.full(n, 98, np.uint64), np.arange(n), 0)
    slow = place_counts(slow_decks, np.zeros(n, np.int8))
    assert req(slow).all()
    spade_points = np.array(group_weights("spades")) * POINTS
    for stat in (
        lambda c: np.minimum(c[:, 0, SPADES].sum(axis=1), 12),
        lambda c: np.minimum(c[:, 4, :].astype(np.int64) @ POINTS // 5, 12),
        lambda c: np.minimum(c[:, 0, :].astype(np.int64) @ POINTS // 10, 12),  # seat 0's points
        lambda c: np.minimum(c[:, 4, SPADES].sum(axis=1), 4),
        lambda c: np.minimum(c[:, 0, :].astype(np.int64) @ spade_points // 5, 8),
        lambda c: np.minimum(c[:, 2, SPADES].sum(axis=1), 10),  # an unnamed seat
    ):
        a, b = np.bincount(stat(fast), minlength=13), np.bincount(stat(slow), minlength=13)
        both = (a + b) >= 10
        a, b = a[both].astype(float), b[both].astype(float)
        assert float(((a - b) ** 2 / (a + b)).sum()) < chi_square_limit(len(a) - 1)


def test_a_clause_the_fixed_cards_decide_is_met_or_never():
    """No free card counts toward "0: BJ == 2" once seat 0 holds both big jokers: it holds
    for every deal that keeps them, and with it the bottom's points follow the
    hypergeometric over the 106 cards left."""
    fixed = condition({0: "BJ BJ"}).fixed
    assert sj.require("0: BJ == 2").probability(fixed) == 1
    rich = sum(
        math.comb(8, a) * math.comb(16, b) * math.comb(82, 8 - a - b)
        for a in range(9)
        for b in range(9 - a)
        if 5 * a + 10 * b >= 40
    )
    assert plan(sj.require("0: BJ == 2", "bottom: points >= 40"), fixed).probability == Fraction(
        rich, math.comb(106, 8)
    )
    with pytest.raises(DealError, match="no deal meets 1: BJ >= 1 with the cards fixed"):
        sj.deal(0, predeal={0: "BJ BJ"}, accept=sj.require("1: BJ >= 1"))


def test_a_round_dealt_directly_replays_from_its_record():
    req = sj.require("bottom: points >= 40")
    rec = sj.play_round(seed=11, bots="greedy", dealer=2, accept=req)
    assert rec.condition == {
        "predeal": {},
        "bottom": None,
        "attempt": 0,
        "require": ["bottom: points >= 40"],
    }
    assert sj.replay(rec) == rec
    again = sj.RoundRecord.from_dict(json.loads(json.dumps(rec.to_dict())))
    assert again == rec
    data = rec.to_dict()
    data["condition"]["require"] = ["bottom: pointz >= 40"]
    with pytest.raises(ShengjiError, match="condition.require: unknown group 'POINTZ'"):
        sj.RoundRecord.from_dict(data)


def test_simulate_reports_the_exact_share():
    req = sj.require("0: spades >= 8")
    frame = sj.simulate_rounds(500, bots="greedy", seed=1, accept=req)
    assert frame.attrs["acceptance_rate"] == req.probability()


@pytest.mark.parametrize("caps", [(12,), (3, 5), (25, 25, 8), (0, 4, 1, 8), (6, 7, 5, 8)])
def test_the_rows_counted_before_a_level_are_the_rows_it_weighs(caps):
    for total in range(sum(caps) + 2):
        assert count_compositions(total, caps) == len(list(compositions(total, caps)))


@pytest.mark.parametrize(
    "clauses, words",
    [
        (["0: spadez >= 8"], "unknown group 'SPADEZ'"),
        (["4: spades >= 8"], "the place is a seat 0..3 or bottom"),
        (["0 spades >= 8"], "cannot read the count condition"),
        (["0: spades => 8"], "cannot read the count condition"),
        ([8], "a count condition is text"),
        (["0: jokers >= 5"], "no deal meets 0: jokers >= 5"),
        (["bottom: points > 200"], "no deal meets bottom: points >= 201"),
        (["0: spades < 0"], "holds for no deal"),
        ([], "at least one clause"),
        pytest.param(  # counting the ways takes seconds
            ["0: spades >= 8", "1: hearts >= 8", "bottom: points >= 40"],
            "too many ways to deal directly",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_bad_condition_is_one_error_naming_it(clauses, words):
    with pytest.raises(DealError, match=words):
        sj.require(*clauses)


def test_a_clause_that_fixed_cards_break_is_refused():
    with pytest.raises(DealError, match="no deal meets 0: BJ == 0 with the cards fixed"):
        sj.deal(0, predeal={0: "BJ"}, accept=sj.require("0: BJ == 0"))


@pytest.mark.slow
def test_the_command_line_names_the_condition_in_the_manifest(tmp_path, capsys):
    out = tmp_path / "d"
    assert (
        main(
            [
                "duel",
                "--a",
                "greedy",
                "--b",
                "random",
                "--deals",
                "200",
                "--workers",
                "1",
                "--out",
                str(out),
                "--require",
                "bottom: points >= 40",
            ]
        )
        == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["require"] == ["bottom: points >= 40"]
    shown = capsys.readouterr().out
    share = sj.require("bottom: points >= 40").probability()
    assert f"deals meeting bottom: points >= 40: {share:.4g} of all deals" in shown
