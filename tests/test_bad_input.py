"""Bad input gets a clear ValueError subclass naming the problem, on the core and the reference."""

import re

import numpy as np
import pytest

import shengji as sj

T = sj.Trump(7, "S")
HAND = "AH KH QH 3D 4D"


def test_mixed_lead(engine):
    with pytest.raises(sj.PlayError, match="mixes categories"):
        engine.is_legal_follow(HAND, "AH AD", "AH KH", T)
    with pytest.raises(sj.PlayError):
        engine.legal_follows(HAND, "AH 2S", T)
    with pytest.raises(sj.PlayError):
        engine.trick_winner(["AH AD", "KH QH"], T)
    with pytest.raises(sj.PlayError):
        engine.check_throw("AH AD", [HAND], T)


def test_empty_lead(engine):
    with pytest.raises(sj.PlayError, match="empty"):
        engine.is_legal_follow(HAND, "", "", T)


def test_oversized_hand(engine):
    big = " ".join(sj.kind_name(k) for k in range(26))
    with pytest.raises(sj.PlayError, match="25"):
        engine.is_legal_follow(big, "AH", "AH", T)
    with pytest.raises(sj.PlayError, match="25"):
        engine.check_throw("AH KH", [big], T)


def test_third_copy_across_hand_and_lead(engine):
    with pytest.raises(sj.PlayError, match="copies"):
        engine.is_legal_follow("AH AH KH", "AH", "KH", T)
    with pytest.raises(sj.PlayError, match="copies"):
        engine.trick_winner(["AH", "AH", "AH", "KH"], T)


def test_unequal_plays(engine):
    with pytest.raises(sj.PlayError, match="size"):
        engine.trick_winner(["AH", "KH QH"], T)


def test_unparsable_card(engine):
    with pytest.raises(sj.CardError, match="'ZZ'"):
        engine.is_legal_follow("AH ZZ", "KH", "AH", T)


@pytest.mark.parametrize(
    "play,words",
    [("AH KH", "wrong number"), ("9H", "not in (the )?hand"), ("3D", "must follow suit")],
)
def test_illegal_follows_name_the_rule(engine, play, words):
    assert not engine.is_legal_follow(HAND, "2H", play, T)
    assert re.search(words, engine.follow_error(HAND, "2H", play, T))


def test_follow_error_names_pairs_and_tractors(engine):
    assert "pairs" in engine.follow_error("AHAH KH 3H", "5H5H", "KH 3H", T)
    assert "tractor" in engine.follow_error("AHAH KHKH 3H 4H", "5H5H6H6H", "AHAH 3H 4H", T)


def test_batch_rejects_bad_rows():
    masks = sj.to_masks(["AH KH", "QH JH"])
    leads = sj.to_masks(["3H 4H", "3H 4D"])
    with pytest.raises(sj.PlayError, match="row 1.*mixes"):
        sj.batch_follow_codes(masks, leads, masks, T)
    with pytest.raises(sj.PlayError, match="row 0"):
        sj.batch_follow_codes(np.array([[2, 1]], dtype=np.uint64), masks[:1], masks[:1], T)
    with pytest.raises(sj.PlayError, match="shape"):
        sj.batch_follow_codes(masks, masks[:1], masks, T)
    with pytest.raises(sj.TrumpError):
        sj.batch_follow_codes(masks, masks, masks, np.array([130, 0]))


def test_rules_presets_and_settings():
    with pytest.raises(ValueError, match="v3, match16, bo3"):
        sj.Rules.preset("v4")
    with pytest.raises(ValueError, match="step"):
        sj.Rules.preset("v3").replace(step=30)
    with pytest.raises(ValueError, match="unknown Rules setting"):
        sj.Rules.preset("v3").replace(steps=20)
    with pytest.raises(ValueError, match="points"):
        sj.Rules.preset("v3").settle(-5)
    with pytest.raises(ValueError, match="points"):
        sj.Rules.preset("v3").settle(12)
    assert sj.Rules.preset("v3").replace(step=20).settle(60) == (True, 1)


def test_issue_14_small_ones():
    """NumPy integer seeds pass; None or a number as cards is a CardError; the env refuses the
    first round play_round refuses; a mean of one value has no interval."""
    import numpy as np

    from shengji.envs.aec import env
    from shengji.studies.stats import Sums

    assert sj.play_round(seed=np.int64(7)) == sj.play_round(seed=7)
    assert sj.simulate_rounds(3, seed=np.uint64(2)).equals(sj.simulate_rounds(3, seed=2))
    for bad in (None, 3, 2.5):
        with pytest.raises(sj.CardError, match="expected card"):
            sj.parse_cards(bad)
        with pytest.raises(sj.CardError, match="expected card"):
            sj.Cards(bad)
    with pytest.raises(ValueError, match="needs equal levels"):
        env().reset(seed=1, options={"first_round": True, "levels": (2, 5)})
    with pytest.raises(ValueError, match="max_rounds must be an integer from 1"):
        sj.play_match(max_rounds=-1)
    assert Sums.of([3.0]).interval(False) == (3.0, None, None)
    low, high = Sums.of([1.0]).interval(True)[1:]
    assert 0 < low < high == 1.0
