"""The bots' text form, as the command line and records write them: a bot from its text
(bot_from_text, bots_from_text), a built-in bot's text (bot_text) and how a record names any
bot (bot_label)."""

from __future__ import annotations

from typing import Any

from shengji.bots.botzone import BotzoneBot
from shengji.bots.expert import Expert
from shengji.bots.external import ExternalBot, command_text, split_command, split_outside_quotes
from shengji.bots.greedy import Greedy
from shengji.bots.learned import Learned
from shengji.bots.pimc import Pimc
from shengji.bots.settings import read_setting, settings_of
from shengji.bots.spec import is_search_bot
from shengji.core import validate
from shengji.errors import BotError

TEXT_BOTS = (
    "random",
    "greedy",
    "expert",
    "pimc",
    "search",
    "learned",
    "process",
    "botzone",
)  # bots with a text form ("greedy": Greedy(); "search": Pimc.sharp(); "process:cmd=...":
# an ExternalBot; "botzone:cmd=...": a BotzoneBot)

BUILTIN = (Greedy, Expert, Pimc, Learned)  # the bots with settings in text


def bot_from_text(
    text: str,
) -> Greedy | Expert | Pimc | Learned | ExternalBot | BotzoneBot | str:
    """A bot from its text form, the name and then its settings after a colon, separated by
    commas or colons: `random`, `greedy`, `greedy:call=patient,patience=5,bury=voids,
    revolt=false`, `greedy:bury=low:patience=3`, `pimc:rollouts=200`, `search` (Pimc.sharp(),
    the sharper search: `search:rollouts=700` changes its settings),
    `learned` (the shipped network), `learned:path=ckpt.npz`, `expert:late_pairs=false,void_risk=3`
    (expert, pimc, search and learned also take the greedy settings of their shows and bury:
    `pimc:rollouts=200,call=eager`; a pimc's `bury` is its own), `process:cmd=python
    mybot.py,timeout=2` (an ExternalBot: process_from_text), `botzone:cmd=./mybot` (a
    BotzoneBot, the same way). "random" comes back as the name. A BotError names the bad name,
    key or value."""
    if not isinstance(text, str):
        raise BotError(f"a bot's text must be a string, got {text!r}")
    name, colon, rest = text.partition(":")
    name = name.strip()
    if name not in TEXT_BOTS:
        raise BotError(
            f"unknown bot {name!r}{f' in {text!r}' if colon else ''}; bots: "
            f"{', '.join(TEXT_BOTS)} (settings after a colon: "
            "greedy:call=eager,patience=5)"
        )
    if name in PROCESSES:
        return process_from_text(text, rest, PROCESSES[name])
    settings = validate.settings_text(text, rest, "bot", error=BotError) if colon else {}
    if name == "random":
        if settings or colon:
            raise BotError(f"bot {text!r}: random takes no settings")
        return "random"
    own = settings_of(OWNERS[name]) if name in OWNERS else {}
    known = {**own, **settings_of(Greedy)}
    unknown = [k for k in settings if k not in known]
    if unknown:
        raise BotError(
            f"bot {text!r}: unknown setting {unknown[0]!r}; {name} takes {', '.join(known)}"
        )
    values = {k: read_setting(text, k, v, known[k]) for k, v in settings.items()}
    try:
        greedy = Greedy(**{k: v for k, v in values.items() if k not in own})
        if name == "greedy":
            return greedy
        own_values = {k: v for k, v in values.items() if k in own}
        if name == "search":
            return Pimc.sharp(**own_values, greedy=greedy)
        return OWNERS[name](**own_values, greedy=greedy)
    except ValueError as e:
        raise BotError(f"bot {text!r}: {e}") from None


# the bots run as processes, by the name of their text form
PROCESSES: dict[str, type[ExternalBot] | type[BotzoneBot]] = {
    "process": ExternalBot,
    "botzone": BotzoneBot,
}


def process_from_text(
    text: str, rest: str, kind: type[ExternalBot] | type[BotzoneBot] = ExternalBot
) -> ExternalBot | BotzoneBot:
    """The ExternalBot of a text form
    `process:cmd=...,timeout=...,mode=...,legal=...,on_error=...` (`rest`: what follows the
    colon), or the BotzoneBot (`kind`) of `botzone:cmd=...,timeout=...,on_error=...`:
    settings separated by commas or colons outside quotes,
    cmd split into words as a POSIX shell does (shlex), so that a comma or a colon of the
    command is quoted: `process:cmd=shengji serve-bot 'greedy:call=eager'`."""
    name = "process" if kind is ExternalBot else "botzone"
    known = {"cmd": "str", "timeout": "float", "on_error": "str"}
    if kind is ExternalBot:
        known.update(mode="str", legal="bool")
    settings: dict[str, str] = {}
    for item in split_outside_quotes(rest, ",:") if rest.strip() else ():
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key or not value:
            raise BotError(
                f"bot {text!r}: {item.strip()!r} is not key=value (a comma or a colon of "
                "the command goes inside quotes: cmd=shengji serve-bot 'greedy:call=eager')"
            )
        if key not in known:
            raise BotError(
                f"bot {text!r}: unknown setting {key!r}; {name} takes {', '.join(known)}"
            )
        if key in settings:
            raise BotError(f"bot {text!r}: {key} is set twice")
        settings[key] = value
    if "cmd" not in settings:
        raise BotError(f"bot {text!r}: {name} needs cmd=the command line")
    values: dict[str, Any] = {"cmd": split_command(settings.pop("cmd"))}
    if "timeout" in settings:
        try:
            values["timeout"] = float(settings.pop("timeout"))
        except ValueError:
            raise BotError(f"bot {text!r}: timeout must be seconds") from None
    if "legal" in settings:
        values["legal"] = read_setting(text, "legal", settings.pop("legal"), "bool")
    for key in ("mode", "on_error"):
        if key in settings:
            values[key] = settings.pop(key)
    try:
        return kind(**values)
    except ValueError as e:
        raise BotError(f"bot {text!r}: {e}") from None


OWNERS: dict[str, Any] = {
    "expert": Expert,
    "pimc": Pimc,
    "search": Pimc,
    "learned": Learned,
}  # text bots with greedy settings


def bot_text(bot: Any) -> str:
    """The text form of a built-in bot (a name, a text form, a Greedy, an Expert, a Pimc, a
    Learned or an ExternalBot) that bot_from_text reads back to the same bot: its settings
    that differ from the defaults (the bot's text()). A Pimc whose greedy settings bury
    otherwise than greedy's default has none (a BotError): `bury` in a pimc's text is its
    own."""
    if isinstance(bot, str):
        bot = bot_from_text(bot)
        if isinstance(bot, str):
            return bot
    if isinstance(bot, (ExternalBot, BotzoneBot)):
        default = type(bot)(bot.cmd)
        name = "process" if isinstance(bot, ExternalBot) else "botzone"
        changed = [
            f"{k}={str(v).lower() if isinstance(v, bool) else v}"
            for k in ("timeout", "mode", "legal", "on_error")
            if hasattr(bot, k) and (v := getattr(bot, k)) != getattr(default, k)
        ]
        return ",".join([f"{name}:cmd={command_text(bot.cmd)}", *changed])
    if isinstance(bot, BUILTIN):
        return str(bot.text())
    raise BotError(
        f"a {type(bot).__name__} has no text form: only the built-in bots "
        f"({', '.join(TEXT_BOTS)}) have one"
    )


def bot_label(bot: Any) -> str:
    """How a record names a bot (resolve_bots; its str() too): a built-in bot by its text form
    (bot_text, every setting that differs from the defaults: two bots that may play apart
    never share a name; a Pimc's threads only with a time budget, the one case they change
    its choices), a subclass of one by its repr (its class and every field), an external or
    search bot by its str(), a Python bot by its class."""
    for builtin in BUILTIN:
        if isinstance(bot, builtin):
            # the built-in class's own __str__: a subclass's override does not name it
            return str(vars(builtin)["__str__"](bot))
    if isinstance(bot, (ExternalBot, BotzoneBot)) or is_search_bot(bot):
        return str(bot)
    return type(bot).__name__


def bots_from_text(text: str) -> Any:
    """One bot or four from the command line, separated by commas (a bot's settings are
    separated by commas too: a part holding `=` and no colon is a setting of the bot before
    it, `search,rollouts=9` being `search:rollouts=9`):
    `greedy:call=eager,patience=5,random,greedy,random`; commas inside quotes (a process's
    cmd) separate nothing. The bots' texts, one or four; resolve_bots reads them."""
    bots: list[str] = []
    for part in split_outside_quotes(text, ","):
        if bots and "=" in part and ":" not in part:
            bots[-1] += ("," if ":" in bots[-1] else ":") + part
        else:
            bots.append(part)
    return bots[0] if len(bots) == 1 else bots
