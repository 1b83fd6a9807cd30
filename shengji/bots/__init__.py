"""Bots, a module a concept: the protocols a bot answers and how the engine plays a seat
(spec: BotSpec, Bot, SearchBot), the built-in greedy bot (greedy: Greedy), the expert bot that
plays by a club player's rules (expert: Expert), the search bot whose plays look ahead natively
(pimc: Pimc, and search: one decision's rollouts), the learned bot whose plays a trained
network chooses natively (learned: Learned and its network), a command in another process
(external: ExternalBot), a Botzone bot (botzone: BotzoneBot), the bots' text forms (settings, text: bot_from_text, bot_text,
bot_label) and how each seat's bot reaches the engine (seats: resolve_bots). The native
policies are in _policies, _expert and _learned."""

from shengji.bots.botzone import BotzoneBot
from shengji.bots.expert import Expert
from shengji.bots.external import ExternalBot
from shengji.bots.greedy import Greedy
from shengji.bots.learned import Learned
from shengji.bots.pimc import Pimc
from shengji.bots.seats import pinned, resolve_bots
from shengji.bots.spec import Bot, BotSpec, SearchBot, is_search_bot
from shengji.bots.text import TEXT_BOTS, bot_from_text, bot_label, bot_text, bots_from_text

__all__ = [
    "Bot",
    "BotSpec",
    "SearchBot",
    "is_search_bot",
    "Greedy",
    "Expert",
    "Pimc",
    "Learned",
    "ExternalBot",
    "BotzoneBot",
    "TEXT_BOTS",
    "bot_from_text",
    "bot_text",
    "bot_label",
    "bots_from_text",
    "resolve_bots",
    "pinned",
]
