"""One hand, analysed: which 8 cards the dealer should bury (analyze_bury) and which trump a
seat should declare at the end of the draw (analyze_trump). Every choice is played out by bots
from the dealer's bury in the same sampled worlds (uniform deals of the cards the seat cannot
see), and the choices are ranked by the dealer's team's mean level change, each with the 95%
interval of its difference to the best, paired by world."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from shengji._optional import needs
from shengji.bots import Pimc, resolve_bots
from shengji.bots.external import ExternalSeat, bot_processes
from shengji.core import validate
from shengji.core._core import RANK_NAMES, Cards, Trump, to_masks
from shengji.core._deal import round_seed
from shengji.core.cards import BB_ALL, BOTTOM_SIZE, HAND_SIZE, SUITS
from shengji.errors import CardError, ShengjiError
from shengji.play._playout import play_out, strategy_buries
from shengji.play._table import Table
from shengji.play.rounds import answer_seat
from shengji.round._worlds import WorldSampler
from shengji.round.rules import Rules
from shengji.studies.backends import execute
from shengji.studies.stats import Samples, Sums, level_delta

__all__ = ["analyze_bury", "analyze_trump", "trump_of", "trump_text"]

DEALER = 0  # the analysed seat deals and declares; its partner sits at 2
FULL_DECK = Cards.from_masks(BB_ALL, BB_ALL)
OTHER_SEATS = 0b01110  # WorldSampler places: seats 1, 2, 3 ...
OTHER_SEATS_AND_BOTTOM = 0b11110  # ... and the bottom
MAX_WORLDS = 1_000_000  # the worlds are held in memory, 80 bytes each
SEARCH = 40_000  # the search's default budget in play-outs: about 0.5 s, greedy
SEARCH_STEP = 3  # neighbours of the best played in every world per step
MIN_SCREEN = 30  # fewest worlds a screen of the neighbours stands on
COLUMNS = ("level_delta_mean", "ci_low", "ci_high", "defender_points_mean", "dealer_holds", "n")


trump_of = Trump.of  # a Trump, or its text: `2S`, `10H`, `AC`, `2` or `2NT` for no trump
trump_text = Trump.text  # `2S`, `10H`, `AC`, `2NT`: what trump_of reads


def cards_of(value: Any, label: str) -> Cards:
    """`value` as Cards; a CardError names what they were for."""
    try:
        return Cards(value)
    except CardError as e:
        raise CardError(f"{label}: {e}") from None


def hand_of(hand: Any, size: int, what: str) -> Cards:
    """The hand as Cards, which must hold `size` cards (`what` says why, in the error)."""
    cards = cards_of(hand, "the hand")
    if len(cards) != size:
        raise CardError(f"the hand must hold {size} cards ({what}), got {len(cards)}")
    return cards


def show_of(hand: Cards, trump: Trump, rules: Rules) -> Cards:
    """The declaration of `trump` the hand makes: its level cards of the trump suit (both
    copies when it holds them, as the greedy bot shows them), or for no trump a joker pair (the
    big one when it holds both pairs). An error when the hand cannot declare it."""
    name = trump_text(trump)
    if trump.suit is None:
        if not rules.joker_pair_declares:
            raise ShengjiError(
                f"the hand cannot declare {name}: these rules ({rules.text()}) "
                "declare no trump with no card (Rules.joker_pair_declares)"
            )
        pairs = [j for j in ("BJ", "SJ") if Counter(hand)[j] == 2]
        if not pairs:
            raise ShengjiError(f"the hand cannot declare {name}: it holds no joker pair")
        return Cards([pairs[0]] * 2)
    card = f"{RANK_NAMES[trump.level]}{trump.suit}"
    held = Counter(hand)[card]
    if not held:
        raise ShengjiError(f"the hand cannot declare {name}: it holds no {card}")
    return Cards([card] * held)


def declarable(hand: Cards, level: int, rules: Rules) -> list[tuple[Trump, Cards]]:
    """Every trump the hand may declare at this level, with its show (show_of): each suit
    whose level card it holds, then no trump where the rules let a joker pair declare it."""
    out = []
    for suit in (*reversed(SUITS), None):  # spades first: ties rank in this order
        try:
            trump = rules.trump_of(Trump(level, suit))
            out.append((trump, show_of(hand, trump, rules)))
        except ShengjiError:
            continue
    return out


def bury_of(cards: Any, hand: Cards, label: str) -> Cards:
    """A candidate bury, checked: 8 cards of the hand."""
    bury = cards_of(cards, label)
    if len(bury) != BOTTOM_SIZE:
        raise ShengjiError(f"{label} ({bury}): a bury is {BOTTOM_SIZE} cards, it holds {len(bury)}")
    held = Counter(hand)
    missing = [c for c, n in Counter(bury).items() if n > held[c]]
    if missing:
        raise ShengjiError(f"{label} ({bury}): not in the hand: {' '.join(missing)}")
    return bury


def sample_worlds(
    fixed: list[Cards], places: int, need: list[int], worlds: int, seed: int
) -> np.ndarray:
    """`worlds` uniform deals of the cards not in `fixed` to `places` (as many to each place as
    `need` says), `fixed` added: (worlds, 5, 2) masks of seats 0..3 and the bottom."""
    unseen = FULL_DECK - sum(fixed, Cards())
    return WorldSampler([(places, unseen)], need, fixed).sample(worlds, seed)


def bury_worlds(hand: Cards, show: Cards, worlds: int, seed: int) -> np.ndarray:
    """analyze_bury's worlds: the dealer's 33 cards (25 drawn, the declared ones among them,
    and the bottom), the other 75 dealt uniformly to seats 1, 2 and 3."""
    # which 8 of the 33 were the bottom changes nothing the play reads (the dealer sees all
    # of them, the others none)
    bottom = Cards(list(hand - show)[-BOTTOM_SIZE:])
    return sample_worlds(
        [hand - bottom, Cards(), Cards(), Cards(), bottom],
        OTHER_SEATS,
        [0, HAND_SIZE, HAND_SIZE, HAND_SIZE, 0],
        worlds,
        seed,
    )


def trump_worlds(hand: Cards, worlds: int, seed: int) -> np.ndarray:
    """analyze_trump's worlds: seat 0's 25 cards, the other 83 dealt uniformly to seats 1, 2
    and 3 and the bottom."""
    return sample_worlds(
        [hand, Cards(), Cards(), Cards(), Cards()],
        OTHER_SEATS_AND_BOTTOM,
        [0, HAND_SIZE, HAND_SIZE, HAND_SIZE, BOTTOM_SIZE],
        worlds,
        seed,
    )


def outcomes(
    rules: Rules,
    worlds: np.ndarray,
    shows: list[Cards],
    buries: list[Cards | None],
    bots: Any,
    levels: tuple[int, int],
    seed: int,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
) -> dict[str, np.ndarray]:
    """Each candidate (its show, and its bury or None for the dealer's bot to bury) played out
    in each world from the bury: (candidates, worlds) arrays defender_points, dealer_holds and
    rise; `progress` hears of the play-outs as they are done. Native bots play natively
    (play_out); a Python or search bot (Pimc) is asked through Python, round by round, from
    the same positions and round seeds, WORLDS_A_CHUNK worlds at a time in `workers`
    processes (world j's round is seeded by j alone: the same numbers for any count)."""
    specs, objects, _ = resolve_bots(bots)
    if all(o is None for o in objects):
        cols = play_out(
            rules,
            worlds,
            to_masks(shows),
            to_masks([b or Cards() for b in buries]),
            specs,
            DEALER,
            levels,
            seed,
        )
        if progress:
            progress(len(shows) * len(worlds))
        return cols
    shape = (len(shows), len(worlds))
    cols = {name: np.zeros(shape, np.int16) for name in OUTCOMES}

    def save(start: int, part: dict[str, np.ndarray]) -> None:
        for name in OUTCOMES:
            cols[name][:, start : start + part[name].shape[1]] = part[name]
        if progress:
            progress(part[OUTCOMES[0]].size)

    starts = range(0, len(worlds), WORLDS_A_CHUNK)
    jobs = [(rules, seed, s, min(WORLDS_A_CHUNK, len(worlds) - s), (bots,)) for s in starts]
    options = {"worlds": worlds, "shows": shows, "buries": buries, "levels": levels}
    execute(played_in_python, jobs, options, save, workers, "local", None)  # type: ignore[arg-type]
    return cols


OUTCOMES = ("defender_points", "dealer_holds", "rise")
WORLDS_A_CHUNK = 4  # worlds a chunk when a Python or search bot plays: seconds of pimc


def played_in_python(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[Any],
    worlds: np.ndarray,
    shows: list[Cards],
    buries: list[Cards | None],
    levels: tuple[int, int],
) -> dict[str, np.ndarray]:
    """outcomes' worlds start .. start + count - 1 played by a Python or search bot (the
    one strategy): (candidates, count) arrays."""
    specs, objects, _ = resolve_bots(strategies[0])
    cols = {name: np.zeros((len(shows), count), np.int16) for name in OUTCOMES}
    with bot_processes():  # an external bot's process plays the chunk
        played_worlds(rules, seed, start, specs, objects, worlds, shows, buries, levels, cols)
    return cols


def played_worlds(
    rules: Rules,
    seed: int,
    start: int,
    specs: list,
    objects: list,
    worlds: np.ndarray,
    shows: list[Cards],
    buries: list[Cards | None],
    levels: tuple[int, int],
    cols: dict[str, np.ndarray],
) -> None:
    """played_in_python's play-outs, written into `cols`."""
    count = cols[OUTCOMES[0]].shape[1]
    for i, (show, bury) in enumerate(zip(shows, buries)):
        for j in range(count):
            table = Table.at_bury(
                rules,
                round_seed(seed, start + j),
                DEALER,
                levels,
                worlds[start + j],
                show,
                bury,
                specs,
            )
            while (pending := table.advance()) is not None:
                what, seat = pending
                answer_seat(table, rules, levels, objects[seat], what, seat)  # or forfeit
            rec = table.record()
            cols["defender_points"][i, j] = rec["defender_points"]
            cols["dealer_holds"][i, j] = rec["settlement"].dealer_holds
            cols["rise"][i, j] = rec["settlement"].rise


def scores(cols: dict[str, np.ndarray]) -> list[tuple[float, float]]:
    """Each candidate's sort key, best highest: its mean level change, then fewer points to
    the defenders (the level change moves in steps of a level, so it ties often)."""
    delta = level_delta(cols).mean(axis=1)
    points = cols["defender_points"].mean(axis=1)
    return [(float(d), -float(p)) for d, p in zip(delta, points)]


def ranked(
    column: str,
    labels: list[str],
    cols: dict[str, np.ndarray],
    extra: dict[str, list[str]] | None = None,
) -> Any:
    """The candidates as a frame, best first (`scores`; the first given on ties), each with
    the 95% interval of its level change's difference to the best's, world by world."""
    with needs("shengji.studies.analyze", "study"):
        import pandas as pd

    delta = level_delta(cols)
    keys = scores(cols)
    order = sorted(range(len(labels)), key=lambda i: (-keys[i][0], -keys[i][1], i))
    best = delta[order[0]]
    rows = []
    for i in order:
        _, low, high = Sums.of(delta[i] - best).interval(False)
        rows.append(
            {
                column: labels[i],
                "level_delta_mean": float(delta[i].mean()),
                "ci_low": low,
                "ci_high": high,
                "defender_points_mean": float(cols["defender_points"][i].mean()),
                "dealer_holds": float(cols["dealer_holds"][i].mean()),
                "n": delta.shape[1],
                **{name: values[i] for name, values in (extra or {}).items()},
            }
        )
    frame = pd.DataFrame(rows, columns=[column, *COLUMNS, *(extra or {})])
    # the paired outcomes, for a payoff table (shengji.studies.plays.payoff)
    frame.attrs["samples"] = Samples(
        tuple(labels[i] for i in order), delta[order], cols["defender_points"][order]
    )
    return frame


def swaps(bury: Cards, hand: Cards) -> list[Cards]:
    """The buries one swap away: a buried card for a kept one of another kind."""
    kept = hand - bury
    out: dict[Cards, None] = {}
    for down in dict.fromkeys(bury):
        for up in dict.fromkeys(kept):
            if up != down:
                out[bury - down + up] = None
    return list(out)


def team_levels(levels: Any, level: int) -> tuple[int, int]:
    """(the dealer's team's level, the other's): `levels` checked, the first the trump's
    level; None: both at it."""
    if levels is None:
        return (level, level)
    levels = validate.levels(levels)
    if levels[0] != level:
        raise ShengjiError(
            f"levels {levels}: the dealer's team (seat 0) plays at the trump's "
            f"level {RANK_NAMES[level]}, not {RANK_NAMES[levels[0]]}"
        )
    return levels


def checked_workers(bots: Any, workers: Any) -> int:
    """The worker processes of an analysis, checked (the bots too): 1 where a bot is a Python
    object without a text form, which may not reach another process (a Pimc and an external
    bot do: each worker starts the external bot's own process)."""
    workers = validate.integer(workers, "workers", 1, 1024)
    _, objects, _ = resolve_bots(bots)
    if any(o is not None and not isinstance(o, (Pimc, ExternalSeat)) for o in objects):
        return 1
    return workers


def analyze_bury(
    hand: Any,
    trump: Trump | str,
    rules: Rules | str = "v3",
    worlds: int = 2000,
    bots: Any = "greedy",
    seed: int = 0,
    candidates: Iterable[Any] | None = None,
    levels: Any = None,
    search: int = SEARCH,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
) -> Any:
    """Which 8 cards to bury: the dealer (seat 0) holds these 33 cards, the bottom taken up,
    having declared `trump` after the deal (its level cards of the trump suit, both when it
    holds both; no trump: a joker pair) with nobody overturning. The other 75 cards are dealt
    uniformly to the other three seats in `worlds` worlds (seeded by `seed`), the same for
    every candidate, and each candidate bury is played out in every world by `bots` (a name
    or a bot for all four seats, or four; the round goes on by the rules, 抄底 included, each
    world's round seeded alike for every candidate).

    Candidates: each greedy bury strategy's choice on this hand (low, voids, points, random,
    low_voids), your `candidates` (8 cards of the hand each), and a search: from the best so
    far, the buries one swap away (a buried card for a kept one) are screened on the first
    worlds, the most promising played in every world, and so on from the new best, in at
    most `search` play-outs (a budget too small to screen the swaps on 30 worlds each, about
    5,000 play-outs, searches nothing; 0: no search). levels: (the dealer's team's, the
    other's), the first the trump's level; by default both teams are at the trump's level.
    workers: processes playing a Python or search bot's worlds (the same numbers for any
    count; a Python bot object, which may not reach a process, plays here); progress(n): n
    more play-outs done.

    Returns a pandas DataFrame, best first: `bury`; `level_delta_mean`, the dealer's team's
    mean level change; `ci_low`, `ci_high`, the 95% interval of its difference to the best,
    world by world (0 for the best); `defender_points_mean`; `dealer_holds`, the share of
    worlds the dealer's team holds; `n`, the worlds; `by`, who proposed it."""
    rules = Rules.of(rules)
    trump = rules.trump_of(trump)
    hand = hand_of(hand, HAND_SIZE + BOTTOM_SIZE, "the dealer's, the bottom taken up")
    worlds = validate.count(worlds, "worlds", 1, MAX_WORLDS)
    seed = validate.seed(seed)
    search = validate.count(search, "search", 0, 10**9)
    workers = checked_workers(bots, workers)
    show = show_of(hand, trump, rules)
    if isinstance(candidates, (str, Cards)):
        raise ShengjiError("candidates must be a list of buries (8 cards each), not one bury")
    if candidates is not None and not isinstance(candidates, Iterable):
        raise ShengjiError(
            f"candidates must be a list of buries (8 cards each), got {validate.short(candidates)}"
        )
    found: dict[Cards, list[str]] = {}
    for name, bury in strategy_buries(hand, trump, seed).items():
        found.setdefault(bury, []).append(name)
    for i, c in enumerate(candidates or (), 1):
        found.setdefault(bury_of(c, hand, f"candidate {i}"), []).append(f"given {i}")
    places = bury_worlds(hand, show, worlds, seed)
    levels = team_levels(levels, trump.level)

    def play(buries: list[Cards], k: int) -> dict[str, np.ndarray]:
        return outcomes(
            rules,
            places[:k],
            [show] * len(buries),
            list(buries),
            bots,
            levels,
            seed,
            workers,
            progress,
        )

    buries = list(found)
    parts = [play(buries, worlds)]
    budget = search
    tried = set(buries)
    while True:
        cols = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
        keys = scores(cols)
        best = max(range(len(buries)), key=lambda i: (keys[i], -i))
        neighbours = [b for b in swaps(buries[best], hand) if b not in tried]
        screen = min(worlds, budget // (2 * len(neighbours))) if neighbours else 0
        if screen < min(worlds, MIN_SCREEN):
            break
        tried.update(neighbours)
        budget -= screen * len(neighbours)
        # the best's own outcomes on the screen's worlds, for a paired comparison
        ahead = scores(
            {
                name: np.concatenate([v[best : best + 1, :screen], play(neighbours, screen)[name]])
                for name, v in cols.items()
            }
        )
        promising = sorted(
            (i for i in range(1, len(ahead)) if ahead[i] > ahead[0]),
            key=lambda i: ahead[i],
            reverse=True,
        )
        picked = [neighbours[i - 1] for i in promising[: min(SEARCH_STEP, budget // worlds)]]
        if not picked:
            break
        budget -= worlds * len(picked)
        parts.append(play(picked, worlds))
        buries += picked
        for b in picked:
            found[b] = ["search"]
    return ranked(
        "bury", [str(b) for b in buries], cols, {"by": [", ".join(found[b]) for b in buries]}
    )


def analyze_trump(
    hand: Any,
    level: int | str,
    rules: Rules | str = "v3",
    worlds: int = 2000,
    bots: Any = "greedy",
    seed: int = 0,
    levels: Any = None,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
) -> Any:
    """Which trump to declare: this seat (seat 0) holds these 25 cards at the end of the draw
    at `level`, and its team deals (it deals and declares; nobody overturns before the
    bottom). Each trump it could declare (a suit whose level card it holds; no trump where the
    rules let a joker pair declare it) is played out by `bots` from the bury (the dealer's bot
    buries) in the same `worlds` worlds: the other 83 cards dealt uniformly to the other three
    seats and the bottom, seeded by `seed`. levels: as analyze_bury's, the first `level`;
    workers and progress as analyze_bury's.

    Returns a pandas DataFrame, best first: `trump` (2S, 2NT, ...) and the columns of
    analyze_bury but `by`."""
    rules = Rules.of(rules)
    level = Trump(level).level
    hand = hand_of(hand, HAND_SIZE, "at the end of the draw")
    worlds = validate.count(worlds, "worlds", 1, MAX_WORLDS)
    seed = validate.seed(seed)
    workers = checked_workers(bots, workers)
    choices = declarable(hand, level, rules)
    if not choices:
        raise ShengjiError(
            f"the hand cannot declare at level {RANK_NAMES[level]}: it holds no "
            f"{RANK_NAMES[level]}" + (" and no joker pair" if rules.joker_pair_declares else "")
        )
    places = trump_worlds(hand, worlds, seed)
    cols = outcomes(
        rules,
        places,
        [show for _, show in choices],
        [None] * len(choices),
        bots,
        team_levels(levels, level),
        seed,
        workers,
        progress,
    )
    return ranked("trump", [trump_text(t) for t, _ in choices], cols)
