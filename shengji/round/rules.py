"""The rule settings of a round, the three presets that reproduce the rule texts and the
botzone preset.

Each setting names the passage it comes from (seed 000 = 80分比赛规则 in 16 articles, seed 002 =
80分 中文版 V3.0, seed 003 = 80分比赛规则 三局两胜; § = docs/rules.md). The declaration settings
follow docs/design/declarations.md, which quotes the passages. The botzone preset plays as the
public copy of Botzone's Tractor judge implements it (keyijing/Tractor-RL, judger.py at commit
2807665929b9b5cc8a4a73ca009ecd9d426475b3; "l." below are its lines): docs/design/botzone.md.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from shengji.core import jsontext, validate
from shengji.core._core import RANK_NAMES, Trump
from shengji.core.results import Advance, Settlement
from shengji.errors import RulesError
from shengji.round import _engine

PASS_LINE = (
    80  # defenders' points that take the deal in every text (seed 000 art. 8, 002 §3, 003 (一)4)
)
DECK_POINTS = 200  # the points of the two decks (seed 002 §1 "两副牌总分：200分")


@dataclass(frozen=True)
class Rules:
    """A frozen set of named settings. `Rules.preset(name)` gives one of the three rule texts;
    `rules.replace(**changes)` a variant (a bad value raises RulesError naming the setting).
    Its text form, `Rules.from_text("v3:throw_penalty=20")` and `rules.text()` (also its
    str()), names a preset and the settings that differ from it."""

    name: str = "v3"
    # Points per level step on both sides of the pass line (§8). seed 002 §3: 40 by default,
    # "可调整为20分或10分"; seed 003 (一)3: 20; seed 000 art. 8: 20 for the defenders.
    step: int = 40
    # The dealer team's rise when it holds, as ((most points, levels), ...) read in order, or
    # None for the step formula ⌊(75 − p)/step⌋ + 1 with 80/step + 1 at p = 0 (seed 002 §3).
    # seed 000 art. 10: 大光 (p = 0) +5, 小光 (0 < p < 40) +3; 40..75 +1 is a convention
    # (docs/rules.md §8).
    dealer_rises: tuple[tuple[int, int], ...] | None = None
    # Most levels either side rises in one round, or None for no cap (seed 003 (一)4: 5, 封顶;
    # seed 000 art. 8: 升级不封顶).
    rise_cap: int | None = None
    # Levels a rise may not jump past (必打, §8): seed 000 art. 1: 2 and A; seed 002 §3: A, with
    # 10 and K as an option; seed 003 (一)3: none.
    must_play: tuple[int, ...] = (14,)
    # Largest bottom multiplier (§7): seed 003 (二)3 stops at ×8; the others do not cap it.
    multiplier_cap: int | None = None
    # Which play of the last trick the multiplier is read from (§7): "lead", the last lead
    # (seed 002 §7 "按照最后回合首位出牌的玩家所出的牌"), or "winner", the defenders' winning
    # play (seed 000 art. 9 "用对子挖可得4倍", seed 003 (二)3 "根据台下一方的牌情"). They differ
    # when a defender ruffs a throw of singles with a pair or a tractor.
    multiplier_from: str = "lead"
    # Points per card of a failed throw (§6; seed 002 §6, seed 003 (四)4b, seed 000 art. 12).
    throw_penalty: int = 10
    # The defenders' rise at the pass line: 0, from 80 the deal changes hands without a rise
    # (seed 002 §3), or 1 (botzone, l. 807-830: 1 from 80, 2 from 120, 3 from 160).
    takeover_rise: int = 0
    # How the bottom multiplier reads its play (§7): "doubling", ×2 a single, ×4 a pair,
    # ×2^(k+1) a tractor of k pairs, from the largest unit (every text); or "botzone" (l.
    # 1127-1148): a single ×1, a pair ×2, a tractor its cards, a throw twice its largest
    # unit's cards (×2, ×4, ×8, ...).
    multiplier_rule: str = "doubling"
    # How tricks are judged: "texts" (§3-§6), or "botzone", as the judge does (l. 104-777):
    # its tractors (natural pairs only, or both joker pairs), its follows (a pair or tractor led
    # and none in the suit: one of the lead's kind from anywhere is accepted), a failed throw
    # charged for its beaten units' cards and leading one card, its trick winners (a trump
    # throw can be beaten). Play under it with Trump(..., botzone=True) tables.
    tricks: str = "texts"

    # -- Declaring trump (§9). A declaration shows one level card, or both copies at once.
    # How overturns (反) rank: "ranked" (seed 002 §4: a pair of level cards or jokers,
    # ♦ < ♣ < ♥ < ♠ < small-joker pair < big-joker pair; a single falls to any pair of another
    # suit, a reinforced declaration or an overturn only to a higher pair) or "once" (seed 003
    # (一)8: a pair of another suit over a single, once; a joker pair makes any suit no trump) or
    # "once_any" (botzone, l. 376-394: one overturn, by any seat, the declarer too, with a pair
    # of level cards of any suit, the standing one too, or of one joker for no trump).
    overturn: str = "ranked"
    # A joker pair may make the first declaration, for no trump (seed 003 (一)8 "可用一对大(小)怪
    # 报无主"); under seed 002 jokers only overturn.
    joker_pair_declares: bool = False
    # A first declaration may show both copies of a level card at once (seed 002 §4 亮 + 加固,
    # seed 003 a pair); botzone: one card only (l. 366-373).
    declare_pair: bool = True
    # The declarer may show the second copy at a later draw (加固, seed 002 §4, seed 000 art. 5).
    reinforce: bool = True
    # Overturns at the draws, not only in the pass after the deal (seed 003 (一)7 "在抓牌过程中").
    overturn_while_drawing: bool = False
    # A second overturn pass after the dealer has buried, each overturner taking the bottom and
    # burying 8 (抄底, seed 002 §4 "还有'抄底'的作用").
    steal_bottom: bool = True
    # Nobody declared by the end of the deal: "ask_then_turn" (seed 002: the seats are asked in
    # order, then 翻底 card by card), "forced" (seed 000 art. 5 强行报牌: the dealer, else the
    # partner, shows a level card; neither holds one: the team steps down and the next seat
    # deals), "turn_whole" (seed 003 (一)7: the first level card of the bottom, else a joker for
    # no trump, else the suit of the highest card), "random" (botzone, l. 975-979: the dealer
    # of a first round and the trump suit, one of the four, drawn at random).
    no_declaration: str = "ask_then_turn"
    # Who deals the first round: "declarer", the first to declare (seed 002 §4, seed 003 (一)6
    # "首先亮2的一家即为庄家"), or "fixed", the given seat (seed 000 art. 3 定庄).
    first_dealer: str = "declarer"
    # In the first round an overturner before the bottom takes the deal (seed 002 §4 "反的玩家可
    # 以取代之前亮牌的玩家而成为庄家"); seed 003: "可反主但不反庄".
    overturn_takes_deal: bool = True
    # Most points a defender may hold to call a revolution (革命, seed 000 art. 11: "15分以下
    # （含15分）"), or None: no revolution. It redeals; the deal is grabbed by the first declarer.
    revolution_points: int | None = None
    # -- Matches. Who deals next: "partner" when the dealer team held, else the next seat
    # (docs/rules.md §8, a convention), or "stay": the dealer deals again when its team held.
    dealer_rotation: str = "partner"
    # Games in a series: 1, or 3 for best of three (seed 003 (一)3 "三局两胜制").
    series: int = 1
    # A seat that fails a decision (an external bot that crashes, hangs or answers what the
    # rules refuse) ends the round and its team forfeits it (docs/rules.md §11): "points", the
    # defenders' points are 0 if the failing team defends, all the deck's if it deals, settled
    # as any round (seed 000 art. 16 "本副牌得0分（非违规方不做庄时得200分）"); "levels", the
    # dealer's team failing, the defenders take the deal without rising, the defenders failing,
    # the dealer's team rises 1 (seed 003 (四)4(a) "如坐庄方出错，则换庄，抓分方上台不升级；如抓
    # 分方出错，则坐庄方升1级"); "one_level", the failing team's opponents rise 1, taking the
    # deal when they defend (botzone, l. 68-93: the faulty seat scores -3, each opponent +1).
    forfeit_by: str = "points"

    def __post_init__(self) -> None:
        if (
            not isinstance(self.name, str)
            or not self.name
            or self.name != self.name.strip()
            or re.search("[,:]", self.name)
        ):
            raise RulesError(
                "Rules.name must be a non-empty string without commas, colons or outer "
                f"spaces (its text form holds it), got {validate.short(self.name)}"
            )
        if not _whole(self.step) or self.step not in (10, 20, 40):
            raise RulesError(
                f"Rules.step must be 10, 20 or 40 (seed 002 §3), got {validate.short(self.step)}"
            )
        if self.dealer_rises is not None:
            rows = self.dealer_rises
            if (
                not isinstance(rows, tuple)
                or not 1 <= len(rows) <= 4
                or any(
                    not (
                        isinstance(r, tuple)
                        and len(r) == 2
                        and all(type(x) is int for x in r)
                        and r[0] >= 0
                        and r[1] <= 13
                    )
                    for r in rows
                )
                or [r[0] for r in rows] != sorted(r[0] for r in rows)
                or rows[-1][0] != PASS_LINE - 5
                or any(r[1] < 1 for r in rows)
            ):
                raise RulesError(
                    "Rules.dealer_rises must be 1 to 4 rows ((most points, levels), "
                    "...) with rising thresholds from 0 up, ending at 75, and "
                    f"levels 1..13, got {validate.short(rows)}"
                )
        validate.integer(self.rise_cap, "Rules.rise_cap", 1, 13, optional=True, error=RulesError)
        if not isinstance(self.must_play, tuple) or any(
            not isinstance(v, int) or not 2 <= v <= 14 for v in self.must_play
        ):
            raise RulesError(
                "Rules.must_play must be a tuple of levels 2..14, got "
                f"{validate.short(self.must_play)}"
            )
        cap = self.multiplier_cap
        if cap is not None and (not _whole(cap) or cap not in (2, 4, 8, 16, 32, 64)):
            raise RulesError(
                "Rules.multiplier_cap must be None or a power of two from 2 to 64, "
                f"got {validate.short(self.multiplier_cap)}"
            )
        validate.integer(self.throw_penalty, "Rules.throw_penalty", 0, 200, error=RulesError)
        validate.integer(self.takeover_rise, "Rules.takeover_rise", 0, 1, error=RulesError)
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise RulesError(
                    f"Rules.{name} must be one of {', '.join(map(repr, allowed))}, "
                    f"got {validate.short(getattr(self, name))}"
                )
        for name in FLAGS:
            value = validate.flag(getattr(self, name), f"Rules.{name}", error=RulesError)
            object.__setattr__(self, name, value)  # a NumPy bool stored as a bool
        if self.overturn == "once_any" and self.reinforce:
            raise RulesError(
                "Rules.overturn 'once_any' lets the declarer overturn its own declaration: "
                "reinforce must be false with it"
            )
        validate.integer(
            self.revolution_points,
            "Rules.revolution_points",
            0,
            200,
            optional=True,
            error=RulesError,
        )
        if not _whole(self.series) or self.series not in (1, 3, 5):
            raise RulesError(
                f"Rules.series must be 1, 3 or 5 games, got {validate.short(self.series)}"
            )

    @staticmethod
    def preset(name: str) -> Rules:
        """The rules of one rule text, "v3" (seed 002), "match16" (seed 000), "bo3" (seed 003), or
        "botzone" (the public copy of Botzone's Tractor judge, docs/design/botzone.md)."""
        if name not in PRESETS:
            variant = " (a variant's text is read by Rules.of)" if ":" in str(name) else ""
            raise RulesError(
                f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}{variant}"
            )
        return PRESETS[name]

    @staticmethod
    def of(rules: Rules | str) -> Rules:
        """These rules, or the rules of this text: a preset's name, or a variant's text form
        (from_text: `v3:throw_penalty=20`)."""
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return Rules.from_text(rules)
        raise RulesError(
            "rules must be a preset name or a shengji.Rules (or a variant's text: "
            f"v3:throw_penalty=20), got {rules!r}"
        )

    @staticmethod
    def from_text(text: str) -> Rules:
        """The rules of a text form: a preset's name, then any settings after a colon,
        separated by commas (or colons), each `setting=value`: `v3`, `v3:throw_penalty=20`,
        `match16:steal_bottom=true,step=40`. A value is an integer; true or false; `none` where
        the setting may be None; a choice's word (`multiplier_from=winner`); for `must_play`
        levels (2..10, J, Q, K, A) joined by `/` (`10/K/A`, `none` for no level); for
        `dealer_rises` rows `points+levels` joined by `/` (`0+5/35+3/75+1`). One RulesError
        names the bad part: an unknown preset, an unknown setting (with the known ones), a value
        that does not read, a setting given twice, or a value Rules refuses."""
        if not isinstance(text, str):
            raise RulesError(
                f"rules' text must be a string such as 'v3:throw_penalty=20', got {text!r}"
            )
        name, colon, rest = text.partition(":")
        name = name.strip()
        if name not in PRESETS:
            raise RulesError(
                f"unknown preset {name!r}{f' in {text!r}' if colon else ''}: choose one of "
                f"{', '.join(PRESETS)} (settings after a colon: v3:throw_penalty=20)"
            )
        settings = validate.settings_text(text, rest, "rules", error=RulesError) if colon else {}
        unknown = [k for k in settings if k not in SETTING_KINDS]
        if unknown:
            raise RulesError(
                f"rules {text!r}: unknown setting {unknown[0]!r}; rules take "
                f"{', '.join(SETTING_KINDS)}"
            )
        if not settings:
            return PRESETS[name]
        values = {k: _read_value(text, k, v) for k, v in settings.items()}
        try:
            return PRESETS[name].replace(**values)
        except RulesError as e:
            raise RulesError(f"rules {text!r}: {e}") from None

    def text(self) -> str:
        """These rules as from_text reads them back (`Rules.from_text(r.text()) == r`): the
        preset of their name and every setting that differs from it, in the order of the
        fields (`v3`, `v3:throw_penalty=20`); rules named otherwise, the preset they differ
        from least (the first on ties), with `name=` among the differences."""
        base = PRESETS.get(self.name) or min(
            PRESETS.values(), key=lambda preset: len(_differences(self, preset))
        )
        changed = [f"{k}={_value_text(k, v)}" for k, v in _differences(self, base)]
        return base.name + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-able data (records and study manifests hold them)."""
        return {
            k: (
                list(map(list, v))
                if k == "dealer_rises" and v is not None
                else list(v)
                if isinstance(v, tuple)
                else v
            )
            for k, v in dataclasses.asdict(self).items()
        }

    @staticmethod
    def from_dict(d: Any) -> Rules:
        """The rules of to_dict()'s data (or a text form, from_text); RulesError naming a bad
        setting."""
        if isinstance(d, str):
            return Rules.from_text(d)
        if not isinstance(d, dict):
            raise RulesError(
                f"rules must be a preset name or a dict of settings, got {validate.short(d)}"
            )
        jsontext.shallow(d, "rules", error=RulesError)
        unknown = [k for k in d if k not in {f.name for f in dataclasses.fields(Rules)}]
        if unknown:
            raise RulesError(f"unknown Rules setting(s): {', '.join(sorted(map(repr, unknown)))}")
        d = dict(d)  # JSON's lists as tuples; any other value is __post_init__'s to refuse
        rows = d.get("dealer_rises")
        if isinstance(rows, (list, tuple)):
            d["dealer_rises"] = tuple(tuple(r) if isinstance(r, (list, tuple)) else r for r in rows)
        if isinstance(d.get("must_play"), list):
            d["must_play"] = tuple(d["must_play"])
        return Rules().replace(**d)

    def replace(self, **changes: Any) -> Rules:
        """A variant: these rules with some settings changed, each checked (ValueError)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise RulesError(f"unknown Rules setting(s): {', '.join(sorted(unknown))}")
        return dataclasses.replace(self, **changes)

    def settle(self, points: int) -> Settlement:
        """The level change for the defenders' final points (§8), before must-play clamping."""
        if validate.integer(points, "defenders' points", 0, 10**6, error=RulesError) % 5:
            raise RulesError(
                f"defenders' points must be a multiple of 5, got {validate.short(points)}"
            )
        return Settlement(*_engine.settle(self, points))

    def forfeited(self, dealer_fails: bool) -> tuple[int, Settlement]:
        """The defenders' points and the settlement of a round forfeited by the dealer's team
        (dealer_fails) or by the defenders (Rules.forfeit_by, docs/rules.md §11): the bottom and
        its multiplier do not count."""
        points = DECK_POINTS if dealer_fails else 0
        if self.forfeit_by == "levels":
            return points, Settlement(dealer_holds=not dealer_fails, rise=0 if dealer_fails else 1)
        if self.forfeit_by == "one_level":
            return points, Settlement(dealer_holds=not dealer_fails, rise=1)
        return points, self.settle(points)

    def advance(self, level: int, rise: int, held: bool) -> Advance:
        """Where the rising team's level goes (§8, must-play clamping), and whether it wins.

        `level` is the team's level before the round, `rise` its settled rise, `held` True for
        the dealer team that held at `level`, False for defenders taking over. A rise never
        jumps past a must-play level (必打: "跳级时不能跳过", seed 002 §3; "2、A必打", seed 000
        art. 1): it stops on it. A must-play level counts as passed only when its team has
        held there as dealer, so defenders taking over from one stay on it. The match is won by
        the dealer team holding at A (打过A); where A is not must-play, any rise past A wins.
        """
        validate.integer(level, "level", 2, 14)
        validate.integer(rise, "rise", 0, 100)
        if held and level == 14:
            return Advance(14, True)
        first = level + 1 if held else level
        for must in sorted(self.must_play):
            if first <= must <= level + rise:
                return Advance(must, False)
        if level + rise > 14:
            return Advance(14, 14 not in self.must_play)
        return Advance(level + rise, False)

    def next_dealer(self, dealer: int, dealer_holds: bool) -> int:
        """Who deals next (§8, a convention: the texts leave it to a diagram): when the dealer
        team held, the dealer's partner (dealer_rotation "partner") or the dealer again
        ("stay"); else the next seat in play order."""
        validate.seat(dealer)
        if not dealer_holds:
            return (dealer + 1) % 4
        return (dealer + 2) % 4 if self.dealer_rotation == "partner" else dealer

    def trump_of(self, trump: Trump | str) -> Trump:
        """The Trump (or its text: 2S, 2NT) as these rules play it: a botzone trump
        (Trump(..., botzone=True)) where they judge tricks by the botzone rules, else not."""
        trump = Trump.of(trump)
        botzone = self.tricks == "botzone"
        return trump if trump.botzone == botzone else Trump(trump.level, trump.suit, botzone)

    def bottom_multiplier(self, play: Any, trump: Any) -> int:
        """Multiplier of the bottom's points when the defenders win the last trick (§7), from
        the largest unit of `play`, the play it is read from (multiplier_play): single ×2,
        pair ×4, tractor of k pairs ×2^(k+1), capped by multiplier_cap."""
        return _engine.bottom_multiplier(self, play, self.trump_of(trump))

    def multiplier_play(self, trick: Any) -> Any:
        """The play of a last trick the defenders won that the bottom multiplier is read from:
        its lead, or its winning play (multiplier_from)."""
        if self.multiplier_from == "lead":
            return trick.plays[0]
        return trick.plays[(trick.winner - trick.leader) % 4]


def _differences(rules: Rules, base: Rules) -> list[tuple[str, Any]]:
    """The settings (with the name) in which `rules` differ from `base`, in field order."""
    return [
        (f.name, getattr(rules, f.name))
        for f in dataclasses.fields(Rules)
        if getattr(rules, f.name) != getattr(base, f.name)
    ]


def _value_text(key: str, value: Any) -> str:
    """A setting's value as from_text reads it (_read_value)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if key == "dealer_rises":
        return "/".join(f"{points}+{levels}" for points, levels in value)
    if key == "must_play":
        return "/".join(RANK_NAMES[v] for v in value) or "none"
    return str(value)


def _read_value(text: str, key: str, value: str) -> Any:
    """One setting's value in a text form (from_text), read as its field's type; the value
    itself is Rules's to check."""
    kind = SETTING_KINDS[key]

    def bad(what: str) -> RulesError:
        return RulesError(f"rules {text!r}: {key} must be {what}, got {value!r}")

    if value.lower() == "none" and kind.endswith("| None"):
        return None
    if kind.startswith("int"):
        if not re.fullmatch("[+-]?[0-9]+", value):
            raise bad("an integer" + (" or none" if kind.endswith("| None") else ""))
        return int(value)
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            raise bad("true or false")
        return value.lower() == "true"
    if key == "must_play":  # levels joined by /
        if value.lower() == "none":
            return ()
        levels = [_LEVEL_OF.get(v.strip().upper()) for v in value.split("/")]
        if None in levels:
            raise bad("levels 2..10, J, Q, K, A joined by / (10/K/A), or none")
        return tuple(levels)
    if key == "dealer_rises":  # rows points+levels joined by /
        rows = [row.split("+") for row in value.split("/")]
        if any(len(r) != 2 or not all(re.fullmatch("[0-9]+", x.strip()) for x in r) for r in rows):
            raise bad("rows points+levels joined by / (0+5/35+3/75+1), or none")
        return tuple((int(p), int(levels)) for p, levels in rows)
    return value


_LEVEL_OF = {**{name: level for level, name in RANK_NAMES.items()}, "T": 10}
_LEVEL_OF.update({str(level): level for level in RANK_NAMES})


def _whole(value: Any) -> bool:
    """An int, not a bool (True == 1) nor a float (40.0 == 40)."""
    return isinstance(value, int) and not isinstance(value, bool)


CHOICES = {
    "multiplier_rule": ("doubling", "botzone"),
    "tricks": ("texts", "botzone"),
    "overturn": ("ranked", "once", "once_any"),
    "no_declaration": ("ask_then_turn", "forced", "turn_whole", "random"),
    "first_dealer": ("declarer", "fixed"),
    "dealer_rotation": ("partner", "stay"),
    "multiplier_from": ("lead", "winner"),
    "forfeit_by": ("points", "levels", "one_level"),
}
FLAGS = (
    "joker_pair_declares",
    "declare_pair",
    "reinforce",
    "overturn_while_drawing",
    "steal_bottom",
    "overturn_takes_deal",
)

PRESETS = {
    "v3": Rules(name="v3", step=40, must_play=(14,)),
    "match16": Rules(
        name="match16",
        step=20,
        multiplier_from="winner",
        dealer_rises=((0, 5), (35, 3), (75, 1)),
        must_play=(2, 14),
        steal_bottom=False,
        no_declaration="forced",
        first_dealer="fixed",
        overturn_takes_deal=False,
        revolution_points=15,
    ),
    "bo3": Rules(
        name="bo3",
        step=20,
        multiplier_from="winner",
        rise_cap=5,
        must_play=(),
        multiplier_cap=8,
        overturn="once",
        joker_pair_declares=True,
        reinforce=False,
        overturn_while_drawing=True,
        steal_bottom=False,
        no_declaration="turn_whole",
        overturn_takes_deal=False,
        series=3,
        forfeit_by="levels",
    ),
    # As the public copy of Botzone's judge implements it (docs/design/botzone.md)
    "botzone": Rules(
        name="botzone",
        step=40,
        dealer_rises=((0, 3), (35, 2), (75, 1)),
        rise_cap=3,
        must_play=(),
        throw_penalty=10,
        takeover_rise=1,
        multiplier_rule="botzone",
        tricks="botzone",
        overturn="once_any",
        declare_pair=False,
        reinforce=False,
        overturn_while_drawing=True,
        steal_bottom=False,
        no_declaration="random",
        forfeit_by="one_level",
    ),
}

# Each setting's type as written in the class (the text form reads a value by it), by name.
SETTING_KINDS = {f.name: str(f.type) for f in dataclasses.fields(Rules)}
