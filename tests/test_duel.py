"""Duplicate duels: identical bots score exactly 0, a row replays as the two rounds it says
(same cards to the same seats), the numbers do not depend on workers or chunks, a folder is
continued without recomputing, bad input is one clear error (one line on the command line),
and the studies' head-to-head columns are duels."""

import dataclasses
import json
import subprocess
import sys

import numpy as np
import pytest
from bots import PassiveBot

import shengji as sj
from shengji.cli import main
from shengji.errors import StudyError
from shengji.studies import duels, report
from shengji.studies import study as st
from shengji.studies.duels import duel_chunk
from shengji.studies.stats import Z95

pd = pytest.importorskip("pandas")  # the study extra


@pytest.mark.parametrize(
    "rules,a,b,first_round",
    [
        ("v3", "greedy", "greedy", False),
        ("v3", "greedy", "greedy", True),
        ("match16", "random", "random", False),  # revolutions and all: the round's draws
        ("bo3", "random", "random", True),
        ("v3", sj.Greedy(call="eager", bury="voids"), "greedy:call=eager,bury=voids", False),
    ],
)
def test_identical_bots_score_exactly_zero(rules, a, b, first_round):
    frame = sj.duel(a, b, deals=1500, rules=rules, seed=3, first_round=first_round, workers=1).frame
    assert len(frame) == 1500 and (frame["score"] == 0).all()
    # and the same two rounds: every column of round 1 is round 2's
    for col in ("dealer", "declarer", "trump_suit", "defender_points", "dealer_holds", "rise"):
        pd.testing.assert_series_equal(
            frame[f"{col}__seating1"], frame[f"{col}__seating2"], check_names=False
        )


@pytest.mark.slow  # a few seconds; the quick loop keeps a lighter test of the same
def test_identical_search_and_python_bots_score_zero(tmp_path):
    pimc = sj.Pimc(rollouts=8)
    frame = sj.duel(pimc, "pimc:rollouts=8", deals=12, workers=1, out=tmp_path).frame
    assert (frame["score"] == 0).all()
    # bots that play in Python: small chunks, so that a few deals spread over the workers
    assert json.loads((tmp_path / "manifest.json").read_text())["chunk"] == 10
    assert len(list((tmp_path / "chunks").glob("*.json"))) == 2
    assert (sj.duel(PassiveBot(), PassiveBot(), deals=20).frame["score"] == 0).all()


def test_swapping_the_bots_negates_every_score():
    ab = sj.duel("greedy:call=eager", "random", deals=800, seed=2, workers=1).frame
    ba = sj.duel("random", "greedy:call=eager", deals=800, seed=2, workers=1).frame
    assert (ab["score"] == -ba["score"]).all() and ab["score"].abs().sum() > 0


def test_a_row_is_its_two_rounds_with_the_same_cards_at_the_same_seats():
    """The duplicate property: deal i's rounds are round_seed(seed, i), seat i % 4 drawing
    first, A at seats 0 and 2 and then at 1 and 3; the draw is the same in both."""
    a, b = sj.Greedy(call="eager"), "random"
    frame = sj.duel(a, b, deals=40, rules="bo3", seed=11, workers=1).frame
    for row in frame.itertuples():
        assert row.seed == sj.round_seed(11, row.deal)
        one = sj.play_round("bo3", seed=int(row.seed), bots=[a, b, a, b], dealer=row.deal % 4)
        two = sj.play_round("bo3", seed=int(row.seed), bots=[b, a, b, a], dealer=row.deal % 4)
        assert one.deals[0] == two.deals[0] and one.first_drawer == two.first_drawer
        for r, rec in ((1, one), (2, two)):
            assert getattr(row, f"dealer__seating{r}") == rec.dealer
            assert getattr(row, f"defender_points__seating{r}") == rec.defender_points
            assert getattr(row, f"trump_suit__seating{r}") == (rec.trump.suit or "NT")
            rising = rec.dealer % 2 if rec.settlement.dealer_holds else 1 - rec.dealer % 2
            gain = rec.settlement.rise * (1 if rising == r - 1 else -1)
            assert getattr(row, f"a_advantage__seating{r}") == gain
        assert row.score == (row.a_advantage__seating1 + row.a_advantage__seating2) / 2
    assert set(frame["deal"] % 4) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "cond",
    [
        {},
        {"predeal": {1: "BJ BJ 2H"}, "bottom": "SJ"},
        {"accept": lambda c: c[:, 2, 52:].sum(axis=1) >= 2},
    ],
)
def test_python_bots_play_round_by_round_as_native_ones_would(cond):
    """A Python bot's duel goes through play_round; its rows mean the same as native rows,
    and a conditioned row's rounds are play_round's with the same condition."""
    frame = sj.duel(PassiveBot(), "greedy", deals=12, seed=4, **cond).frame
    for row in frame.itertuples():
        rec = sj.play_round(
            "v3", seed=int(row.seed), bots=["greedy", PassiveBot()] * 2, dealer=row.deal % 4, **cond
        )
        assert row.defender_points__seating2 == rec.defender_points
        assert row.dealer__seating2 == rec.dealer
        deck = sj.decks(int(row.seed), 0, 1, row.deal % 4, **cond)[0]
        assert rec.deals[0] == " ".join(sj.kind_name(int(k)) for k in deck)
    assert sj.replay(rec) == rec


def test_the_summary(tmp_path):
    result = sj.duel("greedy:call=eager", "greedy", deals=3000, seed=1, workers=1)
    frame, summary = result.frame, result.summary
    metrics = {(m["name"], m["group"]): m for m in summary["metrics"]}
    assert set(metrics) == {
        ("score", "team=a"),
        ("dealer_holds", "team=a"),
        ("dealer_holds", "team=b"),
        ("defender_points_mean", "team=a"),
        ("defender_points_mean", "team=b"),
        ("forfeits_mean", "team=a"),
        ("forfeits_mean", "team=b"),
    }
    score = metrics[("score", "team=a")]
    assert score["n"] == 3000 and score["value"] == pytest.approx(frame["score"].mean())
    # the paired interval: the normal interval of the per-deal scores
    half = Z95 * frame["score"].std() / np.sqrt(3000)
    assert score["ci_high"] - score["value"] == pytest.approx(half)
    a_deals = pd.concat(
        [
            frame.loc[frame[f"dealer__{s}"] % 2 == r, f"dealer_holds__{s}"]
            for r, s in enumerate(("seating1", "seating2"))
        ]
    )
    holds = metrics[("dealer_holds", "team=a")]
    assert holds["n"] == len(a_deals) == 3000 and holds["value"] == pytest.approx(a_deals.mean())
    a_defends = pd.concat(
        [
            frame.loc[frame[f"dealer__{s}"] % 2 != r, f"defender_points__{s}"]
            for r, s in enumerate(("seating1", "seating2"))
        ]
    )
    assert metrics[("defender_points_mean", "team=a")]["value"] == pytest.approx(a_defends.mean())
    assert summary["strategies"] == ["greedy:call=eager", "greedy"]
    assert summary["options"] == {"first_round": False, "levels": [2, 2]}
    assert "a greedy:call=eager vs b greedy" in report.describe(summary, st.STUDIES["duel"])


def shrink_chunks(monkeypatch, name, size):
    real = st.STUDIES[name]
    small = dataclasses.replace(real, chunk_size=size)
    monkeypatch.setitem(st.STUDIES, name, small)
    if name in duels.DUELS:
        monkeypatch.setitem(duels.DUELS, name, small)


@pytest.mark.slow
def test_same_numbers_for_any_workers_chunks_or_folder(monkeypatch, tmp_path):
    whole = sj.duel("greedy:call=eager", "random", deals=2500, seed=9, rules="match16", workers=1)
    shrink_chunks(monkeypatch, "duel", 700)
    chunked = sj.duel("greedy:call=eager", "random", deals=2500, seed=9, rules="match16", workers=2)
    pd.testing.assert_frame_equal(chunked.frame, whole.frame)
    assert chunked.summary["metrics"] == whole.summary["metrics"]
    folder = sj.duel(
        "greedy:call=eager",
        "random",
        deals=2500,
        seed=9,
        rules="match16",
        workers=2,
        out=tmp_path / "o",
    )
    pd.testing.assert_frame_equal(folder.frame, chunked.frame)
    assert folder.summary == chunked.summary
    assert len(list((tmp_path / "o" / "chunks").glob("*.parquet"))) == 4
    assert (tmp_path / "o" / "score.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_a_local_ray_run_gives_the_same_duel(monkeypatch):
    shrink_chunks(monkeypatch, "duel", 400)
    local = sj.duel("greedy:call=never", "greedy", deals=1000, seed=8, workers=1)
    ray = sj.duel("greedy:call=never", "greedy", deals=1000, seed=8, workers=2, backend="ray")
    pd.testing.assert_frame_equal(ray.frame, local.frame)
    assert ray.summary == local.summary


def test_a_duel_folder_is_continued_computing_only_what_is_missing(monkeypatch, tmp_path):
    shrink_chunks(monkeypatch, "duel", 500)
    out = tmp_path / "o"
    first = sj.duel("greedy", "random", deals=1800, seed=5, out=out, workers=1)
    for ext in ("json", "parquet"):
        (out / "chunks" / f"{1000:012d}.{ext}").unlink()
    (out / "summary.json").unlink()
    computed = []
    real = duels.DUELS["duel"]
    monkeypatch.setitem(
        duels.DUELS,
        "duel",
        dataclasses.replace(
            real, chunk=lambda *a, **o: computed.append(a[2]) or real.chunk(*a, **o), chunk_size=500
        ),
    )
    again = sj.duel("greedy", "random", deals=1800, seed=5, out=out, workers=1, resume=True)
    assert computed == [1000]
    assert again.summary == first.summary
    pd.testing.assert_frame_equal(again.frame, first.frame)
    assert json.loads((out / "summary.json").read_text()) == first.summary
    with pytest.raises(StudyError, match="another study"):
        sj.duel("greedy", "greedy:call=eager", deals=1800, seed=5, out=out)


def test_matches_in_duplicate_pairs():
    result = sj.duel("greedy", "greedy", matches=3, rules="bo3", seed=2, workers=1)
    frame = result.frame
    assert list(frame["match"]) == [0, 1, 2]
    # the same match both ways: A wins it in exactly one seating
    assert (frame["a_won__seating1"] != frame["a_won__seating2"]).all()
    assert (frame["a_wins"] == 0.5).all()
    wins = result.metric("wins_mean")
    assert wins["value"] == 0.5 and wins["n"] == 3
    with pytest.raises(ValueError, match="no metric 'wins' in group 'team=a'; the summary has "):
        result.metric("wins", "team=a")
    eager = sj.duel("greedy:call=eager", "random", matches=4, seed=1, workers=1).frame
    for row in eager.itertuples():
        m = sj.play_match("v3", seed=int(row.seed), bots=["random", "greedy:call=eager"] * 2)
        assert row.seed == sj.round_seed(1, row.match)
        assert row.a_won__seating2 == (m.winner == 1) and row.rounds__seating2 == len(m.rounds)


@pytest.mark.parametrize(
    "kwargs,words",
    [
        ({"deals": 10, "matches": 2}, "deals and matches exclude each other"),
        ({"deals": 0}, "deals must be an integer from 1"),
        ({"matches": 0}, "matches must be an integer from 1"),
        ({"matches": 2, "first_round": True}, "first_round and levels are for deals"),
        ({"levels": (2, 15)}, "levels[1] must be an integer from 2 to 14"),
        ({"first_round": 1}, "first_round must be True or False"),
        ({"rules": "v4"}, "unknown preset"),
        ({"a": "minimax"}, "bot a: unknown bot 'minimax'"),
        ({"b": "greedy:call=eagr"}, "bot b: bot 'greedy:call=eagr': Greedy.call must be one of"),
        ({"b": object()}, "bot b: a bot object needs the methods"),
        ({"a": PassiveBot(), "out": "x"}, "bot a (a PassiveBot) has no text form"),
        ({"resume": True}, "resume continues a duel written to a folder"),
        ({"backend": "spark"}, "unknown backend"),
        ({"a": PassiveBot(), "workers": 0}, "workers must be None or an integer from 1"),
    ],
)
def test_bad_arguments(kwargs, words):
    args = {"a": "greedy", "b": "random", **kwargs}
    with pytest.raises(ValueError) as info:
        sj.duel(args.pop("a"), args.pop("b"), **args)
    assert words in str(info.value)


BAD_CLI = [
    (["--b", "greedy"], "the following arguments are required: --a"),
    (["--a", "minimax", "--b", "greedy"], "bot a: unknown bot 'minimax'"),
    (["--a", "greedy:patience=five", "--b", "greedy"], "patience must be an integer, got 'five'"),
    (["--a", "greedy", "--b", "greedy", "--deals", "0"], "--deals: must be an integer from 1"),
    (
        ["--a", "greedy", "--b", "greedy", "--deals", "5", "--matches", "2"],
        "deals and matches exclude each other",
    ),
    (
        ["--a", "greedy", "--b", "greedy", "--matches", "2", "--first-round"],
        "first_round and levels are for deals",
    ),
    (["--a", "greedy", "--b", "greedy", "--resume"], "nothing to resume"),
    (["--a", "greedy", "--b", "greedy", "--seed", "-1"], "--seed: must be an integer from 0"),
    (["--a", "greedy", "--b", "greedy", "--rules", "v4"], "unknown preset"),
    (["--a", "greedy", "--b", "greedy", "--backend", "spark"], "invalid choice"),
    (
        ["--a", "greedy", "--b", "greedy", "--ray-address", "127.0.0.1:1"],
        "only with the ray backend",
    ),
    (["--a", "greedy", "--b", "greedy", "--against", "greedy"], "unrecognized arguments"),
]


@pytest.mark.parametrize("args,words", BAD_CLI, ids=[" ".join(a) for a, _ in BAD_CLI])
def test_cli_bad_input_is_one_line_and_writes_nothing(args, words, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["duel", *args, "--out", str(out)])
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err, err
    assert not (out / "summary.json").exists() and not (out / "chunks").exists()


@pytest.mark.slow  # a few seconds; the quick loop keeps a lighter test of the same
def test_cli_duel_writes_a_study_folder_and_continues_it(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "shengji",
        "duel",
        "--a",
        "greedy:call=eager",
        "--b",
        "greedy:call=patient,patience=7",
        "--deals",
        "3000",
        "--seed",
        "4",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "o"),
    ]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (
        "duel study, rules v3, 3,000 deals, seed 4, a greedy:call=eager vs b greedy:patience=7"
    ) in run.stdout
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (
        summary
        == sj.duel("greedy:call=eager", "greedy:patience=7", deals=3000, seed=4, workers=1).summary
    )
    again = subprocess.run(cmd + ["--resume"], capture_output=True, text=True)
    # read whole from its folder: the same table, its files read, not written
    assert again.returncode == 0
    assert again.stdout == run.stdout.replace("\nwritten: ", "\nread: ")


def test_the_studies_duel_each_strategy_against_the_baseline():
    rules = sj.Rules.preset("v3")
    _, _, rows = st.calling_chunk(rules, 6, 3, 60, ("eager", "patient5"), play_every=4)
    assert "duel_score__eager" not in rows  # the baseline (the first) against itself
    duel = sj.duel(
        st.CALLING["patient5"], st.CALLING["eager"], deals=63, seed=6, first_round=True, workers=1
    ).frame.iloc[3:]
    played = (duel["deal"] % 4 == 0).to_numpy()
    score = rows["duel_score__patient5"]
    assert list(~score.mask) == list(played)
    assert list(score.compressed()) == list(duel["score"][played])
    sums, _, rows = st.burying_chunk(rules, 6, 0, 40, ("low", "points"), against="voids")
    duel = sj.duel(st.BURYING["points"], st.BURYING["voids"], deals=40, seed=6, workers=1)
    assert list(rows["duel_score__points"]) == list(duel.frame["score"])
    assert sums["duel_score|strategy=points"].total == duel.frame["score"].sum()


def test_the_studies_baseline_is_checked(tmp_path):
    summary = st.run_study(
        "burying",
        "v3",
        deals=200,
        out=tmp_path / "b",
        strategies=["low", "points"],
        against="greedy:bury=points",
    )
    assert summary["options"]["against"] == "greedy:bury=points"
    groups = {m["group"] for m in summary["metrics"] if m["name"] == "duel_score"}
    assert groups == {"strategy=low"}  # points plays as the baseline does
    with pytest.raises(StudyError, match="--against: 'pimc:rollouts=5' is not a native bot"):
        st.run_study("burying", deals=10, out=tmp_path / "x", against="pimc:rollouts=5")
    with pytest.raises(StudyError, match="--against: unknown bot 'deep'"):
        st.run_study("trump-calling", deals=10, out=tmp_path / "x", against="deep")
    with pytest.raises(StudyError, match="a duel is run by shengji.duel"):
        st.run_study("duel", deals=10, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_duel_chunk_reads_texts_and_objects_alike():
    rules = sj.Rules.preset("bo3")
    texts = duel_chunk(rules, 1, 10, 300, ("greedy:call=never", "random"))
    objects = duel_chunk(rules, 1, 10, 300, (sj.Greedy(call="never"), "random"))
    assert texts[1] == objects[1]
    for k in texts[2]:
        assert list(texts[2][k]) == list(objects[2][k])


def test_a_duel_s_repr_is_one_line_with_its_score():
    duel = sj.duel("greedy:call=eager", "greedy", deals=200)
    score = duel.metric("score", "team=a")
    text = repr(duel)
    assert "\n" not in text and len(text) < 160
    assert text.startswith("Duel(greedy:call=eager vs greedy, v3, 200 deals, seed 0: score ")
    assert f"{score['value']:+.4f} [{score['ci_low']:+.4f}, {score['ci_high']:+.4f}]" in text
    matches = repr(sj.duel("greedy", "random", matches=2, rules="bo3"))
    assert matches.startswith("Duel(greedy vs random, bo3, 2 matches, seed 0: wins_mean ")
