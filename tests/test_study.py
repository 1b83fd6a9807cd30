"""The trump-calling study: its numbers against plain recomputations, the same for any number
of workers, resumable without recomputing or double counting, and bad input refused."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import shengji as sj
from shengji import _bots
from shengji import study as st

DEALS = 2 * st.CHUNK + 700      # three chunks, the last one short


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    return out, st.trump_calling("bo3", deals=DEALS, seed=5, workers=2, out=out)


def metric(summary, name, group):
    return next(m for m in summary["metrics"] if m["name"] == name and m["group"] == group)


def test_summary_schema_and_counts(reference_run):
    out, summary = reference_run
    assert json.loads((out / "summary.json").read_text()) == summary
    assert {k: summary[k] for k in ("study", "rules", "deals", "seed")} == {
        "study": "trump-calling", "rules": "bo3", "deals": DEALS, "seed": 5}
    names = {(m["name"], m["group"]) for m in summary["metrics"]}
    assert {(n, "all") for n in st.DEAL_METRICS} <= names
    assert {(n, f"strategy={s}") for n in st.ROUND_METRICS for s in st.CALLING} <= names
    for m in summary["metrics"]:
        assert set(m) == {"name", "group", "value", "ci_low", "ci_high", "n"}
        if m["n"]:
            assert m["ci_low"] <= m["value"] <= m["ci_high"]
    assert metric(summary, "dealer_holds", "strategy=eager")["n"] == DEALS
    # bo3's first round is grabbed by declaring: even "never" declares rather than redeal
    assert metric(summary, "nobody_declares", "strategy=never")["value"] == 0


def test_deal_metrics_against_a_plain_count():
    values = st.deal_metrics(sj.Rules.preset("v3"), 3, 10, 40)
    for j, i in enumerate(range(10, 50)):
        hands, bottom = sj.deal(_bots.round_seed(3, i), 0, 0)
        hand = list(hands[0])
        level = [c for c in hand if c[:-1] == "2" and c not in ("SJ", "BJ")]
        assert values["hand_has_level_card"][j] == bool(level)
        assert values["hand_has_level_pair"][j] == any(level.count(c) == 2 for c in level)
        assert values["hand_has_joker_pair"][j] == (hand.count("SJ") == 2
                                                    or hand.count("BJ") == 2)
        assert values["hand_points_at_most_15"][j] == (sj.points(hands[0]) <= 15)
        assert values["bottom_points_mean"][j] == sj.points(bottom)


def test_round_metrics_against_simulate_rounds():
    summary = st.summarize(st.manifest_of(sj.Rules.preset("v3"), 300, 9),
                           [st.chunk_sums(sj.Rules.preset("v3"), 9, 0, 300)])
    frame = sj.simulate_rounds(300, "v3", bots=sj.Greedy(call="patient", patience=5), seed=9,
                               first_round=True)
    holds = metric(summary, "dealer_holds", "strategy=patient5")
    assert holds["value"] == pytest.approx(frame["dealer_holds"].mean())
    trumps = metric(summary, "declarer_trump_count_mean", "strategy=patient5")
    declared = frame[frame["declarer"].notna()]
    assert trumps["n"] == len(declared)
    assert trumps["value"] == pytest.approx(declared["declarer_trumps"].mean())


def test_same_numbers_for_any_worker_count(reference_run, tmp_path):
    _, summary = reference_run
    assert st.trump_calling("bo3", deals=DEALS, seed=5, workers=1, out=tmp_path) == summary


def test_resume_computes_only_what_is_missing(reference_run, tmp_path, monkeypatch):
    out, summary = reference_run
    for name in os.listdir(out):
        if name != "summary.json":
            os.system(f"cp -r {out / name} {tmp_path}")
    os.remove(tmp_path / "chunks" / f"{st.CHUNK:012d}.json")
    computed = []
    real = st.chunk_sums
    monkeypatch.setattr(st, "chunk_sums", lambda *a: computed.append(a[2]) or real(*a))
    assert st.trump_calling("bo3", deals=DEALS, seed=5, out=tmp_path, resume=True) == summary
    assert computed == [st.CHUNK]
    # the same study again: nothing is computed, the same summary comes back
    assert st.trump_calling("bo3", deals=DEALS, seed=5, out=tmp_path) == summary
    assert computed == [st.CHUNK]
    with pytest.raises(st.StudyError, match="nothing to resume"):
        st.trump_calling("bo3", deals=DEALS, seed=5, out=tmp_path / "empty", resume=True)


def test_bad_resume_and_bad_output(reference_run, tmp_path):
    out, _ = reference_run
    with pytest.raises(st.StudyError, match="another study"):
        st.trump_calling("bo3", deals=DEALS, seed=6, out=out, resume=True)
    (tmp_path / "manifest.json").write_text("not json")
    with pytest.raises(st.StudyError, match="not a study manifest"):
        st.trump_calling("v3", deals=10, out=tmp_path, resume=True)
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(st.StudyError, match="cannot write"):
        st.trump_calling("v3", deals=10, out=blocker / "sub")
    with pytest.raises(st.StudyError, match="positive"):
        st.trump_calling("v3", deals=0, out=tmp_path / "x")


def test_a_corrupt_chunk_is_named(reference_run, tmp_path):
    out, _ = reference_run
    os.system(f"cp -r {out}/manifest.json {out}/chunks {tmp_path}")
    (tmp_path / "chunks" / f"{0:012d}.json").write_text("{")
    with pytest.raises(st.StudyError, match="corrupt"):
        st.trump_calling("bo3", deals=DEALS, seed=5, out=tmp_path, resume=True)


@pytest.mark.parametrize("args,words", [
    (["--rules", "v4"], "unknown preset"),
    (["--deals", "0"], "positive"),
    (["--deals", "-3"], "positive"),
])
def test_cli_bad_input(args, words, tmp_path):
    run = subprocess.run([sys.executable, "-m", "shengji", "study", "trump-calling",
                          "--out", str(tmp_path / "o"), *args], capture_output=True, text=True)
    assert run.returncode == 2 and words in run.stderr
    assert not (tmp_path / "o" / "summary.json").exists()


def test_sigterm_keeps_the_finished_part_and_resume_completes(tmp_path):
    out = tmp_path / "o"
    deals = 12 * st.CHUNK
    cmd = [sys.executable, "-m", "shengji", "study", "trump-calling", "--deals", str(deals),
           "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    chunks = out / "chunks"
    deadline = time.time() + 120
    while time.time() < deadline and not (chunks.exists() and any(chunks.glob("*.json"))):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "interrupted" in err
    saved = sorted(chunks.glob("*.json"))
    assert 1 <= len(saved) < 12 and not list(chunks.glob("*.tmp"))
    before = {p: p.stat().st_mtime_ns for p in saved}
    assert not (out / "summary.json").exists()
    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    resumed = json.loads((out / "summary.json").read_text())
    assert metric(resumed, "dealer_holds", "strategy=eager")["n"] == deals
    assert {p: p.stat().st_mtime_ns for p in saved} == before     # not computed again
    whole = st.trump_calling("v3", deals=deals, seed=0, out=tmp_path / "whole")
    assert resumed == whole
