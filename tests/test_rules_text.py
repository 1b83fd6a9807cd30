"""Rules in text form (issue 43): a preset's name and the settings that differ from it,
`v3:throw_penalty=20`, read wherever a preset's name is, written back by Rules.text(), kept
by records, manifests and the viewer's header."""

import json
import re

import pytest
from bots import PassiveBot
from browser import Browser, chromium
from hypothesis import given
from strategies import rules

import shengji as sj
from shengji.cli import main
from shengji.round.rules import PRESETS, SETTING_KINDS

V3, MATCH16, BO3 = (sj.Rules.preset(n) for n in ("v3", "match16", "bo3"))
VARIANT = "v3:throw_penalty=20"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_is_its_name(name):
    preset = sj.Rules.preset(name)
    assert preset.text() == str(preset) == name
    assert sj.Rules.from_text(name) is preset and sj.Rules.of(f" {name} ") is preset


@given(rules())
def test_every_rules_reads_back_from_its_text(r):
    text = r.text()
    assert sj.Rules.from_text(text) == r and sj.Rules.of(text) == r
    assert str(r) == text and text.partition(":")[0] in PRESETS
    if r.name in PRESETS:  # a variant names its own preset, then only what differs from it
        assert text.partition(":")[0] == r.name
        assert text.count("=") == sum(
            getattr(r, k) != getattr(PRESETS[r.name], k) for k in SETTING_KINDS
        )


@pytest.mark.parametrize(
    "text,rules",
    [
        (VARIANT, V3.replace(throw_penalty=20)),
        ("v3:throw_penalty=20,step=20", V3.replace(throw_penalty=20, step=20)),
        ("v3:step=20:throw_penalty=20", V3.replace(throw_penalty=20, step=20)),  # as bot texts
        (" bo3 : series = 1 , rise_cap = NONE ", BO3.replace(series=1, rise_cap=None)),
        (
            "match16:steal_bottom=TRUE,revolution_points=none",
            MATCH16.replace(steal_bottom=True, revolution_points=None),
        ),
        ("v3:must_play=10/K/A", V3.replace(must_play=(10, 13, 14))),
        ("v3:must_play=10/13/14", V3.replace(must_play=(10, 13, 14))),
        ("v3:must_play=none", V3.replace(must_play=())),
        ("bo3:must_play=2/a", BO3.replace(must_play=(2, 14))),
        ("v3:dealer_rises=0+5/35+3/75+1", V3.replace(dealer_rises=((0, 5), (35, 3), (75, 1)))),
        ("match16:dealer_rises=none", MATCH16.replace(dealer_rises=None)),
        (
            "v3:multiplier_from=winner,forfeit_by=levels",
            V3.replace(multiplier_from="winner", forfeit_by="levels"),
        ),
        ("v3:name=house,step=20", V3.replace(name="house", step=20)),
    ],
)
def test_a_text_reads_as_replace_would_make_it(text, rules):
    assert sj.Rules.from_text(text) == rules
    assert sj.Rules.from_text(rules.text()) == rules


def test_the_text_writes_only_what_differs_in_field_order():
    assert V3.replace(throw_penalty=20).text() == VARIANT
    assert V3.replace(throw_penalty=20, must_play=(10, 13, 14), rise_cap=None).text() == (
        "v3:must_play=10/K/A,throw_penalty=20"
    )
    assert MATCH16.replace(must_play=(), revolution_points=None, reinforce=False).text() == (
        "match16:must_play=none,reinforce=false,revolution_points=none"
    )
    assert V3.replace(dealer_rises=((0, 5), (75, 1))).text() == "v3:dealer_rises=0+5/75+1"


def test_rules_of_another_name_print_the_nearest_preset():
    house = sj.Rules(name="house", step=20)  # v3's settings but the step
    assert house.text() == "v3:name=house,step=20"
    like_bo3 = BO3.replace(name="club", throw_penalty=30)
    assert like_bo3.text() == "bo3:name=club,throw_penalty=30"
    assert sj.Rules.from_text(like_bo3.text()) == like_bo3


KNOWN = "rules take name, step, dealer_rises, rise_cap, must_play, multiplier_cap"
BAD = [
    ("v4", r"^unknown preset 'v4': choose one of v3, match16, bo3, botzone \(settings after a "),
    (
        "v4:step=20",
        r"^unknown preset 'v4' in 'v4:step=20': choose one of v3, match16, bo3, botzone",
    ),
    (":step=20", r"^unknown preset '' in ':step=20'"),
    (
        "v3:penalty=20",
        rf"^rules 'v3:penalty=20': unknown setting 'penalty'; {KNOWN}, .*forfeit_by$",
    ),
    ("v3:step=x", r"^rules 'v3:step=x': step must be an integer, got 'x'$"),
    ("v3:step=20.0", r"step must be an integer, got '20.0'"),
    ("v3:rise_cap=x", r"^rules 'v3:rise_cap=x': rise_cap must be an integer or none, got 'x'$"),
    ("v3:step=none", r"step must be an integer, got 'none'"),
    ("v3:reinforce=yes", r"^rules 'v3:reinforce=yes': reinforce must be true or false, got 'yes'"),
    ("v3:must_play=2/B", r"must_play must be levels 2..10, J, Q, K, A joined by / \(10/K/A\)"),
    ("v3:must_play=15", r"must_play must be levels"),
    ("v3:dealer_rises=0-5", r"dealer_rises must be rows points\+levels joined by /"),
    ("v3:step=20,step=40", r"^rules 'v3:step=20,step=40': step is set twice$"),
    ("v3:step", r"^rules 'v3:step': 'step' is not key=value$"),
    ("v3:step=", r"'step=' is not key=value"),
    ("v3:", r"^rules 'v3:': '' is not key=value$"),
    ("v3:step=20,", r"'' is not key=value"),
    # values Rules itself refuses, in its words
    ("v3:step=30", r"^rules 'v3:step=30': Rules.step must be 10, 20 or 40 \(seed 002 §3\), got 30"),
    ("v3:throw_penalty=-10", r"^rules 'v3:throw_penalty=-10': Rules.throw_penalty must be"),
    (
        "v3:overturn=twice",
        r"Rules.overturn must be one of 'ranked', 'once', 'once_any', got 'twice'",
    ),
    ("v3:takeover_rise=2", r"Rules.takeover_rise"),
    ("v3:tricks=judge", r"Rules.tricks must be one of 'texts', 'botzone', got 'judge'"),
    ("v3:multiplier_rule=x", r"Rules.multiplier_rule must be one of 'doubling', 'botzone'"),
    ("v3:overturn=once_any", r"reinforce must be false"),
    ("v3:series=2", r"Rules.series must be 1, 3 or 5 games, got 2"),
    ("v3:dealer_rises=0+5/35+3", r"Rules.dealer_rises must be 1 to 4 rows .* ending at 75"),
    ("v3:multiplier_cap=6", r"Rules.multiplier_cap must be None or a power of two"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_each_bad_part_is_one_rules_error_naming_it(text, message):
    with pytest.raises(sj.RulesError, match=message):
        sj.Rules.from_text(text)
    with pytest.raises(sj.RulesError, match=message):
        sj.play_round(text)


@pytest.mark.parametrize("value", [None, 3, b"v3", ["v3"]])
def test_rules_of_neither_text_nor_rules(value):
    with pytest.raises(
        sj.RulesError, match="^rules must be a preset name or a shengji.Rules .or a variant's text"
    ):
        sj.Rules.of(value)
    with pytest.raises(sj.RulesError, match="rules' text must be a string"):
        sj.Rules.from_text(value)


@pytest.mark.parametrize("name", ["a,b", "a:b", " house", "house ", ""])
def test_a_name_the_text_cannot_hold_is_refused(name):
    with pytest.raises(sj.RulesError, match="Rules.name must be a non-empty string without"):
        sj.Rules(name=name)


def test_every_entry_that_takes_a_preset_takes_a_variant(tmp_path):
    variant = V3.replace(throw_penalty=20)
    rec = sj.play_round(VARIANT, seed=2)
    assert rec.rules == variant
    assert sj.play_match("bo3:series=1", seed=1, bots="greedy").rules == BO3.replace(series=1)
    assert sj.simulate_rounds(3, VARIANT, seed=1).equals(sj.simulate_rounds(3, variant, seed=1))
    duel = sj.duel("random", "greedy", deals=2, rules=VARIANT, workers=1)
    assert duel.summary["rules"] == VARIANT
    from shengji.envs.aec import env
    from shengji.envs.vector import VecEnv

    e = env()
    e.reset(seed=0, options={"rules": VARIANT})
    assert e.rules == variant and VecEnv(2, rules=VARIANT).rules == variant


def test_a_record_keeps_its_variant_through_json_and_replay():
    rec = sj.play_round(V3.replace(throw_penalty=20, steal_bottom=False), seed=5, bots="greedy")
    data = json.loads(json.dumps(rec.to_dict()))
    again = sj.RoundRecord.from_dict(data)
    assert again.rules.text() == "v3:throw_penalty=20,steal_bottom=false"
    assert sj.replay(data) == rec
    # a record may hold its rules as text, and an old record's dict still loads
    assert sj.replay({**data, "rules": rec.rules.text()}) == rec
    assert sj.RoundRecord.from_dict({**data, "rules": "v3"}).rules == V3
    match = sj.play_match(BO3.replace(series=1), seed=1, bots="greedy")
    assert sj.replay_match(json.loads(json.dumps(match.to_dict()))).rules == match.rules
    with pytest.raises(sj.ShengjiError, match=r"rules: rules 'v3:step=30': Rules.step must"):
        sj.RoundRecord.from_dict({**data, "rules": "v3:step=30"})


def page_rules(page):
    data = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(data.group(1))


@pytest.mark.slow
def test_the_viewer_header_names_the_variant(tmp_path):
    rec = sj.play_round(VARIANT, seed=2)
    assert page_rules(sj.render_html(rec))["rounds"][0]["rules"] == VARIANT
    assert page_rules(sj.render_html(sj.play_round("v3", seed=2)))["rounds"][0]["rules"] == "v3"
    match = sj.play_match("bo3:series=1", seed=1, bots="greedy")
    data = page_rules(sj.render_html(match))
    assert data["match"]["rules"] == "bo3:series=1"
    assert {r["rules"] for r in data["rounds"]} == {"bo3:series=1"}
    with Browser(chromium()) as b:
        b.open(sj.view(rec, tmp_path / "round.html"))
        title = b.evaluate("document.getElementById('title').textContent")
    assert title == f"rules {VARIANT}, seed 2"


def test_the_command_line_takes_a_variant(capsys, tmp_path):
    saved = tmp_path / "round.json"
    assert main(["demo", "--rules", VARIANT, "--seed", "4", "--save", str(saved)]) == 0
    rec = sj.RoundRecord.from_dict(json.loads(saved.read_text()))
    assert rec.rules == V3.replace(throw_penalty=20)
    assert main(["replay", str(saved)]) == 0
    capsys.readouterr()
    assert main(["simulate", "--rounds", "2", "--rules", "bo3:step=40", "--seed", "1"]) == 0
    assert "rules bo3:step=40" in capsys.readouterr().out


def test_a_manifest_names_the_variant(tmp_path):
    duel = sj.duel("random", "random", deals=2, rules=VARIANT, workers=1, out=tmp_path / "d")
    assert duel.summary["rules"] == VARIANT
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["rules"] == VARIANT
    assert sj.Rules.from_dict(manifest["settings"]) == V3.replace(throw_penalty=20)
    ladder = sj.ladder(["random", "greedy"], deals=2, rules=VARIANT, workers=1, out=tmp_path / "l")
    assert ladder.rules == VARIANT and VARIANT in ladder.table()
    saved = json.loads((tmp_path / "l" / "ladder.json").read_text())
    assert saved["manifest"]["rules"] == saved["ladder"]["rules"] == VARIANT
    # a preset's manifest is as before: the digest of every existing study stays the same
    preset = sj.duel("random", "random", deals=2, rules=V3, workers=1)
    assert preset.summary["rules"] == "v3"


class NotInHand(PassiveBot):
    def play(self, view):
        if view.lead is None:
            return next(sj.kind_name(k) for k in range(54) if sj.kind_name(k) not in view.hand)
        return super().play(view)


def test_check_bot_reproduces_a_round_of_a_variant():
    with pytest.raises(sj.ShengjiError) as info:
        sj.testing.check_bot(NotInHand(), VARIANT, rounds=2)
    call = re.search(r"reproduce with (sj\.play_round\(.*\))$", str(info.value)).group(1)
    assert call.startswith(f"sj.play_round({VARIANT!r}, ")
    with pytest.raises(sj.IllegalAction, match="seat 0, play: .*card not in hand"):
        eval(call, {"sj": sj, "bot": NotInHand()})


def test_preset_points_a_variant_to_rules_of():
    with pytest.raises(
        sj.RulesError, match=r"choose one of v3, match16, bo3, botzone \(a variant's "
    ):
        sj.Rules.preset("v3:throw_penalty=20")
    assert sj.Rules.of("v3:throw_penalty=20").throw_penalty == 20
