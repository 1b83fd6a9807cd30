"""The one schema of shengji's data: every column of every frame and file it writes (a
simulate_rounds frame, a duel's frame and deals.parquet, each study's deals.parquet), by
name, type, meaning and when it is null. docs/manual/data.md shows these tables, and
tests/test_schema.py checks both the page and every output against them.

One convention everywhere:
- the same quantity has the same name and the same type in every output (QUANTITIES);
- a variant of a column is `<quantity>__<variant>`: `__seat0` .. `__seat3` a seat's, a
  duel's `__seating1` (A at seats 0 and 2) and `__seating2` (A at 1 and 3), a study's
  `__<strategy>`;
- the trump suit is a category (Arrow: a dictionary) of the letters of cards.TRUMP_SUITS,
  D C H S and NT, the categories always all five in that order;
- a missing value is null (pandas NA; NaN in a float column), never -1: the declarer where
  nobody declared, for instance.

The engine's columns (shengji.play._batch.simulate) hold int16 codes: a seat or count, -1
for none, the trump suit's index in TRUMP_SUITS, 0/1 for a flag. `frame` turns them, or any
output's rows, into the schema's pandas dtypes; `arrow_table` into its Arrow types.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from shengji._optional import needs
from shengji.core.cards import SEATS, SUITS, TRUMP_SUITS
from shengji.errors import EngineError

SUIT = "trump_suit"  # the type of a trump suit: a category of TRUMP_SUITS
ARROW_SUIT = "dictionary<values=string, indices=int8, ordered=0>"
# pandas' nullable twin of a NumPy dtype, for a column that may be null
NULLABLE = {
    "bool": "boolean",
    "int8": "Int8",
    "int16": "Int16",
    "int64": "Int64",
    "uint64": "UInt64",
}


@dataclass(frozen=True)
class Quantity:
    """What a column holds wherever it appears: its name, type and meaning."""

    name: str
    dtype: str  # numpy dtype name, or SUIT
    meaning: str
    none: bool = False  # the engine writes -1 for "none" (a null in every output)


@dataclass(frozen=True)
class Column:
    """One column of one output: a quantity, maybe a variant of it, and when it is null or
    absent ("" for never)."""

    quantity: Quantity
    variant: str = ""
    null: str = ""
    absent: str = ""

    @property
    def name(self) -> str:
        return self.quantity.name + (f"__{self.variant}" if self.variant else "")

    @property
    def pandas_dtype(self) -> str:
        """The pandas dtype: the quantity's numpy dtype, or its nullable twin (Int8,
        boolean) where it may be null; NaN marks a null float."""
        dtype = self.quantity.dtype
        if dtype == SUIT:
            return "category"
        if not self.null or dtype.startswith("float"):
            return dtype
        return NULLABLE[dtype]

    @property
    def arrow_type(self) -> str:
        """The Arrow (Parquet) type, as pyarrow writes it."""
        dtype = self.quantity.dtype
        return ARROW_SUIT if dtype == SUIT else {"float64": "double"}.get(dtype, dtype)

    def series(self, values: Any) -> Any:
        """`values` (the engine's codes, or a masked array with nulls masked) as a pandas
        array of this column's dtype."""
        with needs("a shengji frame", "study"):
            import pandas as pd

        data = np.asarray(np.ma.getdata(values))
        null = np.ma.getmaskarray(values)
        if self.quantity.none:
            null = null | (data < 0)
        if null.any() and not self.null:
            raise EngineError(f"column {self.name} holds nulls but is never null")
        dtype = self.quantity.dtype
        if dtype == SUIT:
            return pd.Categorical.from_codes(np.where(null, -1, data), dtype=suit_dtype())
        if not self.null or dtype.startswith("float"):
            out = data.astype(dtype)
            if null.any():
                out[null] = np.nan
            return out
        return (
            pd.arrays.BooleanArray(data.astype(bool), null)
            if dtype == "bool"
            else pd.arrays.IntegerArray(data.astype(dtype), null)
        )


def suit_dtype() -> Any:
    """The pandas dtype of a trump suit: all five letters, in TRUMP_SUITS order."""
    with needs("a shengji frame", "study"):
        import pandas as pd
    return pd.CategoricalDtype(list(TRUMP_SUITS))


def _quantities(*specs: tuple) -> dict[str, Quantity]:
    return {spec[0]: Quantity(*spec) for spec in specs}


QUANTITIES = _quantities(
    # -- which deal or round
    ("deal", "int64", "the deal's index i: its round is seeded round_seed(seed, i)"),
    ("match", "int64", "the match's index i: both its matches are seeded round_seed(seed, i)"),
    (
        "seed",
        "uint64",
        "the round's seed, round_seed(seed, i): play_round(seed=...) (a "
        "match's: play_match) plays it again",
    ),
    ("attempts", "int64", "deals drawn until accept took one"),
    # -- a round (a row of simulate_rounds; shengji.play._batch fills them)
    ("dealer", "int8", "the dealer's seat, 0..3"),
    ("declarer", "int8", "the seat whose show set the trump, 0..3", True),
    ("trump_suit", SUIT, "the trump suit: D, C, H, S, or NT for no trump"),
    ("level", "int16", "the level played, 2..14 (J 11, Q 12, K 13, A 14)"),
    (
        "defender_points",
        "int16",
        "the defenders' final points: tricks, penalty and bottom, floored at 0",
    ),
    ("trick_points", "int16", "the points the defenders won in tricks"),
    ("bottom_points", "int16", "the points of the cards buried last (the bottom)"),
    ("multiplier", "int16", "the bottom's multiplier (0: the dealer's team won the last trick)"),
    (
        "penalty",
        "int16",
        "the defenders' points from failed throws (§6): + where a seat "
        "of the dealer's team threw, - where a defender did",
    ),
    ("dealer_holds", "bool", "the dealer's team holds (keeps the deal)"),
    ("rise", "int16", "the levels the rising team goes up (the dealer's if it holds)"),
    ("tricks", "int16", "tricks played"),
    ("throws", "int16", "leads of more than one unit"),
    ("failed_throws", "int16", "throws that failed (§6)"),
    ("deals", "int16", "deals in the round: 1, more after redeals"),
    ("overturns", "int16", "overturns in the last deal"),
    ("reinforced", "bool", "a declaration was reinforced in the last deal"),
    (
        "declarer_trumps",
        "int16",
        "the declarer's trumps when the first trick starts (in the "
        "trump-calling study, when the declarations end)",
        True,
    ),
    (
        "forfeit",
        "int8",
        "the seat whose external bot failed a decision, its team forfeiting the round "
        "(docs/manual/external-bots.md)",
        True,
    ),
    # -- a seat's hand as first dealt (shengji.core.deals.hand_features)
    *(
        (f"hand_{suit}", "int8", f"the hand's cards of suit {suit}, its level cards included")
        for suit in SUITS
    ),
    ("hand_level", "int8", "the hand's level cards (the level the round is played at)"),
    ("hand_jokers", "int8", "the hand's jokers"),
    ("hand_points", "int16", "the hand's points (fives 5, tens and kings 10)"),
    # -- a duel
    (
        "a_advantage",
        "int16",
        "team A's level advantage in the round: A's rise if A rises, minus B's if B rises",
    ),
    (
        "score",
        "float64",
        "A's level advantage a deal: the mean of a_advantage over the two seatings",
    ),
    ("a_won", "bool", "A won the match"),
    ("rounds", "int16", "rounds the match lasted"),
    ("a_wins", "float64", "the share of the pair's two matches A won"),
    # -- the trump-calling study's deal (seat 0 draws first)
    ("hand_has_level_card", "bool", "seat 0's hand holds a level card"),
    ("hand_has_level_pair", "bool", "seat 0's hand holds a pair of level cards"),
    ("hand_has_joker_pair", "bool", "seat 0's hand holds a pair of jokers"),
    ("hand_points_at_most_15", "bool", "seat 0's hand holds 15 points or fewer"),
    ("dealt_bottom_points", "int16", "the points in the bottom as dealt"),
    ("dealt_bottom_points_zero", "bool", "the bottom as dealt holds no points"),
    # -- a study's strategy against the baseline
    (
        "duel_score",
        "float64",
        "the strategy's duel score against the baseline (`against`): "
        "its level advantage a deal in duplicate",
    ),
)

ROUND_NAMES = (
    "dealer",
    "declarer",
    "trump_suit",
    "level",
    "defender_points",
    "trick_points",
    "bottom_points",
    "multiplier",
    "penalty",
    "dealer_holds",
    "rise",
    "tricks",
    "throws",
    "failed_throws",
    "deals",
    "overturns",
    "reinforced",
    "declarer_trumps",
)
# what a round has decided when its first trick is about to start (simulate's play=False)
DECLARATION_NAMES = (
    "dealer",
    "declarer",
    "trump_suit",
    "level",
    "deals",
    "overturns",
    "reinforced",
    "declarer_trumps",
)
HAND_NAMES = tuple(f"hand_{suit}" for suit in SUITS) + ("hand_level", "hand_jokers", "hand_points")
DUEL_ROUND_NAMES = (
    "dealer",
    "declarer",
    "trump_suit",
    "defender_points",
    "dealer_holds",
    "rise",
    "a_advantage",
    "forfeit",
)
SEATINGS = ("seating1", "seating2")  # a duel's: A at seats 0 and 2, then at 1 and 3
NOBODY = "nobody declared: the bottom was turned for the trump"
PLAYED_OUT = "no bot failed: the round was played out"
NO_TRUMP_YET = "an external bot forfeited the round before the trump was set"


def seat_variant(s: int) -> str:
    """The variant of seat s's column."""
    return f"seat{s}"


SEAT_VARIANTS = tuple(seat_variant(s) for s in range(SEATS))


def columns(
    names: Iterable[str], variant: str = "", null: dict[str, str] | None = None, absent: str = ""
) -> tuple[Column, ...]:
    """The columns of these quantities (one variant), null where `null` says (by name; the
    quantities the engine writes "none" for are null where nobody declared)."""
    null = null or {}
    return tuple(
        Column(QUANTITIES[n], variant, null.get(n, NOBODY if QUANTITIES[n].none else ""), absent)
        for n in names
    )


ROUND_COLUMNS = columns(("seed",) + ROUND_NAMES, null={"trump_suit": NO_TRUMP_YET})


def hand_columns(seats: Sequence[str] = SEAT_VARIANTS) -> tuple[Column, ...]:
    """Each seat's hand as first dealt, seats 0..3 (absolute)."""
    return tuple(c for s in seats for c in columns(HAND_NAMES, s))


# The schema of each study's rows, (strategies, options) -> columns (Study.columns); `seats`
# and `seatings`, the variants shown (docs/manual/data.md shows patterns: seat<s>).


def duel_columns(
    strategies: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    seats: Sequence[str] = SEAT_VARIANTS,
    seatings: Sequence[str] = SEATINGS,
) -> tuple[Column, ...]:
    """A duel of deals' rows (deals.parquet, Duel.frame)."""
    return (
        columns(("deal", "seed"))
        + columns(("attempts",), absent="unless accept is given")
        + hand_columns(seats)
        + tuple(
            c
            for s in seatings
            for c in columns(
                DUEL_ROUND_NAMES, s, {"forfeit": PLAYED_OUT, "trump_suit": NO_TRUMP_YET}
            )
        )
        + columns(("score",))
    )


def match_columns(
    strategies: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    seatings: Sequence[str] = SEATINGS,
) -> tuple[Column, ...]:
    """A duel of matches' rows, one per pair of matches."""
    return (
        columns(("match", "seed"))
        + tuple(c for name in ("a_won", "rounds") for s in seatings for c in columns((name,), s))
        + columns(("a_wins",))
    )


NOT_PLAYED = "the deal was not played out (play_every)"
BASELINE = "where the strategy plays as the baseline (`against`) does"
CALLING_NAMES = (
    "declarer",
    "dealer",
    "trump_suit",
    "overturns",
    "reinforced",
    "declarer_trumps",
    "dealer_holds",
    "rise",
)
BURYING_NAMES = (
    "defender_points",
    "bottom_points",
    "multiplier",
    "dealer_holds",
    "rise",
    "trump_suit",
    "declarer",
)


def calling_columns(
    strategies: Sequence[str],
    options: dict[str, Any] | None = None,
    seats: Sequence[str] = SEAT_VARIANTS,
) -> tuple[Column, ...]:
    """The trump-calling study's rows."""
    played = {"dealer_holds": NOT_PLAYED, "rise": NOT_PLAYED, "duel_score": NOT_PLAYED}
    return (
        columns(
            (
                "deal",
                "seed",
                "hand_has_level_card",
                "hand_has_level_pair",
                "hand_has_joker_pair",
                "hand_points_at_most_15",
                "dealt_bottom_points",
                "dealt_bottom_points_zero",
            )
        )
        + hand_columns(seats)
        + tuple(c for s in strategies for c in columns(CALLING_NAMES, s, played))
        + tuple(c for s in strategies for c in columns(("duel_score",), s, played, absent=BASELINE))
    )


def burying_columns(
    strategies: Sequence[str],
    options: dict[str, Any] | None = None,
    seats: Sequence[str] = SEAT_VARIANTS,
) -> tuple[Column, ...]:
    """The burying study's rows."""
    return (
        columns(("deal", "seed"))
        + hand_columns(seats)
        + tuple(c for s in strategies for c in columns(BURYING_NAMES, s))
        + tuple(c for s in strategies for c in columns(("duel_score",), s, absent=BASELINE))
    )


def documented() -> dict[str, tuple[Column, ...]]:
    """The tables of docs/manual/data.md, by the title of their section: each output's
    columns, variants as patterns (seat<s>, seating<r>, <strategy>)."""
    seats, seatings, strategies = ("seat<s>",), ("seating<r>",), ("<strategy>",)
    return {
        "simulate_rounds": ROUND_COLUMNS,
        "A duel of deals": duel_columns(seats=seats, seatings=seatings),
        "A duel of matches": match_columns(seatings=seatings),
        "The trump-calling study": calling_columns(strategies, seats=seats),
        "The burying study": burying_columns(strategies, seats=seats),
    }


def frame(rows: dict[str, Any], schema: Sequence[Column]) -> Any:
    """Rows (the engine's codes, masked arrays for nulls) as a pandas DataFrame of the
    schema's dtypes, in the rows' order; an EngineError names a column the schema lacks."""
    with needs("a shengji frame", "study"):
        import pandas as pd

    by_name = {c.name: c for c in schema}
    unknown = [name for name in rows if name not in by_name]
    if unknown:
        raise EngineError(f"columns {unknown} are in no schema of shengji.core.schema")
    return pd.DataFrame({name: by_name[name].series(v) for name, v in rows.items()})


def arrow_table(rows: dict[str, Any], schema: Sequence[Column]) -> Any:
    """Rows as a pyarrow Table of the schema's Arrow types, with pandas' metadata: read back
    by pandas (pd.read_parquet, Table.to_pandas) it has the schema's pandas dtypes."""
    with needs("a shengji frame", "study"):
        import pyarrow as pa

    data = frame(rows, schema)
    by_name = {c.name: c for c in schema}
    fields = [pa.field(name, arrow_types()[by_name[name].quantity.dtype]) for name in data]
    return pa.Table.from_pandas(data, schema=pa.schema(fields), preserve_index=False)


def arrow_types() -> dict[str, Any]:
    """The Arrow type of each quantity's dtype."""
    with needs("a shengji frame", "study"):
        import pyarrow as pa
    return {
        "int8": pa.int8(),
        "int16": pa.int16(),
        "int64": pa.int64(),
        "uint64": pa.uint64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        SUIT: pa.dictionary(pa.int8(), pa.string()),
    }


def markdown(schema: Sequence[Column]) -> str:
    """The schema as docs/manual/data.md shows it: a table of name, dtype (pandas; Arrow),
    meaning, null when."""
    lines = [
        "| column | pandas dtype | Arrow type | meaning | null when |",
        "|---|---|---|---|---|",
    ]
    for c in schema:
        when = (
            c.null
            + ("; " if c.null and c.absent else "")
            + (f"absent {c.absent}" if c.absent else "")
        )
        lines.append(
            f"| `{c.name}` | {c.pandas_dtype} | {c.arrow_type} | "
            f"{c.quantity.meaning} | {when or '-'} |"
        )
    return "\n".join(lines)
