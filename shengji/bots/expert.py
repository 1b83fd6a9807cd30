"""The expert bot (Expert): a club player's rules of play, each a setting, played natively
(shengji.bots._expert) from what its seat may know."""

from __future__ import annotations

from dataclasses import dataclass, field

from shengji.bots._expert import RULES
from shengji.bots._policies import BOTS
from shengji.bots.greedy import Greedy
from shengji.bots.settings import changed_settings, label
from shengji.bots.spec import BotSpec
from shengji.core import validate
from shengji.core.cards import HAND_SIZE
from shengji.errors import BotError


@dataclass(frozen=True)
class Expert:
    """The expert bot: plays as a club player does, natively, from what its seat may know (its
    hand, the cards played, the voids shown by play, the bottom it buried, the rules), each
    rule a setting (True: on). Its declarations and revolutions are greedy's (`greedy`
    settings) but for fight; its bury is greedy's too unless value_bury.

    second_low: second hand does not win a trick worth less than 10 with a card a later
    opponent may beat. third_high: a win sure to hold (no later opponent may beat it with the
    unseen cards) before a cheaper one. feed_sure: points fed to the partner, and unloaded when
    void, only on a trick the team is sure to take. safe_points: no win with a point card that
    a later opponent may overtake. draw_trumps: the dealer's team, long in trumps (at least 4
    and half its hand), leads them while the opponents may hold any, and stops leading its sure
    trumps once they hold none. defend_trumps: a defender long in trumps leads them.
    avoid_voids: no side-suit lead an opponent has shown it can ruff while another suit is
    safe. partner_ruff: leads a suit its partner has shown void in (the opponents have not),
    for a ruff. lone_points: no lead of a lone point card a higher unseen card beats.
    value_bury: buries by the value of its cards as tricks. count: counts each suit's unseen
    cards: with fewer than void_risk left, any seat may be void in it. keep_top: keeps its
    top trump, when no unseen card beats it, for the last trick (the bottom and its
    multiplier), unless the hand holds nothing else. weigh: weighs each follow's points won
    or lost (by how sure the outcome is) against the cards it spends. pair_leads: leads the
    lowest pair without points of the side suit it leads. short_leads: leads its shortest
    side suit, not its longest. odds: with weigh, a win a later opponent may beat holds by the
    odds that no such opponent holds an unseen card that beats it (each by its share of the
    unseen cards), not half the time. tractors: with pair_leads, the pair led extended upward
    into a tractor. one_sure: leads its sure side units one at a time (the highest, a pair
    first), not thrown together. force: a defender leads a low card without points of a
    suit the dealer has shown void in (and its partner has not), to shorten its trumps.
    safe_bottom: with value_bury, no point card buried where another card will do (the
    voids it would make cost less than the points risked at the last trick). void_trump:
    when every side suit it holds may be ruffed by an opponent, a low trump without points
    is led instead (its top trump kept). fight: overturns an opponent's declaration whenever
    the new trump leaves it no fewer trumps (greedy's needs 2 more). guard_bottom: with
    keep_top, the seat that buried points in the bottom keeps its top trump for the last
    trick even when an unseen trump beats it. whole_pairs: with pair_leads, a suit whose pairs
    all carry points leads its lowest one whole rather than a single card, and a hand of
    trumps alone leads its lowest trump pair. void_odds: with odds, a later opponent not shown
    void in the led side suit may be void in it (by its share of the suit's unseen cards) and
    ruff a single card with a trump that beats it. pair_suits: with pair_leads, the side suit
    led is one that holds a pair, where a safe one does (the longest such, or the shortest with
    short_leads). tractor_first: its longest tractor of a side suit no opponent may ruff (the
    highest of equal length) is led before anything but a trump tractor. trump_tractor: its
    longest trump tractor (the highest of equal length) is led before anything else.
    high_pairs: the dealer's team, with no tractor or sure unit to lead, leads its highest pair
    of a side suit no opponent may ruff (before drawing trumps or leading low). short_bury:
    with value_bury, a hand of 9 trumps or fewer among its 33 cards buries as greedy does (its
    `greedy` settings: low cards, short suits emptied). late_pairs: the dealer's team late in
    the round (10 cards or fewer in hand), with no tractor or sure unit to lead, leads its
    highest trump pair, else its highest side pair (ruffable or not). defender_pairs: a
    defender late in the round (12 cards or fewer in hand), with no tractor or sure unit to
    lead, leads its highest side pair (ruffable or not). keep_pairs: with weigh, a follow that
    splits a pair of its hand is charged 20 points for each (a pair wins a pair lead later, or
    forces the opponents' pairs out), and a discard takes its singles before its pairs,
    trumps included, and a pair whole. draw_high: with draw_trumps, when no more trumps are
    unseen than it holds and it has no sure trump pair, its highest trump (its kept top
    trump apart) is led, not a low one. draw_follow: with weigh, the dealer's team following
    its partner's trump lead (trumps being drawn) counts what its play spends at a quarter:
    a trump kept back would be drawn all the same. sure_throws: sure side units are led
    (thrown together) in a suit an opponent may ruff too, where the odds that an opponent
    holds as many of the unseen trumps as the throw has cards are 25% or less.
    """

    second_low: bool = True
    third_high: bool = True
    feed_sure: bool = True
    safe_points: bool = True
    draw_trumps: bool = True
    defend_trumps: bool = False
    avoid_voids: bool = True
    partner_ruff: bool = True
    lone_points: bool = False
    value_bury: bool = True
    count: bool = True
    keep_top: bool = True
    weigh: bool = True
    pair_leads: bool = True
    short_leads: bool = True
    odds: bool = True
    tractors: bool = True
    one_sure: bool = False
    force: bool = False
    safe_bottom: bool = False
    void_trump: bool = False
    fight: bool = True
    guard_bottom: bool = True
    whole_pairs: bool = True
    void_odds: bool = True
    pair_suits: bool = True
    tractor_first: bool = True
    trump_tractor: bool = True
    high_pairs: bool = True
    short_bury: bool = True
    late_pairs: bool = True
    defender_pairs: bool = True
    keep_pairs: bool = True
    draw_high: bool = True
    draw_follow: bool = True
    sure_throws: bool = True
    void_risk: int = 2
    greedy: Greedy = field(default_factory=Greedy)

    def __post_init__(self) -> None:
        for name in RULES:
            value = validate.flag(getattr(self, name), f"Expert.{name}", error=BotError)
            object.__setattr__(self, name, value)  # a NumPy bool stored as a bool
        validate.integer(self.void_risk, "Expert.void_risk", 0, 2 * HAND_SIZE, error=BotError)
        if not isinstance(self.greedy, Greedy):
            raise BotError(f"Expert.greedy must be a shengji.Greedy, got {self.greedy!r}")

    def spec(self) -> BotSpec:
        """Greedy's spec for the shows, with the expert's rules (BotSpec.expert)."""
        rules = sum(bit for name, bit in RULES.items() if getattr(self, name))
        return self.greedy.spec()._replace(
            kind=BOTS["expert"], expert=rules, void_risk=self.void_risk
        )

    def text(self) -> str:
        """Its text form (shengji.bots.text.bot_text): `expert`, then the settings that differ
        from the defaults, its greedy settings' too."""
        changed = changed_settings(self) + changed_settings(self.greedy)
        return "expert" + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return label(self, Expert)
