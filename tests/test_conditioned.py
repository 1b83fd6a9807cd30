"""Conditioned deals (shengji.core.deals): fixed cards go where they are fixed, the rest is dealt
uniformly, each seat's fixed cards land on uniform draws; accept filters; bad conditions
stop with one clear error. Fixed seeds: every test is deterministic."""

import json

import numpy as np
import pytest
from bots import GreedyPlayer, PassiveBot

import shengji as sj
from shengji.core.deals import place_counts

pd = pytest.importorskip("pandas")  # the study extra

BJ, SJ, AS = 53, 52, 51


def test_fixed_cards_go_to_their_seats_for_any_dealer():
    for dealer in range(4):
        decks = sj.decks(3, 0, 200, dealer, predeal={0: "BJ BJ", 2: "AS"}, bottom="SJ 3D")
        counts = place_counts(decks, dealer)
        assert (counts.sum(axis=2) == [25, 25, 25, 25, 8]).all()
        assert (counts[:, 0, BJ] == 2).all() and (counts[:, 2, AS] >= 1).all()
        assert (counts[:, 4, SJ] >= 1).all()
        hands, bottom = sj.deal(3, 7, dealer, predeal={0: "BJ BJ", 2: "AS"}, bottom="SJ 3D")
        assert "BJ BJ" in str(hands[0]) and "AS" in hands[2] and "SJ" in bottom


def test_the_rest_is_hypergeometric():
    """Seat 0 holds both big jokers: seat 2 holds both small ones with probability
    25 * 24 / (106 * 105), and one of them with 2 * 25 * 81 / (106 * 105)."""
    n = 100_000
    counts = place_counts(sj.decks(11, 0, n, 1, predeal={0: "BJ BJ"}), 1)
    held = np.bincount(counts[:, 2, SJ], minlength=3)
    p2, p1 = 25 * 24 / (106 * 105), 2 * 25 * 81 / (106 * 105)
    expected = n * np.array([1 - p1 - p2, p1, p2])
    assert ((held - expected) ** 2 / expected).sum() < 13.8  # 2 degrees of freedom, 0.1%
    # the bottom: 8 of the 106 free cards
    bottom = counts[:, 4, SJ].mean()
    assert abs(bottom - 2 * 8 / 106) < 4 * np.sqrt(2 * 8 / 106 / n)


def test_fixed_cards_land_on_uniform_draws():
    """Where among seat 1's 25 draws its fixed big joker lands (dealer 3: seat 1 draws
    third, at draws 4i + 2; the other copies go to seat 0): chi-square, 24 degrees of
    freedom, 0.1% value 51.2; and its two fixed cards in either order."""
    n = 50_000
    decks = sj.decks(12, 0, n, 3, predeal={1: "BJ 2D", 0: "BJ 2D"})
    seat = decks[:, 2:100:4]
    where = np.argmax(seat == BJ, axis=1)
    observed = np.bincount(where, minlength=25)
    expected = n / 25
    assert ((observed - expected) ** 2 / expected).sum() < 51.2
    before = (np.argmax(seat == 0, axis=1) < where).mean()  # 2D (kind 0) drawn first
    assert abs(before - 0.5) < 4 * 0.5 / np.sqrt(n)


def test_a_deal_depends_on_seed_index_and_condition_alone():
    cond = {"predeal": {3: "SJ SJ 10H"}, "accept": lambda c: c[:, 0, 39:52].sum(axis=1) >= 8}
    many = sj.decks(5, 0, 40, 2, **cond)
    assert (sj.decks(5, 17, 1, 2, **cond)[0] == many[17]).all()
    assert (sj.decks(5, 30, 10, 2, **cond) == many[30:]).all()
    assert len({d.tobytes() for d in many}) == 40
    # a condition that takes everything deals the plain decks
    assert (sj.decks(5, 3, 9, accept=lambda c: np.ones(len(c), bool)) == sj.decks(5, 3, 9)).all()


def test_accept_filters_on_the_counts():
    spades = slice(39, 52)  # suit S: kinds 39 .. 51
    decks = sj.decks(8, 0, 500, 0, accept=lambda c: c[:, 0, spades].sum(axis=1) >= 8)
    assert (place_counts(decks, 0)[:, 0, spades].sum(axis=1) >= 8).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"predeal": {0: "BJ BJ", 1: "BJ"}}, "BJ is fixed 3 times"),
        ({"predeal": {0: "BJ"}, "bottom": "BJ BJ"}, "BJ is fixed 3 times"),
        (
            {"predeal": {0: " ".join(f"{r}D {r}D" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split())}},
            "seat 0 holds 25 cards, 26",
        ),
        ({"bottom": "2D 2D 3D 3D 4D 4D 5D 5D 6D"}, "the bottom holds 8 cards, 9"),
        ({"predeal": {4: "BJ"}}, "predeal seat must be an integer from 0 to 3"),
        ({"predeal": {0: "XX"}}, "predeal seat 0"),
        ({"predeal": "0=BJ"}, "predeal must be a dict"),
        ({"accept": 3}, "accept must be a function"),
        ({"accept": lambda c: np.zeros(len(c), bool)}, "accept took none of the first"),
        ({"accept": lambda c: True}, "one bool per deal"),
    ],
)
def test_impossible_conditions_stop_with_one_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sj.decks(0, 0, 3, **kwargs)


def test_simulate_deals_the_given_first_deals():
    from shengji.play.rounds import first_deals, simulate

    seeds, plain = first_deals(4, 10, 300)
    specs, v3 = sj.bots.resolve_bots("greedy")[0], sj.Rules.preset("v3")
    given, shuffled = (simulate(v3, 4, 10, 300, specs, 1, decks=decks) for decks in (plain, None))
    assert all((given[k] == shuffled[k]).all() for k in given)
    with pytest.raises(ValueError, match="the whole pack"):
        simulate(v3, 4, 10, 300, specs, decks=np.zeros((300, 108), np.int8))


def test_conditioned_rounds():
    """Seat 0 holds every level card and joker: nobody else can declare. Round i is dealt
    sj.deal(row.seed, 0, dealer, ...)."""
    predeal = {0: "BJ BJ SJ SJ 2S 2S 2H 2H 2C 2C 2D 2D"}
    frame = sj.simulate_rounds(
        300, "v3", "greedy:call=eager", seed=2, dealer=3, predeal=predeal, workers=2
    )
    assert set(frame["declarer"].dropna()) == {0} and frame.attrs["acceptance_rate"] == 1
    hands, _ = sj.deal(int(frame["seed"][7]), 0, 3, predeal=predeal)
    assert sj.Cards(predeal[0]) in hands[0]
    from shengji.core.deals import condition, round_decks

    spades = lambda c: c[:, 2, 39:52].sum(axis=1) >= 9  # noqa: E731
    frame = sj.simulate_rounds(400, "v3", "greedy", seed=2, accept=spades)
    decks, attempts = round_decks(condition(accept=spades), 2, range(400), 0)
    assert frame.attrs["acceptance_rate"] == 400 / attempts.sum() < 0.2
    assert (sj.decks(int(frame["seed"][5]), 0, 1, 0, accept=spades) == decks[5]).all()


HEARTS = lambda c: c[:, 1, 26:39].sum(axis=1) >= 7  # noqa: E731  seat 1: 7 hearts or more


@pytest.mark.parametrize(
    "cond", [{"predeal": {0: "BJ BJ 2S", 2: "SJ"}, "bottom": "5H"}, {"accept": HEARTS}]
)
def test_python_and_search_bots_play_conditioned_rounds_as_native_ones(cond):
    """GreedyPlayer plays greedy's plays from Python, round by round: the same frame as the
    native greedy bots', which differs from the unconditioned one."""
    native = sj.simulate_rounds(40, bots="greedy", seed=3, dealer=2, **cond)
    python = sj.simulate_rounds(40, bots=["greedy", GreedyPlayer()] * 2, seed=3, dealer=2, **cond)
    pd.testing.assert_frame_equal(native, python)
    assert native.attrs == python.attrs and (native.attrs["acceptance_rate"] < 1) == (
        "accept" in cond
    )
    plain = sj.simulate_rounds(40, bots="greedy", seed=3, dealer=2)
    assert (plain["defender_points"] != native["defender_points"]).any()
    duel = sj.duel("greedy", "random", deals=20, seed=5, **cond).frame
    pd.testing.assert_frame_equal(
        duel, sj.duel(GreedyPlayer(), "random", deals=20, seed=5, **cond).frame
    )


def test_conditioned_rounds_with_passive_and_pimc_bots():
    """Seat 0 holds every level card and joker: only it can declare, whoever plays."""
    predeal = {0: "BJ BJ SJ SJ 2S 2S 2H 2H 2C 2C 2D 2D"}
    frame = sj.simulate_rounds(
        3, bots=[sj.Pimc(rollouts=4), PassiveBot(), "greedy", PassiveBot()], seed=1, predeal=predeal
    )
    assert set(frame["declarer"]) == {0}


def test_a_conditioned_row_replays_and_its_record_too():
    """play_round(seed=row.seed, condition) is the row's round; its record names the condition
    and the attempt taken, so that replay deals it again without accept; a record whose deal
    or condition was changed stops at the first deal."""
    from shengji.testing import check_record

    predeal, spades = {3: "AS AS"}, lambda c: c[:, 3, 39:52].sum(axis=1) >= 9
    frame = sj.simulate_rounds(
        30, bots="random", seed=6, dealer=1, first_round=True, predeal=predeal, accept=spades
    )
    for i in (0, 29):
        row = frame.iloc[i]
        rec = sj.play_round(
            seed=int(row.seed),
            bots="random",
            dealer=1,
            first_round=True,
            predeal=predeal,
            accept=spades,
        )
        assert (
            row.dealer,
            None if pd.isna(row.declarer) else row.declarer,
            row.trump_suit,
            row.defender_points,
            row.rise,
            row.deals,
        ) == (
            rec.dealer,
            rec.declarer,
            rec.trump.suit or "NT",
            rec.defender_points,
            rec.settlement.rise,
            len(rec.deals),
        )
        d = json.loads(json.dumps(rec.to_dict()))
        assert d["condition"]["predeal"] == {"3": "AS AS"} and d["condition"]["attempt"] >= 0
        assert sj.replay(d) == rec
        check_record(d)
    assert d["condition"]["attempt"] > 0  # accept skipped attempts: replay re-deals them
    deck = sj.decks(int(row.seed), 0, 1, 1, predeal=predeal, accept=spades)[0]
    assert d["deals"][0] == " ".join(sj.kind_name(int(k)) for k in deck)
    swapped = d["deals"][0].split()
    swapped[0], swapped[1] = swapped[1], swapped[0]
    for change, message in [
        ({"deals": [" ".join(swapped)] + d["deals"][1:]}, "under the record's condition"),
        ({"condition": {**d["condition"], "attempt": 0}}, "under the record's condition"),
        ({"condition": None}, "the first deal differs"),
        ({"condition": {**d["condition"], "bottom": "AS"}}, "AS is fixed 3 times"),
        ({"condition": {**d["condition"], "predeal": {"4": "AS"}}}, "not a seat"),
    ]:
        with pytest.raises(sj.ShengjiError, match=message):
            sj.replay({**d, **change})
    # a plain record holds no condition and replays as before
    assert sj.play_round(seed=4).condition is None


def test_conditioned_duels(tmp_path):
    """Both seatings meet the same conditioned deal (identical bots score 0); deal i's seat
    i % 4 draws first; the condition is in the manifest; accept's attempts are reported."""
    predeal = {1: "BJ BJ SJ SJ 2S 2S 2H 2H 2C 2C 2D 2D"}
    duel = sj.duel(
        "greedy:call=eager",
        "greedy:call=eager",
        deals=200,
        seed=4,
        workers=1,
        predeal=predeal,
        out=tmp_path,
    )
    frame = duel.frame
    assert (frame["score"] == 0).all() and set(frame["declarer__seating1"].dropna()) == {1}
    assert duel.summary["options"]["predeal"] == {"1": str(sj.Cards(predeal[1]))}
    hands, _ = sj.deal(int(frame["seed"][6]), 0, 6 % 4, predeal=predeal)
    assert sj.Cards(predeal[1]) in hands[1]
    hearts = lambda c: c[:, 0, 26:39].sum(axis=1) >= 8  # noqa: E731
    duel = sj.duel("greedy:call=eager", "random", deals=300, seed=4, workers=2, accept=hearts)
    attempts = duel.frame["attempts"]
    assert (attempts >= 1).all() and duel.summary["metrics"][1]["name"] == "attempts_mean"
    deck = sj.decks(int(duel.frame["seed"][9]), 0, 1, 9 % 4, accept=hearts)
    assert hearts(place_counts(deck, 9 % 4)).all()
    with pytest.raises(ValueError, match="without out"):
        sj.duel("greedy", "random", deals=10, accept=hearts, out=tmp_path / "x")
    with pytest.raises(ValueError, match="a duel of matches"):
        sj.duel("greedy", "random", matches=2, bottom="AS")
    with pytest.raises(ValueError, match="BJ is fixed 3 times"):
        sj.duel("greedy", "random", deals=10, predeal={0: "BJ BJ"}, bottom="BJ")


@pytest.mark.slow
def test_conditioned_studies_and_command_line(tmp_path, capsys):
    from shengji.cli import main
    from shengji.studies import study as st

    summary = st.run_study(
        "trump-calling",
        deals=400,
        workers=1,
        out=tmp_path / "a",
        predeal={0: "BJ BJ"},
        bottom="5H",
        play_every=4,
    )
    metric = {(m["name"], m["group"]): m["value"] for m in summary["metrics"]}
    assert metric["hand_has_joker_pair", "all"] == 1 and summary["options"]["bottom"] == "5H"
    assert (
        main(
            [
                "study",
                "burying",
                "--deals",
                "60",
                "--workers",
                "1",
                "--out",
                str(tmp_path / "b"),
                "--predeal",
                "0=BJ BJ;2=SJ",
                "--predeal",
                "0=2S",
                "--strategies",
                "low,voids",
            ]
        )
        == 0
    )
    assert st.run_study(
        "burying",
        deals=60,
        workers=1,
        out=tmp_path / "b",
        strategies=["low", "voids"],
        predeal={0: "BJ BJ 2S", 2: "SJ"},
        resume=True,
    )["options"]["predeal"] == {"0": "BJ BJ 2S", "2": "SJ"}
    for bad, message in (
        (["--predeal", "5=BJ"], "a seat 0..3"),
        (["--predeal", "0=BJ BJ", "--bottom", "BJ"], "BJ is fixed 3 times"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(
                [
                    "duel",
                    "--a",
                    "greedy",
                    "--b",
                    "random",
                    "--deals",
                    "10",
                    "--out",
                    str(tmp_path / "c"),
                    *bad,
                ]
            )
        assert stop.value.code == 2 and message in capsys.readouterr().err


def hand_columns(hand, level):
    """A hand's feature columns, counted plainly from its card texts."""
    texts = str(hand).split()
    suited = [t for t in texts if t not in ("SJ", "BJ")]
    return {
        **{s: sum(t[-1] == s for t in suited) for s in "DCHS"},
        "level": sum(t[:-1] == level for t in suited),
        "jokers": len(texts) - len(suited),
        "points": sj.points(hand),
    }


def test_deals_parquet_holds_each_seats_hand(tmp_path):
    from shengji.studies import study as st

    duel = sj.duel(
        "greedy", "random", deals=30, seed=9, levels=(5, 2), workers=1, predeal={2: "5H 5H"}
    )
    st.run_study("burying", deals=20, workers=1, out=tmp_path, strategies=["low"])
    burying = pd.read_parquet(tmp_path / "deals.parquet")
    for frame, i, dealer, level in (
        (duel.frame, 13, 1, "2"),
        (duel.frame, 14, 2, "5"),
        (burying, 7, 0, "2"),
    ):
        hands, _ = sj.deal(
            int(frame["seed"][i]), 0, dealer, predeal={2: "5H 5H"} if frame is duel.frame else None
        )
        for seat in range(4):
            assert {
                k: frame[f"hand_{k}__seat{seat}"][i] for k in hand_columns(hands[seat], level)
            } == hand_columns(hands[seat], level)


def test_a_conditioned_chunk_is_the_same_wherever_it_is_cut():
    from shengji.studies import study as st
    from shengji.studies.duels import duel_chunk

    v3, predeal = sj.Rules.preset("v3"), {"1": "SJ SJ", "3": "AH"}
    hearts = lambda c: c[:, 2, 26:39].sum(axis=1) >= 7  # noqa: E731
    for chunk, extra in (
        (st.calling_chunk, {"play_every": 3}),
        (st.burying_chunk, {}),
        (duel_chunk, {"accept": hearts}),
    ):
        strategies = (
            ("greedy", "random")
            if chunk is duel_chunk
            else ("low", "voids")
            if chunk is st.burying_chunk
            else ("eager", "never")
        )
        whole = chunk(v3, 6, 0, 60, strategies, predeal=predeal, bottom="5D", **extra)[2]
        part = chunk(v3, 6, 33, 27, strategies, predeal=predeal, bottom="5D", **extra)[2]
        assert whole.keys() == part.keys()
        for name in whole:
            assert (np.asarray(whole[name])[33:] == np.asarray(part[name])).all(), name


def test_simulate_on_the_command_line_takes_a_condition(capsys):
    from shengji.cli import main

    assert main(["simulate", "--rounds", "200", "--predeal", "0=BJ BJ", "--bottom", "KH"]) == 0
    assert "200 rounds, seat 0 holds BJ BJ, bottom KH" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["simulate", "--matches", "2", "--bottom", "AS"])
    assert "matches take none" in capsys.readouterr().err
