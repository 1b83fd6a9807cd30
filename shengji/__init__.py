"""shengji: a fast, faithful simulator of Shengji (升级 / 80分 / Tractor).

The rules live in a native core (`shengji.core._core`) checked against a plain Python reference
(`shengji.reference`). See docs/engine.md for the card encoding and every rule decision.
"""

# _startup first: the command line's Ctrl-C in the second the imports below take
from shengji import _startup, cards, testing  # noqa: F401
from shengji._version import __version__ as __version__
from shengji.bots import (
    Bot,
    BotSpec,
    BotzoneBot,
    Expert,
    ExternalBot,
    Greedy,
    Learned,
    Pimc,
    SearchBot,
)
from shengji.core._core import (
    LEAD_CAP,
    RANK_NAMES,
    Cards,
    Trump,
    batch_follow_codes,
    batch_legal_follow_counts,
    batch_legal_follows,
    batch_legal_leads,
    batch_trick_winners,
    category,
    check_throw,
    decompose,
    follow_error,
    is_legal_follow,
    kind_name,
    legal_follows,
    legal_leads,
    order,
    parse_cards,
    points,
    to_masks,
    trick_winner,
)
from shengji.core.deals import deal, decks
from shengji.core.require import Require, require
from shengji.core.results import Advance, Endgame, Leads, Settlement, ThrowCheck, Unit
from shengji.errors import (
    ArgumentError,
    BotError,
    BotzoneError,
    CardError,
    DealError,
    EngineError,
    ExternalBotError,
    IllegalAction,
    NoWorlds,
    PlayError,
    RulesError,
    ShengjiError,
    StudyError,
    TrumpError,
)
from shengji.live.server import PlayServer, play_in_browser
from shengji.play.records import MatchRecord, RoundRecord
from shengji.play.replay import replay, replay_match
from shengji.play.rounds import play_match, play_round, round_seed, simulate_rounds
from shengji.play.viewer import render_html, view
from shengji.round._endgame import solve_endgame
from shengji.round.rules import Rules
from shengji.round.views import View, Worlds
from shengji.studies.analyze import analyze_bury, analyze_trump
from shengji.studies.duels import Duel, duel
from shengji.studies.ladder import Ladder, ladder
from shengji.studies.plays import analyze_play, analyze_round, position
from shengji.studies.stats import payoff

__all__ = [
    "Cards",
    "Trump",
    "Rules",
    "Unit",
    "ThrowCheck",
    "Settlement",
    "Advance",
    "Endgame",
    "Leads",
    "ShengjiError",
    "ArgumentError",
    "CardError",
    "TrumpError",
    "PlayError",
    "IllegalAction",
    "RulesError",
    "BotError",
    "ExternalBotError",
    "BotzoneError",
    "NoWorlds",
    "DealError",
    "StudyError",
    "EngineError",
    "Bot",
    "BotSpec",
    "Expert",
    "ExternalBot",
    "BotzoneBot",
    "Greedy",
    "Learned",
    "Pimc",
    "SearchBot",
    "View",
    "Worlds",
    "RoundRecord",
    "MatchRecord",
    "play_round",
    "replay",
    "replay_match",
    "view",
    "render_html",
    "play_in_browser",
    "PlayServer",
    "play_match",
    "simulate_rounds",
    "round_seed",
    "duel",
    "Duel",
    "ladder",
    "Ladder",
    "analyze_bury",
    "analyze_trump",
    "analyze_play",
    "analyze_round",
    "position",
    "payoff",
    "solve_endgame",
    "parse_cards",
    "category",
    "order",
    "decompose",
    "points",
    "is_legal_follow",
    "follow_error",
    "legal_follows",
    "legal_leads",
    "LEAD_CAP",
    "RANK_NAMES",
    "trick_winner",
    "check_throw",
    "kind_name",
    "deal",
    "decks",
    "require",
    "Require",
    "to_masks",
    "batch_follow_codes",
    "batch_legal_follow_counts",
    "batch_trick_winners",
    "batch_legal_follows",
    "batch_legal_leads",
    "cards",
    "testing",
]
