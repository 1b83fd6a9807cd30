"""The round viewer (sj.view, `shengji view`): the page's data says what the record says
(checked against the record with the core's plain functions), a whole match stays under 1 MB,
bad input is one ShengjiError and nothing written, and in a real headless Chromium the page
loads from its file with no console error and no network, shows the record's cards and steps
through every trick to the settlement. A record in a notebook (_repr_html_) is the same page in
a sandboxed iframe, which works there and leaves the notebook's page alone."""

import dataclasses
import html
import io
import json
import re
import subprocess
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import Browser, chromium, outside_references
from hypothesis import given
from hypothesis import strategies as st

import shengji as sj
from shengji.cli import main
from shengji.cli.render import print_costs
from shengji.play.page import DATA_MARK
from shengji.play.records import match_advance
from shengji.studies.plays import ROUND_COLUMNS

GOLDEN = Path(__file__).parent / "golden" / "record_v3_before_types.json"
PRESETS = ("v3", "match16", "bo3", "botzone")
KINDS = [*(f"{r}{s}" for s in "DCHS" for r in sj.RANK_NAMES.values()), "SJ", "BJ"]
MB = 1_000_000


def page_data(page: str) -> dict:
    """The data embedded in a page."""
    found = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert found and DATA_MARK not in page
    assert "<" not in found.group(1)
    return json.loads(found.group(1))


def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def check_round_data(r: dict, rec: sj.RoundRecord) -> None:
    """A round's page data against its record, each value recomputed plainly."""
    trump = rec.trump
    assert set(r["trumps"]) == {k for k in KINDS if sj.category(k, trump) == "T"}
    for seat, groups in enumerate(r["hands"]):
        cards = [c for _, *g in groups for c in g]
        assert sj.Cards(cards) == rec.hands[seat]
        # trumps first, then the suits; each card in its category's group, high to low
        cats = [g[0] for g in groups]
        assert cats == [c for c in "TSHCD" if c in cats]
        for cat, *g in groups:
            assert all(sj.category(c, trump) == cat for c in g)
            assert [sj.order(c, trump) for c in g] == sorted(
                (sj.order(c, trump) for c in g), reverse=True
            )
    defenders, taken = 1 - rec.dealer % 2, 0
    assert len(r["tricks"]) == len(rec.tricks)
    for t, shown in zip(rec.tricks, r["tricks"]):
        assert [sj.Cards(p) for p in shown["plays"]] == list(t.plays)
        assert (shown["leader"], shown["winner"], shown["points"]) == (t.leader, t.winner, t.points)
        taken += t.points if t.winner % 2 == defenders else 0
        assert shown["taken"] == taken
    assert taken == rec.trick_points
    assert sj.Cards(r["bottom"]) == rec.bottom
    assert [(b["seat"], sj.Cards(b["cards"])) for b in r["buries"]] == [
        (b.seat, b.cards) for b in rec.buries
    ]
    s = r["settlement"]
    assert (s["dealer_holds"], s["rise"]) == (rec.settlement.dealer_holds, rec.settlement.rise)
    assert r["defender_points"] == rec.defender_points
    assert len(r["events"]) == len(rec.events)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_round_page_shows_the_record(preset):
    rec = sj.play_round(preset, seed=5, bots=["expert", "random", "greedy", "random"])
    data = page_data(sj.render_html(rec))
    assert data["match"] is None and len(data["rounds"]) == 1
    check_round_data(data["rounds"][0], rec)


@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 2**64 - 1),
    bots=st.lists(st.sampled_from(["random", "greedy", "expert"]), min_size=4, max_size=4),
    first_round=st.booleans(),
)
def test_any_round_page_shows_its_record(preset, seed, bots, first_round):
    rec = sj.play_round(preset, seed=seed, bots=bots, dealer=seed % 4, first_round=first_round)
    check_round_data(page_data(sj.render_html(rec))["rounds"][0], rec)


def test_a_conditioned_round_says_how_it_was_dealt():
    rec = sj.play_round("bo3", seed=3, bots="greedy", predeal={1: "BJ BJ SJ"}, bottom="5H 5H")
    r = page_data(sj.render_html(rec.to_dict()))["rounds"][0]
    check_round_data(r, rec)
    assert "seat 1 was dealt BJ BJ SJ" in r["condition"] and "5H 5H" in r["condition"]
    assert page_data(sj.render_html(sj.play_round(seed=3)))["rounds"][0]["condition"] is None


@pytest.mark.parametrize("preset", PRESETS)
def test_a_match_page_shows_every_round(preset):
    match = sj.play_match(preset, seed=2, bots=["greedy", "random"] * 2)
    data = page_data(sj.render_html(json.loads(json.dumps(match.to_dict()))))
    assert len(data["rounds"]) == len(match.rounds)
    for r, rec in zip(data["rounds"], match.rounds):
        check_round_data(r, rec)
    names = [[sj.RANK_NAMES[v] for v in pair] for pair in match.levels]
    assert data["match"]["levels"] == names
    assert [r["settlement"]["after"] for r in data["rounds"]] == names
    assert (data["match"]["games"], data["match"]["winner"]) == (list(match.games), match.winner)
    # the rounds that won a game, as the match's own advance says
    won = [match_advance(match.rules, rec.levels, rec)[1] is not None for rec in match.rounds]
    assert [r["settlement"]["won"] for r in data["rounds"]] == won


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.slow
def test_a_whole_match_page_is_under_1_mb(preset):
    """The longest of 20 matches of greedy bots (45 to 65 rounds; the longest of 150 is 73)
    under half a megabyte: a match twice as long would still be under 1 MB."""
    longest = max(
        (sj.play_match(preset, seed=s, bots="greedy") for s in range(20)),
        key=lambda m: len(m.rounds),
    )
    size = len(sj.render_html(longest).encode("utf-8"))
    assert 2 * size < MB, (len(longest.rounds), size)


def annotated(rec: sj.RoundRecord) -> dict:
    """The record's data with made-up annotations of two plays (only the display is tested):
    the second seat's best play given as the play it made."""
    t = rec.tricks[2]
    return {
        **rec.to_dict(),
        "annotations": {
            "source": "test notes",
            "plays": [
                {
                    "trick": 2,
                    "seat": t.seats[1],
                    # halves at the last digit shown: Python's format and JS's toFixed round
                    # them apart (0.062 and 0.063; 3.2 and 3.3)
                    "levels": 0.0625,
                    "points": 3.25,
                    "best": str(t.plays[1]),
                },
                {"trick": 2, "seat": t.seats[0], "levels": 0, "points": 0, "best": None},
            ],
        },
    }


def test_annotations_reach_the_page():
    rec = sj.play_round("v3", seed=8, bots="greedy")
    r = page_data(sj.render_html(annotated(rec)))["rounds"][0]
    seats = rec.tricks[2].seats
    assert r["annotations"]["source"] == "test notes"
    best = r["annotations"]["plays"][2][seats[1]]
    assert best[:2] == [0.0625, 3.25] and sj.Cards(best[2]) == rec.tricks[2].plays[1]
    assert best[3:] == ["0.062", "3.2"]  # as shengji analyze round prints them
    assert r["annotations"]["plays"][2][seats[0]] == [0, 0, None, "0.000", "0.0"]
    assert sum(n is not None for trick in r["annotations"]["plays"] for n in trick) == 2


def test_the_page_shows_the_bottom_as_dealt_and_at_the_end():
    """A deal conditioned on its bottom: the page holds the bottom as dealt (the condition
    it met) beside the bottom at the end (the last bury)."""
    rec = sj.play_round("v3", seed=5, bots="expert", accept=sj.require("bottom: points >= 60"))
    r = page_data(sj.render_html(rec))["rounds"][0]
    dealt = sj.Cards(rec.deals[-1].split()[100:])
    assert sj.Cards(r["dealt_bottom"]) == dealt and sj.points(dealt) >= 60
    assert sj.Cards(r["bottom"]) == rec.bottom and r["bottom_points"] == rec.bottom_points


def damaged_rounds() -> dict:
    """Round records that must be refused, by what is wrong with them."""
    rec = sj.play_round("v3", seed=0, bots="greedy").to_dict()  # the dealer holds, rise 1
    swapped = json.loads(json.dumps(rec))
    plays = swapped["tricks"][3]["plays"]
    plays[1], plays[2] = plays[2], plays[1]
    newer = {**rec, "rules": {**rec["rules"], "jokers_high": True}}
    # the same cards and plays settled under other rises (§8): another rules version's record
    other = {**rec, "rules": {**rec["rules"], "dealer_rises": [[75, 4]]}}
    note = annotated(sj.RoundRecord.from_dict(rec))
    bad_notes = {}
    for key, value, words in (
        ("trick", 99, "trick of the round"),
        ("seat", 4, "seat 0..3"),
        ("levels", "a lot", "must be a finite number"),
        ("levels", -0.5, "is a cost"),
        ("best", "ZZ", "card text"),
        ("best", "BJ BJ SJ SJ", "is not a play seat"),
    ):
        broken = json.loads(json.dumps(note))
        broken["annotations"]["plays"][0][key] = value
        bad_notes[words] = broken
    twice = json.loads(json.dumps(note))
    twice["annotations"]["plays"][1] = twice["annotations"]["plays"][0]
    return {
        "not a round or match record": [1, 2],
        "neither tricks": {"hello": 1},
        "not a round record": {**rec, "tricks": "none"},
        "refused": swapped,
        "unknown Rules setting": newer,
        "replay: settlement.rise differs": other,
        "annotated twice": twice,
        **bad_notes,
    }


def damaged_matches() -> dict:
    """Match records that must be refused, by what is wrong with them."""
    match = sj.play_match("bo3", seed=1, bots=["greedy", "random"] * 2).to_dict()

    def changed(change) -> dict:
        copy = json.loads(json.dumps(match))
        change(copy)
        return copy

    return {
        "rounds[1].levels does not follow": changed(lambda m: m["rounds"][1].update(levels=[3, 3])),
        "rounds[2]: replay": changed(
            lambda m: m["rounds"][2]["tricks"][0].update(winner=(m["rounds"][2]["dealer"] + 1) % 4)
        ),
        "levels[0] differs": changed(lambda m: m["levels"].__setitem__(0, [14, 14])),
        "not over": changed(lambda m: (m["rounds"].pop(), m["levels"].pop())),
        "won before it": changed(
            lambda m: (m["rounds"].append(m["rounds"][0]), m["levels"].append(m["levels"][0]))
        ),
        "winner differs": changed(lambda m: m.update(winner=1 - m["winner"])),
        "rounds[0].seed does not follow": changed(lambda m: m["rounds"][0].update(seed=5)),
    }


@pytest.mark.parametrize("words,record", [*damaged_rounds().items(), *damaged_matches().items()])
def test_bad_input_is_one_error_and_nothing_written(tmp_path, words, record):
    out = tmp_path / "page.html"
    with pytest.raises(sj.ShengjiError, match=re.escape(words)):
        sj.view(record, out)
    assert not out.exists()


def test_a_page_that_cannot_be_written_is_one_error(tmp_path):
    rec = sj.play_round("v3", seed=1, bots="greedy")
    for out, why in [
        (tmp_path / "missing" / "x.html", "No such file or directory"),
        (tmp_path, "Is a directory"),
    ]:
        with pytest.raises(sj.ShengjiError) as error:
            sj.view(rec, out)
        assert str(error.value) == f"cannot write {out}: {why}"
    assert not (tmp_path / "missing").exists()


def test_the_command_writes_the_page_or_one_line(tmp_path, capsys):
    saved = tmp_path / "round.json"
    assert main(["demo", "--rules", "match16", "--seed", "2", "--save", str(saved)]) == 0
    capsys.readouterr()
    assert main(["view", str(saved)]) == 0
    assert capsys.readouterr().out == f"written: {tmp_path / 'round.html'}\n"
    data = page_data((tmp_path / "round.html").read_text(encoding="utf-8"))
    check_round_data(data["rounds"][0], sj.replay(json.loads(saved.read_text())))
    bad = tmp_path / "bad.json"
    bad.write_text('{"rounds": 3}')
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "view", str(bad), "-o", str(tmp_path / "bad.html")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "not a match record" in run.stderr
    for text, words in (("", "is empty"), ("[", "is not JSON"), ("{}", "neither tricks")):
        bad.write_text(text)
        with pytest.raises(SystemExit) as stop:
            main(["view", str(bad), "-o", str(tmp_path / "bad.html")])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "bad.html").exists()
    with pytest.raises(SystemExit):
        main(["view", str(saved), "-o", str(saved)])
    assert "would overwrite the record" in capsys.readouterr().err
    assert json.loads(saved.read_text())["seed"] == 2


def test_a_match_saved_by_the_demo_is_viewed(tmp_path, capsys):
    saved = tmp_path / "match.json"
    argv = [
        "demo",
        "--match",
        "--rules",
        "bo3",
        "--seed",
        "1",
        "--bots",
        "greedy,random,greedy,random",
    ]
    assert main([*argv, "--save", str(saved)]) == 0
    match = sj.play_match("bo3", seed=1, bots=["greedy", "random"] * 2)
    out = capsys.readouterr().out
    assert len(re.findall(r"^round +\d+ ", out, re.M)) == len(match.rounds)
    assert sj.replay_match(json.loads(saved.read_text())) == match
    assert main(["view", str(saved), "-o", str(tmp_path / "m.html")]) == 0
    data = page_data((tmp_path / "m.html").read_text(encoding="utf-8"))
    assert len(data["rounds"]) == len(match.rounds)


class Elements(HTMLParser):
    """The elements and the text outside them of an HTML fragment, its attributes unescaped."""

    def __init__(self, fragment: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.ends: list[str] = []
        self.text = ""
        self.feed(fragment)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self.ends.append(tag)

    def handle_data(self, data):
        self.text += data


def test_a_record_in_a_notebook_is_the_page_in_a_sandboxed_frame():
    """_repr_html_: one iframe whose srcdoc is the viewer's page, escaped so that no quote in
    the page (an odd bot name's included) ends the attribute; the page's script may run but
    not reach the notebook (sandbox="allow-scripts", no allow-same-origin)."""
    rec = sj.play_round("v3", seed=8, bots="greedy")
    odd = dataclasses.replace(
        rec, bots=['"></iframe><script>alert(1)</script>', "&quot;", "'", "x"]
    )
    match = sj.play_match("bo3", seed=1, bots=["greedy", "random"] * 2)
    for record in (rec, odd, match):
        framed = record._repr_html_()
        found = Elements(framed)
        assert [tag for tag, _ in found.tags] == ["iframe"] and found.ends == ["iframe"]
        assert found.text == "" and framed.startswith("<iframe ") and framed.endswith("</iframe>")
        attrs = found.tags[0][1]
        assert attrs["sandbox"] == "allow-scripts"
        page = attrs["srcdoc"]
        assert page == sj.render_html(record)
        # the attribute as written: its value holds no quote, and reads back as the page
        written = re.search(r' srcdoc="([^"]*)"', framed)
        assert written and html.unescape(written.group(1)) == page
        data = page_data(page)
        rounds = match.rounds if record is match else [record]
        assert len(data["rounds"]) == len(rounds)
        for r, played in zip(data["rounds"], rounds):
            check_round_data(r, played)
    assert page_data(Elements(odd._repr_html_()).tags[0][1]["srcdoc"])["rounds"][0]["bots"] == (
        odd.bots
    )


def test_the_page_needs_nothing_from_outside():
    """Inline style and script only: nothing the page would fetch (the browser test also
    watches for requests)."""
    assert outside_references(sj.render_html(golden())) == []


# -- In a headless Chromium


@pytest.fixture(scope="module")
def browser():
    with Browser(chromium()) as b:
        b.send("Network.enable")
        yield b


def shown_hands(b: Browser) -> list[Counter]:
    return [
        Counter(
            b.evaluate(
                f"[...document.querySelectorAll('[data-hand=\"{s}\"] .card')]"
                ".map(c => c.dataset.card)"
            )
        )
        for s in range(4)
    ]


def shown_plays(b: Browser) -> dict[int, Counter]:
    plays = b.evaluate(
        "[...document.querySelectorAll('#centre .play')].map(p => [Number(p.dataset.seat), "
        "[...p.querySelectorAll(':scope > .cards .card')].map(c => c.dataset.card), "
        "p.classList.contains('winner')])"
    )
    return {seat: (Counter(cards), won) for seat, cards, won in plays}


def requests(b: Browser) -> list[str]:
    return [
        e["params"]["request"]["url"]
        for e in b.events
        if e.get("method") == "Network.requestWillBeSent"
    ]


@pytest.mark.slow
def test_the_page_steps_through_every_trick(browser, tmp_path):
    """The golden round: the hands as recorded, each trick's plays and winner as the arrow
    key reaches it, the hands less what was played, then the settlement."""
    rec = sj.replay(golden())
    page = sj.view(golden(), tmp_path / "round.html")
    browser.open(page)
    assert all(url.startswith("file://") for url in requests(browser)), requests(browser)
    assert shown_hands(browser) == [Counter(h) for h in rec.hands]
    assert browser.evaluate("document.getElementById('where').textContent") == "start"
    hands = [Counter(h) for h in rec.hands]
    for k, t in enumerate(rec.tricks, 1):
        browser.press("ArrowRight")
        assert browser.evaluate("document.getElementById('where').textContent") == (
            f"trick {k} / {len(rec.tricks)}"
        )
        assert shown_plays(browser) == {
            seat: (Counter(play), seat == t.winner) for seat, play in zip(t.seats, t.plays)
        }
        for seat, play in zip(t.seats, t.plays):
            hands[seat] -= Counter(play)
        assert shown_hands(browser) == hands
        taken = browser.evaluate("document.getElementById('points').textContent")
        assert taken.endswith(f"so far: {sum(x.points for x in rec.tricks[:k] if x.winner % 2)}")
    browser.press("ArrowRight")
    settled = browser.evaluate("document.getElementById('settlement').textContent")
    assert f"{rec.defender_points} points" in settled and f"rise {rec.settlement.rise}" in settled
    assert (
        "dealer's team holds" in settled if rec.settlement.dealer_holds else "take over" in settled
    )
    browser.press("ArrowRight")  # the last step stays
    assert browser.evaluate("document.getElementById('where').textContent") == "settlement"
    browser.press("Home")
    assert browser.evaluate("document.getElementById('where').textContent") == "start"
    browser.evaluate("document.getElementById('last').click()")
    assert browser.evaluate("document.getElementById('where').textContent") == "settlement"
    browser.evaluate("document.getElementById('prev').click()")
    assert browser.evaluate("location.hash") == f"#step={len(rec.tricks)}"
    assert browser.errors() == []


@pytest.mark.slow
def test_a_match_page_goes_round_by_round(browser, tmp_path):
    match = sj.play_match("match16", seed=2, bots="greedy")
    page = sj.view(match, tmp_path / "match.html")
    browser.open(page, "round=2&step=3")
    assert browser.evaluate("document.querySelectorAll('#round option').length") == len(
        match.rounds
    )
    assert browser.evaluate("[round, step]") == [1, 3]
    assert shown_plays(browser)[match.rounds[1].tricks[2].winner][1]
    browser.press("ArrowUp")
    for i, rec in enumerate(match.rounds):
        if i:
            browser.press("ArrowDown")
        assert browser.evaluate("[round, step]") == [i, 0]
        assert shown_hands(browser) == [Counter(h) for h in rec.hands]
        browser.press("End")
        settled = browser.evaluate("document.getElementById('settlement').textContent")
        after = [sj.RANK_NAMES[v] for v in match.levels[i]]
        assert f"team 0+2 {sj.RANK_NAMES[rec.levels[0]]} → {after[0]}" in settled
    assert browser.errors() == []


def test_annotations_and_odd_text_show_in_the_browser(browser, tmp_path):
    rec = sj.play_round("v3", seed=8, bots="greedy")
    data = annotated(rec)
    data["bots"] = ["</script><b>x</b>", "greedy", "greedy", "greedy"]
    page = sj.view(data, tmp_path / "notes.html")
    browser.open(page, "step=3")
    t = rec.tricks[2]
    notes = browser.evaluate(
        f"[...document.querySelectorAll('#centre .p{t.seats[1]} .note')].map(n => n.textContent)"
    )
    # as shengji analyze round prints the cost (print_costs), and the trick table its levels
    assert notes[0] == "cost 0.062 levels, 3.2 points"
    pd = pytest.importorskip("pandas")  # the study extra: analyze round's table
    printed = io.StringIO()
    print_costs(
        pd.DataFrame(
            [[2, t.seats[1], str(t.plays[1]), None, 0.0625, None, None, 3.25, 2, 2]],
            columns=list(ROUND_COLUMNS),
        ),
        "",
        printed,
    )
    assert printed.getvalue().splitlines()[3].split()[-3:-1] == ["0.062", "3.2"]
    row = browser.evaluate("document.querySelectorAll('#tricks tr')[3].textContent")
    assert row.endswith("0.062")
    assert notes[1].startswith("best: ")
    best = f"#centre .p{t.seats[1]} .note .card"
    shown = browser.evaluate(f"[...document.querySelectorAll('{best}')].map(c => c.dataset.card)")
    assert sj.Cards(shown) == t.plays[1]
    assert "</script><b>x</b>" in browser.evaluate(
        "document.querySelector('.seat.south').textContent"
    )
    assert browser.evaluate("document.querySelectorAll('.seat b').length") == 0
    assert browser.errors() == []


NOTEBOOK = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>body {{ background: rgb(1, 2, 3); }}</style></head>
<body><div class="output">{output}</div><p id="after">the next cell</p></body></html>"""


def test_a_record_in_a_notebook_works_in_its_frame(browser, tmp_path):
    """The notebook form in a page standing for a notebook: the page's style stays in its
    frame, and inside it the page loads, steps on and keeps its position in its own address
    (an srcdoc frame's, which a bare "#step=..." would not be: the history refuses it)."""
    rec = sj.replay(golden())
    notebook = tmp_path / "notebook.html"
    notebook.write_text(NOTEBOOK.format(output=rec._repr_html_()), encoding="utf-8")
    browser.open(notebook)
    assert browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(1, 2, 3)"
    assert browser.evaluate("document.querySelectorAll('.card, #where').length") == 0
    assert browser.evaluate("document.getElementById('after').getBoundingClientRect().top") > 600
    with browser.in_frame():
        deadline = time.monotonic() + 10
        while browser.evaluate("document.readyState") != "complete":
            assert time.monotonic() < deadline, "the frame did not load"
            time.sleep(0.01)
        assert browser.evaluate("location.href") == "about:srcdoc#step=0"
        assert browser.evaluate("document.getElementById('where').textContent") == "start"
        assert shown_hands(browser) == [Counter(h) for h in rec.hands]
        browser.evaluate("document.getElementById('next').click()")
        assert browser.evaluate("document.getElementById('where').textContent") == (
            f"trick 1 / {len(rec.tricks)}"
        )
        t = rec.tricks[0]
        assert shown_plays(browser) == {
            seat: (Counter(play), seat == t.winner) for seat, play in zip(t.seats, t.plays)
        }
        assert browser.evaluate("location.href") == "about:srcdoc#step=1"
        # sandboxed: the page's script cannot reach the notebook's document
        assert (
            browser.evaluate(
                "(() => { try { parent.document; return 'reached' } catch (e) { return e.name } })()"
            )
            == "SecurityError"
        )
    assert browser.evaluate("location.hash") == ""
    assert browser.errors() == []


def test_a_seed_beyond_2_53_is_shown_exactly_and_a_path_is_a_record(tmp_path):
    """The page's script reads numbers as doubles: seeds go as text."""
    rec = sj.play_round("v3", seed=2**62 + 12345, bots="greedy")
    saved = tmp_path / "r.json"
    saved.write_text(json.dumps(rec.to_dict()))
    page = sj.view(str(saved), tmp_path / "r.html").read_text()
    assert f'"seed": "{2**62 + 12345}"' in page or f'"seed":"{2**62 + 12345}"' in page
