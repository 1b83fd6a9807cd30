"""One error contract (shengji.errors): every bad input to a public entry raises a ShengjiError,
a ValueError, whose message names the argument; a broken invariant inside the engine is an
EngineError, which is neither."""

import pathlib
import re

import numpy as np
import pytest

import shengji as sj
from shengji.bots import bot_from_text, bot_text
from shengji.core import validate

T = sj.Trump(7, "S")
HANDS, BOTTOM = sj.deal(0)
TAKEN_UP = HANDS[0] + BOTTOM  # the dealer's 33 cards at the bury
SOURCE = pathlib.Path(sj.__file__).parent
SEAT_5 = re.escape("dealer (a seat) must be an integer from 0 to 3, got 5")


def record_with(**changes):
    return {**sj.play_round(seed=3).to_dict(), **changes}


# (the call, a pattern its message must match: the argument's name and what it must be)
BAD = {
    "play_round dealer": (lambda: sj.play_round(dealer=5), SEAT_5),
    "play_round seed": (lambda: sj.play_round(seed=-1), r"^seed must be an integer from 0"),
    "play_round seed float": (lambda: sj.play_round(seed=1.5), r"^seed must be an integer"),
    "play_round levels": (lambda: sj.play_round(levels=(2, 15)), r"^levels\[1\] must be"),
    "play_round first_round": (
        lambda: sj.play_round(first_round="yes"),
        r"^first_round must be True or False, got 'yes'",
    ),
    "play_round rules": (lambda: sj.play_round("nope"), r"unknown preset 'nope'"),
    "play_round bots": (lambda: sj.play_round(bots="deep"), r"seat 0: unknown bot 'deep'"),
    "play_round bot text": (
        lambda: sj.play_round(bots="greedy:patience=x"),
        r"patience must be an integer, got 'x'",
    ),
    "play_round predeal seat": (
        lambda: sj.play_round(predeal={5: "AS"}),
        r"^a predeal seat must be an integer from 0 to 3",
    ),
    "play_match seed": (lambda: sj.play_match(seed=-1), r"^seed must be"),
    "play_match max_rounds": (lambda: sj.play_match(max_rounds=1.5), r"^max_rounds must be"),
    "simulate_rounds n": (lambda: sj.simulate_rounds(1.5), r"^n \(rounds\) must be"),
    "simulate_rounds workers": (lambda: sj.simulate_rounds(4, workers=0), r"^workers must be"),
    "simulate_rounds dealer": (lambda: sj.simulate_rounds(4, dealer=5), SEAT_5),
    "simulate_rounds first_round": (
        lambda: sj.simulate_rounds(4, first_round="yes"),
        r"^first_round must be True or False",
    ),
    "simulate_rounds seed": (lambda: sj.simulate_rounds(4, seed=-1), r"^seed must be"),
    "deal dealer": (lambda: sj.deal(1, dealer=5), SEAT_5),
    "deal seed": (lambda: sj.deal(-1), r"^seed must be an integer from 0 to 2\*\*64 - 1"),
    "deal index": (lambda: sj.deal(1, index=1.0), r"^index must be an integer from 0 to 2\*\*64"),
    "deal bottom": (lambda: sj.deal(1, bottom="ZZ"), r"^bottom: cannot read card 'ZZ'"),
    "deal predeal": (
        lambda: sj.deal(1, predeal={0: "BJ BJ", 1: "BJ"}),
        r"BJ is fixed 3 times: the pack holds 2",
    ),
    "deal accept": (lambda: sj.deal(1, accept=3), r"^accept must be a function"),
    "decks dealer": (lambda: sj.decks(1, dealer=5), SEAT_5),
    "decks count": (lambda: sj.decks(1, count=1.5), r"^count must be an integer"),
    "decks negative count": (lambda: sj.decks(1, count=-1), r"^count must be an integer"),
    "decks start": (lambda: sj.decks(1, start=-1), r"^start must be an integer from 0"),
    "decks predeal": (lambda: sj.decks(1, predeal=[1]), r"^predeal must be a dict"),
    "round_seed seed": (lambda: sj.round_seed(-1, 0), r"^seed must be an integer from 0"),
    "round_seed index": (lambda: sj.round_seed(0, 1.5), r"^index must be an integer from 0"),
    "duel deals": (lambda: sj.duel("greedy", "random", deals=1.5), r"^deals must be"),
    "duel first_round": (
        lambda: sj.duel("greedy", "random", deals=8, first_round="yes"),
        r"^first_round must be True or False",
    ),
    "duel bot": (lambda: sj.duel("deep", "random", deals=8), r"^bot a: unknown bot 'deep'"),
    "duel levels": (
        lambda: sj.duel("greedy", "random", deals=8, levels=(1, 2)),
        r"^levels\[0\] must be",
    ),
    "duel workers": (lambda: sj.duel("greedy", "random", deals=8, workers=0), r"^workers must be"),
    "duel deals and matches": (
        lambda: sj.duel("greedy", "random", deals=8, matches=2),
        r"^deals and matches exclude each other",
    ),
    "analyze_bury worlds": (lambda: sj.analyze_bury(TAKEN_UP, T, worlds=0), r"^worlds must be"),
    "analyze_bury seed": (lambda: sj.analyze_bury(TAKEN_UP, T, seed=-1), r"^seed must be"),
    "analyze_bury hand": (lambda: sj.analyze_bury(HANDS[0], T), r"^the hand must hold 33"),
    "analyze_trump level": (lambda: sj.analyze_trump(HANDS[0], 15), r"^unknown level 15"),
    "analyze_trump worlds": (lambda: sj.analyze_trump(HANDS[0], 7, worlds=1.5), r"^worlds must be"),
    "replay not a record": (lambda: sj.replay(3), r"^replay takes a RoundRecord"),
    "replay seed": (lambda: sj.replay(record_with(seed=-1)), r"seed must be an integer from 0"),
    "replay first_round": (
        lambda: sj.replay(record_with(first_round="yes")),
        r"first_round must be True or False",
    ),
    "replay first_drawer": (
        lambda: sj.replay(record_with(first_drawer=5)),
        r"first_drawer \(a seat\) must be an integer from 0 to 3",
    ),
    "RoundRecord.from_dict rules": (
        lambda: sj.RoundRecord.from_dict(record_with(rules="x")),
        r"rules: unknown preset 'x'",
    ),
    "Rules step": (lambda: sj.Rules(step=7), r"^Rules.step must be 10, 20 or 40"),
    "Rules flag": (lambda: sj.Rules(reinforce="yes"), r"^Rules.reinforce must be True or False"),
    "Rules rise_cap": (lambda: sj.Rules(rise_cap=99), r"^Rules.rise_cap must be None or"),
    "Rules.preset": (lambda: sj.Rules.preset("nope"), r"^unknown preset 'nope': choose one"),
    "Rules.of": (lambda: sj.Rules.of(3), r"^rules must be a preset name or a shengji.Rules"),
    "Rules.replace": (lambda: sj.Rules().replace(bogus=1), r"^unknown Rules setting\(s\): bogus"),
    "Rules.from_dict": (lambda: sj.Rules.from_dict({"bogus": 1}), r"unknown Rules setting"),
    "Rules.settle": (lambda: sj.Rules().settle(7), r"^defenders' points must be a multiple of 5"),
    "Rules.advance": (lambda: sj.Rules().advance(15, 1, True), r"^level must be"),
    "Rules.next_dealer": (lambda: sj.Rules().next_dealer(5, True), SEAT_5),
    "Greedy patience": (lambda: sj.Greedy(patience=0), r"^Greedy.patience must be"),
    "Greedy revolt": (lambda: sj.Greedy(revolt="yes"), r"^Greedy.revolt must be True or False"),
    "Greedy call": (lambda: sj.Greedy(call="x"), r"^Greedy.call must be one of"),
    "Pimc rollouts": (lambda: sj.Pimc(rollouts=0), r"^Pimc.rollouts must be"),
    "Pimc seed": (lambda: sj.Pimc(seed=-1), r"^Pimc.seed must be an integer from 0"),
    "Pimc greedy": (lambda: sj.Pimc(greedy="x"), r"^Pimc.greedy must be a shengji.Greedy"),
    "Learned path": (lambda: sj.Learned(3), r"^Learned.path must be a checkpoint's path"),
    "Learned missing file": (
        lambda: sj.Learned("no/such/file.npz"),
        r"^checkpoint .*no/such/file.npz: no such file",
    ),
    "bot text name": (lambda: bot_from_text("deep"), r"^unknown bot 'deep'"),
    "bot text setting": (lambda: bot_from_text("greedy:depth=3"), r"unknown setting 'depth'"),
    "bot text flag": (
        lambda: bot_from_text("greedy:revolt=maybe"),
        r"revolt must be true or false, got 'maybe'",
    ),
    "bot text form": (lambda: bot_text(3), r"^a int has no text form"),
    "Trump level": (lambda: sj.Trump(15, "S"), r"^unknown level 15"),
    "Trump suit": (lambda: sj.Trump(7, "X"), r"^unknown trump suit 'X'"),
    "Cards": (lambda: sj.Cards("ZZ"), r"^cannot read card 'ZZ'"),
    "Cards third copy": (lambda: sj.Cards("AS AS AS"), r"^a third copy of AS"),
    "parse_cards": (lambda: sj.parse_cards("ZZ"), r"^cannot read card 'ZZ'"),
    "kind_name": (lambda: sj.kind_name(54), r"^no card kind has index 54"),
    "points": (lambda: sj.points("ZZ"), r"^cannot read card 'ZZ'"),
    "Pimc.sharp setting": (
        lambda: sj.Pimc.sharp(depth=3),
        r"^Pimc.sharp: unknown setting 'depth'; a Pimc takes rollouts, ",
    ),
    "points of a number": (lambda: sj.points(5), r"^expected cards \(card text, Cards or an"),
    "legal_follows of a trump's bad text": (
        lambda: sj.legal_follows("AH", "KH", "S"),
        r"^cannot read trump 'S': unknown level ''",
    ),
    "legal_follows of an int trump": (
        lambda: sj.legal_follows("AH", "KH", 7),
        r"^expected a shengji.Trump \(sj.Trump\(level, suit\)\) or its text \(2S, 2NT\), got int 7",
    ),
    "Rules text setting": (
        lambda: sj.Rules.from_text("v3:penalty=20"),
        r"^rules 'v3:penalty=20': unknown setting 'penalty'; rules take name, step, ",
    ),
    "to_masks": (lambda: sj.to_masks(["ZZ"]), r"^cannot read card 'ZZ'"),
    "legal_follows lead": (
        lambda: sj.legal_follows("AH KH", "AH 2S", T),
        r"the lead mixes categories",
    ),
    "legal_follows hand": (
        lambda: sj.legal_follows(" ".join(sj.kind_name(k) for k in range(26)), "AH", T),
        r"a hand holds more than 25",
    ),
    "legal_leads cap": (lambda: sj.legal_leads("AH", T, cap=0), r"^cap must be a positive"),
    "trick_winner": (lambda: sj.trick_winner(["AH", "KH KH"], T), r"plays of a trick differ"),
    "decompose": (lambda: sj.decompose("AH 2S", T), r"the lead mixes categories"),
    "batch_follow_codes": (
        lambda: sj.batch_follow_codes(
            np.zeros((2, 2), np.uint64), np.zeros((3, 2), np.uint64), np.zeros((2, 2), np.uint64), T
        ),
        r"^leads must have shape \(2, 2\)",
    ),
    "batch_legal_leads": (
        lambda: sj.batch_legal_leads(np.zeros((2, 3), np.uint64), T),
        r"^hands must have shape",
    ),
    "check_bot seats": (
        lambda: sj.testing.check_bot(object(), seats=[5]),
        r"^seats\[i\] \(a seat\) must be an integer from 0 to 3",
    ),
    "check_bot built-in": (
        lambda: sj.testing.check_bot("greedy"),
        r"^check_bot checks a Python bot",
    ),
}


@pytest.mark.parametrize("call, message", BAD.values(), ids=BAD.keys())
def test_bad_input_is_a_shengji_error_naming_the_argument(call, message):
    with pytest.raises(sj.ShengjiError) as caught:
        call()
    assert isinstance(caught.value, ValueError)
    assert re.search(message, str(caught.value)), str(caught.value)


def env_cases():
    """The environments' bad inputs (pip install 'shengji[rl]'): built when they import."""
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    from shengji.envs.aec import env
    from shengji.envs.vector import VecEnv

    return {
        "aec dealer": (lambda: env().reset(options={"dealer": 5}), SEAT_5),
        "aec seed": (lambda: env().reset(seed=-1), r"^seed must be"),
        "aec levels": (lambda: env().reset(options={"levels": (2, 2, 2)}), r"^levels must be"),
        "aec first_round": (
            lambda: env().reset(options={"first_round": "yes"}),
            r"^first_round must be True or False, got 'yes'",
        ),
        "aec rules": (lambda: env().reset(options={"rules": "nope"}), r"unknown preset 'nope'"),
        "VecEnv num_envs": (lambda: VecEnv(0), r"^num_envs must be"),
        "VecEnv max_actions": (lambda: VecEnv(2, max_actions=1.5), r"^max_actions must be"),
        "VecEnv first_round": (
            lambda: VecEnv(2, first_round="yes"),
            r"^first_round must be True or False",
        ),
        "VecEnv plays_only": (
            lambda: VecEnv(2, plays_only=1),
            r"^plays_only must be True, False or a built-in bot .*, got 1",
        ),
        "VecEnv plays_only search": (
            lambda: VecEnv(2, plays_only="search"),
            r"^plays_only: 'search' does not show and bury natively",
        ),
        "VecEnv opponents": (
            lambda: VecEnv(2, opponents={5: "greedy"}),
            r"^an opponent's seat must be an integer from 0 to 3",
        ),
        "VecEnv opponent bot": (
            lambda: VecEnv(2, opponents={1: "deep"}),
            r"^seat 1: unknown bot 'deep'",
        ),
        "VecEnv seed": (lambda: VecEnv(2, seed=-1), r"^seed must be"),
        "VecEnv reset seed": (lambda: VecEnv(2).reset(seed=-1), r"^seed must be"),
        "VecEnv reset options": (
            lambda: VecEnv(2).reset(options={"dealer": 1}),
            r"^VecEnv.reset takes no options",
        ),
        "VecEnv step before reset": (lambda: VecEnv(2).step([0, 0]), r"call reset\(\)"),
    }


@pytest.mark.parametrize(
    "name",
    [
        "aec dealer",
        "aec seed",
        "aec levels",
        "aec first_round",
        "aec rules",
        "VecEnv num_envs",
        "VecEnv max_actions",
        "VecEnv first_round",
        "VecEnv plays_only",
        "VecEnv plays_only search",
        "VecEnv opponents",
        "VecEnv opponent bot",
        "VecEnv seed",
        "VecEnv reset seed",
        "VecEnv reset options",
        "VecEnv step before reset",
    ],
)
def test_env_bad_input_is_a_shengji_error_naming_the_argument(name):
    call, message = env_cases()[name]
    with pytest.raises(sj.ShengjiError, match=message):
        call()


def test_dealer_5_reads_the_same_everywhere():
    messages = set()
    for call in (
        lambda: sj.play_round(dealer=5),
        lambda: sj.deal(1, dealer=5),
        lambda: sj.decks(1, dealer=5),
        lambda: sj.simulate_rounds(4, dealer=5),
        lambda: sj.Rules().next_dealer(5, True),
    ):
        with pytest.raises(sj.ArgumentError) as caught:
            call()
        messages.add(str(caught.value))
    assert messages == {"dealer (a seat) must be an integer from 0 to 3, got 5"}


def test_the_tree():
    for name in (
        "ArgumentError",
        "CardError",
        "TrumpError",
        "PlayError",
        "IllegalAction",
        "RulesError",
        "BotError",
        "BotzoneError",
        "DealError",
        "StudyError",
    ):
        assert issubclass(getattr(sj, name), sj.ShengjiError) and name in sj.__all__
    assert issubclass(sj.ShengjiError, ValueError)
    assert issubclass(sj.EngineError, RuntimeError) and "EngineError" in sj.__all__
    assert not issubclass(sj.EngineError, ValueError)
    assert not issubclass(sj.EngineError, sj.ShengjiError)
    from shengji.studies import study

    assert study.StudyError is sj.StudyError  # where the CLI and older code find it


def test_flag():
    assert validate.flag(np.True_, "x") is True and validate.flag(False, "x") is False
    for bad in (1, 0, "true", None, np.int64(1)):
        with pytest.raises(sj.ArgumentError, match="^x must be True or False"):
            validate.flag(bad, "x")
    assert sj.Greedy(revolt=np.False_).revolt is False  # stored as a Python bool
    with pytest.raises(sj.RulesError, match="^Rules.steal_bottom must be True or False"):
        sj.Rules(steal_bottom=1)


def source_lines(pattern):
    """(file, line number, line) of every line of shengji's own source matching `pattern`."""
    return [
        (path.relative_to(SOURCE.parent), i, line)
        for path in sorted(SOURCE.rglob("*"))
        if path.suffix in (".py", ".pyx", ".pxd")
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(pattern, line)
    ]


def test_no_bare_value_error_is_raised():
    assert source_lines(r"raise ValueError\b|return ValueError\(") == []
    assert source_lines(r"raise \w+") != []  # the scan reads the sources


def test_engine_bugs_are_engine_errors():
    raised = source_lines(r"raise \w+\(.*engine bug")
    assert raised and all("raise EngineError(" in line for _, _, line in raised), raised
    assert source_lines(r"raise (PlayError|ShengjiError)\(.*refused a native bot") == []
