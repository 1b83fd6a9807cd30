"""The trump-calling study: its numbers against plain recomputations, the same for any number
of workers, resumable without recomputing or double counting, and bad input refused."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import shengji as sj
from shengji.errors import StudyError
from shengji.play.rounds import first_deals
from shengji.studies import backends, report, store
from shengji.studies import study as st

CHUNK = st.STUDIES["trump-calling"].chunk_size
DEALS = 2 * CHUNK + 700  # three chunks, the last one short


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    return out, st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, workers=2, out=out)


def metric(summary, name, group):
    return next(m for m in summary["metrics"] if m["name"] == name and m["group"] == group)


@pytest.mark.slow
def test_summary_schema_and_counts(reference_run):
    out, summary = reference_run
    assert json.loads((out / "summary.json").read_text()) == summary
    assert {k: summary[k] for k in ("study", "rules", "deals", "seed")} == {
        "study": "trump-calling",
        "rules": "bo3",
        "deals": DEALS,
        "seed": 5,
    }
    names = {(m["name"], m["group"]) for m in summary["metrics"]}
    assert {(n, "all") for n in st.DEAL_METRICS} <= names
    assert {(n, f"strategy={s}") for n in st.CALLING_METRICS for s in st.CALLING} <= names
    # each strategy against the first in duplicate, on the deals played out
    assert {("duel_score", f"strategy={s}") for s in st.CALLING if s != "eager"} <= names
    assert ("duel_score", "strategy=eager") not in names
    assert metric(summary, "duel_score", "strategy=never")["n"] == (DEALS + 9) // 10
    for m in summary["metrics"]:
        assert set(m) == {"name", "group", "value", "ci_low", "ci_high", "n"}
        if m["n"]:
            assert m["ci_low"] <= m["value"] <= m["ci_high"]
    assert metric(summary, "nobody_declares", "strategy=eager")["n"] == DEALS
    # every 10th deal (the default) is played out: deals 0, 10, .., 100,690
    assert metric(summary, "dealer_holds", "strategy=eager")["n"] == (DEALS + 9) // 10
    # bo3's first round is grabbed by declaring: even "never" declares rather than redeal
    assert metric(summary, "nobody_declares", "strategy=never")["value"] == 0


def test_deal_metrics_against_a_plain_count():
    seeds, cards = first_deals(3, 10, 40)
    values = st.deal_metrics(cards)
    for j, i in enumerate(range(10, 50)):
        assert seeds[j] == sj.round_seed(3, i)
        hands, bottom = sj.deal(sj.round_seed(3, i), 0, 0)
        hand = list(hands[0])
        level = [c for c in hand if c[:-1] == "2" and c not in ("SJ", "BJ")]
        assert values["hand_has_level_card"][j] == bool(level)
        assert values["hand_has_level_pair"][j] == any(level.count(c) == 2 for c in level)
        assert values["hand_has_joker_pair"][j] == (hand.count("SJ") == 2 or hand.count("BJ") == 2)
        assert values["hand_points_at_most_15"][j] == (sj.points(hands[0]) <= 15)
        assert values["bottom_points_mean"][j] == sj.points(bottom)


def chunk_summary(rules, seed, count, sums, hists, **options):
    study = st.STUDIES["trump-calling"]
    manifest = store.manifest_of(
        study, rules, count, seed, study.strategies, {**study.options, **options}
    )
    return report.summarize(
        manifest, [{"sums": {k: vars(v) for k, v in sums.items()}, "hists": hists}]
    )


@pytest.mark.parametrize("play_every", [1, 7])
def test_round_metrics_against_simulate_rounds(play_every):
    """The declarations of every deal and the outcome of every play_every-th one, as whole
    rounds played one by one give them."""
    rules = sj.Rules.preset("v3")
    sums, hists, rows = st.calling_chunk(rules, 9, 3, 300, play_every=play_every)
    summary = chunk_summary(rules, 9, 300, sums, hists, play_every=play_every)
    frame = sj.simulate_rounds(
        303, "v3", bots=sj.Greedy(call="patient", patience=5), seed=9, first_round=True
    ).iloc[3:]
    played = frame[frame.index % play_every == 0]
    holds = metric(summary, "dealer_holds", "strategy=patient5")
    assert holds["n"] == len(played)
    assert holds["value"] == pytest.approx(played["dealer_holds"].mean())
    trumps = metric(summary, "declarer_trump_count_mean", "strategy=patient5")
    declared = frame[frame["declarer"].notna()]
    assert trumps["n"] == len(declared)
    assert trumps["value"] == pytest.approx(declared["declarer_trumps"].mean())
    overturned = metric(summary, "overturned", "strategy=patient5")
    assert overturned["value"] == pytest.approx((frame["overturns"] > 0).mean())
    # the rows: null where the deal was not played out
    rise = rows["rise__patient5"]
    assert list(~rise.mask) == list(frame.index % play_every == 0)
    assert list(rise.compressed()) == list(played["rise"])


def test_declarations_only(tmp_path):
    summary = st.run_study(
        "trump-calling", "match16", deals=3000, seed=4, out=tmp_path, play_every=0, workers=1
    )
    assert metric(summary, "dealer_holds", "strategy=eager") == {
        "name": "dealer_holds",
        "group": "strategy=eager",
        "value": None,
        "ci_low": None,
        "ci_high": None,
        "n": 0,
    }
    assert metric(summary, "overturned", "strategy=eager")["n"] == 3000


@pytest.mark.slow  # a few seconds; the quick loop keeps a lighter test of the same
def test_same_numbers_for_any_worker_count(reference_run, tmp_path):
    _, summary = reference_run
    assert (
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, workers=1, out=tmp_path)
        == summary
    )


@pytest.mark.slow
def test_resume_computes_only_what_is_missing(reference_run, tmp_path, monkeypatch):
    out, summary = reference_run
    for name in os.listdir(out):
        if name != "summary.json":
            os.system(f"cp -r {out / name} {tmp_path}")
    os.remove(tmp_path / "chunks" / f"{CHUNK:012d}.json")
    os.remove(tmp_path / "chunks" / f"{CHUNK:012d}.parquet")
    computed = []
    real = st.STUDIES["trump-calling"]
    monkeypatch.setitem(
        st.STUDIES,
        "trump-calling",
        dataclasses.replace(
            real, chunk=lambda *a, **o: computed.append(a[2]) or real.chunk(*a, **o)
        ),
    )
    assert (
        st.run_study(
            "trump-calling", "bo3", deals=DEALS, seed=5, out=tmp_path, resume=True, workers=1
        )
        == summary
    )
    assert computed == [CHUNK]
    # the same study again: nothing is computed, the same summary comes back
    assert (
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=tmp_path, workers=1)
        == summary
    )
    assert computed == [CHUNK]
    with pytest.raises(StudyError, match="nothing to resume"):
        st.run_study(
            "trump-calling", "bo3", deals=DEALS, seed=5, out=tmp_path / "empty", resume=True
        )


def test_bad_resume_and_bad_output(reference_run, tmp_path):
    out, _ = reference_run
    with pytest.raises(StudyError, match="another study"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=6, out=out, resume=True)
    (tmp_path / "manifest.json").write_text("not json")
    with pytest.raises(StudyError, match="not a study manifest"):
        st.run_study("trump-calling", "v3", deals=10, out=tmp_path, resume=True)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StudyError, match="cannot write"):
        st.run_study("trump-calling", "v3", deals=10, out=blocker / "sub")
    with pytest.raises(StudyError, match="deals must be an integer from 1"):
        st.run_study("trump-calling", "v3", deals=0, out=tmp_path / "x")


def test_a_corrupt_chunk_is_named(reference_run, tmp_path):
    out, _ = reference_run
    os.system(f"cp -r {out}/manifest.json {out}/chunks {tmp_path}")
    for junk in ("{", "{}", "[1]"):
        (tmp_path / "chunks" / f"{0:012d}.json").write_text(junk)
        with pytest.raises(StudyError, match="is not this study's chunk"):
            st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=tmp_path, resume=True)


def test_a_variant_of_the_rules_is_another_study(reference_run):
    out, _ = reference_run
    variant = sj.Rules.preset("bo3").replace(throw_penalty=20)
    with pytest.raises(StudyError, match="another study"):
        st.run_study("trump-calling", variant, deals=DEALS, seed=5, out=out)
    with pytest.raises(StudyError, match="another study"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=out, play_every=3)


@pytest.mark.parametrize(
    "args,words",
    [
        (["--rules", "v4"], "unknown preset"),
        (["--deals", "0"], "must be an integer from 1"),
        (["--deals", "-3"], "must be an integer from 1"),
        (["--play-every", "-1"], "argument --play-every: must be an integer from 0"),
        (["--bots", "random"], "unknown bots 'random' for the trump-calling study"),
    ],
)
def test_cli_bad_input(args, words, tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "shengji",
            "study",
            "trump-calling",
            "--out",
            str(tmp_path / "o"),
            *args,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and words in run.stderr
    assert not (tmp_path / "o" / "summary.json").exists()


@pytest.mark.slow
def test_sigterm_keeps_the_finished_part_and_resume_completes(tmp_path):
    out = tmp_path / "o"
    deals = 4 * CHUNK
    cmd = [
        sys.executable,
        "-m",
        "shengji",
        "study",
        "trump-calling",
        "--deals",
        str(deals),
        "--workers",
        "1",
        "--out",
        str(out),
        "--play-every",
        "0",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    chunks = out / "chunks"
    deadline = time.time() + 120
    while time.time() < deadline and not (chunks.exists() and any(chunks.glob("*.json"))):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM and "interrupted" in err
    saved = sorted(chunks.glob("*.json"))
    assert 1 <= len(saved) < 4 and not list(chunks.glob("*.tmp"))
    before = {p: p.stat().st_mtime_ns for p in saved}
    assert not (out / "summary.json").exists()
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    resumed = json.loads((out / "summary.json").read_text())
    assert metric(resumed, "overturned", "strategy=eager")["n"] == deals
    assert {p: p.stat().st_mtime_ns for p in saved} == before  # not computed again
    whole = st.run_study(
        "trump-calling", "v3", deals=deals, seed=0, out=tmp_path / "whole", play_every=0
    )
    assert resumed == whole


def test_deals_parquet_and_plots(reference_run):
    import pandas as pd

    out, summary = reference_run
    frame = pd.read_parquet(out / "deals.parquet")
    assert len(frame) == DEALS and list(frame["deal"]) == list(range(DEALS))
    assert frame["seed"].iloc[7] == sj.round_seed(5, 7)
    rec = sj.play_round(
        "bo3", seed=int(frame["seed"].iloc[7]), bots=st.CALLING["patient5"], first_round=True
    )
    assert frame["declarer_trumps__patient5"].iloc[7] == sum(
        sj.category(c, rec.trump) == "T" for c in rec.hands[rec.declarer]
    )
    # played out every 10th deal: the other deals' outcomes are null
    assert frame["dealer_holds__patient5"].isna().tolist() == [i % 10 != 0 for i in range(DEALS)]
    rec = sj.play_round(
        "bo3", seed=int(frame["seed"].iloc[20]), bots=st.CALLING["patient5"], first_round=True
    )
    assert frame["rise__patient5"].iloc[20] == rec.settlement.rise
    assert frame["hand_has_level_card"].mean() == pytest.approx(
        metric(summary, "hand_has_level_card", "all")["value"]
    )
    png = (out / "declarer_trumps.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


@pytest.mark.slow
def test_burying_study_is_paired_and_consistent(tmp_path):
    summary = st.run_study("burying", "v3", deals=3000, seed=2, out=tmp_path)
    names = {(m["name"], m["group"]) for m in summary["metrics"]}
    assert {(n, f"strategy={s}") for n in st.BURYING_METRICS for s in st.BURYING} <= names
    for s in st.BURYING:
        if s != "low":
            assert ("defender_points_diff", f"strategy={s}-low") in names
    import pandas as pd

    frame = pd.read_parquet(tmp_path / "deals.parquet")
    # the paired difference is the mean of the per-deal differences of the same deals
    diff = metric(summary, "defender_points_diff", "strategy=points-low")
    assert diff["value"] == pytest.approx(
        (frame["defender_points__points"] - frame["defender_points__low"]).mean()
    )
    assert diff["ci_low"] < diff["value"] < diff["ci_high"]
    # burying point cards puts more points in the bottom than burying low cards
    buried = {
        s: metric(summary, "bottom_points_buried_mean", f"strategy={s}")["value"]
        for s in st.BURYING
    }
    assert buried["points"] > buried["low"] and buried["low"] < 5
    assert (tmp_path / "defender_points.png").exists() and (tmp_path / "level_delta.png").exists()
    rec = sj.play_round("v3", seed=int(frame["seed"].iloc[11]), bots=st.BURYING["voids"])
    assert frame["defender_points__voids"].iloc[11] == rec.defender_points


@pytest.mark.slow
def test_burying_with_random_play(tmp_path):
    """--bots random: the dealer buries by the strategy, every seat plays at random."""
    summary = st.run_study(
        "burying",
        "v3",
        deals=600,
        seed=2,
        out=tmp_path,
        bots="random",
        strategies=["low", "points"],
        workers=1,
    )
    buried = {
        s: metric(summary, "bottom_points_buried_mean", f"strategy={s}")["value"]
        for s in ("low", "points")
    }
    assert buried["points"] > 20 and buried["low"] < 5
    greedy = st.run_study(
        "burying",
        "v3",
        deals=600,
        seed=2,
        out=tmp_path / "g",
        strategies=["low", "points"],
        workers=1,
    )
    # the same deals played out by other bots: other outcomes
    assert (
        metric(summary, "defender_points_mean", "strategy=low")["value"]
        != metric(greedy, "defender_points_mean", "strategy=low")["value"]
    )
    with pytest.raises(StudyError, match="unknown bots"):
        st.run_study("burying", "v3", deals=10, out=tmp_path / "x", bots="pimc")


@pytest.mark.slow
def test_burying_with_expert_play(tmp_path):
    """--bots expert: the dealer buries by the strategy, four experts play the rounds out; a
    deal's row is the round play_round gives with that bury and expert play."""
    summary = st.run_study(
        "burying",
        "v3",
        deals=200,
        seed=2,
        out=tmp_path,
        bots="expert",
        strategies=["low", "voids"],
        workers=1,
    )
    import pandas as pd

    frame = pd.read_parquet(tmp_path / "deals.parquet")
    assert metric(summary, "defender_points_mean", "strategy=voids")["n"] == 200
    bot = sj.Expert(value_bury=False, greedy=st.BURYING["voids"])
    for i in (7, 11):
        rec = sj.play_round("v3", seed=int(frame["seed"].iloc[i]), bots=bot)
        assert frame["defender_points__voids"].iloc[i] == rec.defender_points
        greedy = sj.play_round("v3", seed=int(frame["seed"].iloc[i]), bots=st.BURYING["voids"])
        assert greedy.buries == rec.buries  # the strategy's bury, the expert's play


@pytest.mark.slow
def test_a_real_local_ray_run_gives_the_same_numbers(reference_run, tmp_path):
    _, summary = reference_run
    ray_summary = st.run_study(
        "trump-calling", "bo3", deals=DEALS, seed=5, workers=2, out=tmp_path, backend="ray"
    )
    assert ray_summary == summary
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "deals.parquet")) == DEALS


def test_unknown_backend_and_strategy(tmp_path):
    with pytest.raises(StudyError, match="unknown backend"):
        st.run_study("trump-calling", deals=10, backend="spark")
    with pytest.raises(StudyError, match="unknown, repeated or no strategies: 'deep'"):
        st.run_study("burying", deals=10, strategies=["low", "deep"], out=tmp_path)
    with pytest.raises(StudyError, match="unknown, repeated or no strategies: none"):
        st.run_study("burying", deals=10, strategies=[], out=tmp_path)


def test_a_subset_of_strategies(tmp_path):
    summary = st.run_study(
        "burying", "v3", deals=500, seed=2, out=tmp_path, strategies=["low", "points"]
    )
    groups = {m["group"] for m in summary["metrics"]}
    assert groups == {"strategy=low", "strategy=points", "strategy=points-low"}
    with pytest.raises(StudyError, match="another study"):
        st.run_study("burying", "v3", deals=500, seed=2, out=tmp_path)


def copy_study(src, dst):
    shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


@pytest.mark.slow
def test_a_chunk_of_another_study_is_refused_never_merged(reference_run, tmp_path):
    """Issue 14: each chunk carries its study's digest, start and count, checked before use."""
    out, _ = reference_run
    other = tmp_path / "other"
    st.run_study(
        "trump-calling", "bo3", deals=CHUNK + 10, seed=6, workers=1, out=other, play_every=0
    )
    # a chunk copied in from another study (other seed and options)
    mine = copy_study(out, tmp_path / "mine")
    shutil.copy(other / "chunks" / f"{CHUNK:012d}.json", mine / "chunks")
    with pytest.raises(StudyError, match=f"{CHUNK:012d}.json is not this study's chunk"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=mine)
    # a parquet swapped for another chunk's of the same study
    mine = copy_study(out, tmp_path / "swapped")
    shutil.copy(mine / "chunks" / f"{0:012d}.parquet", mine / "chunks" / f"{CHUNK:012d}.parquet")
    with pytest.raises(StudyError, match=f"{CHUNK:012d}.parquet is not this study's"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=mine)
    # the manifest gone, the run repeated with another seed: seed 5's chunks are refused
    mine = copy_study(out, tmp_path / "nomanifest")
    (mine / "manifest.json").unlink()
    with pytest.raises(StudyError, match="is not this study's chunk"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=6, out=mine)
    # wrong types in a chunk that parses
    mine = copy_study(out, tmp_path / "types")
    path = mine / "chunks" / f"{0:012d}.json"
    saved = json.loads(path.read_text())
    saved["sums"] = {k: {**v, "n": "many"} for k, v in saved["sums"].items()}
    path.write_text(json.dumps(saved))
    with pytest.raises(StudyError, match="is not this study's chunk"):
        st.run_study("trump-calling", "bo3", deals=DEALS, seed=5, out=mine)


@pytest.mark.slow
def test_the_summary_names_everything_its_numbers_depend_on(reference_run, tmp_path):
    out, summary = reference_run
    assert summary["strategies"] == list(st.CALLING)
    assert summary["options"] == {"play_every": 10, "bots": "greedy", "against": "eager"}
    assert summary["settings"] == sj.Rules.preset("bo3").to_dict()
    assert summary["version"] and summary["digest"] == store.digest_of(
        json.loads((out / "manifest.json").read_text())
    )
    random_play = st.run_study(
        "burying",
        "v3",
        deals=300,
        seed=1,
        out=tmp_path / "r",
        bots="random",
        strategies=["low", "voids"],
    )
    title = report.describe(random_play, st.STUDIES[random_play["study"]])
    assert "bots random" in title and "strategies low,voids" in title and "rules v3" in title


def test_a_second_run_into_the_same_folder_is_refused(tmp_path):
    (tmp_path / "o").mkdir()
    held = store.lock_folder(tmp_path / "o")
    try:
        with pytest.raises(StudyError, match="another run is writing to"):
            st.run_study("trump-calling", "v3", deals=10, out=tmp_path / "o")
    finally:
        held.close()
    assert st.run_study("trump-calling", "v3", deals=10, out=tmp_path / "o")["deals"] == 10


def test_a_ray_address_where_nothing_listens_fails_fast(tmp_path):
    import socket

    with socket.socket() as s:  # a free port, closed again: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.time()
    with pytest.raises(StudyError, match=f"nothing answers at the Ray address 127.0.0.1:{port}"):
        backends.check_ray_address(f"127.0.0.1:{port}")
    assert time.time() - started < backends.RAY_CONNECT_TIMEOUT_S
    with pytest.raises(StudyError, match="only with the ray backend"):
        st.run_study("trump-calling", deals=10, out=tmp_path, ray_address=f"127.0.0.1:{port}")


def start_study_in_own_group(out, workers=2, chunks=40):
    cmd = [
        sys.executable,
        "-m",
        "shengji",
        "study",
        "trump-calling",
        "--deals",
        str(chunks * CHUNK),
        "--workers",
        str(workers),
        "--out",
        str(out),
        "--play-every",
        "0",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.time() + 120
    while time.time() < deadline and not any((out / "chunks").glob("*.json")):
        time.sleep(0.05)
    return proc


def group_ends(pgid, seconds):
    """Whether every process of the group has ended within `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_a_sigterm_to_the_process_group_ends_the_run_with_one_line(tmp_path):
    """As timeout, Slurm and Kubernetes send it: to the parent and its workers at once."""
    proc = start_study_in_own_group(tmp_path / "o")
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM and err.strip().splitlines() == [
        "shengji: interrupted; the finished chunks are saved: the same command continues the study"
    ], err
    assert group_ends(proc.pid, 10)


@pytest.mark.slow
def test_workers_end_with_a_parent_killed_outright(tmp_path):
    proc = start_study_in_own_group(tmp_path / "o")
    proc.kill()
    proc.communicate(timeout=60)
    # the workers notice within a second; the resource tracker ends when they have
    assert group_ends(proc.pid, 10)
