"""The distillation data (shengji.studies.distill): the teacher plays as its search does, each
searched play's values are the search's, and the folder is deterministic, continued and
checked."""

import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import shengji as sj
from shengji.bots import learned
from shengji.bots.search import GUARD_POINTS, Search
from shengji.core._core import to_masks
from shengji.errors import BotError, StudyError
from shengji.play.rounds import round_seed
from shengji.studies.distill import Teacher, distill, other_team, read_data

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def two_deals(tmp_path_factory):
    folder = tmp_path_factory.mktemp("distill") / "data"
    distill(folder, "v3", deals=2, seed=5, chunk_deals=1)
    return folder


@pytest.mark.slow
def test_the_teacher_plays_the_rounds_its_search_plays_and_notes_each_searched_play(two_deals):
    data = read_data(two_deals)
    offsets = data["offsets"]
    assert len(offsets) == len(data["chosen"]) + 1 and offsets[-1] == len(data["moves"])
    for deal in (0, 1):
        record = sj.play_round("v3", seed=round_seed(5, deal), dealer=deal % 4, bots="search")
        plays = [
            ((t.leader + k) % 4, cards) for t in record.tricks for k, cards in enumerate(t.plays)
        ]
        noted = np.flatnonzero(data["deal"] == deal)
        chosen = [
            (int(data["seat"][j]), data["moves"][offsets[j] + data["chosen"][j]]) for j in noted
        ]
        # the searched plays, in order, are the round's plays with two or more candidates
        played = iter(plays)
        for seat, mask in chosen:
            assert any(s == seat and (to_masks([cards])[0] == mask).all() for s, cards in played), (
                "a noted play is not among the round's next plays"
            )
        results = data["result"][noted]
        s = record.settlement
        dealers = s.rise if s.dealer_holds else -s.rise
        seats = data["seat"][noted]
        assert (results == np.where((seats - record.dealer) % 2 == 0, dealers, -dealers)).all()
    counts = np.diff(offsets)
    assert (
        (counts >= 2).all() and (data["chosen"] < counts).all() and (data["policy"] < counts).all()
    )
    assert (data["worlds"] >= 1).all() and (data["error"] >= 0).all()


def test_the_others_play_their_share_of_deals_each_bot_each_team_as_often():
    for share, bots in ((0.25, 2), (0.5, 3), (0.1, 1), (1.0, 2), (0.3, 2)):
        lineups = [other_team(i, share, bots) for i in range(1200)]
        mixed = [x for x in lineups if x is not None]
        assert len(mixed) == round(1200 * share)  # the share exactly, in any 1,200 deals
        counts = {(team, bot): mixed.count((team, bot)) for team in (0, 1) for bot in range(bots)}
        assert max(counts.values()) - min(counts.values()) <= 1, (share, counts)
    assert [other_team(i, 0.25, 2) for i in range(12)] == [
        None, None, None, (0, 0), None, None, None, (0, 1),
        None, None, None, (1, 0),
    ]  # fmt: skip


@pytest.mark.slow
def test_with_others_the_teacher_notes_its_seats_alone_and_the_data_are_the_same_for_any_workers(
    tmp_path, two_deals
):
    """Every deal mixed (share 1), one bot: in deal 0 greedy plays team 0 (seats 0 and 2), the
    search team 1; the plays noted are the search's in the round those bots play."""
    one = tmp_path / "one"
    distill(one, "v3", deals=2, seed=5, chunk_deals=1, others=["greedy"], other_share=1)
    data = read_data(one)
    two = tmp_path / "two"
    distill(
        two, "v3", deals=2, seed=5, chunk_deals=1, others=("greedy",), other_share=1.0, workers=2
    )
    again = read_data(two)
    assert all(np.array_equal(data[k], again[k]) for k in data)
    offsets = data["offsets"]
    for deal in (0, 1):
        team, _ = other_team(deal, 1.0, 1)
        bots = ["greedy" if seat % 2 == team else "search" for seat in range(4)]
        record = sj.play_round("v3", seed=round_seed(5, deal), dealer=deal % 4, bots=bots)
        plays = [
            ((t.leader + k) % 4, cards) for t in record.tricks for k, cards in enumerate(t.plays)
        ]
        noted = np.flatnonzero(data["deal"] == deal)
        assert len(noted) > 10 and set(data["seat"][noted] % 2) == {1 - team}
        played = iter(plays)
        for j in noted:
            seat, mask = int(data["seat"][j]), data["moves"][offsets[j] + data["chosen"][j]]
            assert any(s == seat and (to_masks([cards])[0] == mask).all() for s, cards in played)
    # the teacher's folder reads as before: no others in its manifest
    plain = json.loads((two_deals / "manifest.json").read_text())
    assert "others" not in plain and "other_share" not in plain
    with pytest.raises(StudyError, match="another other_share, others: choose another folder"):
        distill(two_deals, "v3", deals=2, seed=5, chunk_deals=1, others=["greedy"])
    with pytest.raises(StudyError, match="another other_share: choose"):
        distill(one, "v3", deals=2, seed=5, chunk_deals=1, others=["greedy"], other_share=0.5)


def test_bad_others_are_refused_by_name(tmp_path):
    for others, share, said in (
        (["greedy"], 0, "other_share must be a number above 0 and at most 1, got 0"),
        (["greedy"], 1.5, "at most 1, got 1.5"),
        (["greedy"], float("nan"), "got nan"),
        (["greedy"], True, "got True"),
        (["greedy"], "0.5", "got '0.5'"),
        ((), 0.5, "other_share is the share of deals of the others: name some bots"),
        (["nope"], None, "others: unknown bot 'nope'"),
        ([object()], None, "others: a object has no text form"),
        (3, None, "others must be a list of bots or their texts, got 3"),
    ):
        with pytest.raises(StudyError, match=said):
            distill(tmp_path / "x", deals=1, others=others, other_share=share)
    assert not (tmp_path / "x").exists()  # refused before any folder was made


def test_a_searchs_values_are_its_sums_over_the_worlds_each_candidate_played(monkeypatch):
    searches = []
    original = Search.best

    def kept(self):
        searches.append(self)
        return original(self)

    monkeypatch.setattr(Search, "best", kept)
    sj.play_round("v3", seed=3, dealer=1, bots="search")
    assert len(searches) > 20
    for search in searches:
        mean, error, worlds = search.values()
        # the same means from the search's own running sums (levels and points apart)
        expected = (search.levels + search.points / GUARD_POINTS) / worlds
        assert np.allclose(mean, expected)
        for c in range(len(worlds)):
            every = np.concatenate([r[list(a).index(c)] for a, r in search.results if c in a])
            assert len(every) == worlds[c]
            if len(every) > 1:
                assert error[c] == pytest.approx(every.std(ddof=1) / np.sqrt(len(every)))


@pytest.mark.slow
def test_the_data_are_the_same_for_any_workers_and_a_folder_continues(tmp_path, two_deals):
    one = read_data(two_deals)
    distill(tmp_path / "two", "v3", deals=1, seed=5, chunk_deals=1)
    told = []
    distill(tmp_path / "two", "v3", deals=2, seed=5, chunk_deals=1, workers=2, notice=told.append)
    assert told == [f"{tmp_path / 'two'} holds 1 of these 2 deals: those are kept, 1 played"]
    two = read_data(tmp_path / "two")
    assert one.keys() == two.keys()
    for name in one:
        assert np.array_equal(one[name], two[name]), name
    first = read_data(tmp_path / "two", deals=1)
    assert len(first["chosen"]) == (one["deal"] == 0).sum()
    some = read_data(tmp_path / "two", deals=1, arrays=("value",))  # the rest not read
    assert sorted(some) == ["deal", "offsets", "value"]
    assert all(np.array_equal(some[k], first[k]) for k in some)
    with pytest.raises(StudyError, match="no array 'nope'"):
        read_data(tmp_path / "two", arrays=("nope",))
    # chunks of 2 deals: the first deal read from one, and the run of fewer deals
    # extended, its shorter chunk replaced
    distill(tmp_path / "pairs", "v3", deals=1, seed=5, chunk_deals=2)
    distill(tmp_path / "pairs", "v3", deals=2, seed=5, chunk_deals=2, notice=told.append)
    assert sorted(p.name for p in (tmp_path / "pairs" / "chunks").iterdir()) == ["000000000-2.npz"]
    pairs = read_data(tmp_path / "pairs", deals=1)
    assert all(np.array_equal(pairs[k], first[k]) for k in first)


def test_bad_data_and_settings_are_refused_by_name(tmp_path, two_deals):
    with pytest.raises(StudyError, match="another seed"):
        distill(two_deals, "v3", deals=2, seed=6, chunk_deals=1)
    with pytest.raises(BotError, match="guard above 0"):
        Teacher(sj.Pimc.sharp(guard=0))
    with pytest.raises(StudyError, match="deals"):
        distill(tmp_path / "x", deals=0)
    with pytest.raises(StudyError, match="holds 2 deals, not 3"):
        read_data(two_deals, deals=3)
    (tmp_path / "a file").write_text("")
    with pytest.raises(StudyError, match="cannot write data into .*a file: Not a directory"):
        distill(tmp_path / "a file", deals=1)
    copy = tmp_path / "copy"
    shutil.copytree(two_deals, copy)
    chunk = copy / "chunks" / "000000000-1.npz"
    shutil.copy(copy / "chunks" / "000000001-1.npz", chunk)
    with pytest.raises(StudyError, match="000000000-1.npz holds deals 1 on .* not 0 on"):
        read_data(copy)
    chunk.write_bytes(chunk.read_bytes()[:500])
    with pytest.raises(StudyError, match="000000000-1.npz is damaged .*: delete it"):
        read_data(copy)
    with pytest.raises(StudyError, match="000000000-1.npz is damaged"):  # told before a run
        distill(copy, "v3", deals=3, seed=5, chunk_deals=1)
    chunk.unlink()  # a run stopped before its first chunk: refused, not read short
    with pytest.raises(StudyError, match="000000000-1.npz: no such chunk .* continues it"):
        read_data(copy)
    other = tmp_path / "other"
    distill(other, "v3", deals=1, seed=6, chunk_deals=1)
    shutil.copy(other / "chunks" / "000000000-1.npz", chunk)
    with pytest.raises(StudyError, match="000000000-1.npz belongs to other data"):
        read_data(copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps({**manifest, "version": 0}))
    with pytest.raises(StudyError, match="data version 0"):
        read_data(copy)
    (copy / "manifest.json").write_text(json.dumps({**manifest, "observation_size": 3}))
    with pytest.raises(StudyError, match="another observation"):
        read_data(copy)


@pytest.mark.slow  # JAX's start and compile: about 15 s
def test_training_on_the_data_writes_a_checkpoint_the_bot_plays(tmp_path, two_deals):
    """examples/train_distill.py on two deals (one held out), twice with one seed: the same
    network each time, which sj.Learned plays; the trainer's values are learned.forward's
    and the native scorer's on the same pairs."""
    pytest.importorskip("jax")
    import optax

    spec = importlib.util.spec_from_file_location("train_distill", EXAMPLES / "train_distill.py")
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    argv = ["--data", str(two_deals), "--epochs", "3", "--batch", "8", "--hidden", "16", "8"]
    argv += ["--holdout", "2", "--eval-deals", "2"]
    reports = [trainer.main([*argv, "--out", str(tmp_path / run)]) for run in ("a", "b")]
    curves = [[{**p, "seconds": 0} for p in r["curve"]] for r in reports]
    assert curves[0] == curves[1] and "vs expert" in reports[0]
    (a, _), (b, _) = (learned.load(tmp_path / run / "ckpt.npz") for run in ("a", "b"))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    bot = sj.Learned(str(tmp_path / "a" / "ckpt.npz"))
    sj.play_round("v3", seed=2, bots=[bot, "greedy", bot, "greedy"])

    data = read_data(two_deals)
    offsets = data["offsets"][:4]
    moves = data["moves"][: offsets[-1]]
    obs = data["obs"][:3]
    anchors = moves[offsets[:-1] + data["policy"][:3]]  # the expert's plays, as trained on
    features = learned.encode_moves(obs, moves, offsets, anchors)
    assert a["w1"][learned.OBSERVATION_SIZE + learned.MOVE_SIZE - 1].any()  # it reads them
    values, _, _ = trainer.make_model(obs.shape[1], optax.adam(1e-3), trainer.parse_args(argv))
    width = int(np.diff(offsets).max())
    rows = [np.minimum(offsets[j] + np.arange(width), offsets[j + 1] - 1) for j in range(3)]
    q = np.asarray(values(a, obs.astype(np.float32) * a["obs_scale"], features[np.array(rows)]))
    defined = learned.forward(a, np.repeat(obs, np.diff(offsets), axis=0), features)
    native = learned.score_moves(
        learned.Net(a, 512, learned.anchor_spec()), obs, moves, offsets, anchors
    )
    for j in range(3):
        count = offsets[j + 1] - offsets[j]
        assert np.allclose(q[j, :count], defined[offsets[j] : offsets[j + 1]], atol=1e-5)
        assert np.allclose(q[j, :count], native[offsets[j] : offsets[j + 1]], atol=1e-4)
